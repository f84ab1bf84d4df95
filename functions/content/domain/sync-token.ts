// Sync tokens: the position in the change sequence plus the narrowing (type, content_type), signed so
// a token the service did not issue is refused. Only URL-unreserved characters, as the client needs.
import { base64url, fromBase64url, hmacSha256, timingSafeEqual } from "../../../shared/ids.ts";
import type { Stage } from "../store.ts";

export type SyncType = "all" | "Entry" | "Asset" | "Deletion" | "DeletedEntry" | "DeletedAsset";
export const SYNC_TYPES: SyncType[] = ["all", "Entry", "Asset", "Deletion", "DeletedEntry", "DeletedAsset"];

export interface SyncPosition {
  stage: Stage;
  type: SyncType;
  contentType?: string;
  /** changes after this sequence number are still to be sent */
  after: number;
  /** set while paging: the high-water mark of the sync in progress */
  until?: number;
  /** paging an initial sync (which leaves deletions out unless asked for) */
  initial: boolean;
}

export async function encodeSyncToken(position: SyncPosition, secret: string): Promise<string> {
  const payload = base64url(new TextEncoder().encode(JSON.stringify({
    v: 1,
    s: position.stage,
    t: position.type,
    c: position.contentType,
    a: position.after,
    u: position.until,
    i: position.initial ? 1 : 0,
  })));
  const signature = base64url((await hmacSha256(secret, payload)).slice(0, 18));
  return `${payload}.${signature}`;
}

/** undefined for anything this service did not issue (or that was altered). */
export async function decodeSyncToken(token: string, secret: string): Promise<SyncPosition | undefined> {
  const [payload, signature, extra] = token.split(".");
  if (!payload || !signature || extra !== undefined) return undefined;
  const expected = base64url((await hmacSha256(secret, payload)).slice(0, 18));
  if (!timingSafeEqual(signature, expected)) return undefined;
  try {
    const data = JSON.parse(new TextDecoder().decode(fromBase64url(payload)));
    if (data.v !== 1 || !SYNC_TYPES.includes(data.t) || !Number.isInteger(data.a)) return undefined;
    return {
      stage: data.s === "preview" ? "preview" : "published",
      type: data.t,
      contentType: data.c ?? undefined,
      after: data.a,
      until: Number.isInteger(data.u) ? data.u : undefined,
      initial: data.i === 1,
    };
  } catch {
    return undefined;
  }
}
