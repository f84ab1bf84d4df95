// app.bsky.feed.getRepostedBy: who reposted a post, newest first (a space's post cannot be reposted).
import { encodeFeedCursor, subjectPage } from "../../../../store/reader/feeds.ts";
import { read } from "../../../../views/hydrate.ts";
import { feedCursor, pageLimit, paged, postRef } from "../../../../views/lookup.ts";
import { method } from "../../../../xrpc/method.ts";
import { optStr, str } from "../../../../xrpc/params.ts";

export default method("app.bsky.feed.getRepostedBy", { auth: "optional", apps: true }, (call) =>
  read(call, async (h) => {
    const uri = str(call.params, "uri");
    const cid = optStr(call.params, "cid");
    const limit = pageLimit(call);
    const ref = await postRef(h, uri);
    const found = ref?.kind === "post" && ref.id !== undefined
      ? await subjectPage(h.tx, "reposts", ref.id, { limit, cursor: feedCursor(call) })
      : [];
    const { rows, cursor } = paged(found, limit, (r) => encodeFeedCursor({ at_us: r.at_us, kind: "p", item_id: r.id }));
    await h.loadActors(rows.map((r) => r.author_id));
    const repostedBy = (await Promise.all(rows.map((r) => h.profile(r.author_id)))).filter((a) => a);
    return { uri, ...(cid ? { cid } : {}), repostedBy, ...(cursor ? { cursor } : {}) };
  }));
