// app.bsky.feed.getAuthorFeed: one member's posts and reposts, under every filter the lexicon names.
import { type AuthorFilter, authorFeedPage, encodeFeedCursor } from "../../../../store/reader/feeds.ts";
import { read } from "../../../../views/hydrate.ts";
import { feedCursor, pageLimit, paged, visibleActor } from "../../../../views/lookup.ts";
import { invalidRequest, XrpcError } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { optStr, str } from "../../../../xrpc/params.ts";

const FILTERS: AuthorFilter[] = [
  "posts_with_replies",
  "posts_no_replies",
  "posts_with_media",
  "posts_and_author_threads",
  "posts_with_video",
];

export default method("app.bsky.feed.getAuthorFeed", { auth: "optional", apps: true }, (call) =>
  read(call, async (h) => {
    const filter = (optStr(call.params, "filter") ?? "posts_with_replies") as AuthorFilter;
    if (!FILTERS.includes(filter)) throw invalidRequest(`filter must be one of ${FILTERS.join(", ")}`);
    const limit = pageLimit(call);
    const author = await visibleActor(h, str(call.params, "actor"));
    if (!author) throw invalidRequest("Profile not found");
    const actor = h.actors.get(author)!;
    if (actor.blocking) throw new XrpcError(400, "BlockedActor", "Requester has blocked actor");
    if (actor.blocked_by) throw new XrpcError(400, "BlockedByActor", "Requester is blocked by actor");
    const items = await authorFeedPage(h.tx, author, call.viewer?.id, { limit, cursor: feedCursor(call), filter });
    const { rows, cursor } = paged(items, limit, encodeFeedCursor);
    await h.loadPosts(rows.map((r) => r.post_id), rows.flatMap((r) => (r.by_id ? [r.by_id] : [])));
    return { feed: await h.feed(rows), ...(cursor ? { cursor } : {}) };
  }));
