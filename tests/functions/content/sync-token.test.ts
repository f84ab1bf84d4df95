import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { decodeSyncToken, encodeSyncToken } from "../../../functions/content/domain/sync-token.ts";

test("a sync token round-trips its position and uses only URL-unreserved characters", async () => {
  const paging = {
    stage: "published" as const,
    type: "Entry" as const,
    contentType: "article",
    from: 42,
    to: 99,
    cursor: { xid: 57, seq: 1234 },
    initial: true,
  };
  const token = await encodeSyncToken(paging, "secret");
  assert.match(token, /^[A-Za-z0-9._~-]+$/);
  assert.deepEqual(await decodeSyncToken(token, "secret"), paging);
  const delta = { stage: "preview" as const, type: "all" as const, from: 7, initial: false };
  assert.deepEqual(await decodeSyncToken(await encodeSyncToken(delta, "secret"), "secret"), delta);
});

test("a token signed with another secret, altered, or made up is refused", async () => {
  const token = await encodeSyncToken({ stage: "published", type: "all", from: 1, initial: false }, "secret");
  assert.equal(await decodeSyncToken(token, "other"), undefined);
  const [payload, signature] = token.split(".");
  const altered = payload.slice(0, -2) + (payload.endsWith("A") ? "BA" : "AA");
  assert.equal(await decodeSyncToken(`${altered}.${signature}`, "secret"), undefined);
  assert.equal(await decodeSyncToken("hello", "secret"), undefined);
  assert.equal(await decodeSyncToken("a.b.c", "secret"), undefined);
});
