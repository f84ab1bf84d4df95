// Blobs: pictures (png, jpeg, gif, webp; 10 MB) and videos (mp4, webm, mov; 100 MB), named by their
// raw-codec CID and kept through the storage interface in the `network` bucket under the member's id.
// They are shown through addresses signed for one hour and served by this function.
import { cidForRawBytes } from "@atproto/lex-data";
import type { FunctionContext } from "../../shared/context.ts";
import { readUpTo } from "../../shared/http.ts";
import { sniffImage } from "../../shared/images/sniff.ts";
import { signAddress, verifyAddress } from "../../shared/storage.ts";
import { insertBlob } from "./store/writer.ts";
import { invalidRequest, payloadTooLarge } from "./xrpc/errors.ts";

export const BUCKET = "network";
const MB = 1024 * 1024;
export const PICTURE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];
export const VIDEO_TYPES = ["video/mp4", "video/webm", "video/quicktime"];
export const PICTURE_BYTES = 10 * MB;
export const VIDEO_BYTES = 100 * MB;
export const BLOB_SECRET = "network_blobs";

export function blobKey(personId: string, cid: string): string {
  return `${personId}/${cid}`;
}

export async function uploadBlob(
  ctx: FunctionContext,
  personId: string,
  request: Request,
  now: Date,
): Promise<{ blob: { $type: "blob"; ref: { $link: string }; mimeType: string; size: number } }> {
  const mime = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  const picture = PICTURE_TYPES.includes(mime);
  if (!picture && !VIDEO_TYPES.includes(mime)) {
    throw invalidRequest(`A blob is a picture (${PICTURE_TYPES.join(", ")}) or a video (${VIDEO_TYPES.join(", ")}).`);
  }
  const limit = picture ? PICTURE_BYTES : VIDEO_BYTES;
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > limit) throw payloadTooLarge(`A ${picture ? "picture" : "video"} is at most ${limit / MB} MB.`);
  const bytes = await readUpTo(request.body, limit);
  if (!bytes) throw payloadTooLarge(`A ${picture ? "picture" : "video"} is at most ${limit / MB} MB.`);
  if (bytes.byteLength === 0) throw invalidRequest("The blob is empty.");
  if (picture && `image/${sniffFormat(bytes)}` !== mime) {
    throw invalidRequest(`The bytes are not a ${mime} picture.`);
  }
  const cid = (await cidForRawBytes(bytes)).toString();
  await ctx.storage.put(BUCKET, blobKey(personId, cid), bytes, mime);
  await insertBlob(ctx.sql, { personId, cid, mime, size: bytes.byteLength, now });
  return { blob: { $type: "blob", ref: { $link: cid }, mimeType: mime, size: bytes.byteLength } };
}

function sniffFormat(bytes: Uint8Array): string | undefined {
  try {
    return sniffImage(bytes)?.format;
  } catch {
    return undefined;
  }
}

/** The public path of a blob (the host maps /network/ to this function). */
export function blobPath(personId: string, cid: string): string {
  return `/network/blob/${personId}/${cid}`;
}

/** An address a reader may load the blob at for one hour. */
export async function blobUrl(
  ctx: FunctionContext,
  personId: string,
  cid: string,
  now: Date = ctx.clock.now(),
): Promise<string> {
  const path = blobPath(personId, cid);
  return `${ctx.config.publicUrl}${path}?${await signAddress(await ctx.secrets.get(BLOB_SECRET), path, now)}`;
}

/** The bytes behind a signed address, or undefined when the signature is wrong, expired, or nothing is there. */
export async function signedBlob(
  ctx: FunctionContext,
  personId: string,
  cid: string,
  params: URLSearchParams,
  now: Date,
) {
  const ok = await verifyAddress(await ctx.secrets.get(BLOB_SECRET), blobPath(personId, cid), params, now);
  return ok ? await ctx.storage.get(BUCKET, blobKey(personId, cid)) : undefined;
}
