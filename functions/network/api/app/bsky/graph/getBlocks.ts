// app.bsky.graph.getBlocks: the people the reader blocks, newest first.
import { edgePage } from "../../../../store/reader/graph.ts";
import { encodeFeedCursor } from "../../../../store/reader/feeds.ts";
import { read } from "../../../../views/hydrate.ts";
import { feedCursor, pageLimit, paged } from "../../../../views/lookup.ts";
import { method } from "../../../../xrpc/method.ts";

export default method("app.bsky.graph.getBlocks", { auth: "reader", apps: true }, (call) =>
  read(call, async (h) => {
    const limit = pageLimit(call);
    const found = await edgePage(h.tx, "blocks", call.viewer!.id, { limit, cursor: feedCursor(call) });
    const { rows, cursor } = paged(found, limit, (r) => encodeFeedCursor({ at_us: r.at_us, kind: "p", item_id: r.id }));
    await h.loadActors(rows.map((r) => r.person_id));
    const blocks = (await Promise.all(rows.map((r) => h.profile(r.person_id)))).filter((p) => p);
    return { blocks, ...(cursor ? { cursor } : {}) };
  }));
