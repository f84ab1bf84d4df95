// app.bsky.graph.getMutes: the people the reader mutes (nobody else sees them), newest first.
import { mutePage } from "../../../../store/reader/graph.ts";
import { read } from "../../../../views/hydrate.ts";
import { pageLimit, paged } from "../../../../views/lookup.ts";
import { invalidRequest } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { optStr } from "../../../../xrpc/params.ts";

export default method("app.bsky.graph.getMutes", { auth: "reader", apps: true }, (call) =>
  read(call, async (h) => {
    const limit = pageLimit(call);
    const raw = optStr(call.params, "cursor");
    const match = raw ? raw.match(/^(\d{1,17})_([0-9a-f-]{36})$/) : undefined;
    if (raw && !match) throw invalidRequest("Malformed cursor");
    const found = await mutePage(h.tx, call.viewer!.id, {
      limit,
      cursor: match ? { atUs: Number(match[1]), person: match[2] } : undefined,
    });
    const { rows, cursor } = paged(found, limit, (r) => `${r.at_us}_${r.person_id}`);
    await h.loadActors(rows.map((r) => r.person_id));
    const mutes = (await Promise.all(rows.map((r) => h.profile(r.person_id)))).filter((p) => p);
    return { mutes, ...(cursor ? { cursor } : {}) };
  }));
