// app.bsky.feed.getPostThread: a post with the posts above it (up to parentHeight) and the replies below
// it (depth levels). A post the reader may not see shows as notFoundPost, one across a block as
// blockedPost; a block hides replies. Five statements whatever the thread's size.
import type { PostRow } from "../../../../store/reader/posts.ts";
import { ancestorIds, descendantIds } from "../../../../store/reader/posts.ts";
import { type Hydrator, read } from "../../../../views/hydrate.ts";
import { postRef } from "../../../../views/lookup.ts";
import { messageThread } from "../../../../views/spaces.ts";
import { notFound } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { int, str } from "../../../../xrpc/params.ts";

type Json = Record<string, unknown>;

export default method("app.bsky.feed.getPostThread", { auth: "optional", apps: true }, (call) =>
  read(call, async (h) => {
    const uri = str(call.params, "uri");
    const depth = int(call.params, "depth", { min: 0, max: 1000, def: 6 });
    const parentHeight = int(call.params, "parentHeight", { min: 0, max: 1000, def: 80 });
    const ref = await postRef(h, uri);
    if (ref?.kind === "message") {
      const thread = await messageThread(h, ref.messageId, depth);
      if (!thread) throw notFound("NotFound", `Post not found: ${uri}`);
      return { thread };
    }
    if (!ref || ref.id === undefined) throw notFound("NotFound", `Post not found: ${uri}`);
    const [above, below] = [await ancestorIds(h.tx, ref.id, parentHeight), await descendantIds(h.tx, ref.id, depth)];
    await h.loadPosts([ref.id, ...above, ...below]);
    const anchor = h.visiblePost(ref.id);
    if (!anchor) throw notFound("NotFound", `Post not found: ${uri}`);
    if (h.blockedWith(anchor.author_id)) return { thread: h.blockedPost(anchor) };
    const children = new Map<number, PostRow[]>();
    for (const id of below) {
      const row = h.visiblePost(id);
      if (!row || row.reply_parent_id == null) continue;
      children.set(row.reply_parent_id, [...(children.get(row.reply_parent_id) ?? []), row]);
    }
    return { thread: await threadView(h, anchor, children, { up: parentHeight, down: depth }) };
  }));

async function threadView(
  h: Hydrator,
  post: PostRow,
  children: Map<number, PostRow[]>,
  reach: { up: number; down: number },
): Promise<Json> {
  const view: Json = { $type: "app.bsky.feed.defs#threadViewPost", post: await h.postView(post.id) };
  if (reach.up > 0) {
    const parent = await parentView(h, post, reach.up);
    if (parent) view.parent = parent;
  }
  if (reach.down > 0) {
    const replies = (children.get(post.id) ?? []).filter((r) => !h.blockedWith(r.author_id));
    view.replies = await Promise.all(replies.map((r) => threadView(h, r, children, { up: 0, down: reach.down - 1 })));
  }
  return view;
}

/** The post above, and what is above it, up to `height` levels; a gap shows as notFound or blocked. */
async function parentView(h: Hydrator, post: PostRow, height: number): Promise<Json | undefined> {
  const reply = post.record.reply as { parent?: { uri: string } } | undefined;
  if (!reply?.parent) return undefined;
  const parent = h.visiblePost(post.reply_parent_id);
  if (!parent) return { $type: "app.bsky.feed.defs#notFoundPost", uri: reply.parent.uri, notFound: true };
  if (h.blockedWith(parent.author_id)) return h.blockedPost(parent);
  const view: Json = { $type: "app.bsky.feed.defs#threadViewPost", post: await h.postView(parent.id) };
  if (height > 1) {
    const above = await parentView(h, parent, height - 1);
    if (above) view.parent = above;
  }
  return view;
}
