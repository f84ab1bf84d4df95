// app.bsky.feed.getFeedGenerators: the named feeds that are spaces of the reader's, in the order asked.
import { feedSpaces } from "../../../../store/reader/spaces.ts";
import { read } from "../../../../views/hydrate.ts";
import { generatorViews, slugOfFeed } from "../../../../views/spaces.ts";
import { method } from "../../../../xrpc/method.ts";
import { strs } from "../../../../xrpc/params.ts";

export default method("app.bsky.feed.getFeedGenerators", { auth: "optional", apps: true }, (call) =>
  read(call, async (h) => {
    const uris = strs(call.params, "feeds");
    const slugs = uris.map((uri) => slugOfFeed(call.site.did, uri)).filter((s): s is string => !!s);
    const views = slugs.length ? await generatorViews(h, await feedSpaces(h.tx, slugs)) : [];
    const byUri = new Map(views.map((v) => [v.uri as string, v]));
    return { feeds: uris.flatMap((uri) => (byUri.has(uri) ? [byUri.get(uri)!] : [])) };
  }));
