// The images door's core: parameters (every BadQuery case), the cache key, the header sniffer and its
// memory guard, and every transform checked by decoding the output.
import assert from "node:assert/strict";
import { GIF, Image } from "imagescript";
import { decode as decodeWebp } from "@cwasm/webp";
import { test } from "../../helpers/test.ts";
import {
  assertDecodable,
  hasImageTransform,
  imageCacheKey,
  ImageError,
  type ImageParams,
  MAX_INPUT_PIXELS,
  parseImageParams,
  planGeometry,
  sniffImage,
  transformImage,
} from "../../../functions/content/images/mod.ts";
import { resample } from "../../../functions/content/images/raster.ts";

// ---------- helpers ----------

type Px = [number, number, number, number];
const RED: Px = [255, 0, 0, 255];
const GREEN: Px = [0, 255, 0, 255];
const BLUE: Px = [0, 0, 255, 255];
const WHITE: Px = [255, 255, 255, 255];
const CLEAR: Px = [0, 0, 0, 0];

function raw(width: number, height: number, color: (x: number, y: number) => Px): Image {
  const image = new Image(width, height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) image.bitmap.set(color(x, y), (y * width + x) * 4);
  }
  return image;
}

/** 200×100: left half red, right half blue. */
const halves = () => raw(200, 100, (x) => x < 100 ? RED : BLUE);
/** 100×200: top half green, bottom half blue. */
const stacked = () => raw(100, 200, (_x, y) => y < 100 ? GREEN : BLUE);
/** 200×200 quadrants: red, green / blue, white. */
const quadrants = () => raw(200, 200, (x, y) => y < 100 ? (x < 100 ? RED : GREEN) : (x < 100 ? BLUE : WHITE));

const png = (image: Image) => image.encode(1);
const jpeg = (image: Image, q = 95) => image.encodeJPEG(q as never);

interface Decoded {
  width: number;
  height: number;
  data: Uint8Array;
}

async function decodeAny(bytes: Uint8Array): Promise<Decoded> {
  const kind = sniffImage(bytes)?.format;
  if (kind === "webp") {
    const d = decodeWebp(bytes);
    return { width: d.width, height: d.height, data: new Uint8Array(d.data.buffer) };
  }
  if (kind === "gif") {
    const frame = (await GIF.decode(bytes, true))[0];
    return { width: frame.width, height: frame.height, data: new Uint8Array(frame.bitmap.buffer) };
  }
  const image = await Image.decode(bytes);
  return { width: image.width, height: image.height, data: new Uint8Array(image.bitmap.buffer) };
}

function pixel(d: Decoded, x: number, y: number): Px {
  const p = (y * d.width + x) * 4;
  return [d.data[p], d.data[p + 1], d.data[p + 2], d.data[p + 3]];
}

function assertNear(actual: Px, expected: Px, tolerance = 6, label = "") {
  const ok = actual.every((v, i) => Math.abs(v - expected[i]) <= tolerance);
  assert.ok(ok, `${label} pixel ${actual.join(",")} is not near ${expected.join(",")}`);
}

function params(query: string): ImageParams {
  const parsed = parseImageParams(new URLSearchParams(query));
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.params;
}

async function run(source: Uint8Array, query: string) {
  const result = await transformImage(source, params(query));
  const decoded = await decodeAny(result.bytes);
  assert.equal(decoded.width, result.width);
  assert.equal(decoded.height, result.height);
  return { result, decoded };
}

async function rejects(promise: Promise<unknown>, reason: string): Promise<ImageError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ImageError, `expected an ImageError, got ${error}`);
    assert.equal(error.reason, reason);
    return error;
  }
  assert.fail(`expected ImageError ${reason}`);
}

function u32be(n: number): number[] {
  return [n >>> 24 & 255, n >>> 16 & 255, n >>> 8 & 255, n & 255];
}

/** A PNG that is only a signature and an IHDR claiming the given size. */
function pngHeader(width: number, height: number): Uint8Array {
  return new Uint8Array([
    0x89,
    0x50,
    0x4e,
    0x47,
    0x0d,
    0x0a,
    0x1a,
    0x0a,
    0,
    0,
    0,
    13,
    0x49,
    0x48,
    0x44,
    0x52,
    ...u32be(width),
    ...u32be(height),
    8,
    6,
    0,
    0,
    0,
    0,
    0,
    0,
    0,
  ]);
}

/** Inserts an APP1 Exif segment with the given orientation after a JPEG's SOI marker. */
function withOrientation(jpg: Uint8Array, orientation: number): Uint8Array {
  const tiff = [
    0x4d,
    0x4d,
    0,
    42,
    0,
    0,
    0,
    8, // big-endian TIFF header, IFD0 at 8
    0,
    1, // one entry
    0x01,
    0x12,
    0,
    3,
    0,
    0,
    0,
    1,
    0,
    orientation,
    0,
    0, // Orientation SHORT
    0,
    0,
    0,
    0, // no next IFD
  ];
  const payload = [0x45, 0x78, 0x69, 0x66, 0, 0, ...tiff];
  const length = payload.length + 2;
  const app1 = [0xff, 0xe1, length >> 8, length & 255, ...payload];
  return new Uint8Array([...jpg.subarray(0, 2), ...app1, ...jpg.subarray(2)]);
}

// ---------- parameters ----------

test("parses every images parameter into normalised values", () => {
  const parsed = parseImageParams(
    new URLSearchParams("w=120&h=80&fit=fill&f=bottom_left&fm=webp&q=55&r=12&bg=rgb:FF8000&fl=progressive"),
  );
  assert.deepEqual(parsed, {
    ok: true,
    params: {
      width: 120,
      height: 80,
      fit: "fill",
      focus: "bottom_left",
      format: "webp",
      quality: 55,
      radius: 12,
      background: { r: 255, g: 128, b: 0 },
    },
  });
});

test("face and faces act as center, avif becomes webp, r=max is kept, r=0 is dropped", () => {
  assert.equal(params("w=10&h=10&fit=thumb&f=face").focus, undefined); // center is the default
  assert.equal(params("w=10&h=10&fit=thumb&f=faces").focus, undefined);
  assert.equal(params("fm=avif").format, "webp");
  assert.equal(params("r=max").radius, "max");
  assert.equal(params("r=0").radius, undefined);
});

test("unknown parameters and fl are ignored", () => {
  assert.deepEqual(params("access_token=abc&foo=bar&fl=png8&w=10"), { width: 10 });
  assert.deepEqual(params(""), {});
});

test("a repeated parameter takes its first value", () => {
  assert.equal(params("w=10&w=20").width, 10);
});

const badQueries: [string, string][] = [
  ["w=0", "w"],
  ["w=4001", "w"],
  ["w=abc", "w"],
  ["w=1.5", "w"],
  ["w=-1", "w"],
  ["w=", "w"],
  ["w=+5", "w"],
  ["w=99999999999999999999", "w"],
  ["h=0", "h"],
  ["h=4001", "h"],
  ["h=ten", "h"],
  ["fit=cover", "fit"],
  ["fit=PAD", "fit"],
  ["fit=", "fit"],
  ["f=middle", "f"],
  ["f=TOP", "f"],
  ["fm=jpeg", "fm"],
  ["fm=tiff", "fm"],
  ["fm=bmp", "fm"],
  ["fm=", "fm"],
  ["q=0", "q"],
  ["q=101", "q"],
  ["q=high", "q"],
  ["r=-1", "r"],
  ["r=1.5", "r"],
  ["r=maximum", "r"],
  ["r=", "r"],
  ["bg=rgb:fff", "bg"],
  ["bg=ff0000", "bg"],
  ["bg=rgb:gg0000", "bg"],
  ["bg=rgb:ff00001", "bg"],
  ["bg=#ff0000", "bg"],
];

for (const [query, parameter] of badQueries) {
  test(`BadQuery for ${query} names ${parameter}`, () => {
    const parsed = parseImageParams(new URLSearchParams(query));
    assert.equal(parsed.ok, false);
    if (parsed.ok) return;
    assert.match(parsed.message, new RegExp(`"${parameter}"`));
    assert.equal(parsed.details.parameter, parameter);
    assert.equal(parsed.details.value, new URLSearchParams(query).get(parameter));
    assert.ok(parsed.details.allowed.length > 0);
  });
}

test("the first bad parameter is reported even when others are fine", () => {
  const parsed = parseImageParams(new URLSearchParams("w=100&q=500"));
  assert.equal(parsed.ok, false);
  if (!parsed.ok) assert.equal(parsed.details.parameter, "q");
});

test("the cache key does not depend on parameter order or ignored parameters", () => {
  const a = imageCacheKey(params("w=100&h=50"));
  assert.equal(a, imageCacheKey(params("h=50&w=100")));
  assert.equal(a, imageCacheKey(params("h=50&fl=progressive&w=100&access_token=x")));
  assert.equal(a, "v1.w100.h50");
  assert.notEqual(a, imageCacheKey(params("w=100&h=51")));
});

test("the cache key merges parameters that cannot change the output", () => {
  const key = (q: string) => imageCacheKey(params(q));
  assert.equal(key("w=10&h=10&fit=fill&f=face"), key("w=10&h=10&fit=fill"));
  assert.equal(key("w=10&h=10&fit=fill&f=center"), key("w=10&h=10&fit=fill"));
  assert.equal(key("fm=avif"), key("fm=webp"));
  assert.equal(key("w=10&f=top"), key("w=10")); // focus only steers fill, thumb and crop
  assert.equal(key("w=10&bg=rgb:ff0000"), key("w=10")); // bg only shows through pad, r or jpg
  assert.equal(key("fit=pad"), key("")); // no box, nothing to fit
  assert.equal(key("fm=png&q=50"), key("fm=png")); // png is lossless
  assert.equal(key("r=0&w=5"), key("w=5"));
  assert.notEqual(key("w=10&h=10&fit=fill&f=top"), key("w=10&h=10&fit=fill"));
  assert.notEqual(key("w=10&h=10&fit=pad&bg=rgb:ff0000"), key("w=10&h=10&fit=pad"));
  assert.notEqual(key("fm=jpg&bg=rgb:ff0000"), key("fm=jpg"));
  assert.notEqual(key("q=50"), key("")); // without fm the source may be a jpeg
});

test("the cache key is made of storage-safe characters and names every parameter", () => {
  const key = imageCacheKey(params("w=10&h=20&fit=crop&f=bottom_right&fm=webp&q=70&r=max&bg=rgb:00FF7f"));
  assert.equal(key, "v1.w10.h20.fit-crop.f-bottom-right.fm-webp.q70.r-max.bg-00ff7f");
  assert.match(key, /^[a-z0-9.-]+$/);
  assert.equal(imageCacheKey({}), "v1.original");
});

test("hasImageTransform is false only when nothing would change", () => {
  assert.equal(hasImageTransform(params("")), false);
  assert.equal(hasImageTransform(params("f=top&fit=fill&bg=rgb:000000&fl=progressive")), false);
  for (const q of ["w=1", "h=1", "fm=png", "q=50", "r=3", "r=max"]) {
    assert.equal(hasImageTransform(params(q)), true, q);
  }
});

// ---------- sniffing ----------

test("sniffs PNG, JPEG, GIF and WebP (lossy, lossless, extended) from their headers", async () => {
  const image = raw(37, 23, (x, y) => [x * 6, y * 10, 128, 255]);
  const translucent = raw(41, 29, (x) => [255, 0, 0, x * 6]);
  const cases: [Uint8Array, string, number, number][] = [
    [await png(image), "png", 37, 23],
    [await jpeg(image), "jpeg", 37, 23],
    [await new GIF([(await GIF.decode(await encodeGif(image)))[0]]).encode(), "gif", 37, 23],
    [await image.encodeWEBP(80 as never), "webp", 37, 23],
    [await image.encodeWEBP(null), "webp", 37, 23],
    [await translucent.encodeWEBP(80 as never), "webp", 41, 29],
  ];
  for (const [bytes, format, width, height] of cases) {
    const info = sniffImage(bytes);
    assert.ok(info, `${format} was not recognised`);
    assert.deepEqual([info.format, info.width, info.height], [format, width, height]);
    assert.equal(info.orientation, 1);
    assert.equal(info.animated, false);
  }
  // The extended (VP8X) layout is the one with an alpha chunk.
  const extended = await translucent.encodeWEBP(80 as never);
  assert.equal(new TextDecoder().decode(extended.subarray(12, 16)), "VP8X");
});

async function encodeGif(image: Image): Promise<Uint8Array> {
  const { Frame } = await import("imagescript");
  return new GIF([Frame.from(image, 100)]).encode();
}

test("sniffs a JPEG's EXIF orientation", async () => {
  const jpg = await jpeg(halves());
  assert.equal(sniffImage(withOrientation(jpg, 6))?.orientation, 6);
  assert.deepEqual(
    [sniffImage(withOrientation(jpg, 6))?.width, sniffImage(withOrientation(jpg, 6))?.height],
    [200, 100],
  );
  assert.equal(sniffImage(jpg)?.orientation, 1);
});

test("sniffing answers null for non-images and truncated headers", async () => {
  const text = new TextEncoder();
  assert.equal(sniffImage(text.encode("%PDF-1.7 hello")), null);
  assert.equal(sniffImage(new Uint8Array()), null);
  assert.equal(sniffImage(text.encode("RIFF\0\0\0\0WAVEfmt ")), null);
  const full = await png(halves());
  assert.equal(sniffImage(full.subarray(0, 20)), null);
  const jpg = await jpeg(halves());
  const sof = jpg.findIndex((v, i) => v === 0xff && jpg[i + 1] === 0xc0);
  assert.ok(sof > 0);
  assert.equal(sniffImage(jpg.subarray(0, sof + 4)), null);
  assert.equal(sniffImage(jpg.subarray(0, sof))?.format, undefined);
  assert.equal(sniffImage(pngHeader(0, 10)), null);
});

test("a header claiming 60000×60000 is refused before decoding, for every format", async () => {
  const le16 = (n: number) => [n & 255, n >> 8];
  const le24 = (n: number) => [n & 255, n >> 8 & 255, n >> 16 & 255];
  const crafted = [
    pngHeader(60000, 60000),
    new Uint8Array([
      0xff,
      0xd8,
      0xff,
      0xc0,
      0,
      17,
      8,
      60000 >> 8,
      60000 & 255,
      60000 >> 8,
      60000 & 255,
      3,
      1,
      0x22,
      0,
      2,
      0x11,
      1,
      3,
      0x11,
      1,
    ]),
    new Uint8Array([...new TextEncoder().encode("GIF89a"), ...le16(60000), ...le16(60000), 0, 0, 0, 0x3b]),
    new Uint8Array([
      ...new TextEncoder().encode("RIFF"),
      30,
      0,
      0,
      0,
      ...new TextEncoder().encode("WEBPVP8X"),
      10,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      ...le24(59999),
      ...le24(59999),
    ]),
  ];
  for (const bytes of crafted) {
    const info = sniffImage(bytes);
    assert.ok(info, "crafted header not recognised");
    assert.deepEqual([info.width, info.height], [60000, 60000]);
    assert.throws(
      () => assertDecodable(info),
      (e: unknown) => e instanceof ImageError && e.reason === "too_large",
    );
    const error = await rejects(transformImage(bytes, params("w=100")), "too_large");
    assert.equal(error.errorId, "ValidationFailed");
    assert.equal(error.status, 422);
    assert.match(error.message, /60000×60000/);
    assert.equal(error.details.maxPixels, MAX_INPUT_PIXELS);
  }
});

test("the guard also refuses one overlong side and a GIF frame larger than its screen", async () => {
  await rejects(transformImage(pngHeader(20000, 10), params("w=10")), "too_large");
  // 10×10 logical screen, first frame 30000×30000.
  const gif = new Uint8Array([
    ...new TextEncoder().encode("GIF89a"),
    10,
    0,
    10,
    0,
    0,
    0,
    0,
    0x2c,
    0,
    0,
    0,
    0,
    0x30,
    0x75,
    0x30,
    0x75,
    0,
    2,
    2,
    0x4c,
    1,
    0,
    0x3b,
  ]);
  assert.deepEqual([sniffImage(gif)?.width, sniffImage(gif)?.height], [30000, 30000]);
  await rejects(transformImage(gif, params("w=10")), "too_large");
  // Within the limits passes; the limits can be lowered per call (a platform with less memory).
  assertDecodable({ format: "png", width: 5000, height: 5000, orientation: 1, animated: false });
  const lowered = await rejects(
    transformImage(await png(halves()), params("w=10"), { maxPixels: 10_000 }),
    "too_large",
  );
  assert.match(lowered.message, /200×100/);
  assert.equal(lowered.details.maxPixels, 10_000);
  await rejects(transformImage(await png(halves()), params("w=10"), { maxDimension: 150 }), "too_large");
});

// ---------- originals and refusals ----------

test("without transform parameters the original bytes come back untouched", async () => {
  const source = await png(halves());
  const result = await transformImage(source, params("f=top&bg=rgb:000000&fl=png8"));
  assert.equal(result.bytes, source);
  assert.equal(result.transformed, false);
  assert.equal(result.contentType, "image/png");
  const pdf = new TextEncoder().encode("%PDF-1.7");
  const original = await transformImage(pdf, {});
  assert.equal(original.bytes, pdf);
  assert.equal(original.contentType, "application/octet-stream");
});

test("a file that is not an image cannot be transformed", async () => {
  const error = await rejects(
    transformImage(new TextEncoder().encode("%PDF-1.7"), params("w=10")),
    "unsupported_format",
  );
  assert.equal(error.status, 422);
});

test("a truncated image is undecodable, not a crash", async () => {
  const source = await png(halves());
  await rejects(transformImage(source.subarray(0, 60), params("w=10")), "undecodable");
  await rejects(transformImage(pngHeader(10, 10), params("w=10")), "undecodable");
});

test("an animated WebP is refused before decoding", async () => {
  const animated = new Uint8Array([
    ...new TextEncoder().encode("RIFF"),
    30,
    0,
    0,
    0,
    ...new TextEncoder().encode("WEBPVP8X"),
    10,
    0,
    0,
    0,
    0x02,
    0,
    0,
    0,
    9,
    0,
    0,
    9,
    0,
    0,
  ]);
  assert.equal(sniffImage(animated)?.animated, true);
  await rejects(transformImage(animated, params("w=5")), "unsupported_format");
});

// ---------- geometry ----------

test("default fit keeps the aspect ratio within the box, upscaling to the box too", async () => {
  const source = await png(halves()); // 200×100
  const sizes: [string, number, number][] = [
    ["w=50", 50, 25],
    ["h=50", 100, 50],
    ["w=100&h=100", 100, 50],
    ["w=300&h=60", 120, 60],
    ["w=400", 400, 200],
    ["w=1&h=1", 1, 1],
  ];
  for (const [query, width, height] of sizes) {
    const { decoded } = await run(source, query);
    assert.deepEqual([decoded.width, decoded.height], [width, height], query);
  }
  const { decoded } = await run(source, "w=100");
  assertNear(pixel(decoded, 10, 25), RED);
  assertNear(pixel(decoded, 90, 25), BLUE);
});

test("pad centres the fitted image on a bg canvas", async () => {
  const source = await png(halves()); // 200×100 -> 100×50 inside 100×100, bands of 25 above and below
  const { decoded, result } = await run(source, "w=100&h=100&fit=pad&bg=rgb:00ff00");
  assert.equal(result.contentType, "image/png");
  assert.deepEqual([decoded.width, decoded.height], [100, 100]);
  assertNear(pixel(decoded, 50, 5), GREEN, 0, "top band");
  assertNear(pixel(decoded, 50, 95), GREEN, 0, "bottom band");
  assertNear(pixel(decoded, 10, 50), RED, 0, "image left");
  assertNear(pixel(decoded, 90, 50), BLUE, 0, "image right");
});

test("pad without bg is transparent for png and webp, white for jpg", async () => {
  const source = await png(halves());
  assert.equal(pixel((await run(source, "w=100&h=100&fit=pad")).decoded, 50, 5)[3], 0);
  assert.equal(pixel((await run(source, "w=100&h=100&fit=pad&fm=webp")).decoded, 50, 5)[3], 0);
  const jpg = await run(source, "w=100&h=100&fit=pad&fm=jpg");
  assert.equal(jpg.result.contentType, "image/jpeg");
  assertNear(pixel(jpg.decoded, 50, 5), WHITE, 4);
  assertNear(pixel(jpg.decoded, 20, 50), RED, 40);
});

test("pad with one side only is the plain fit", async () => {
  const { decoded } = await run(await png(halves()), "w=100&fit=pad&bg=rgb:00ff00");
  assert.deepEqual([decoded.width, decoded.height], [100, 50]);
});

test("fill covers the box and cuts at the focus", async () => {
  const wide = await png(halves()); // 200×100, red | blue
  const expectations: [string, Px][] = [
    ["f=left", RED],
    ["f=top_left", RED],
    ["f=bottom_left", RED],
    ["f=right", BLUE],
    ["f=bottom_right", BLUE],
  ];
  for (const [focus, color] of expectations) {
    const { decoded } = await run(wide, `w=50&h=50&fit=fill&${focus}`);
    assert.deepEqual([decoded.width, decoded.height], [50, 50]);
    // Away from the cut: the filter, like a resize followed by a crop, reaches a few pixels past it.
    for (const [x, y] of [[10, 0], [40, 49], [25, 25]]) {
      assertNear(pixel(decoded, x, y), color, 0, `${focus} ${x},${y}`);
    }
  }
  const centre = (await run(wide, "w=50&h=50&fit=fill")).decoded;
  assertNear(pixel(centre, 5, 25), RED, 0);
  assertNear(pixel(centre, 45, 25), BLUE, 0);

  const tall = await png(stacked()); // 100×200, green over blue
  assertNear(pixel((await run(tall, "w=50&h=50&fit=fill&f=top")).decoded, 25, 45), GREEN, 0);
  assertNear(pixel((await run(tall, "w=50&h=50&fit=fill&f=bottom")).decoded, 25, 5), BLUE, 0);
  assertNear(pixel((await run(tall, "w=50&h=50&fit=fill&f=top_right")).decoded, 25, 45), GREEN, 0);
});

test("thumb behaves as fill, with face acting as center", async () => {
  const wide = await png(halves());
  const thumb = (await run(wide, "w=50&h=50&fit=thumb&f=face")).decoded;
  const fill = (await run(wide, "w=50&h=50&fit=fill")).decoded;
  assert.deepEqual(thumb.data, fill.data);
  assertNear(pixel((await run(wide, "w=50&h=50&fit=thumb&f=right")).decoded, 8, 0), BLUE, 0);
});

test("fill upscales a small source to the exact box", async () => {
  const { decoded } = await run(await png(halves()), "w=800&h=200&fit=fill");
  assert.deepEqual([decoded.width, decoded.height], [800, 200]);
});

test("scale stretches to exactly w×h", async () => {
  const { decoded } = await run(await png(halves()), "w=60&h=60&fit=scale");
  assert.deepEqual([decoded.width, decoded.height], [60, 60]);
  assertNear(pixel(decoded, 5, 5), RED, 0);
  assertNear(pixel(decoded, 55, 55), BLUE, 0);
  const oneSide = (await run(await png(halves()), "w=60&fit=scale")).decoded;
  assert.deepEqual([oneSide.width, oneSide.height], [60, 30]);
});

test("crop cuts w×h at the focus without scaling", async () => {
  const source = await png(quadrants()); // red green / blue white
  const expectations: [string, Px][] = [
    ["f=top_left", RED],
    ["f=top_right", GREEN],
    ["f=bottom_left", BLUE],
    ["f=bottom_right", WHITE],
  ];
  for (const [focus, color] of expectations) {
    const { decoded } = await run(source, `w=100&h=100&fit=crop&${focus}`);
    assert.deepEqual([decoded.width, decoded.height], [100, 100]);
    for (const [x, y] of [[0, 0], [99, 99], [50, 50]]) {
      assertNear(pixel(decoded, x, y), color, 0, `${focus} ${x},${y}`);
    }
  }
  // Centre crop: the four quadrants meet in the middle.
  const centre = (await run(source, "w=20&h=20&fit=crop")).decoded;
  assertNear(pixel(centre, 0, 0), RED, 0);
  assertNear(pixel(centre, 19, 0), GREEN, 0);
  assertNear(pixel(centre, 0, 19), BLUE, 0);
  assertNear(pixel(centre, 19, 19), WHITE, 0);
  // Asking for more than the source keeps the source's side; one side only keeps the other whole.
  const big = (await run(source, "w=500&h=50&fit=crop&f=top")).decoded;
  assert.deepEqual([big.width, big.height], [200, 50]);
  const left = (await run(source, "w=50&fit=crop&f=left")).decoded;
  assert.deepEqual([left.width, left.height], [50, 200]);
  assertNear(pixel(left, 10, 150), BLUE, 0);
});

test("planGeometry maps fill onto a fractional region of the source", () => {
  const plan = planGeometry(300, 200, params("w=100&h=100&fit=fill&f=right"));
  assert.deepEqual(plan.region, { x: 100, y: 0, width: 200, height: 200 });
  assert.deepEqual(plan.size, { width: 100, height: 100 });
  const pad = planGeometry(300, 200, params("w=100&h=100&fit=pad"));
  assert.deepEqual(pad.size, { width: 100, height: 67 });
  assert.deepEqual(pad.offset, { x: 0, y: 16 });
  assert.deepEqual(pad.canvas, { width: 100, height: 100 });
});

// ---------- corners, background, formats ----------

test("r rounds the corners: transparent outside for png, opaque inside", async () => {
  const { decoded } = await run(await png(halves()), "w=200&h=100&r=30");
  for (const [x, y] of [[0, 0], [199, 0], [0, 99], [199, 99]]) {
    assert.equal(pixel(decoded, x, y)[3], 0, `corner ${x},${y}`);
  }
  assertNear(pixel(decoded, 30, 30), RED, 0, "inside");
  assertNear(pixel(decoded, 0, 50), RED, 0, "left edge middle");
  assertNear(pixel(decoded, 100 + 30, 0), BLUE, 0, "top edge past the corner");
  // The arc: pixel (6, 6), centre (6.5, 6.5), lies 33 px from the corner circle's centre (30, 30): outside.
  assert.equal(pixel(decoded, 6, 6)[3], 0);
  // (12, 12) lies about 25 px from it: inside.
  assert.equal(pixel(decoded, 12, 12)[3], 255);
});

test("r=max cuts a circle from a square and an ellipse from a rectangle", async () => {
  const circle = (await run(await png(quadrants()), "w=100&h=100&r=max")).decoded;
  for (const [x, y] of [[0, 0], [99, 0], [0, 99], [99, 99], [12, 12]]) {
    assert.equal(pixel(circle, x, y)[3], 0, `${x},${y}`);
  }
  for (const [x, y] of [[50, 50], [50, 1], [1, 50], [98, 50], [50, 98], [20, 20]]) {
    assert.equal(pixel(circle, x, y)[3], 255, `${x},${y}`);
  }
  const ellipse = (await run(await png(halves()), "w=200&h=100&r=max")).decoded;
  assert.equal(pixel(ellipse, 20, 5)[3], 0); // outside the ellipse, inside a circle of the short side
  assert.equal(pixel(ellipse, 100, 2)[3], 255);
  assert.equal(pixel(ellipse, 2, 50)[3], 255);
});

test("r on a jpg fills the corners with white, or with bg", async () => {
  const source = await png(halves());
  const white = await run(source, "r=40&fm=jpg");
  assert.equal(white.result.contentType, "image/jpeg");
  assertNear(pixel(white.decoded, 0, 0), WHITE, 8);
  assertNear(pixel(white.decoded, 50, 50), RED, 40);
  const green = await run(source, "r=40&fm=jpg&bg=rgb:00ff00");
  assertNear(pixel(green.decoded, 0, 0), GREEN, 40);
});

test("r with bg on a png fills the corners with bg, opaque", async () => {
  const { decoded } = await run(await png(halves()), "r=40&bg=rgb:0000ff");
  assertNear(pixel(decoded, 0, 0), BLUE, 0);
  assertNear(pixel(decoded, 60, 60), RED, 0);
});

test("transparency is flattened onto white (or bg) when the output is jpg", async () => {
  const see = await png(raw(20, 20, (x) => x < 10 ? CLEAR : RED));
  const white = (await run(see, "fm=jpg")).decoded;
  assertNear(pixel(white, 2, 10), WHITE, 6);
  assertNear(pixel(white, 17, 10), RED, 40);
  const blue = (await run(see, "fm=jpg&bg=rgb:0000ff")).decoded;
  assertNear(pixel(blue, 2, 10), BLUE, 40);
  // A png keeps its transparency when bg has nothing to fill.
  assert.equal(pixel((await run(see, "w=20&bg=rgb:0000ff")).decoded, 2, 10)[3], 0);
});

test("fm picks the encoder and the content type matches the bytes", async () => {
  const source = await png(quadrants());
  const formats: [string, string, string][] = [
    ["fm=jpg", "image/jpeg", "jpeg"],
    ["fm=png", "image/png", "png"],
    ["fm=webp", "image/webp", "webp"],
    ["fm=avif", "image/webp", "webp"],
    ["fm=gif", "image/gif", "gif"],
  ];
  for (const [query, contentType, sniffed] of formats) {
    const { result, decoded } = await run(source, `w=40&${query}`);
    assert.equal(result.contentType, contentType, query);
    assert.equal(sniffImage(result.bytes)?.format, sniffed, query);
    assert.deepEqual([decoded.width, decoded.height], [40, 40]);
    assertNear(pixel(decoded, 5, 5), RED, 40, query);
    assertNear(pixel(decoded, 35, 35), WHITE, 40, query);
  }
});

test("without fm the output keeps the source's format, webp and gif included", async () => {
  const image = quadrants();
  const sources: [Uint8Array, string][] = [
    [await png(image), "image/png"],
    [await jpeg(image), "image/jpeg"],
    [await image.encodeWEBP(90 as never), "image/webp"],
    [await image.encodeWEBP(null), "image/webp"],
    [await encodeGif(image), "image/gif"],
  ];
  for (const [bytes, contentType] of sources) {
    const { result, decoded } = await run(bytes, "w=50");
    assert.equal(result.contentType, contentType);
    assert.deepEqual([decoded.width, decoded.height], [50, 50]);
    assertNear(pixel(decoded, 5, 5), RED, 50, contentType);
    assertNear(pixel(decoded, 45, 45), WHITE, 50, contentType);
  }
});

test("q trades jpg and webp size for quality", async () => {
  const noisy = raw(120, 120, (x, y) => [(x * 37 + y * 11) % 256, (x * y) % 256, (x ^ y) * 2 % 256, 255]);
  const source = await png(noisy);
  for (const fm of ["jpg", "webp"]) {
    const low = await transformImage(source, params(`fm=${fm}&q=5`));
    const high = await transformImage(source, params(`fm=${fm}&q=95`));
    assert.ok(low.bytes.length < high.bytes.length, `${fm}: ${low.bytes.length} >= ${high.bytes.length}`);
  }
});

test("a JPEG's EXIF orientation is applied before transforming", async () => {
  const rotated = withOrientation(await jpeg(halves()), 6); // stored 200×100, shown rotated 90° clockwise
  const { decoded } = await run(rotated, "fm=png");
  assert.deepEqual([decoded.width, decoded.height], [100, 200]);
  assertNear(pixel(decoded, 50, 20), RED, 40, "the stored left half is on top");
  assertNear(pixel(decoded, 50, 180), BLUE, 40);
  const mirrored = (await run(withOrientation(await jpeg(halves()), 2), "fm=png")).decoded;
  assertNear(pixel(mirrored, 20, 50), BLUE, 40);
});

test("the same input and parameters give the same bytes", async () => {
  const source = await png(quadrants());
  for (const query of ["w=33&fm=png", "w=33&fm=jpg", "w=33&fm=webp&q=60"]) {
    const a = await transformImage(source, params(query));
    const b = await transformImage(source, params(query));
    assert.deepEqual(a.bytes, b.bytes, query);
  }
});

// ---------- resampling ----------

test("downscaling averages instead of picking pixels", () => {
  // A 1-pixel black/white checkerboard shrunk 4× becomes mid grey, not black or white.
  const size = 64;
  const data = new Uint8Array(size * size * 4);
  for (let i = 0; i < size * size; i++) {
    const v = ((i % size) + Math.floor(i / size)) % 2 ? 255 : 0;
    data.set([v, v, v, 255], i * 4);
  }
  const out = resample(
    { width: size, height: size, data },
    { x: 0, y: 0, width: size, height: size },
    16,
    16,
  );
  for (let i = 0; i < 16 * 16; i++) {
    assert.ok(Math.abs(out.data[i * 4] - 128) <= 3, `pixel ${i} is ${out.data[i * 4]}`);
    assert.equal(out.data[i * 4 + 3], 255);
  }
});

test("resampling works in premultiplied alpha: transparent pixels do not darken the edges", () => {
  // Opaque red next to fully transparent black: the blend stays pure red, only alpha falls.
  const data = new Uint8Array([255, 0, 0, 255, 0, 0, 0, 0, 255, 0, 0, 255, 0, 0, 0, 0]);
  const out = resample({ width: 4, height: 1, data }, { x: 0, y: 0, width: 4, height: 1 }, 2, 1);
  for (let x = 0; x < 2; x++) {
    const [r, g, b, a] = out.data.subarray(x * 4, x * 4 + 4);
    assert.deepEqual([r, g, b], [255, 0, 0]);
    assert.ok(a > 60 && a < 200, `alpha ${a}`);
  }
});

test("a large JPEG decodes at a reduced scale and still lands every pixel where the plan says", async () => {
  // 1600×1600 quadrants; 200×50 at the top needs only 1/8 of the resolution from the decoder.
  const big = await jpeg(
    raw(1600, 1600, (x, y) => y < 800 ? (x < 800 ? RED : GREEN) : (x < 800 ? BLUE : WHITE)),
  );
  const top = (await run(big, "w=200&h=50&fit=fill&f=top&fm=png")).decoded;
  assert.deepEqual([top.width, top.height], [200, 50]);
  assertNear(pixel(top, 20, 25), RED, 40);
  assertNear(pixel(top, 180, 25), GREEN, 40);
  const bottom = (await run(big, "w=200&h=50&fit=fill&f=bottom&fm=png")).decoded;
  assertNear(pixel(bottom, 20, 25), BLUE, 40);
  assertNear(pixel(bottom, 180, 25), WHITE, 40);
  const small = (await run(big, "w=100")).decoded;
  assert.deepEqual([small.width, small.height], [100, 100]);
  assertNear(pixel(small, 90, 90), WHITE, 40);
  // With an EXIF rotation too: stored 1600×800 red | blue, shown 800×1600 red over blue.
  const wide = raw(1600, 800, (x) => x < 800 ? RED : BLUE);
  const turned = (await run(withOrientation(await jpeg(wide), 6), "w=50&fm=png")).decoded;
  assert.deepEqual([turned.width, turned.height], [50, 100]);
  assertNear(pixel(turned, 25, 10), RED, 40);
  assertNear(pixel(turned, 25, 90), BLUE, 40);
});

test("a large reduction of a PNG averages blocks first and keeps the picture", async () => {
  const big = await png(
    raw(1200, 900, (x, y) => y < 450 ? (x < 600 ? RED : GREEN) : (x < 600 ? BLUE : WHITE)),
  );
  const { decoded } = await run(big, "w=60");
  assert.deepEqual([decoded.width, decoded.height], [60, 45]);
  assertNear(pixel(decoded, 5, 5), RED, 2);
  assertNear(pixel(decoded, 55, 5), GREEN, 2);
  assertNear(pixel(decoded, 5, 40), BLUE, 2);
  assertNear(pixel(decoded, 55, 40), WHITE, 2);
});

test("a gif keeps transparency from the source, from pad and from r", async () => {
  const see = await png(raw(40, 40, (x) => x < 20 ? CLEAR : RED));
  const plain = (await run(see, "fm=gif")).decoded;
  assert.equal(pixel(plain, 5, 20)[3], 0);
  assertNear(pixel(plain, 30, 20), RED, 0);
  const round = (await run(see, "fm=gif&r=max")).decoded;
  assert.equal(pixel(round, 39, 0)[3], 0);
  assertNear(pixel(round, 30, 20), RED, 0);
  const padded = (await run(see, "w=40&h=80&fit=pad&fm=gif")).decoded;
  assert.deepEqual([padded.width, padded.height], [40, 80]);
  assert.equal(pixel(padded, 30, 2)[3], 0);
  assertNear(pixel(padded, 30, 40), RED, 0);
});

test("extreme shapes still give the exact size asked for", async () => {
  const dot = await png(raw(1, 1, () => RED));
  for (
    const [query, width, height] of [["w=50&h=20&fit=fill", 50, 20], ["w=7&h=3&fit=scale", 7, 3], [
      "w=5",
      5,
      5,
    ]] as const
  ) {
    const { decoded } = await run(dot, query);
    assert.deepEqual([decoded.width, decoded.height], [width, height], query);
    assertNear(pixel(decoded, width - 1, height - 1), RED, 0, query);
  }
  const strip = (await run(await png(quadrants()), "w=4000&h=1&fit=fill")).decoded;
  assert.deepEqual([strip.width, strip.height], [4000, 1]);
  const sliver = (await run(await png(halves()), "w=1&h=1")).decoded;
  assert.deepEqual([sliver.width, sliver.height], [1, 1]);
});
