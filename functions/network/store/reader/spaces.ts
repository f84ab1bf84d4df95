// Spaces with a feed channel, as their members see them (the policies show a space, its channels, messages
// and hearts to its members only): the spaces themselves, a feed channel's messages newest first, and the
// messages a page names with everything above them (a message's record names its parent's and root's).
import type { Db } from "../../../../shared/db.ts";
import type { FeedCursor } from "./feeds.ts";

export interface SpaceRow {
  id: string;
  slug: string;
  name: string;
  description: string;
  creator_id: string | null;
  created_at: Date;
  channel_id: string;
}

/** The reader's spaces that have a feed channel (only those with the given slugs, when asked). */
export async function feedSpaces(db: Db, slugs?: string[]): Promise<SpaceRow[]> {
  return await db<SpaceRow[]>`
    select s.id, s.slug, s.name, s.description, s.created_at, c.id as channel_id,
      coalesce(s.created_by, (select m.person_id from public.community_space_members m
        where m.space_id = s.id order by m.role = 'owner' desc, m.joined_at limit 1)) as creator_id
    from public.community_spaces s
    join public.community_channels c on c.space_id = s.id and c.kind = 'feed'
    where ${slugs ? db`s.slug = any(${slugs}::text[])` : db`true`}
    order by s.name, s.id limit 200`;
}

export async function messagePage(
  db: Db,
  channel: string,
  options: { limit: number; cursor?: FeedCursor },
): Promise<{ id: number; at_us: number }[]> {
  return await db<{ id: number; at_us: number }[]>`
    select m.id, (extract(epoch from m.created_at) * 1000000)::bigint as at_us
    from public.community_messages m
    where m.channel_id = ${channel}::uuid
      and (m.created_at, m.id) < (timestamptz 'epoch' + interval '1 microsecond' * ${options.cursor?.atUs ?? 8e15}::bigint,
        ${options.cursor?.id ?? 0}::bigint)
    order by m.created_at desc, m.id desc limit ${options.limit + 1}`;
}

export interface MessageRow {
  id: number;
  channel_id: string;
  author_id: string;
  text: string;
  facets: unknown;
  embed: unknown;
  parent_id: number | null;
  root_id: number | null;
  created_at: Date;
  reply_count: number;
  like_count: number;
  /** the key of the reader's heart when an app made it ('' when the site did) */
  viewer_heart: string | null;
}

/** The messages (of the reader's spaces) among `ids`, and every message above them. */
export async function messagesWithAncestors(db: Db, ids: number[], viewer: string | undefined): Promise<Map<number, MessageRow>> {
  if (!ids.length) return new Map();
  const rows = await db<MessageRow[]>`
    with recursive up (id) as (
      select m.id from public.community_messages m where m.id = any(${ids}::bigint[])
      union
      select m.parent_id from up join public.community_messages m on m.id = up.id where m.parent_id is not null
    )
    select m.id, m.channel_id, m.author_id, m.text, m.facets, m.embed, m.parent_id, m.root_id, m.created_at,
      (select count(*)::int from public.community_messages c where c.parent_id = m.id) as reply_count,
      (select count(*)::int from public.community_reactions r where r.message_id = m.id and r.kind = 'heart') as like_count,
      (select coalesce(r.rkey, '') from public.community_reactions r
        where r.message_id = m.id and r.person_id = ${viewer ?? null}::uuid and r.kind = 'heart') as viewer_heart
    from public.community_messages m where m.id in (select id from up)`;
  return new Map(rows.map((row) => [row.id, row]));
}

/** Replies below a message, `depth` levels deep. */
export async function messageDescendantIds(db: Db, id: number, depth: number): Promise<number[]> {
  if (depth <= 0) return [];
  const rows = await db<{ id: number }[]>`
    with recursive down (id, level, created_at) as (
      select m.id, 1, m.created_at from public.community_messages m where m.parent_id = ${id}
      union all
      select m.id, down.level + 1, m.created_at from down join public.community_messages m on m.parent_id = down.id
      where down.level < ${depth}
    )
    select id from down order by level, created_at, id limit 1000`;
  return rows.map((r) => r.id);
}

/** Who gave a message a heart, newest first (the key is the time: a heart has no id of its own). */
export async function heartPage(
  db: Db,
  message: number,
  options: { limit: number; cursor?: FeedCursor },
): Promise<{ id: number; author_id: string; created_at: Date; indexed_at: Date; at_us: number }[]> {
  return await db`
    select 0 as id, r.person_id as author_id, r.created_at, r.created_at as indexed_at,
      (extract(epoch from r.created_at) * 1000000)::bigint as at_us
    from public.community_reactions r
    where r.message_id = ${message} and r.kind = 'heart'
      and r.created_at < timestamptz 'epoch' + interval '1 microsecond' * ${options.cursor?.atUs ?? 8e15}::bigint
    order by r.created_at desc limit ${options.limit + 1}`;
}
