// People as a reader sees them: network_people() (only those the reader may see) with the reader's
// standing towards each (follows both ways, blocks both ways, mute) and, for the detailed profile, counts.
// One statement for any number of people, so a page of posts costs the same whatever its authors.
import type { Db } from "../../../../shared/db.ts";

export interface ActorRow {
  id: string;
  username: string | null;
  network_did: string | null;
  display_name: string | null;
  description: string;
  avatar_cid: string | null;
  banner_cid: string | null;
  network_profile: Record<string, unknown> | null;
  network_profile_cid: string | null;
  created_at: Date;
  /** the reader's follow record key of this person */
  following: string | null;
  /** this person's follow record key of the reader */
  followed_by: string | null;
  /** the reader's block record key of this person */
  blocking: string | null;
  blocked_by: boolean;
  muted: boolean;
  followers_count?: number;
  follows_count?: number;
  posts_count?: number;
}

/** The people among `ids` the reader may see (others are absent from the map). */
export async function actorsByIds(
  db: Db,
  ids: Iterable<string>,
  viewer: string | undefined,
  options: { counts?: boolean } = {},
): Promise<Map<string, ActorRow>> {
  const list = [...new Set(ids)];
  if (!list.length) return new Map();
  const me = viewer ?? null;
  const counts = options.counts
    ? db`,
      (select count(*)::int from public.community_follows f where f.subject_id = n.id) as followers_count,
      (select count(*)::int from public.community_follows f where f.author_id = n.id) as follows_count,
      (select count(*)::int from public.community_posts p where p.author_id = n.id) as posts_count`
    : db``;
  // standing needs a reader: anonymous callers may not even look at the mutes table
  const standing = me
    ? db`
      (select f.rkey from public.community_follows f where f.author_id = ${me}::uuid and f.subject_id = n.id) as following,
      (select f.rkey from public.community_follows f where f.author_id = n.id and f.subject_id = ${me}::uuid) as followed_by,
      (select b.rkey from public.community_blocks b where b.author_id = ${me}::uuid and b.subject_id = n.id) as blocking,
      exists (select 1 from public.community_blocks b where b.author_id = n.id and b.subject_id = ${me}::uuid) as blocked_by,
      exists (select 1 from public.community_mutes m where m.person_id = ${me}::uuid and m.subject_id = n.id) as muted`
    : db`null as following, null as followed_by, null as blocking, false as blocked_by, false as muted`;
  const rows = await db<ActorRow[]>`
    select n.id, n.username, n.network_did, n.display_name, n.description, n.avatar_cid, n.banner_cid,
      n.network_profile, n.network_profile_cid, n.created_at, ${standing}
      ${counts}
    from public.network_people() n
    where n.id = any(${list}::uuid[])`;
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * Whose handle name (or joined DID) this is, among the people the reader may see. Resolved inside the
 * reader's own transaction: a second connection from the pool while it is open could wait forever.
 */
export async function visiblePersonOf(db: Db, who: { name?: string; plcDid?: string }): Promise<string | undefined> {
  if (!who.name && !who.plcDid) return undefined;
  const [row] = await db<{ id: string }[]>`
    select n.id from public.network_people() n
    where ${who.plcDid ? db`n.network_did = ${who.plcDid}` : db`n.name = ${who.name!.toLowerCase()}`}
    limit 1`;
  return row?.id;
}
