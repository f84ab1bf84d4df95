// The records apps write, checked against the protocol's own lexicons (@atproto/api ships them), and
// their content identifiers (CID of the record's DAG-CBOR, as the protocol computes it).
import { lexicons } from "@atproto/api";
import { jsonToLex } from "@atproto/lexicon";
import { cidForLex } from "@atproto/lex-cbor";
import { AtUri, isValidRecordKey, isValidTid } from "@atproto/syntax";
import { invalidRecord, invalidRequest } from "./xrpc/errors.ts";

export const POST = "app.bsky.feed.post";
export const LIKE = "app.bsky.feed.like";
export const REPOST = "app.bsky.feed.repost";
export const FOLLOW = "app.bsky.graph.follow";
export const BLOCK = "app.bsky.graph.block";
export const PROFILE = "app.bsky.actor.profile";

/** The collections a member's repository on this site holds. */
export const COLLECTIONS = [POST, LIKE, REPOST, FOLLOW, BLOCK, PROFILE] as const;
export type Collection = typeof COLLECTIONS[number];

export function isCollection(value: string): value is Collection {
  return (COLLECTIONS as readonly string[]).includes(value);
}

export function checkCollection(value: string): Collection {
  if (!isCollection(value)) {
    throw invalidRequest(`This site keeps ${COLLECTIONS.join(", ")}; it does not keep ${value} records.`);
  }
  return value;
}

/** A record key a collection takes: the profile's is `self`, the others' a TID. */
export function checkRkey(collection: Collection, rkey: string): string {
  if (collection === PROFILE) {
    if (rkey !== "self") throw invalidRecord("The profile record's key is self.");
  } else if (!isValidRecordKey(rkey) || !isValidTid(rkey)) {
    throw invalidRecord(`Record keys of ${collection} are TIDs.`);
  }
  return rkey;
}

/** The record checked against its lexicon (with $type set to the collection); InvalidRecord otherwise. */
export function validateRecord(collection: Collection, value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidRecord("A record is a JSON object.");
  }
  const record = { ...(value as Record<string, unknown>) };
  if (record.$type === undefined) record.$type = collection;
  if (record.$type !== collection) throw invalidRecord(`Invalid $type: expected ${collection}, got ${record.$type}`);
  try {
    lexicons.assertValidRecord(collection, jsonToLex(record));
  } catch (error) {
    throw invalidRecord(`Invalid ${collection} record: ${error instanceof Error ? error.message : String(error)}`);
  }
  return record;
}

/** The record's CID (CIDv1, dag-cbor, sha2-256), as a string. */
export async function recordCid(record: Record<string, unknown>): Promise<string> {
  // deno-lint-ignore no-explicit-any
  return (await cidForLex(jsonToLex(record) as any)).toString();
}

/** A space's post is no record of anybody's: its key says so, `s~<message id in hex>`. */
export const SPACE_KEY = /^s~([0-9a-f]{1,15})$/;

export function spaceMessageKey(messageId: number): string {
  return `s~${messageId.toString(16)}`;
}

export function messageIdOfKey(rkey: string): number | undefined {
  const match = SPACE_KEY.exec(rkey);
  return match ? parseInt(match[1], 16) : undefined;
}

export interface StrongRef {
  uri: string;
  cid: string;
}

/** The post record an app is shown for a space's message. */
export function messageRecord(
  message: { text: string; facets?: unknown; embed?: unknown; created_at: Date },
  reply?: { root: StrongRef; parent: StrongRef },
): Record<string, unknown> {
  return {
    $type: POST,
    text: message.text,
    ...(message.facets ? { facets: message.facets } : {}),
    ...(message.embed ? { embed: message.embed } : {}),
    ...(reply ? { reply } : {}),
    createdAt: message.created_at.toISOString(),
  };
}

/** An at-uri's parts, or InvalidRecord naming the field it came from. */
export function parseRecordUri(uri: unknown, field: string): { repo: string; collection: string; rkey: string } {
  try {
    const parsed = new AtUri(String(uri));
    if (!parsed.collection || !parsed.rkey) throw new Error("no record");
    return { repo: parsed.host, collection: parsed.collection, rkey: parsed.rkey };
  } catch {
    throw invalidRecord(`${field} is not the address of a record.`);
  }
}

/** The quoted record's address in a post's embed (app.bsky.embed.record or recordWithMedia), if any. */
export function quotedUri(embed: unknown): string | undefined {
  const e = embed as { $type?: string; record?: { uri?: string; record?: { uri?: string } } } | undefined;
  if (e?.$type === "app.bsky.embed.record") return e.record?.uri;
  if (e?.$type === "app.bsky.embed.recordWithMedia") return e.record?.record?.uri;
  return undefined;
}

/** Pictures and video a post's embed carries (directly, or as the media of a quote). */
export function mediaOf(embed: unknown): { pictures: BlobRefJson[]; video?: BlobRefJson } {
  const e = embed as { $type?: string; media?: unknown } | undefined;
  const media = (e?.$type === "app.bsky.embed.recordWithMedia" ? e.media : e) as
    | { $type?: string; images?: { image: BlobRefJson }[]; video?: BlobRefJson }
    | undefined;
  if (media?.$type === "app.bsky.embed.images") return { pictures: (media.images ?? []).map((i) => i.image) };
  if (media?.$type === "app.bsky.embed.video" && media.video) return { pictures: [], video: media.video };
  return { pictures: [] };
}

export interface BlobRefJson {
  $type?: "blob";
  ref: { $link: string };
  mimeType: string;
  size: number;
}
