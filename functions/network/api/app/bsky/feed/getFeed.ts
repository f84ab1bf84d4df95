// app.bsky.feed.getFeed: a space's feed channel, newest first, to its members; nothing to anybody else.
// A feed that is not the site's is UnknownFeed.
import { encodeFeedCursor } from "../../../../store/reader/feeds.ts";
import { feedSpaces, messagePage } from "../../../../store/reader/spaces.ts";
import { read } from "../../../../views/hydrate.ts";
import { feedCursor, pageLimit, paged } from "../../../../views/lookup.ts";
import { messageFeed, slugOfFeed } from "../../../../views/spaces.ts";
import { XrpcError } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { str } from "../../../../xrpc/params.ts";

export default method("app.bsky.feed.getFeed", { auth: "optional", apps: true }, (call) =>
  read(call, async (h) => {
    const slug = slugOfFeed(call.site.did, str(call.params, "feed"));
    if (!slug) throw new XrpcError(400, "UnknownFeed", "Unknown feed");
    const limit = pageLimit(call);
    const [space] = await feedSpaces(h.tx, [slug]);
    if (!space) return { feed: [] };
    const found = await messagePage(h.tx, space.channel_id, { limit, cursor: feedCursor(call) });
    const { rows, cursor } = paged(found, limit, (r) => encodeFeedCursor({ at_us: r.at_us, kind: "p", item_id: r.id }));
    return { feed: await messageFeed(h, rows.map((r) => r.id)), ...(cursor ? { cursor } : {}) };
  }));
