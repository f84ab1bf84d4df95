// Sync tokens: the position in the change history plus the narrowing (type, content_type), signed so
// a token the service did not issue is refused. Only URL-unreserved characters, as the client needs.
//
// Positions are transaction ids (store.ts, syncPage): a delta sends the changes of the transactions from
// `from` on that had all finished when it began; paging keeps that upper bound and the last item sent.
import { base64url, fromBase64url, hmacSha256, timingSafeEqual } from "../../../shared/ids.ts";
import type { Stage } from "../store/entries.ts";

export type SyncType = "all" | "Entry" | "Asset" | "Deletion" | "DeletedEntry" | "DeletedAsset";
export const SYNC_TYPES: SyncType[] = ["all", "Entry", "Asset", "Deletion", "DeletedEntry", "DeletedAsset"];

/** Where a page left off: the last item's transaction and its sequence number within the changes. */
export interface SyncCursor {
  xid: number;
  seq: number;
}

export interface SyncPosition {
  stage: Stage;
  type: SyncType;
  contentType?: string;
  /** changes made by transactions with this id or a later one are still to be sent */
  from: number;
  /** set while paging: the transactions below this id, all finished when the sync began, are this sync's */
  to?: number;
  /** set while paging: the last item sent */
  cursor?: SyncCursor;
  /** paging an initial sync (which leaves deletions out unless asked for) */
  initial: boolean;
}

const VERSION = 2;

export async function encodeSyncToken(position: SyncPosition, secret: string): Promise<string> {
  const payload = base64url(new TextEncoder().encode(JSON.stringify({
    v: VERSION,
    s: position.stage,
    t: position.type,
    c: position.contentType,
    f: position.from,
    u: position.to,
    k: position.cursor ? [position.cursor.xid, position.cursor.seq] : undefined,
    i: position.initial ? 1 : 0,
  })));
  const signature = base64url((await hmacSha256(secret, payload)).slice(0, 18));
  return `${payload}.${signature}`;
}

const count = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** undefined for anything this service did not issue (or that was altered, or an older version wrote). */
export async function decodeSyncToken(token: string, secret: string): Promise<SyncPosition | undefined> {
  const [payload, signature, extra] = token.split(".");
  if (!payload || !signature || extra !== undefined) return undefined;
  const expected = base64url((await hmacSha256(secret, payload)).slice(0, 18));
  if (!timingSafeEqual(signature, expected)) return undefined;
  try {
    const data = JSON.parse(new TextDecoder().decode(fromBase64url(payload)));
    if (data.v !== VERSION || !SYNC_TYPES.includes(data.t) || !count(data.f)) return undefined;
    if (data.u !== undefined && !count(data.u)) return undefined;
    const cursor = Array.isArray(data.k) && data.k.length === 2 && data.k.every(count)
      ? { xid: data.k[0], seq: data.k[1] }
      : undefined;
    if (data.k !== undefined && !cursor) return undefined;
    return {
      stage: data.s === "preview" ? "preview" : "published",
      type: data.t,
      ...(data.c !== undefined ? { contentType: String(data.c) } : {}),
      from: data.f,
      ...(data.u !== undefined ? { to: data.u } : {}),
      ...(cursor ? { cursor } : {}),
      initial: data.i === 1,
    };
  } catch {
    return undefined;
  }
}
