// app.bsky.feed.getActorLikes: what a member liked, newest first: posts, and spaces' posts they gave a
// heart. Likes are the member's own to list, as in the app view: asked about anybody else, the profile is
// not found.
import { encodeFeedCursor, likedPage } from "../../../../store/reader/feeds.ts";
import { read } from "../../../../views/hydrate.ts";
import { feedCursor, paged, pageLimit, visibleActor } from "../../../../views/lookup.ts";
import { messageFeedItems } from "../../../../views/spaces.ts";
import { invalidRequest } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { str } from "../../../../xrpc/params.ts";

export default method(
  "app.bsky.feed.getActorLikes",
  { auth: "reader", apps: true },
  (call) =>
    read(call, async (h) => {
      const limit = pageLimit(call);
      const actor = await visibleActor(h, str(call.params, "actor"));
      if (!actor || actor !== call.viewer!.id) throw invalidRequest("Profile not found");
      const found = await likedPage(h.tx, actor, { limit, cursor: feedCursor(call) });
      const { rows, cursor } = paged(found, limit, encodeFeedCursor);
      await h.loadPosts(rows.flatMap((r) => (r.post_id != null ? [r.post_id] : [])));
      const messages = await messageFeedItems(h, rows.flatMap((r) => (r.kind === "h" ? [r.item_id] : [])));
      const feed = [];
      for (const row of rows) {
        const item = row.kind === "h"
          ? messages.get(row.item_id)
          : await h.feedViewPost({ kind: "p", post_id: row.post_id!, by_id: null, at: row.at });
        if (item) feed.push(item);
      }
      return { feed, ...(cursor ? { cursor } : {}) };
    }),
);
