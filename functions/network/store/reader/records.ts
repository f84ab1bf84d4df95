// A member's records as a reader sees them (com.atproto.repo.getRecord, listRecords, describeRepo): each
// collection is a table keeping the record an app wrote verbatim with its key and CID. Spaces' messages
// are no records of anybody's, so they are not listed here.
import type { Db } from "../../../../shared/db.ts";

export const RECORD_TABLES = {
  "app.bsky.feed.post": "community_posts",
  "app.bsky.feed.like": "community_likes",
  "app.bsky.feed.repost": "community_reposts",
  "app.bsky.graph.follow": "community_follows",
  "app.bsky.graph.block": "community_blocks",
} as const;

export type TableCollection = keyof typeof RECORD_TABLES;

function tableOf(db: Db, collection: TableCollection) {
  return {
    community_posts: db`public.community_posts`,
    community_likes: db`public.community_likes`,
    community_reposts: db`public.community_reposts`,
    community_follows: db`public.community_follows`,
    community_blocks: db`public.community_blocks`,
  }[RECORD_TABLES[collection]];
}

export function isTableCollection(collection: string): collection is TableCollection {
  return Object.hasOwn(RECORD_TABLES, collection);
}

export interface RecordRow {
  rkey: string;
  cid: string;
  record: Record<string, unknown>;
}

export async function recordOf(db: Db, collection: TableCollection, author: string, rkey: string): Promise<RecordRow | undefined> {
  const [row] = await db<RecordRow[]>`
    select rkey, cid, record from ${tableOf(db, collection)}
    where author_id = ${author}::uuid and rkey = ${rkey}`;
  return row;
}

/** Newest key first unless `reverse`; the cursor is the last key of the previous page. */
export async function recordPage(
  db: Db,
  collection: TableCollection,
  author: string,
  options: { limit: number; cursor?: string; reverse: boolean },
): Promise<RecordRow[]> {
  const table = tableOf(db, collection);
  const after = options.cursor === undefined
    ? db`true`
    : options.reverse ? db`rkey > ${options.cursor}` : db`rkey < ${options.cursor}`;
  return await db<RecordRow[]>`
    select rkey, cid, record from ${table}
    where author_id = ${author}::uuid and ${after}
    order by rkey ${options.reverse ? db`asc` : db`desc`} limit ${options.limit + 1}`;
}

/** The collections in which the member has at least one record the reader may see. */
export async function collectionsOf(db: Db, author: string): Promise<string[]> {
  const [row] = await db<Record<string, boolean>[]>`
    select
      exists (select 1 from public.community_posts where author_id = ${author}::uuid) as "app.bsky.feed.post",
      exists (select 1 from public.community_likes where author_id = ${author}::uuid) as "app.bsky.feed.like",
      exists (select 1 from public.community_reposts where author_id = ${author}::uuid) as "app.bsky.feed.repost",
      exists (select 1 from public.community_follows where author_id = ${author}::uuid) as "app.bsky.graph.follow",
      exists (select 1 from public.community_blocks where author_id = ${author}::uuid) as "app.bsky.graph.block"`;
  return Object.entries(row).filter(([, has]) => has).map(([collection]) => collection);
}
