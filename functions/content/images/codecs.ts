// Decoders and encoders behind one small interface, loaded on first use so the content function starts
// without them and a platform that cannot load them fails only the image door (ImageError
// `codec_unavailable`), never the whole function.
//
// - imagescript (the design card's image library): PNG, JPEG and GIF (first frame) decoding; PNG, JPEG,
//   WebP and GIF encoding. PNG and JPEG are decoded by its WebAssembly decoders called directly: one
//   copy of the pixels less, no native code, and the JPEG decoder can scale by 1/2, 1/4 or 1/8 while
//   decoding (a 6000×4000 photo wanted 400 wide decodes at 750×500: ~4× faster, a fraction of the
//   memory). Its npm build encodes JPEG, WebP and GIF through a Node-API addon shipped in the package
//   (x64/arm64 Linux, macOS, Windows), loaded when its main module is imported (which GIF decoding and
//   every encode do).
// - @cwasm/webp (libwebp's decoder in WebAssembly, no native code): WebP decoding, which imagescript 1.3
//   lacks. Animated WebP is refused before decoding (sniff reports it).
import { ImageError } from "./errors.ts";
import type { SniffedFormat } from "../../../shared/images/sniff.ts";
import type { OutputFormat } from "./params.ts";
import type { Bitmap } from "./raster.ts";

type ImageScript = typeof import("imagescript");
type WebpDecoder = typeof import("@cwasm/webp");
/** imagescript's JPEG decoder (wasm/node/jpeg.js, untyped): a fresh wasm instance per init(). */
interface JpegDecoder {
  init(): Promise<{
    decode(
      bytes: Uint8Array,
      minWidth?: number,
      minHeight?: number,
    ): { width: number; height: number; format: number; buffer: Uint8Array };
  }>;
}

/** imagescript's PNG decoder (wasm/node/png.js, untyped): RGBA 8-bit for every PNG colour type. */
interface PngDecoder {
  init(): Promise<{ decode(bytes: Uint8Array): { width: number; height: number; framebuffer: Uint8Array } }>;
}

let imagescriptModule: Promise<ImageScript> | null = null;
let pngModule: Promise<PngDecoder> | null = null;
let webpModule: Promise<WebpDecoder> | null = null;
let jpegModule: Promise<JpegDecoder> | null = null;

function load<T>(name: string, importer: () => Promise<T>, reset: () => void): Promise<T> {
  return importer().catch((error) => {
    reset(); // a later request may try again
    throw new ImageError("codec_unavailable", `The image codec ${name} could not be loaded: ${error}`);
  });
}

function imagescript(): Promise<ImageScript> {
  return imagescriptModule ??= load(
    "imagescript",
    () => import("imagescript"),
    () => imagescriptModule = null,
  );
}

function webp(): Promise<WebpDecoder> {
  return webpModule ??= load("@cwasm/webp", () => import("@cwasm/webp"), () => webpModule = null);
}

function jpeg(): Promise<JpegDecoder> {
  return jpegModule ??= load(
    "imagescript (jpeg)",
    // @ts-ignore: an untyped CommonJS file of the imagescript package
    async () => ((await import("imagescript/wasm/node/jpeg.js")).default as JpegDecoder),
    () => jpegModule = null,
  );
}

function pngDecoder(): Promise<PngDecoder> {
  return pngModule ??= load(
    "imagescript (png)",
    // @ts-ignore: an untyped CommonJS file of the imagescript package
    async () => ((await import("imagescript/wasm/node/png.js")).default as PngDecoder),
    () => pngModule = null,
  );
}

/** Loads every codec now (for a warm-up or a start-up check); rejects with ImageError codec_unavailable. */
export async function preloadCodecs(): Promise<void> {
  await Promise.all([imagescript(), webp(), jpeg(), pngDecoder()]);
}

/** The decoder's output (gray, RGB, or Adobe CMYK) as RGBA; one tight loop, no per-pixel allocation. */
function jpegToRgba(width: number, height: number, format: number, src: Uint8Array): Uint8Array {
  const n = width * height;
  const out = new Uint8Array(n * 4);
  if (format === 0) {
    for (let i = 0, o = 0; i < n; i++, o += 4) {
      const v = src[i];
      out[o] = v;
      out[o + 1] = v;
      out[o + 2] = v;
      out[o + 3] = 255;
    }
  } else if (format === 1) {
    for (let i = 0, o = 0; i < n * 3; i += 3, o += 4) {
      out[o] = src[i];
      out[o + 1] = src[i + 1];
      out[o + 2] = src[i + 2];
      out[o + 3] = 255;
    }
  } else if (format === 2) { // CMYK as stored by Adobe (inverted), converted as imagescript's Image.decode does
    for (let i = 0, o = 0; i < n * 4; i += 4, o += 4) {
      const k = 1 - src[i + 3] / 255;
      out[o] = 255 * (1 - src[i] / 255) * k;
      out[o + 1] = 255 * (1 - src[i + 1] / 255) * k;
      out[o + 2] = 255 * (1 - src[i + 2] / 255) * k;
      out[o + 3] = 255;
    }
  } else throw new Error(`unknown pixel format ${format}`);
  return out;
}

function asBytes(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

/**
 * Decodes to an RGBA bitmap (a GIF's first frame). `atLeast` (stored orientation) lets a JPEG decode at a
 * reduced scale whose size is still at least that large (in one side, and in both when they are asked in
 * the image's own proportions); other formats decode whole. The caller checks the size it got.
 */
export async function decodeImage(
  bytes: Uint8Array,
  format: SniffedFormat,
  atLeast?: { width: number; height: number },
): Promise<Bitmap> {
  const lib = format === "gif" ? await imagescript() : null;
  const decoder = format === "webp" ? await webp() : null;
  const jpegLib = format === "jpeg" ? await jpeg() : null;
  try {
    if (jpegLib) {
      const decoded = (await jpegLib.init()).decode(bytes, atLeast?.width, atLeast?.height);
      const data = jpegToRgba(decoded.width, decoded.height, decoded.format, decoded.buffer);
      return { width: decoded.width, height: decoded.height, data };
    }
    if (decoder) {
      const decoded = decoder.decode(bytes);
      return { width: decoded.width, height: decoded.height, data: asBytes(decoded.data) };
    }
    if (format === "gif") {
      const gif = await lib!.GIF.decode(bytes, true);
      const frame = gif[0];
      if (!frame) throw new Error("no frame");
      return { width: frame.width, height: frame.height, data: asBytes(frame.bitmap) };
    }
    const decoded = (await (await pngDecoder()).init()).decode(bytes);
    return { width: decoded.width, height: decoded.height, data: decoded.framebuffer };
  } catch (error) {
    if (error instanceof ImageError) throw error;
    throw new ImageError(
      "undecodable",
      `The ${format} image could not be decoded: ${(error as Error).message ?? error}`,
    );
  }
}

export const DEFAULT_QUALITY = 80;
/** zlib level for PNG output: 3 is within a few percent of 9 on photos at a fraction of the time. */
const PNG_LEVEL = 3;

/** Encodes an RGBA bitmap; jpg ignores alpha, so flatten before asking for it. */
export async function encodeImage(bmp: Bitmap, format: OutputFormat, quality?: number): Promise<Uint8Array> {
  const { Image, GIF, Frame } = await imagescript();
  const image = new Image(bmp.width, bmp.height);
  // imagescript types its qualities as literal unions of 1..100; params.ts already bounds q to that.
  const q = (quality ?? DEFAULT_QUALITY) as never;
  image.bitmap.set(bmp.data);
  switch (format) {
    case "jpg":
      return await image.encodeJPEG(q);
    case "webp":
      return await image.encodeWEBP(q);
    case "png":
      // Fixed metadata keeps the bytes the same for the same input (no creation time of now).
      return await image.encode(PNG_LEVEL, { creationTime: 0, software: "" });
    case "gif":
      return await new GIF([Frame.from(image, 100)]).encode();
  }
}
