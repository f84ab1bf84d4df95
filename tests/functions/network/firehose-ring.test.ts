// The firehose's ring is searched, not scanned, for where a subscriber's cursor falls: the search agrees
// with a scan for every cursor, with gaps in the numbers (a rolled-back transaction leaves one).
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { firstAfter } from "../../../functions/network/federation/firehose.ts";

test("the first frame after a cursor is the one a scan finds, for every cursor, ring and gap", () => {
  for (let size = 0; size < 40; size++) {
    let seq = 100;
    const ring = Array.from({ length: size }, () => ({ seq: (seq += 1 + Math.floor(Math.random() * 3)) }));
    for (let cursor = 95; cursor <= seq + 2; cursor++) {
      const scanned = ring.findIndex((f) => f.seq > cursor);
      assert.equal(firstAfter(ring, cursor), scanned === -1 ? ring.length : scanned, `ring of ${size}, cursor ${cursor}`);
    }
  }
});
