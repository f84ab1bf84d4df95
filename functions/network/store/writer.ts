// The SQL of a member's writes (service role; the community triggers still refuse what the spec says).
// One call's writes run in one transaction, holding the member's repository head row.
import type { Db, Tx } from "../../../shared/db.ts";
// one map of collection to table for reads and writes
import { RECORD_TABLES as TABLES, type TableCollection } from "./reader/records.ts";

export type { TableCollection };

export interface RepoHead {
  rev: string;
  cid: string;
}

/**
 * Takes the member's repository head for this transaction (undefined when the member has none yet: see
 * makeRepoHead), and whether they joined the wider network (their writes are then projected onto a signed
 * repository). One statement, and the write path's one queue, so it holds it no longer than it must:
 * the caller sends the write's own statements right behind it without waiting, and the server runs them
 * once the lock is held, in the order they were sent. The same statement marks the transaction as an API
 * write that projects the member inside itself, so the queue's trigger neither asks the function to
 * project nor wakes the projectors for them.
 */
export async function lockRepo(tx: Tx, personId: string): Promise<(RepoHead & { joined: boolean }) | undefined> {
  const [row] = await tx<{ rev: string; commit_cid: string; joined: boolean }[]>`
    select r.rev, r.commit_cid,
      exists (select 1 from public.network_accounts a where a.person_id = r.person_id) as joined,
      set_config('sitewire.network_project_called', 'here', true) as projecting_here,
      set_config('sitewire.network_projecting', ${personId}, true) as projecting_for
    from public.network_repos r where r.person_id = ${personId} for update of r`;
  return row ? { rev: row.rev, cid: row.commit_cid, joined: row.joined } : undefined;
}

/** The head a member's first write starts from (`initial`), unless another write made one meanwhile. */
export async function makeRepoHead(db: Db, personId: string, initial: RepoHead): Promise<void> {
  await db`
    insert into public.network_repos (person_id, rev, commit_cid) values (${personId}, ${initial.rev}, ${initial.cid})
    on conflict (person_id) do nothing`;
}

export async function saveRepoHead(tx: Tx, personId: string, head: RepoHead, now: Date): Promise<void> {
  await tx`
    update public.network_repos set rev = ${head.rev}, commit_cid = ${head.cid}, updated_at = ${now}
    where person_id = ${personId}`;
}

export interface HeadSummary {
  rev: string | undefined;
  cid: string | undefined;
  records: number;
  blobs: number;
}

/** The head and what the repository holds (checkAccountStatus). */
export async function repoSummary(db: Db, personId: string): Promise<HeadSummary> {
  const [row] = await db<{ rev: string | null; cid: string | null; records: number; blobs: number }[]>`
    select r.rev, r.commit_cid as cid,
      (select count(*) from public.community_posts where author_id = ${personId})
      + (select count(*) from public.community_likes where author_id = ${personId})
      + (select count(*) from public.community_reposts where author_id = ${personId})
      + (select count(*) from public.community_follows where author_id = ${personId})
      + (select count(*) from public.community_blocks where author_id = ${personId})
      + (select count(*) from public.profiles where id = ${personId} and network_profile is not null) as records,
      (select count(*) from public.network_blobs where person_id = ${personId}) as blobs
    from (select 1) one left join public.network_repos r on r.person_id = ${personId}`;
  return { rev: row.rev ?? undefined, cid: row.cid ?? undefined, records: Number(row.records), blobs: Number(row.blobs) };
}

/** The current CID of a record, or undefined when there is none. */
export async function currentCid(
  tx: Db,
  collection: TableCollection | "app.bsky.actor.profile",
  personId: string,
  rkey: string,
): Promise<string | undefined> {
  if (collection === "app.bsky.actor.profile") {
    const [row] = await tx<{ cid: string | null }[]>`
      select network_profile_cid as cid from public.profiles where id = ${personId}`;
    return row?.cid ?? undefined;
  }
  const [row] = await tx<{ cid: string }[]>`
    select cid from ${tx(`public.${TABLES[collection]}`)} where author_id = ${personId} and rkey = ${rkey}`;
  return row?.cid;
}

export async function postIdOf(db: Db, authorId: string, rkey: string): Promise<number | undefined> {
  const [row] = await db<{ id: number }[]>`
    select id from public.community_posts where author_id = ${authorId} and rkey = ${rkey}`;
  return row?.id;
}

export interface MessageRef {
  id: number;
  channel_id: string;
  root_id: number | null;
  author_id: string;
}

export async function messageOf(db: Db, id: number): Promise<MessageRef | undefined> {
  const [row] = await db<MessageRef[]>`
    select id, channel_id, root_id, author_id from public.community_messages where id = ${id}`;
  return row;
}

export interface Stored {
  rkey: string;
  cid: string;
  record: Record<string, unknown>;
  createdAt: Date;
  now: Date;
}

/** A new post, or (putRecord, `replace`) the new record of the post at that key, which keeps its row. */
export async function insertPost(
  tx: Tx,
  authorId: string,
  stored: Stored,
  post: {
    text: string;
    facets: unknown;
    embed: unknown;
    pictureCount: number;
    hasVideo: boolean;
    replyRootId?: number;
    replyParentId?: number;
    quoteId?: number;
  },
  /** putRecord: the post at that key, if any, takes the new record; else a row there already is refused (23505) */
  options: { replace: boolean },
): Promise<void> {
  await tx`
    insert into public.community_posts
      (author_id, rkey, cid, record, text, facets, embed, picture_count, has_video,
       reply_root_id, reply_parent_id, quote_id, created_at, indexed_at)
    values (${authorId}, ${stored.rkey}, ${stored.cid}, ${tx.json(stored.record as never)}, ${post.text},
            ${post.facets === undefined ? null : tx.json(post.facets as never)},
            ${post.embed === undefined ? null : tx.json(post.embed as never)},
            ${post.pictureCount}, ${post.hasVideo}, ${post.replyRootId ?? null}, ${post.replyParentId ?? null},
            ${post.quoteId ?? null}, ${stored.createdAt}, ${stored.now})
    ${
    options.replace
      ? tx`on conflict (author_id, rkey) do update set
      cid = excluded.cid, record = excluded.record, text = excluded.text, facets = excluded.facets,
      embed = excluded.embed, picture_count = excluded.picture_count, has_video = excluded.has_video,
      reply_root_id = excluded.reply_root_id, reply_parent_id = excluded.reply_parent_id,
      quote_id = excluded.quote_id, created_at = excluded.created_at`
      : tx``
  }`;
}

/** An app's answer to a space's post: a reply in that room. Returns the new message's id. */
export async function insertRoomReply(
  tx: Tx,
  authorId: string,
  parent: MessageRef,
  reply: { text: string; facets: unknown; embed: unknown; createdAt: Date },
): Promise<number> {
  const [row] = await tx<{ id: number }[]>`
    insert into public.community_messages (channel_id, author_id, text, facets, embed, parent_id, root_id, created_at)
    values (${parent.channel_id}, ${authorId}, ${reply.text},
            ${reply.facets === undefined ? null : tx.json(reply.facets as never)},
            ${reply.embed === undefined ? null : tx.json(reply.embed as never)},
            ${parent.id}, ${parent.root_id ?? parent.id}, ${reply.createdAt})
    returning id`;
  return row.id;
}

export async function insertSubjectPost(
  tx: Tx,
  collection: "app.bsky.feed.like" | "app.bsky.feed.repost",
  authorId: string,
  stored: Stored,
  postId: number,
): Promise<void> {
  await tx`
    insert into ${tx(`public.${TABLES[collection]}`)} (author_id, rkey, cid, record, post_id, created_at, indexed_at)
    values (${authorId}, ${stored.rkey}, ${stored.cid}, ${tx.json(stored.record as never)}, ${postId},
            ${stored.createdAt}, ${stored.now})`;
}

export async function insertSubjectPerson(
  tx: Tx,
  collection: "app.bsky.graph.follow" | "app.bsky.graph.block",
  authorId: string,
  stored: Stored,
  subjectId: string,
): Promise<void> {
  await tx`
    insert into ${tx(`public.${TABLES[collection]}`)} (author_id, rkey, cid, record, subject_id, created_at, indexed_at)
    values (${authorId}, ${stored.rkey}, ${stored.cid}, ${tx.json(stored.record as never)}, ${subjectId},
            ${stored.createdAt}, ${stored.now})`;
}

/** A heart on a space's message, made by an app's like. */
export async function insertHeart(tx: Tx, personId: string, messageId: number, rkey: string, now: Date): Promise<void> {
  await tx`
    insert into public.community_reactions (message_id, person_id, kind, rkey, created_at)
    values (${messageId}, ${personId}, 'heart', ${rkey}, ${now})`;
}

/** Deletes a record (or a heart made by that like); false when there was none. */
export async function deleteRecordRow(
  tx: Tx,
  collection: TableCollection,
  personId: string,
  rkey: string,
): Promise<boolean> {
  const rows = await tx`
    delete from ${tx(`public.${TABLES[collection]}`)} where author_id = ${personId} and rkey = ${rkey} returning id`;
  if (rows.length) return true;
  if (collection !== "app.bsky.feed.like") return false;
  const hearts = await tx`
    delete from public.community_reactions where person_id = ${personId} and rkey = ${rkey} returning message_id`;
  return hearts.length > 0;
}

/** The profile record, mapped onto the site's own profile. */
export async function saveProfile(
  tx: Tx,
  personId: string,
  profile: {
    displayName: string;
    description: string;
    avatar?: { cid: string; mime: string };
    banner?: { cid: string; mime: string };
    record: Record<string, unknown> | null;
    cid: string | null;
    now: Date;
  },
): Promise<void> {
  await tx`
    update public.profiles set
      display_name = ${profile.displayName}, description = ${profile.description},
      avatar_cid = ${profile.avatar?.cid ?? null}, avatar_mime = ${profile.avatar?.mime ?? null},
      banner_cid = ${profile.banner?.cid ?? null}, banner_mime = ${profile.banner?.mime ?? null},
      network_profile = ${profile.record === null ? null : tx.json(profile.record as never)},
      network_profile_cid = ${profile.cid}, updated_at = ${profile.now}
    where id = ${personId}`;
}

export async function insertBlob(
  db: Db,
  blob: { personId: string; cid: string; mime: string; size: number; now: Date },
): Promise<void> {
  await db`
    insert into public.network_blobs (person_id, cid, mime, size, created_at)
    values (${blob.personId}, ${blob.cid}, ${blob.mime}, ${blob.size}, ${blob.now})
    on conflict (person_id, cid) do nothing`;
}

/** Which of these blobs the member uploaded. */
export async function uploadedBlobs(db: Db, personId: string, cids: string[]): Promise<Map<string, string>> {
  if (!cids.length) return new Map();
  const rows = await db<{ cid: string; mime: string }[]>`
    select cid, mime from public.network_blobs where person_id = ${personId} and cid = any(${cids}::text[])`;
  return new Map(rows.map((r) => [r.cid, r.mime]));
}
