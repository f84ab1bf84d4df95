// app.bsky.feed.getTimeline: the reader's following timeline. A page is three statements whatever its
// length: the page's items, their posts (with what they answer and quote), and every person they name.
import { encodeFeedCursor, timelinePage } from "../../../../store/reader/feeds.ts";
import { read } from "../../../../views/hydrate.ts";
import { feedCursor, pageLimit, paged } from "../../../../views/lookup.ts";
import { method } from "../../../../xrpc/method.ts";

export default method("app.bsky.feed.getTimeline", { auth: "reader", apps: true }, (call) =>
  read(call, async (h) => {
    const limit = pageLimit(call);
    const items = await timelinePage(h.tx, call.viewer!.id, { limit, cursor: feedCursor(call) });
    const { rows, cursor } = paged(items, limit, encodeFeedCursor);
    await h.loadPosts(rows.map((r) => r.post_id), rows.flatMap((r) => (r.by_id ? [r.by_id] : [])));
    return { feed: await h.feed(rows), ...(cursor ? { cursor } : {}) };
  }));
