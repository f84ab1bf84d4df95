// Spaces as apps see them: each space with a feed channel is a feed generator of the site's DID, its
// messages are posts (`s~<id in hex>` keys), answers are replies and hearts are likes. A message's record
// is built when read, so its CID follows from it, and a reply's record names its parent's and root's.
import { atUri } from "../identity.ts";
import { LIKE, messageRecord, POST, recordCid, spaceMessageKey, type StrongRef } from "../records.ts";
import { type MessageRow, messageDescendantIds, messagesWithAncestors, type SpaceRow } from "../store/reader/spaces.ts";
import { graphemes, type Hydrator } from "./hydrate.ts";

type Json = Record<string, unknown>;

export const GENERATOR = "app.bsky.feed.generator";

export interface MessageView {
  row: MessageRow;
  uri: string;
  cid: string;
  record: Json;
  post: Json;
}

/** Views of the messages among `ids` the reader may see (and of every message above them). */
export async function messageViews(h: Hydrator, ids: number[]): Promise<Map<number, MessageView>> {
  const rows = await messagesWithAncestors(h.tx, ids, h.call.viewer?.id);
  await h.loadActors([...rows.values()].map((m) => m.author_id));
  const built = new Map<number, Promise<MessageView | undefined>>();
  const build = (id: number | null): Promise<MessageView | undefined> => {
    if (id == null) return Promise.resolve(undefined);
    if (!built.has(id)) built.set(id, buildOne(id));
    return built.get(id)!;
  };
  const buildOne = async (id: number): Promise<MessageView | undefined> => {
    const row = rows.get(id);
    const did = row && h.didOf(row.author_id);
    if (!row || !did) return undefined;
    const parent = await build(row.parent_id);
    const root = row.root_id != null && row.root_id !== row.parent_id ? await build(row.root_id) : parent;
    const ref = (v: MessageView): StrongRef => ({ uri: v.uri, cid: v.cid });
    const record = messageRecord(
      { text: row.text, facets: row.facets ?? undefined, embed: row.embed ?? undefined, created_at: row.created_at },
      parent ? { root: ref(root ?? parent), parent: ref(parent) } : undefined,
    );
    const uri = atUri(did, POST, spaceMessageKey(row.id));
    const cid = await recordCid(record);
    const me = h.call.viewer?.did;
    const post = {
      uri,
      cid,
      author: await h.profileBasic(row.author_id),
      record,
      replyCount: row.reply_count,
      repostCount: 0,
      likeCount: row.like_count,
      quoteCount: 0,
      indexedAt: row.created_at.toISOString(),
      viewer: me && row.viewer_heart ? { like: atUri(me, LIKE, row.viewer_heart) } : {},
      labels: [],
    };
    return { row, uri, cid, record, post };
  };
  const views = new Map<number, MessageView>();
  for (const id of rows.keys()) {
    const view = await build(id);
    if (view) views.set(id, view);
  }
  return views;
}

/** A page of a feed channel as feedViewPosts, each answer with its root and parent. */
export async function messageFeed(h: Hydrator, ids: number[]): Promise<Json[]> {
  const items = await messageFeedItems(h, ids);
  return ids.map((id) => items.get(id)).filter((item): item is Json => !!item);
}

/** feedViewPosts of the messages among `ids` the reader may see, by message id. */
export async function messageFeedItems(h: Hydrator, ids: number[]): Promise<Map<number, Json>> {
  const views = await messageViews(h, ids);
  const items = new Map<number, Json>();
  for (const id of ids) {
    const view = views.get(id);
    if (!view || h.blockedWith(view.row.author_id)) continue;
    const item: Json = { post: view.post };
    const parent = view.row.parent_id != null ? views.get(view.row.parent_id) : undefined;
    if (parent) {
      const root = view.row.root_id != null ? views.get(view.row.root_id) ?? parent : parent;
      item.reply = {
        root: { $type: "app.bsky.feed.defs#postView", ...root.post },
        parent: { $type: "app.bsky.feed.defs#postView", ...parent.post },
      };
    }
    items.set(id, item);
  }
  return items;
}

/** A space's message with its parents and `depth` levels of replies, as getPostThread answers it. */
export async function messageThread(h: Hydrator, id: number, depth: number): Promise<Json | undefined> {
  const below = await messageDescendantIds(h.tx, id, depth);
  const views = await messageViews(h, [id, ...below]);
  const anchor = views.get(id);
  if (!anchor) return undefined;
  const children = new Map<number, MessageView[]>();
  for (const child of below) {
    const view = views.get(child);
    if (!view || view.row.parent_id == null || h.blockedWith(view.row.author_id)) continue;
    children.set(view.row.parent_id, [...(children.get(view.row.parent_id) ?? []), view]);
  }
  const down = (view: MessageView, left: number): Json => ({
    $type: "app.bsky.feed.defs#threadViewPost",
    post: view.post,
    ...(left > 0 ? { replies: (children.get(view.row.id) ?? []).map((c) => down(c, left - 1)) } : {}),
  });
  const up = (view: MessageView): Json | undefined => {
    const parent = view.row.parent_id != null ? views.get(view.row.parent_id) : undefined;
    if (!parent) return undefined;
    const above = up(parent);
    return { $type: "app.bsky.feed.defs#threadViewPost", post: parent.post, ...(above ? { parent: above } : {}) };
  };
  const parent = up(anchor);
  return { ...down(anchor, depth), ...(parent ? { parent } : {}) };
}

export function generatorUri(siteDid: string, space: { slug: string }): string {
  return atUri(siteDid, GENERATOR, space.slug);
}

/** The slug a feed generator at-uri of this site names, or undefined when it names no feed of ours. */
export function slugOfFeed(siteDid: string, uri: string): string | undefined {
  const prefix = `at://${siteDid}/${GENERATOR}/`;
  return uri.startsWith(prefix) ? uri.slice(prefix.length) : undefined;
}

/** generatorView of a space (its creator must be somebody the reader may see; the hydrator holds them). */
export async function generatorView(h: Hydrator, space: SpaceRow): Promise<Json | undefined> {
  const creator = space.creator_id ? await h.profile(space.creator_id) : undefined;
  if (!creator) return undefined;
  const siteDid = h.call.site.did;
  const description = space.description ? graphemes(space.description, 300) : undefined;
  const record = {
    $type: GENERATOR,
    did: siteDid,
    displayName: graphemes(space.name, 24),
    ...(description ? { description } : {}),
    createdAt: space.created_at.toISOString(),
  };
  return {
    uri: generatorUri(siteDid, space),
    cid: await recordCid(record),
    did: siteDid,
    creator,
    displayName: space.name,
    ...(description ? { description } : {}),
    likeCount: 0,
    labels: [],
    viewer: {},
    indexedAt: space.created_at.toISOString(),
  };
}

/** generatorViews of spaces, their creators loaded in one batch. */
export async function generatorViews(h: Hydrator, spaces: SpaceRow[]): Promise<Json[]> {
  await h.loadActors(spaces.flatMap((s) => (s.creator_id ? [s.creator_id] : [])));
  return (await Promise.all(spaces.map((s) => generatorView(h, s)))).filter((v): v is Json => !!v);
}
