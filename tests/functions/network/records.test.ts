// Records apps write: checked against the protocol's own lexicons, their CIDs computed as the protocol does.
import assert from "node:assert/strict";
import { cidForRawBytes } from "@atproto/lex-data";
import { test } from "../../helpers/test.ts";
import { recordCid, validateRecord } from "../../../functions/network/records.ts";

const cids = await Promise.all([...Array(10).keys()].map(async (n) => (await cidForRawBytes(new Uint8Array([n]))).toString()));
const blob = (n: number, mimeType = "image/png") => ({
  $type: "blob" as const,
  ref: { $link: cids[n] },
  mimeType,
  size: 100 + n,
});
const picture = (n: number) => ({ image: blob(n), alt: `picture ${n}` });
const createdAt = new Date("2026-11-20T10:00:00Z");

test("a record app writes is checked by its lexicon, and its CID is the protocol's (dag-cbor, sha2-256)", async () => {
  const record = validateRecord("app.bsky.feed.post", { text: "hi", createdAt: createdAt.toISOString() });
  assert.equal(record.$type, "app.bsky.feed.post");
  assert.match(await recordCid(record), /^bafyrei[a-z2-7]{52}$/);
  assert.throws(() => validateRecord("app.bsky.feed.post", { text: "hi" }), /Invalid app.bsky.feed.post record/);
  assert.throws(() => validateRecord("app.bsky.feed.post", { $type: "app.bsky.feed.like", text: "hi" }), /\$type/);
});

test("a post from an app carries up to four pictures, or one video: more is InvalidRecord", () => {
  const post = (embed: unknown) => ({ text: "pictures", createdAt: createdAt.toISOString(), embed });
  const four = validateRecord("app.bsky.feed.post", post({ $type: "app.bsky.embed.images", images: [1, 2, 3, 4].map(picture) }));
  assert.equal((four.embed as { images: unknown[] }).images.length, 4);
  validateRecord("app.bsky.feed.post", post({ $type: "app.bsky.embed.video", video: blob(9, "video/mp4") }));
  assert.throws(
    () => validateRecord("app.bsky.feed.post", post({ $type: "app.bsky.embed.images", images: [1, 2, 3, 4, 5].map(picture) })),
    /Invalid app.bsky.feed.post record/,
  );
});
