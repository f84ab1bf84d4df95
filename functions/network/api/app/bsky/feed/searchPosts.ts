// app.bsky.feed.searchPosts: posts the reader may see by the words of their text (each word a prefix),
// newest first or (sort=top) best match first, narrowed by author, mentions, time, language, link domain or
// address, and tags. A query with no words matches every post the filters let through.
import {
  decodePostSearchCursor,
  encodePostSearchCursor,
  prefixQuery,
  searchPostsPage,
} from "../../../../store/reader/search.ts";
import { read } from "../../../../views/hydrate.ts";
import { paged, pageLimit, visibleActor } from "../../../../views/lookup.ts";
import { invalidRequest } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { optStr, str, strs } from "../../../../xrpc/params.ts";

export default method(
  "app.bsky.feed.searchPosts",
  { auth: "optional", apps: true },
  (call) =>
    read(call, async (h) => {
      const q = str(call.params, "q");
      const sort = optStr(call.params, "sort") ?? "latest";
      if (sort !== "top" && sort !== "latest") throw invalidRequest("sort must be top or latest");
      const limit = pageLimit(call, 25, 100);
      const rawCursor = optStr(call.params, "cursor");
      const after = rawCursor ? decodePostSearchCursor(rawCursor) : undefined;
      if (rawCursor && !after) throw invalidRequest("Malformed cursor");
      // somebody the reader may not see (or nobody) matches no post
      const who = async (name: string) => {
        const value = optStr(call.params, name);
        if (value === undefined) return { wanted: false, id: undefined };
        return { wanted: true, id: await visibleActor(h, value) };
      };
      const author = await who("author");
      const mentions = await who("mentions");
      if ((author.wanted && !author.id) || (mentions.wanted && !mentions.id)) return { posts: [] };
      const found = await searchPostsPage(
        h.tx,
        {
          words: prefixQuery(q),
          sort,
          authorId: author.id,
          mentionDid: mentions.id ? h.didOf(mentions.id) : undefined,
          since: dateParam(call.params, "since"),
          until: dateParam(call.params, "until"),
          lang: optStr(call.params, "lang"),
          domain: optStr(call.params, "domain"),
          url: optStr(call.params, "url"),
          tags: strs(call.params, "tag"),
        },
        call.viewer?.id,
        { limit, cursor: after },
      );
      const { rows, cursor } = paged(found, limit, encodePostSearchCursor);
      await h.loadPosts(rows.map((r) => r.id));
      const posts = (await Promise.all(rows.map((r) => h.postView(r.id)))).filter((p) => p);
      return { posts, ...(cursor ? { cursor } : {}) };
    }),
);

/** since and until: a datetime, or an ISO date (the start of that day, UTC). */
function dateParam(params: Record<string, string | string[]>, name: string): Date | undefined {
  const value = optStr(params, name);
  if (value === undefined || value === "") return undefined;
  const date = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00Z`) : new Date(value);
  if (Number.isNaN(date.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(value)) {
    throw invalidRequest(`${name} must be a datetime or a date (YYYY-MM-DD)`);
  }
  return date;
}
