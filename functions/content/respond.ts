// Successful JSON answers: the vendor media type, an ETag that also depends on what the key may see,
// If-None-Match → 304, and the spec's Cache-Control.
import type { Context } from "hono";
import type { KeptAnswer } from "../../shared/answer-cache.ts";
import { sha256Hex } from "../../shared/ids.ts";
import type { ContentEnv } from "./access.ts";
import { DELIVERY_MEDIA_TYPE, MANAGEMENT_MEDIA_TYPE } from "./envelope.ts";

export const CACHE_CONTROL = "public, max-age=60, s-maxage=300, stale-while-revalidate=600";

export async function sendJson(c: Context<ContentEnv>, body: unknown, status = 200): Promise<Response> {
  const access = c.get("access");
  const text = JSON.stringify(body);
  const etag = `"${(await sha256Hex(`${access?.stage}:${access?.gated}:${text}`)).slice(0, 32)}"`;
  const contentType = access?.management ? MANAGEMENT_MEDIA_TYPE : DELIVERY_MEDIA_TYPE;
  // what the answer cache keeps of it (routes/delivery.ts)
  if (status === 200) c.set("answer", { body: text, etag, contentType });
  return sendAnswer(c, { body: text, etag, contentType }, status);
}

/** A JSON answer already built (by sendJson, now or for an earlier request): 304 when the ETag matches. */
export function sendAnswer(c: Context<ContentEnv>, answer: KeptAnswer, status = 200): Response {
  const headers: Record<string, string> = {
    "Content-Type": answer.contentType,
    "ETag": answer.etag,
    "Cache-Control": CACHE_CONTROL,
    // answers differ by key (drafts, gated bodies): a shared cache must key on it
    "Vary": "Authorization",
  };
  if (status === 200 && matchesEtag(c.req.header("if-none-match"), answer.etag)) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(answer.body, { status, headers });
}

/**
 * Management answers: the management media type, and never cached (they answer writes, and a client
 * polls an asset until its file is processed).
 */
export function sendManagement(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": MANAGEMENT_MEDIA_TYPE, "Cache-Control": "no-store", "Vary": "Authorization" },
  });
}

export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(",").map((t) => t.trim().replace(/^W\//, "")).some((t) => t === etag || t === "*");
}
