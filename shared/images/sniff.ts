// Reads an image's format and size from its header alone (no decoding), and refuses sources whose decoded
// size would exhaust memory before any decoder allocates for them.

export type SniffedFormat = "png" | "jpeg" | "gif" | "webp";

export interface SniffedImage {
  format: SniffedFormat;
  /** Stored pixel size (for a JPEG, before its EXIF orientation is applied). */
  width: number;
  height: number;
  /** EXIF orientation 1..8 of a JPEG (1 = as stored); 1 for other formats. */
  orientation: number;
  /** An animated WebP (VP8X animation flag); GIF animation is not detected here. */
  animated: boolean;
}

/** Longest side a source may have to be decoded. */
export const MAX_INPUT_DIMENSION = 16384;
/**
 * Most pixels a source may have to be decoded: 25 MP covers a 6000×4000 camera picture. Decoding holds the
 * RGBA bitmap (4 bytes a pixel) plus the decoder's own buffers (up to ~6 more bytes a pixel for a
 * progressive JPEG), so the worst case stays near 250 MB.
 */
export const MAX_INPUT_PIXELS = 25_000_000;

function u16be(b: Uint8Array, i: number): number {
  return b[i] << 8 | b[i + 1];
}
function u16le(b: Uint8Array, i: number): number {
  return b[i] | b[i + 1] << 8;
}
function u24le(b: Uint8Array, i: number): number {
  return b[i] | b[i + 1] << 8 | b[i + 2] << 16;
}
function u32be(b: Uint8Array, i: number): number {
  return (b[i] << 24 | b[i + 1] << 16 | b[i + 2] << 8 | b[i + 3]) >>> 0;
}
function u32le(b: Uint8Array, i: number): number {
  return (b[i] | b[i + 1] << 8 | b[i + 2] << 16 | b[i + 3] << 24) >>> 0;
}
function ascii(b: Uint8Array, i: number, s: string): boolean {
  if (i + s.length > b.length) return false;
  for (let k = 0; k < s.length; k++) if (b[i + k] !== s.charCodeAt(k)) return false;
  return true;
}

function image(format: SniffedFormat, width: number, height: number, orientation = 1, animated = false) {
  if (!(width > 0 && height > 0)) return null;
  return { format, width, height, orientation, animated };
}

function sniffPng(b: Uint8Array): SniffedImage | null {
  // 8-byte signature, then the IHDR chunk: length, "IHDR", width, height.
  if (b.length < 24 || !ascii(b, 12, "IHDR")) return null;
  return image("png", u32be(b, 16), u32be(b, 20));
}

function exifOrientation(b: Uint8Array, start: number, end: number): number {
  // APP1 payload: "Exif\0\0" then a TIFF header; IFD0's tag 0x0112 holds the orientation.
  const t = start + 6;
  if (t + 8 > end) return 1;
  const little = b[t] === 0x49 && b[t + 1] === 0x49;
  if (!little && !(b[t] === 0x4d && b[t + 1] === 0x4d)) return 1;
  const r16 = (i: number) => little ? u16le(b, i) : u16be(b, i);
  const r32 = (i: number) => little ? u32le(b, i) : u32be(b, i);
  const ifd = t + r32(t + 4);
  if (ifd + 2 > end) return 1;
  const count = r16(ifd);
  for (let k = 0; k < count; k++) {
    const e = ifd + 2 + k * 12;
    if (e + 12 > end) break;
    if (r16(e) === 0x0112) {
      const value = r16(e + 8);
      return value >= 1 && value <= 8 ? value : 1;
    }
  }
  return 1;
}

function sniffJpeg(b: Uint8Array): SniffedImage | null {
  let orientation = 1;
  let i = 2;
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) return null;
    const marker = b[i + 1];
    if (marker === 0xff) { // fill byte
      i++;
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) { // no payload
      i += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null; // end or scan data before any frame header
    const length = u16be(b, i + 2);
    if (length < 2) return null;
    const start = i + 4;
    const end = Math.min(b.length, i + 2 + length);
    const isSof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isSof) {
      if (start + 5 > b.length) return null;
      return image("jpeg", u16be(b, start + 3), u16be(b, start + 1), orientation);
    }
    if (marker === 0xe1 && ascii(b, start, "Exif\0\0")) orientation = exifOrientation(b, start, end);
    i += 2 + length;
  }
  return null;
}

function sniffGif(b: Uint8Array): SniffedImage | null {
  if (b.length < 13) return null;
  let width = u16le(b, 6);
  let height = u16le(b, 8);
  // Walk to the first image descriptor: a frame may claim more than the logical screen, and the decoder
  // allocates for the frame, so the guard must see its extent too.
  const flags = b[10];
  let i = 13 + (flags & 0x80 ? 3 * (2 << (flags & 7)) : 0);
  while (i < b.length) {
    const block = b[i];
    if (block === 0x21) { // extension: label, then sub-blocks up to a zero length
      i += 2;
      while (i < b.length && b[i] !== 0) i += b[i] + 1;
      i++;
    } else if (block === 0x2c) {
      if (i + 9 > b.length) break;
      width = Math.max(width, u16le(b, i + 1) + u16le(b, i + 5));
      height = Math.max(height, u16le(b, i + 3) + u16le(b, i + 7));
      break;
    } else break;
  }
  return image("gif", width, height);
}

function sniffWebp(b: Uint8Array): SniffedImage | null {
  if (b.length < 30 || !ascii(b, 8, "WEBP")) return null;
  const d = 20;
  if (ascii(b, 12, "VP8 ")) {
    if (b[d + 3] !== 0x9d || b[d + 4] !== 0x01 || b[d + 5] !== 0x2a) return null;
    return image("webp", u16le(b, d + 6) & 0x3fff, u16le(b, d + 8) & 0x3fff);
  }
  if (ascii(b, 12, "VP8L")) {
    if (b[d] !== 0x2f) return null;
    const bits = u32le(b, d + 1);
    return image("webp", (bits & 0x3fff) + 1, (bits >>> 14 & 0x3fff) + 1);
  }
  if (ascii(b, 12, "VP8X")) {
    return image("webp", u24le(b, d + 4) + 1, u24le(b, d + 7) + 1, 1, (b[d] & 0x02) !== 0);
  }
  return null;
}

/** Format and size from the header, or null when the bytes are none of PNG, JPEG, GIF, WebP. */
export function sniffImage(bytes: Uint8Array): SniffedImage | null {
  const b = bytes;
  if (b.length >= 8 && b[0] === 0x89 && ascii(b, 1, "PNG\r\n\x1a\n")) return sniffPng(b);
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return sniffJpeg(b);
  if (ascii(b, 0, "GIF87a") || ascii(b, 0, "GIF89a")) return sniffGif(b);
  if (ascii(b, 0, "RIFF")) return sniffWebp(b);
  return null;
}

export const CONTENT_TYPES = {
  png: "image/png",
  jpeg: "image/jpeg",
  jpg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
} as const;
