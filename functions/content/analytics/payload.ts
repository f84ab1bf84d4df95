// Reading a capture or flags request the way PostHog's servers do: the body may be JSON, gzip (posthog-js
// `compression=gzip-js` or Content-Encoding: gzip, as posthog-node sends), base64 (a form `data=` field
// with `compression=base64`), or a GET `?data=` parameter; the project token may sit in the query, the
// form, the body, or each event's properties; sent_at comes from `?_=` or the body.
import { readUpTo } from "../../../shared/http.ts";
import { AnalyticsError, invalidPayload, noData } from "./envelope.ts";

/** PostHog takes batches up to 20 MB; the same bound applies to the bytes after decompression. */
export const MAX_BODY_BYTES = 20 * 1024 * 1024;

export interface Payload {
  /** The parsed JSON: an event, a list of events, or a batch object. */
  data: unknown;
  /** Form fields of an application/x-www-form-urlencoded body (api_key, token, sent_at). */
  form: URLSearchParams | null;
  query: URLSearchParams;
}

export async function readPayload(request: Request, limit = MAX_BODY_BYTES): Promise<Payload> {
  const url = new URL(request.url);
  const query = url.searchParams;
  let raw: Uint8Array | string | null = null;
  let form: URLSearchParams | null = null;
  if (request.method === "POST") {
    const bytes = await readLimited(request, limit);
    const contentType = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
    if (contentType === "application/x-www-form-urlencoded") {
      form = new URLSearchParams(new TextDecoder().decode(bytes));
      raw = form.get("data");
    } else {
      raw = bytes;
    }
  } else {
    raw = query.get("data");
  }
  if (raw === null || raw.length === 0) throw noData();
  const compression = (query.get("compression") ?? form?.get("compression") ??
    request.headers.get("content-encoding") ?? "").trim().toLowerCase();
  return { data: await decode(raw, compression, limit), form, query };
}

/** The request body, refusing more than `limit` bytes (Content-Length is only a hint; the stream decides). */
async function readLimited(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) throw tooLarge();
  if (!request.body) return new Uint8Array();
  return await collect(request.body, limit);
}

async function collect(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> {
  const bytes = await readUpTo(stream, limit);
  if (!bytes) throw tooLarge();
  return bytes;
}

const tooLarge = () =>
  new AnalyticsError(413, "invalid_request", "request_too_large", "The request is larger than 20 MB, once decompressed.");

const GZIP_MAGIC = [0x1f, 0x8b];

async function decode(raw: Uint8Array | string, compression: string, limit: number): Promise<unknown> {
  let bytes = typeof raw === "string" ? new TextEncoder().encode(raw) : raw;
  // a gzip body sent without saying so (PostHog retries such a body as gzip)
  const unannounced = compression === "" && GZIP_MAGIC.every((b, i) => bytes[i] === b);
  if (compression === "gzip" || compression === "gzip-js" || unannounced) {
    bytes = await gunzip(bytes, limit);
  } else if (compression !== "" && compression !== "base64") {
    throw invalidPayload(`Malformed request data: unsupported compression ${compression}.`);
  }
  let text = utf8(bytes);
  const trimmed = text.trimStart();
  // base64 when told so, and (as PostHog does) whenever the text is not JSON but decodes as base64
  if (compression === "base64" || !(trimmed.startsWith("{") || trimmed.startsWith("["))) {
    const decoded = fromBase64(text);
    if (decoded !== undefined) text = decoded;
    else if (compression === "base64") throw invalidPayload("Malformed request data: the data is not base64.");
  }
  try {
    return JSON.parse(text);
  } catch {
    // the parser's own message quotes the runtime, not the client's mistake
    throw invalidPayload("Malformed request data: Invalid JSON: the data is not a complete JSON value.");
  }
}

async function gunzip(bytes: Uint8Array, limit: number): Promise<Uint8Array> {
  try {
    const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream("gzip"));
    return await collect(stream, limit);
  } catch (error) {
    if (error instanceof AnalyticsError) throw error;
    throw invalidPayload("Malformed request data: Failed to decompress data: it is not valid gzip.");
  }
}

function utf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw invalidPayload("Malformed request data: the body is not UTF-8 text.");
  }
}

/** Base64 as PostHog's clients send it (spaces for `+` after form decoding, padding optional); undefined if not. */
function fromBase64(text: string): string | undefined {
  const cleaned = text.trim().replace(/ /g, "+").replace(/-/g, "+").replace(/_/g, "/");
  if (!cleaned || !/^[A-Za-z0-9+/]*={0,2}$/.test(cleaned)) return undefined;
  const padded = cleaned.replace(/=+$/, "").padEnd(Math.ceil(cleaned.replace(/=+$/, "").length / 4) * 4, "=");
  try {
    const binary = atob(padded);
    const bytes = Uint8Array.from(binary, (ch) => ch.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
