// app.bsky.feed.describeFeedGenerator: the site's DID as the feed generator, and the reader's spaces as
// its feeds (nobody else's).
import { feedSpaces } from "../../../../store/reader/spaces.ts";
import { generatorUri } from "../../../../views/spaces.ts";
import { method } from "../../../../xrpc/method.ts";

export default method("app.bsky.feed.describeFeedGenerator", { auth: "optional", apps: true }, async (call) => {
  // spaces show to their members only: nobody signed in has none (and reads no members' table)
  const spaces = call.viewer ? await call.asReader((tx) => feedSpaces(tx)) : [];
  return { did: call.site.did, feeds: spaces.map((s) => ({ uri: generatorUri(call.site.did, s) })) };
});
