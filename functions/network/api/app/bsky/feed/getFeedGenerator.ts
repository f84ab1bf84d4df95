// app.bsky.feed.getFeedGenerator: one of the reader's spaces as a feed; a feed that is not one of theirs
// is unknown to them.
import { feedSpaces } from "../../../../store/reader/spaces.ts";
import { read } from "../../../../views/hydrate.ts";
import { generatorViews, slugOfFeed } from "../../../../views/spaces.ts";
import { invalidRequest } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { str } from "../../../../xrpc/params.ts";

export default method("app.bsky.feed.getFeedGenerator", { auth: "optional", apps: true }, (call) =>
  read(call, async (h) => {
    const feed = str(call.params, "feed");
    const slug = slugOfFeed(call.site.did, feed);
    const [view] = slug ? await generatorViews(h, await feedSpaces(h.tx, [slug])) : [];
    if (!view) throw invalidRequest("could not find feed");
    return { view, isOnline: true, isValid: true };
  }));
