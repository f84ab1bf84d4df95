import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import {
  assetIdForPath,
  contentHash,
  contentTypeFor,
  imageSize,
  mediaPath,
} from "../../../shared/site/media.ts";
import { DEMO_SITE } from "./temp-site.ts";

test("image sizes are read from PNG, JPEG, GIF and WebP headers", async () => {
  const cases: [string, number, number][] = [
    ["photos/harbor.jpg", 640, 480],
    ["photos/mountain.jpg", 800, 533],
    ["photos/forest.webp", 320, 200],
    ["covers/field-guide.png", 240, 360],
    ["banners/spring-sale.png", 728, 90],
    ["icons/spark.gif", 64, 64],
  ];
  for (const [path, width, height] of cases) {
    assert.deepEqual(imageSize(await Deno.readFile(`${DEMO_SITE}/media/${path}`)), { width, height }, path);
  }
  assert.equal(imageSize(await Deno.readFile(`${DEMO_SITE}/media/docs/price-list.pdf`)), undefined);
  assert.equal(imageSize(new Uint8Array([0xff, 0xd8, 0xff])), undefined);
});

test("asset ids are 22 base62 characters, stable for a path and different between paths", () => {
  const id = assetIdForPath("media/photos/harbor.jpg");
  assert.match(id, /^[0-9A-Za-z]{22}$/);
  assert.equal(assetIdForPath("media/photos/harbor.jpg"), id);
  assert.notEqual(assetIdForPath("media/photos/forest.webp"), id);
  assert.match(contentHash(new Uint8Array([1, 2, 3])), /^[0-9a-f]{16}$/);
});

test("media paths are recognised with or without the leading slash; addresses are not media paths", () => {
  assert.equal(mediaPath("media/a/b.png"), "media/a/b.png");
  assert.equal(mediaPath("/media/a/b.png"), "media/a/b.png");
  assert.equal(mediaPath("./media/a%20b.png"), "media/a b.png");
  assert.equal(mediaPath("https://x.y/media/a.png"), undefined);
  assert.equal(mediaPath("photos/a.png"), undefined);
});

test("content types come from the extension", () => {
  assert.equal(contentTypeFor("a.JPG"), "image/jpeg");
  assert.equal(contentTypeFor("a.webp"), "image/webp");
  assert.equal(contentTypeFor("a.pdf"), "application/pdf");
  assert.equal(contentTypeFor("a.txt"), "text/plain");
  assert.equal(contentTypeFor("a.unknown"), "application/octet-stream");
});
