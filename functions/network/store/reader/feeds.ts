// Feed pages as a reader sees them: which posts (and reposts) a page holds, in order, paged in SQL by a
// (time, kind, id) key. The posts themselves come afterwards, all at once (posts.ts), so a page costs a
// fixed number of statements however long it is.
import type { Db } from "../../../../shared/db.ts";

/** Where the previous page stopped: the last item's time in microseconds, its kind and its id. */
export interface FeedCursor {
  atUs: number;
  kind: string;
  id: number;
}

export interface FeedItem {
  /** p: the post itself; r: a repost of it */
  kind: "p" | "r";
  item_id: number;
  post_id: number;
  /** who reposted (kind r) */
  by_id: string | null;
  at: Date;
  at_us: number;
}

/** kinds: p a post (or a like of one), r a repost, h a heart on a space's message */
export function encodeFeedCursor(item: { at_us: number; kind: string; item_id: number }): string {
  return `${item.at_us}_${item.kind}${item.item_id}`;
}

/** The cursor an earlier page handed out, or undefined when it is not one of ours. */
export function decodeFeedCursor(cursor: string | undefined): FeedCursor | undefined {
  const match = cursor?.match(/^(\d{1,17})_([prh])(\d{1,18})$/);
  return match ? { atUs: Number(match[1]), kind: match[2], id: Number(match[3]) } : undefined;
}

// a cursor far in the future when there is none, so one statement serves the first page and the rest
const start = (cursor: FeedCursor | undefined) => cursor ?? { atUs: 8e15, kind: "z", id: 0 };

export type AuthorFilter =
  | "posts_with_replies"
  | "posts_no_replies"
  | "posts_with_media"
  | "posts_and_author_threads"
  | "posts_with_video";

/** Neither muted by the reader nor on either side of a block with them (anybody is, to an anonymous reader). */
function welcome(db: Db, me: string | null, person: ReturnType<Db>) {
  if (!me) return db`true`;
  return db`not exists (select 1 from public.community_mutes m where m.person_id = ${me}::uuid and m.subject_id = ${person})
    and ${unblocked(db, me, person)}`;
}

/** Not on either side of a block with the reader (lists of other people's posts hide those, as the app view does). */
export function unblocked(db: Db, me: string | null, person: ReturnType<Db>) {
  if (!me) return db`true`;
  return db`not exists (select 1 from public.community_blocks b
      where (b.author_id = ${me}::uuid and b.subject_id = ${person}) or (b.author_id = ${person} and b.subject_id = ${me}::uuid))`;
}

/**
 * The posts quoting one post, newest first, leaving out those across a block with the reader; with `cid`,
 * only those quoting that version of it (the quote's strong ref names it).
 */
export async function quotePage(
  db: Db,
  post: number,
  viewer: string | undefined,
  options: { limit: number; cursor?: FeedCursor; cid?: string },
): Promise<{ id: number; at_us: number }[]> {
  const c = start(options.cursor);
  const version = options.cid
    ? db`coalesce(p.embed #>> '{record,cid}', p.embed #>> '{record,record,cid}') = ${options.cid}`
    : db`true`;
  return await db<{ id: number; at_us: number }[]>`
    select p.id, (extract(epoch from p.indexed_at) * 1000000)::bigint as at_us
    from public.community_posts p
    where p.quote_id = ${post} and ${version}
      and (p.indexed_at, p.id) < (timestamptz 'epoch' + interval '1 microsecond' * ${c.atUs}::bigint, ${c.id}::bigint)
      and ${unblocked(db, viewer ?? null, db`p.author_id`)}
    order by p.indexed_at desc, p.id desc limit ${options.limit + 1}`;
}

export interface LikedItem {
  /** p: a like of a post (item_id the like's id); h: a heart on a space's message (item_id the message's) */
  kind: "p" | "h";
  item_id: number;
  post_id: number | null;
  at: Date;
  at_us: number;
}

/**
 * What a member liked, newest first: likes of posts (kind p, item_id the like's id) and hearts on spaces'
 * messages (kind h, item_id the message's id), one keyset over both.
 */
export async function likedPage(
  db: Db,
  person: string,
  options: { limit: number; cursor?: FeedCursor },
): Promise<LikedItem[]> {
  const c = start(options.cursor);
  const take = options.limit + 1;
  return await db<LikedItem[]>`
    with cur as (select timestamptz 'epoch' + interval '1 microsecond' * ${c.atUs}::bigint as at),
    items as (
      (select 'p' as kind, l.id as item_id, l.post_id, l.indexed_at as at
       from public.community_likes l, cur
       where l.author_id = ${person}::uuid and (l.indexed_at, 'p', l.id) < (cur.at, ${c.kind}::text, ${c.id}::bigint)
       order by l.indexed_at desc, l.id desc limit ${take})
      union all
      (select 'h', r.message_id, null::bigint, r.created_at
       from public.community_reactions r, cur
       where r.person_id = ${person}::uuid and r.kind = 'heart'
         and (r.created_at, 'h', r.message_id) < (cur.at, ${c.kind}::text, ${c.id}::bigint)
       order by r.created_at desc, r.message_id desc limit ${take})
    )
    select kind, item_id, post_id, at, (extract(epoch from at) * 1000000)::bigint as at_us
    from items order by at desc, kind desc, item_id desc limit ${take}`;
}

/** The reader's following timeline: their own posts and those of the people they follow, and their reposts. */
export async function timelinePage(
  db: Db,
  viewer: string,
  options: { limit: number; cursor?: FeedCursor },
): Promise<FeedItem[]> {
  const c = start(options.cursor);
  const take = options.limit + 1;
  return await db<FeedItem[]>`
    with cur as (select timestamptz 'epoch' + interval '1 microsecond' * ${c.atUs}::bigint as at),
    authors as (
      select ${viewer}::uuid as id
      union select f.subject_id from public.community_follows f where f.author_id = ${viewer}::uuid
    ),
    items as (
      (select 'p' as kind, p.id as item_id, p.id as post_id, null::uuid as by_id, p.indexed_at as at
       from public.community_posts p, cur
       where p.author_id in (select id from authors)
         and (p.indexed_at, 'p', p.id) < (cur.at, ${c.kind}::text, ${c.id}::bigint)
         and ${welcome(db, viewer, db`p.author_id`)}
       order by p.indexed_at desc, p.id desc limit ${take})
      union all
      (select 'r', r.id, r.post_id, r.author_id, r.indexed_at
       from public.community_reposts r join public.community_posts p on p.id = r.post_id, cur
       where r.author_id in (select id from authors)
         and (r.indexed_at, 'r', r.id) < (cur.at, ${c.kind}::text, ${c.id}::bigint)
         and ${welcome(db, viewer, db`p.author_id`)} and ${welcome(db, viewer, db`r.author_id`)}
       order by r.indexed_at desc, r.id desc limit ${take})
    )
    select kind, item_id, post_id, by_id, at, (extract(epoch from at) * 1000000)::bigint as at_us
    from items order by at desc, kind desc, item_id desc limit ${take}`;
}

/** One member's posts (and reposts, for the filters that show them), newest first. */
export async function authorFeedPage(
  db: Db,
  author: string,
  viewer: string | undefined,
  options: { limit: number; cursor?: FeedCursor; filter: AuthorFilter },
): Promise<FeedItem[]> {
  const c = start(options.cursor);
  const take = options.limit + 1;
  const me = viewer ?? null;
  const filter = {
    posts_with_replies: db`true`,
    posts_no_replies: db`p.reply_parent_id is null and not (p.record ? 'reply')`,
    posts_with_media: db`(p.picture_count > 0 or p.has_video)`,
    posts_with_video: db`p.has_video`,
    posts_and_author_threads: db`(not (p.record ? 'reply') or exists (
      select 1 from public.community_posts rt where rt.id = p.reply_root_id and rt.author_id = ${author}::uuid))`,
  }[options.filter];
  const withReposts = options.filter !== "posts_with_media" && options.filter !== "posts_with_video";
  return await db<FeedItem[]>`
    with cur as (select timestamptz 'epoch' + interval '1 microsecond' * ${c.atUs}::bigint as at),
    items as (
      (select 'p' as kind, p.id as item_id, p.id as post_id, null::uuid as by_id, p.indexed_at as at
       from public.community_posts p, cur
       where p.author_id = ${author}::uuid and ${filter}
         and (p.indexed_at, 'p', p.id) < (cur.at, ${c.kind}::text, ${c.id}::bigint)
       order by p.indexed_at desc, p.id desc limit ${take})
      union all
      (select 'r', r.id, r.post_id, r.author_id, r.indexed_at
       from public.community_reposts r join public.community_posts p on p.id = r.post_id, cur
       where ${withReposts} and r.author_id = ${author}::uuid
         and (r.indexed_at, 'r', r.id) < (cur.at, ${c.kind}::text, ${c.id}::bigint)
         and ${welcome(db, me, db`p.author_id`)}
       order by r.indexed_at desc, r.id desc limit ${take})
    )
    select kind, item_id, post_id, by_id, at, (extract(epoch from at) * 1000000)::bigint as at_us
    from items order by at desc, kind desc, item_id desc limit ${take}`;
}

export interface SubjectRow {
  id: number;
  author_id: string;
  rkey: string;
  created_at: Date;
  indexed_at: Date;
  at_us: number;
}

/** Who liked, or reposted, a post: newest first. */
export async function subjectPage(
  db: Db,
  table: "likes" | "reposts",
  post: number,
  options: { limit: number; cursor?: FeedCursor },
): Promise<SubjectRow[]> {
  const c = start(options.cursor);
  const from = table === "likes" ? db`public.community_likes` : db`public.community_reposts`;
  return await db<SubjectRow[]>`
    with cur as (select timestamptz 'epoch' + interval '1 microsecond' * ${c.atUs}::bigint as at)
    select s.id, s.author_id, s.rkey, s.created_at, s.indexed_at,
      (extract(epoch from s.indexed_at) * 1000000)::bigint as at_us
    from ${from} s, cur
    where s.post_id = ${post} and (s.indexed_at, s.id) < (cur.at, ${c.id}::bigint)
    order by s.indexed_at desc, s.id desc limit ${options.limit + 1}`;
}
