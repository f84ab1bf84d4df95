// The media library: content types by extension, image dimensions from the file header, and the
// stable ids and hashes assets carry.
import { createHash } from "node:crypto";
import { sniffImage } from "../images/sniff.ts";
import { toHex } from "../ids.ts";

const TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
  svg: "image/svg+xml",
  ico: "image/x-icon",
  bmp: "image/bmp",
  tif: "image/tiff",
  tiff: "image/tiff",
  mp3: "audio/mpeg",
  m4a: "audio/mp4",
  ogg: "audio/ogg",
  wav: "audio/wav",
  mp4: "video/mp4",
  webm: "video/webm",
  mov: "video/quicktime",
  pdf: "application/pdf",
  txt: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  json: "application/json",
  html: "text/html",
  css: "text/css",
  js: "text/javascript",
  ts: "text/typescript",
  xml: "application/xml",
  rtf: "application/rtf",
  doc: "application/msword",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  odt: "application/vnd.oasis.opendocument.text",
  ppt: "application/vnd.ms-powerpoint",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  key: "application/vnd.apple.keynote",
  xls: "application/vnd.ms-excel",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  ods: "application/vnd.oasis.opendocument.spreadsheet",
  zip: "application/zip",
  gz: "application/gzip",
  tar: "application/x-tar",
  epub: "application/epub+zip",
  woff: "font/woff",
  woff2: "font/woff2",
};

export function contentTypeFor(fileName: string): string {
  const ext = fileName.toLowerCase().match(/\.([a-z0-9]+)$/)?.[1] ?? "";
  return TYPES[ext] ?? "application/octet-stream";
}

/** Width and height from a PNG, JPEG, GIF or WebP header; undefined for anything else. */
export function imageSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  const sniffed = sniffImage(bytes);
  return sniffed ? { width: sniffed.width, height: sniffed.height } : undefined;
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Synchronous SHA-256 (node:crypto), so ids can be computed inside synchronous callbacks. */
export function sha256(data: string | Uint8Array): Uint8Array {
  return new Uint8Array(createHash("sha256").update(data).digest());
}

export function toBase62(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  let out = "";
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out || "0";
}

/** An asset's id: 22 base62 characters of the SHA-256 of its library path (stable across imports). */
export function assetIdForPath(path: string): string {
  return toBase62(sha256(`asset:${path}`)).padStart(22, "0").slice(0, 22);
}

/** A short hash of an asset's bytes (its url changes when the file does). */
export function contentHash(bytes: Uint8Array): string {
  return toHex(sha256(bytes)).slice(0, 16);
}

/**
 * The library path of an asset made through the management API: its own folder, named by its id, under
 * content/uploads/api (so the file's path names the asset, in storage and in a content directory alike).
 */
export function apiAssetPath(id: string, fileName: string): string {
  return `content/uploads/api/${id}/${fileName}`;
}

/** The asset id an API library path names (content/uploads/api/<id>/<file>), else undefined. */
export function apiAssetIdOf(path: string): string | undefined {
  return path.match(/^content\/uploads\/api\/([A-Za-z0-9_-][A-Za-z0-9._-]{0,63})\/[^/]+$/)?.[1];
}

/** "media/photos/harbor.jpg", "/media/photos/harbor.jpg" and "photos/harbor.jpg"... -> the library path,
 * or undefined when the value is not a media path (an address, an id). */
export function mediaPath(value: string): string | undefined {
  const trimmed = value.trim().replace(/^\.\//, "");
  if (/^[a-z][a-z0-9+.-]*:/i.test(trimmed) || trimmed.startsWith("//")) return undefined;
  const path = trimmed.replace(/^\/+/, "").split(/[?#]/)[0];
  if (path.startsWith("media/")) return decodeURIComponentSafe(path);
  return undefined;
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
