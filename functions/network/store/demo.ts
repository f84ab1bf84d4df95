// The SQL that loads the demo community (demo.ts): only into a site whose community is still empty.
import type { Tx } from "../../../shared/db.ts";

export async function communityIsEmpty(tx: Tx): Promise<boolean> {
  // one loader at a time, so two hosts starting together do not both load it
  await tx`select pg_advisory_xact_lock(hashtext('network demo community'))`;
  const [row] = await tx<{ any: boolean }[]>`
    select exists (select 1 from public.community_posts) or exists (select 1 from public.community_spaces) as any`;
  return !row.any;
}

export async function setCommunityProfile(tx: Tx, id: string, username: string, name: string, description: string) {
  await tx`
    update public.profiles set username = ${username}, display_name = ${name}, description = ${description}
    where id = ${id}`;
}

export async function insertSeedPost(
  tx: Tx,
  p: {
    authorId: string;
    rkey: string;
    cid: string;
    record: Record<string, unknown>;
    text: string;
    embed: unknown;
    replyRootId?: number;
    replyParentId?: number;
    quoteId?: number;
    at: Date;
  },
): Promise<number> {
  const [row] = await tx<{ id: number }[]>`
    insert into public.community_posts
      (author_id, rkey, cid, record, text, embed, reply_root_id, reply_parent_id, quote_id, created_at, indexed_at)
    values (${p.authorId}, ${p.rkey}, ${p.cid}, ${tx.json(p.record as never)}, ${p.text},
            ${p.embed === undefined ? null : tx.json(p.embed as never)}, ${p.replyRootId ?? null},
            ${p.replyParentId ?? null}, ${p.quoteId ?? null}, ${p.at}, ${p.at})
    returning id`;
  return row.id;
}

export async function insertSeedSubject(
  tx: Tx,
  kind: "app.bsky.feed.like" | "app.bsky.feed.repost" | "app.bsky.graph.follow" | "heart",
  authorId: string,
  rkey: string | null,
  cid: string | null,
  record: Record<string, unknown> | null,
  subject: { postId?: number; personId?: string; messageId?: number },
  at: Date,
): Promise<void> {
  if (kind === "heart") {
    await tx`
      insert into public.community_reactions (message_id, person_id, kind, created_at)
      values (${subject.messageId!}, ${authorId}, 'heart', ${at})`;
  } else if (kind === "app.bsky.graph.follow") {
    await tx`
      insert into public.community_follows (author_id, rkey, cid, record, subject_id, created_at, indexed_at)
      values (${authorId}, ${rkey}, ${cid}, ${tx.json(record as never)}, ${subject.personId!}, ${at}, ${at})`;
  } else {
    const table = kind === "app.bsky.feed.like" ? "public.community_likes" : "public.community_reposts";
    await tx`
      insert into ${tx(table)} (author_id, rkey, cid, record, post_id, created_at, indexed_at)
      values (${authorId}, ${rkey}, ${cid}, ${tx.json(record as never)}, ${subject.postId!}, ${at}, ${at})`;
  }
}

export async function insertSeedSpace(
  tx: Tx,
  s: { slug: string; name: string; description: string; ownerId: string; memberIds: string[] },
): Promise<string> {
  const [space] = await tx<{ id: string }[]>`
    insert into public.community_spaces (slug, name, description, created_by)
    values (${s.slug}, ${s.name}, ${s.description}, ${s.ownerId}) returning id`;
  for (const id of s.memberIds) {
    await tx`
      insert into public.community_space_members (space_id, person_id, role)
      values (${space.id}, ${id}, ${id === s.ownerId ? "owner" : "member"})`;
  }
  const [channel] = await tx<{ id: string }[]>`
    insert into public.community_channels (space_id, kind, name) values (${space.id}, 'feed', ${s.name}) returning id`;
  return channel.id;
}

export async function insertSeedMessage(
  tx: Tx,
  m: { channelId: string; authorId: string; text: string; parentId?: number; rootId?: number; at: Date },
): Promise<number> {
  const [row] = await tx<{ id: number }[]>`
    insert into public.community_messages (channel_id, author_id, text, parent_id, root_id, created_at)
    values (${m.channelId}, ${m.authorId}, ${m.text}, ${m.parentId ?? null}, ${m.rootId ?? null}, ${m.at})
    returning id`;
  return row.id;
}
