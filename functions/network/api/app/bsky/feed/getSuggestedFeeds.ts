// app.bsky.feed.getSuggestedFeeds: every space with a feed channel the reader belongs to.
import { feedSpaces } from "../../../../store/reader/spaces.ts";
import { read } from "../../../../views/hydrate.ts";
import { generatorViews } from "../../../../views/spaces.ts";
import { method } from "../../../../xrpc/method.ts";

export default method("app.bsky.feed.getSuggestedFeeds", { auth: "optional", apps: true }, (call) =>
  // spaces show to their members only: nobody signed in has none (and reads no members' table)
  read(call, async (h) => ({ feeds: call.viewer ? await generatorViews(h, await feedSpaces(h.tx)) : [] })));
