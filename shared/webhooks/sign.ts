// HMAC-SHA256 signatures in the encodings the webhook-sending APIs use. Each API's adapter builds its
// own header at send time from the subscription's secret (secrets never go into the outbox).
import { hmacSha256, toHex } from "../ids.ts";

/** Base64 HMAC-SHA256 of the exact body (Typeform-Signature is `sha256=<this>`). */
export async function hmacSha256Base64(secret: string, body: string | Uint8Array): Promise<string> {
  const bytes = await hmacSha256(secret, body);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** Lower-case hex HMAC-SHA256 of the exact body (X-Cal-Signature-256; X-Form-Signature is `sha256=<this>`). */
export async function hmacSha256Hex(secret: string, body: string | Uint8Array): Promise<string> {
  return toHex(await hmacSha256(secret, body));
}
