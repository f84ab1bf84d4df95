// app.bsky.feed.getQuotes: the posts quoting a post, newest first (a space's post is never quoted: an
// app's quote of one keeps only its record). With cid, only the quotes of that version of the post.
import { encodeFeedCursor, quotePage } from "../../../../store/reader/feeds.ts";
import { read } from "../../../../views/hydrate.ts";
import { feedCursor, paged, pageLimit, postRef } from "../../../../views/lookup.ts";
import { method } from "../../../../xrpc/method.ts";
import { optStr, str } from "../../../../xrpc/params.ts";

export default method(
  "app.bsky.feed.getQuotes",
  { auth: "optional", apps: true },
  (call) =>
    read(call, async (h) => {
      const uri = str(call.params, "uri");
      const cid = optStr(call.params, "cid");
      const limit = pageLimit(call);
      const cursorAt = feedCursor(call);
      const ref = await postRef(h, uri);
      const found = ref?.kind === "post" && ref.id !== undefined
        ? await quotePage(h.tx, ref.id, call.viewer?.id, { limit, cursor: cursorAt, cid })
        : [];
      const { rows, cursor } = paged(
        found,
        limit,
        (r) => encodeFeedCursor({ at_us: r.at_us, kind: "p", item_id: r.id }),
      );
      await h.loadPosts(rows.map((r) => r.id));
      const posts = (await Promise.all(rows.map((r) => h.postView(r.id)))).filter((view) => view);
      return { uri, ...(cid ? { cid } : {}), posts, ...(cursor ? { cursor } : {}) };
    }),
);
