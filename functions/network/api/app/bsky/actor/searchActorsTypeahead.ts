// app.bsky.actor.searchActorsTypeahead: the first few people the reader may see matching what was typed.
import { searchPeople } from "../../../../store/reader/search.ts";
import { read } from "../../../../views/hydrate.ts";
import { pageLimit } from "../../../../views/lookup.ts";
import { method } from "../../../../xrpc/method.ts";
import { optStr } from "../../../../xrpc/params.ts";

export default method("app.bsky.actor.searchActorsTypeahead", { auth: "optional", apps: true }, (call) =>
  read(call, async (h) => {
    const q = optStr(call.params, "q") ?? optStr(call.params, "term") ?? "";
    const limit = pageLimit(call, 10, 100);
    const rows = (await searchPeople(h.tx, q, { limit })).slice(0, limit);
    await h.loadActors(rows.map((r) => r.person_id));
    return { actors: (await Promise.all(rows.map((r) => h.profileBasic(r.person_id)))).filter((a) => a) };
  }));
