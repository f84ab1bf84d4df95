// Posts as a reader sees them (the policies hide what the audience excludes), with their counts and the
// reader's own like and repost, in one statement for any number of posts.
import type { Db } from "../../../../shared/db.ts";

export interface PostRow {
  id: number;
  author_id: string;
  rkey: string;
  cid: string;
  record: Record<string, unknown>;
  embed: Record<string, unknown> | null;
  reply_root_id: number | null;
  reply_parent_id: number | null;
  quote_id: number | null;
  indexed_at: Date;
  reply_count: number;
  repost_count: number;
  like_count: number;
  quote_count: number;
  /** the reader's like and repost record keys */
  viewer_like: string | null;
  viewer_repost: string | null;
  /** whether the reader muted the post's thread */
  viewer_thread_muted: boolean;
}

/**
 * The posts among `ids` the reader may see; with `related`, also the posts they answer (parent and root)
 * and quote, so a page and everything its views name come back in this one statement.
 */
export async function postsByIds(
  db: Db,
  ids: Iterable<number>,
  viewer: string | undefined,
  options: { related?: boolean } = {},
): Promise<Map<number, PostRow>> {
  const list = [...new Set(ids)];
  if (!list.length) return new Map();
  const me = viewer ?? null;
  const wanted = options.related
    ? db`p.id in (
        select unnest(${list}::bigint[])
        union select unnest(array[r.reply_parent_id, r.reply_root_id, r.quote_id])
        from public.community_posts r where r.id = any(${list}::bigint[]))`
    : db`p.id = any(${list}::bigint[])`;
  // a thread mute is the reader's own: anonymous callers may not look at the table at all
  const threadMuted = me
    ? db`exists (select 1 from public.community_thread_mutes t
        where t.person_id = ${me}::uuid and t.root_id in (p.id, p.reply_root_id))`
    : db`false`;
  const rows = await db<PostRow[]>`
    select p.id, p.author_id, p.rkey, p.cid, p.record, p.embed, p.reply_root_id, p.reply_parent_id, p.quote_id,
      p.indexed_at,
      (select count(*)::int from public.community_posts c where c.reply_parent_id = p.id) as reply_count,
      (select count(*)::int from public.community_reposts r where r.post_id = p.id) as repost_count,
      (select count(*)::int from public.community_likes l where l.post_id = p.id) as like_count,
      (select count(*)::int from public.community_posts q where q.quote_id = p.id) as quote_count,
      (select l.rkey from public.community_likes l where l.post_id = p.id and l.author_id = ${me}::uuid) as viewer_like,
      (select r.rkey from public.community_reposts r where r.post_id = p.id and r.author_id = ${me}::uuid) as viewer_repost,
      ${threadMuted} as viewer_thread_muted
    from public.community_posts p
    where ${wanted}`;
  return new Map(rows.map((row) => [row.id, row]));
}

/** The id of a member's post by its record key, when the reader may see it. */
export async function postIdOf(db: Db, author: string, rkey: string): Promise<number | undefined> {
  const [row] = await db<{ id: number }[]>`
    select id from public.community_posts where author_id = ${author} and rkey = ${rkey}`;
  return row?.id;
}

/** Ids of the posts above one (parent, its parent, ...) up to `height`, nearest first. */
export async function ancestorIds(db: Db, id: number, height: number): Promise<number[]> {
  if (height <= 0) return [];
  const rows = await db<{ id: number }[]>`
    with recursive up (id, parent, level) as (
      select p.id, p.reply_parent_id, 0 from public.community_posts p where p.id = ${id}
      union all
      select p.id, p.reply_parent_id, up.level + 1
      from up join public.community_posts p on p.id = up.parent
      where up.level < ${height}
    )
    select id from up where level > 0 order by level`;
  return rows.map((r) => r.id);
}

/** Ids of the replies below one, `depth` levels deep, oldest first within each level. */
export async function descendantIds(db: Db, id: number, depth: number): Promise<number[]> {
  if (depth <= 0) return [];
  const rows = await db<{ id: number }[]>`
    with recursive down (id, level, created_at) as (
      select p.id, 1, p.created_at from public.community_posts p where p.reply_parent_id = ${id}
      union all
      select p.id, down.level + 1, p.created_at
      from down join public.community_posts p on p.reply_parent_id = down.id
      where down.level < ${depth}
    )
    select id from down order by level, created_at, id limit 1000`;
  return rows.map((r) => r.id);
}

/** The ids of posts by (author, record key), those the reader may see; one statement for the lot. */
export async function postIdsOf(db: Db, keys: { author: string; rkey: string }[]): Promise<Map<string, number>> {
  if (!keys.length) return new Map();
  const rows = await db<{ id: number; author_id: string; rkey: string }[]>`
    select p.id, p.author_id, p.rkey from public.community_posts p
    join unnest(${keys.map((k) => k.author)}::uuid[], ${keys.map((k) => k.rkey)}::text[]) as k (author_id, rkey)
      on k.author_id = p.author_id and k.rkey = p.rkey`;
  return new Map(rows.map((r) => [`${r.author_id}/${r.rkey}`, r.id]));
}
