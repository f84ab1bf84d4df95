// app.bsky.actor.searchActors: people the reader may see whose handle name or display name starts with
// the query's words, by handle name; `term` is the lexicon's old name for `q`.
import { searchPeople } from "../../../../store/reader/search.ts";
import { read } from "../../../../views/hydrate.ts";
import { pageLimit } from "../../../../views/lookup.ts";
import { invalidRequest } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { optStr } from "../../../../xrpc/params.ts";

export default method("app.bsky.actor.searchActors", { auth: "optional", apps: true }, (call) =>
  read(call, async (h) => {
    const q = optStr(call.params, "q") ?? optStr(call.params, "term") ?? "";
    const limit = pageLimit(call, 25, 100);
    const cursor = optStr(call.params, "cursor");
    const after = cursor ? decodeSearchCursor(cursor) : undefined;
    const rows = await searchPeople(h.tx, q, { limit, after });
    const page = rows.slice(0, limit);
    await h.loadActors(page.map((r) => r.person_id));
    const actors = (await Promise.all(page.map((r) => h.profile(r.person_id)))).filter((a) => a);
    const last = page[page.length - 1];
    return { actors, ...(rows.length > limit ? { cursor: `${last.sort_name}~${last.person_id}` } : {}) };
  }));

function decodeSearchCursor(cursor: string): { name: string; id: string } {
  const match = cursor.match(/^(.*)~([0-9a-f-]{36})$/);
  if (!match) throw invalidRequest("Malformed cursor");
  return { name: match[1], id: match[2] };
}
