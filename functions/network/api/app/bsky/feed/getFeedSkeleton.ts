// app.bsky.feed.getFeedSkeleton: the post addresses of a space's feed channel, newest first, to its members.
import { encodeFeedCursor } from "../../../../store/reader/feeds.ts";
import { feedSpaces, messagePage } from "../../../../store/reader/spaces.ts";
import { read } from "../../../../views/hydrate.ts";
import { feedCursor, pageLimit, paged } from "../../../../views/lookup.ts";
import { messageViews, slugOfFeed } from "../../../../views/spaces.ts";
import { XrpcError } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { str } from "../../../../xrpc/params.ts";

export default method("app.bsky.feed.getFeedSkeleton", { auth: "optional", apps: true }, (call) =>
  read(call, async (h) => {
    const slug = slugOfFeed(call.site.did, str(call.params, "feed"));
    if (!slug) throw new XrpcError(400, "UnknownFeed", "Unknown feed");
    const limit = pageLimit(call);
    const [space] = await feedSpaces(h.tx, [slug]);
    if (!space) return { feed: [] };
    const found = await messagePage(h.tx, space.channel_id, { limit, cursor: feedCursor(call) });
    const { rows, cursor } = paged(found, limit, (r) => encodeFeedCursor({ at_us: r.at_us, kind: "p", item_id: r.id }));
    const views = await messageViews(h, rows.map((r) => r.id));
    const feed = rows.flatMap((r) => (views.has(r.id) ? [{ post: views.get(r.id)!.uri }] : []));
    return { feed, ...(cursor ? { cursor } : {}) };
  }));
