// What fits in one #commit: a relay refuses an event whose blocks CAR is over 2 MB or that has more than
// 200 ops (sync v1.1), so a commit past either is announced by #sync. The bounds themselves, inclusive.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import {
  COMMIT_EVENT_MAX_BLOCKS_BYTES,
  COMMIT_EVENT_MAX_OPS,
  fitsCommitEvent,
} from "../../../functions/network/federation/events.ts";

test("a commit fits one #commit up to 2,000,000 bytes of blocks and 200 ops, and not one byte or op more", () => {
  assert.deepEqual([COMMIT_EVENT_MAX_BLOCKS_BYTES, COMMIT_EVENT_MAX_OPS], [2_000_000, 200]);
  assert.equal(fitsCommitEvent(new Uint8Array(2_000_000), 200), true);
  assert.equal(fitsCommitEvent(new Uint8Array(2_000_001), 1), false);
  assert.equal(fitsCommitEvent(new Uint8Array(100), 201), false);
  assert.equal(fitsCommitEvent(new Uint8Array(100), 0), true);
});
