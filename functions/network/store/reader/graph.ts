// The graph as a reader sees it: who follows whom, the reader's own blocks and mutes, newest first, paged
// by (time, id). The people themselves are loaded afterwards, all at once (actors.ts).
import type { Db } from "../../../../shared/db.ts";
import { type FeedCursor, unblocked } from "./feeds.ts";

export interface EdgeRow {
  /** the other end of the edge */
  person_id: string;
  id: number;
  at_us: number;
}

const cursorAt = (db: Db, cursor: FeedCursor | undefined) =>
  db`timestamptz 'epoch' + interval '1 microsecond' * ${cursor?.atUs ?? 8e15}::bigint`;

/** follows: whom `person` follows; followers: who follows them; blocks: whom they block (their own list). */
export async function edgePage(
  db: Db,
  kind: "follows" | "followers" | "blocks",
  person: string,
  options: { limit: number; cursor?: FeedCursor },
): Promise<EdgeRow[]> {
  const table = kind === "blocks" ? db`public.community_blocks` : db`public.community_follows`;
  const [mine, other] = kind === "followers" ? [db`e.subject_id`, db`e.author_id`] : [db`e.author_id`, db`e.subject_id`];
  return await db<EdgeRow[]>`
    select ${other} as person_id, e.id, (extract(epoch from e.indexed_at) * 1000000)::bigint as at_us
    from ${table} e
    where ${mine} = ${person}::uuid and (e.indexed_at, e.id) < (${cursorAt(db, options.cursor)}, ${options.cursor?.id ?? 0}::bigint)
    order by e.indexed_at desc, e.id desc limit ${options.limit + 1}`;
}

/**
 * Followers of `person` whom the reader follows too, newest first; none across a block with the reader.
 * The followers come off the subject index in order; each is checked against the reader's follows by
 * their (author, subject) key.
 */
export async function knownFollowerPage(
  db: Db,
  person: string,
  viewer: string,
  options: { limit: number; cursor?: FeedCursor },
): Promise<EdgeRow[]> {
  return await db<EdgeRow[]>`
    select e.author_id as person_id, e.id, (extract(epoch from e.indexed_at) * 1000000)::bigint as at_us
    from public.community_follows e
    where e.subject_id = ${person}::uuid
      and (e.indexed_at, e.id) < (${cursorAt(db, options.cursor)}, ${options.cursor?.id ?? 0}::bigint)
      and exists (select 1 from public.community_follows mine
        where mine.author_id = ${viewer}::uuid and mine.subject_id = e.author_id)
      and ${unblocked(db, viewer, db`e.author_id`)}
    order by e.indexed_at desc, e.id desc limit ${options.limit + 1}`;
}

/** The reader's mutes (only they see them), newest first; a mute has no id, so the key is its person. */
export async function mutePage(
  db: Db,
  viewer: string,
  options: { limit: number; cursor?: { atUs: number; person: string } },
): Promise<{ person_id: string; at_us: number }[]> {
  return await db<{ person_id: string; at_us: number }[]>`
    select m.subject_id as person_id, (extract(epoch from m.created_at) * 1000000)::bigint as at_us
    from public.community_mutes m
    where m.person_id = ${viewer}::uuid
      and (m.created_at, m.subject_id) < (timestamptz 'epoch' + interval '1 microsecond' * ${options.cursor?.atUs ?? 8e15}::bigint,
        ${options.cursor?.person ?? "ffffffff-ffff-ffff-ffff-ffffffffffff"}::uuid)
    order by m.created_at desc, m.subject_id desc limit ${options.limit + 1}`;
}

/** Mutes `subject` for the reader (the policy lets a member mute only people they may see). */
export async function mute(db: Db, viewer: string, subject: string): Promise<void> {
  await db`insert into public.community_mutes (person_id, subject_id) values (${viewer}, ${subject})
    on conflict do nothing`;
}

export async function unmute(db: Db, viewer: string, subject: string): Promise<void> {
  await db`delete from public.community_mutes where person_id = ${viewer} and subject_id = ${subject}`;
}

/**
 * Mutes the thread a post belongs to, for the reader: the mute names the thread's root (the post itself
 * when it answers nothing, or when the reader may not see the root). False when the reader may not see
 * the post.
 */
export async function muteThread(db: Db, viewer: string, post: number): Promise<boolean> {
  const rows = await db`
    insert into public.community_thread_mutes (person_id, root_id)
    select ${viewer}::uuid, coalesce((select r.id from public.community_posts r where r.id = p.reply_root_id), p.id)
    from public.community_posts p where p.id = ${post}
    on conflict do nothing
    returning root_id`;
  if (rows.length) return true;
  const [seen] = await db`select 1 from public.community_posts where id = ${post}`;
  return Boolean(seen);
}

/** Unmutes the thread a post belongs to (whichever of it and its root the mute names). */
export async function unmuteThread(db: Db, viewer: string, post: number): Promise<void> {
  await db`
    delete from public.community_thread_mutes t using public.community_posts p
    where p.id = ${post} and t.person_id = ${viewer}::uuid and t.root_id in (p.id, p.reply_root_id)`;
}
