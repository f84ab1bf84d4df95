// app.bsky.feed.getLikes: who liked a post (a space's message: who gave it a heart), newest first.
import { encodeFeedCursor, subjectPage } from "../../../../store/reader/feeds.ts";
import { heartPage } from "../../../../store/reader/spaces.ts";
import { read } from "../../../../views/hydrate.ts";
import { feedCursor, pageLimit, paged, postRef } from "../../../../views/lookup.ts";
import { method } from "../../../../xrpc/method.ts";
import { optStr, str } from "../../../../xrpc/params.ts";

export default method("app.bsky.feed.getLikes", { auth: "optional", apps: true }, (call) =>
  read(call, async (h) => {
    const uri = str(call.params, "uri");
    const cid = optStr(call.params, "cid");
    const limit = pageLimit(call);
    const ref = await postRef(h, uri);
    const options = { limit, cursor: feedCursor(call) };
    const found = ref?.kind === "post" && ref.id !== undefined
      ? await subjectPage(h.tx, "likes", ref.id, options)
      : ref?.kind === "message"
      ? await heartPage(h.tx, ref.messageId, options)
      : [];
    const { rows, cursor } = paged(found, limit, (r) => encodeFeedCursor({ at_us: r.at_us, kind: "p", item_id: r.id }));
    await h.loadActors(rows.map((r) => r.author_id));
    const likes = [];
    for (const row of rows) {
      const actor = await h.profile(row.author_id);
      if (actor) likes.push({ actor, createdAt: row.created_at.toISOString(), indexedAt: row.indexed_at.toISOString() });
    }
    return { uri, ...(cid ? { cid } : {}), likes, ...(cursor ? { cursor } : {}) };
  }));
