// One small storage interface for file bytes (media library, uploads, image cache, blobs), with an
// adapter per place: Postgres (embedded default) or Supabase Storage (deployed).
import type { Db } from "./db.ts";
import { hmacSha256, timingSafeEqual, toHex } from "./ids.ts";

export interface StoredObject {
  bytes: Uint8Array;
  contentType: string;
  size: number;
}

export interface Storage {
  put(bucket: string, key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  get(bucket: string, key: string): Promise<StoredObject | null>;
  delete(bucket: string, key: string): Promise<void>;
}

export function databaseStorage(db: Db): Storage {
  return {
    async put(bucket, key, bytes, contentType) {
      await db`
        insert into public.storage_objects (bucket, key, content_type, size, bytes)
        values (${bucket}, ${key}, ${contentType}, ${bytes.byteLength}, ${bytes})
        on conflict (bucket, key) do update
          set content_type = excluded.content_type, size = excluded.size, bytes = excluded.bytes,
              created_at = now()`;
    },
    async get(bucket, key) {
      // as base64: the driver parses bytea from its hex text, which for a camera photo (the image door
      // reads one per transform) takes about twice as long as decoding base64 (bench/images.ts)
      const [row] = await db<{ bytes: string; content_type: string; size: number }[]>`
        select encode(bytes, 'base64') as bytes, content_type, size from public.storage_objects
        where bucket = ${bucket} and key = ${key}`;
      return row ? { bytes: Uint8Array.fromBase64(row.bytes), contentType: row.content_type, size: Number(row.size) } : null;
    },
    async delete(bucket, key) {
      await db`delete from public.storage_objects where bucket = ${bucket} and key = ${key}`;
    },
  };
}

/** Supabase Storage over its REST API (service role), for deployments on Supabase. */
export function supabaseStorage(supabaseUrl: string, serviceRoleKey: string): Storage {
  const base = `${supabaseUrl.replace(/\/$/, "")}/storage/v1/object`;
  const headers = { authorization: `Bearer ${serviceRoleKey}`, apikey: serviceRoleKey };
  const path = (bucket: string, key: string) => `${base}/${encodeURIComponent(bucket)}/${key.split("/").map(encodeURIComponent).join("/")}`;
  return {
    async put(bucket, key, bytes, contentType) {
      const res = await fetch(path(bucket, key), {
        method: "POST",
        headers: { ...headers, "content-type": contentType, "x-upsert": "true" },
        body: bytes as BodyInit,
      });
      if (!res.ok) throw new Error(`storage put ${bucket}/${key}: ${res.status} ${await res.text()}`);
    },
    async get(bucket, key) {
      const res = await fetch(path(bucket, key), { headers });
      if (res.status === 404 || res.status === 400) {
        await res.body?.cancel();
        return null;
      }
      if (!res.ok) throw new Error(`storage get ${bucket}/${key}: ${res.status}`);
      const bytes = new Uint8Array(await res.arrayBuffer());
      return { bytes, contentType: res.headers.get("content-type") ?? "application/octet-stream", size: bytes.byteLength };
    },
    async delete(bucket, key) {
      const res = await fetch(`${base}/${encodeURIComponent(bucket)}`, {
        method: "DELETE",
        headers: { ...headers, "content-type": "application/json" },
        body: JSON.stringify({ prefixes: [key] }),
      });
      await res.body?.cancel();
    },
  };
}

/** A signed address's default lifetime: one hour. */
export const SIGNED_ADDRESS_SECONDS = 3600;

/**
 * Signs a path a function serves (a stored file) for a limited time: the query to append,
 * `expires=<unix seconds>&signature=<hex HMAC-SHA256 of "<path>\n<expires>">`, keyed by a secret from
 * shared/secrets.ts.
 */
export async function signAddress(secret: string, path: string, now: Date, seconds = SIGNED_ADDRESS_SECONDS): Promise<string> {
  const expires = Math.floor(now.getTime() / 1000) + seconds;
  const signature = toHex(await hmacSha256(secret, `${path}\n${expires}`));
  return `expires=${expires}&signature=${signature}`;
}

/** Whether a signed address is genuine and not expired. */
export async function verifyAddress(
  secret: string,
  path: string,
  params: URLSearchParams,
  now: Date,
): Promise<boolean> {
  const expires = params.get("expires") ?? "";
  const signature = params.get("signature") ?? "";
  if (!/^\d{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(signature)) return false;
  if (Number(expires) * 1000 < now.getTime()) return false;
  return timingSafeEqual(toHex(await hmacSha256(secret, `${path}\n${expires}`)), signature);
}
