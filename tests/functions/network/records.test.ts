// Records as apps are given them (spec: uploadBlob row): up to four pictures or one video; a post with
// more, or a mix, goes out as its first four pictures with a link to the whole post in its text. Every
// result is a valid app.bsky.feed.post by the protocol's own lexicon.
import assert from "node:assert/strict";
import { lexicons } from "@atproto/api";
import { jsonToLex } from "@atproto/lexicon";
import { cidForRawBytes } from "@atproto/lex-data";
import { test } from "../../helpers/test.ts";
import { recordCid, sitePostRecord, validateRecord } from "../../../functions/network/records.ts";

const cids = await Promise.all([...Array(10).keys()].map(async (n) => (await cidForRawBytes(new Uint8Array([n]))).toString()));
const blob = (n: number, mimeType = "image/png") => ({
  $type: "blob" as const,
  ref: { $link: cids[n] },
  mimeType,
  size: 100 + n,
});
const picture = (n: number) => ({ blob: blob(n), alt: `picture ${n}` });
const video = { blob: blob(9, "video/mp4"), alt: "a video" };
const createdAt = new Date("2026-11-20T10:00:00Z");
const URL_OF_POST = "https://demo.sitewire.dev/community/posts/42";
const valid = (record: Record<string, unknown>) => lexicons.assertValidRecord("app.bsky.feed.post", jsonToLex(record));

test("up to four pictures, or one video, go out as they are", () => {
  const four = sitePostRecord({ text: "four", createdAt, pictures: [1, 2, 3, 4].map(picture), videos: [] }, URL_OF_POST);
  valid(four);
  assert.equal((four.embed as { images: unknown[] }).images.length, 4);
  assert.equal(four.text, "four");
  const one = sitePostRecord({ text: "film", createdAt, pictures: [], videos: [video] }, URL_OF_POST);
  valid(one);
  assert.equal((one.embed as { $type: string }).$type, "app.bsky.embed.video");
});

test("more than four pictures: the first four, and a link to the whole post as a facet", () => {
  const record = sitePostRecord({ text: "six of them", createdAt, pictures: [1, 2, 3, 4, 5, 6].map(picture), videos: [] }, URL_OF_POST);
  valid(record);
  const images = (record.embed as { images: { alt: string }[] }).images;
  assert.deepEqual(images.map((i) => i.alt), ["picture 1", "picture 2", "picture 3", "picture 4"]);
  assert.equal(record.text, `six of them\n${URL_OF_POST}`);
  const [facet] = record.facets as { index: { byteStart: number; byteEnd: number } }[];
  const bytes = new TextEncoder().encode(record.text as string);
  assert.equal(new TextDecoder().decode(bytes.slice(facet.index.byteStart, facet.index.byteEnd)), URL_OF_POST);
});

test("pictures and a video together: the pictures and the link; a long text is shortened to fit", () => {
  const text = "é".repeat(299);
  const record = sitePostRecord({ text, createdAt, pictures: [picture(1)], videos: [video] }, URL_OF_POST);
  valid(record);
  assert.equal((record.embed as { $type: string }).$type, "app.bsky.embed.images");
  assert.ok((record.text as string).endsWith(`…\n${URL_OF_POST}`));
});

test("a record app writes is checked by its lexicon, and its CID is the protocol's (dag-cbor, sha2-256)", async () => {
  const record = validateRecord("app.bsky.feed.post", { text: "hi", createdAt: createdAt.toISOString() });
  assert.equal(record.$type, "app.bsky.feed.post");
  assert.match(await recordCid(record), /^bafyrei[a-z2-7]{52}$/);
  assert.throws(() => validateRecord("app.bsky.feed.post", { text: "hi" }), /Invalid app.bsky.feed.post record/);
  assert.throws(() => validateRecord("app.bsky.feed.post", { $type: "app.bsky.feed.like", text: "hi" }), /\$type/);
});
