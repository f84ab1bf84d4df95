// app.bsky.feed.getPosts: up to 25 posts by at-uri, in the order asked; those the reader may not see,
// and spaces' messages outside the reader's spaces, are left out.
import { read } from "../../../../views/hydrate.ts";
import { postRefs } from "../../../../views/lookup.ts";
import { messageViews } from "../../../../views/spaces.ts";
import { invalidRequest } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { strs } from "../../../../xrpc/params.ts";

export default method("app.bsky.feed.getPosts", { auth: "optional", apps: true }, (call) =>
  read(call, async (h) => {
    const uris = strs(call.params, "uris");
    if (!uris.length || uris.length > 25) throw invalidRequest("uris must name from 1 to 25 posts");
    const refs = await postRefs(h, uris);
    await h.loadPosts(refs.flatMap((r) => (r?.kind === "post" && r.id !== undefined ? [r.id] : [])));
    const messages = await messageViews(h, refs.flatMap((r) => (r?.kind === "message" ? [r.messageId] : [])));
    const posts = await Promise.all(refs.map((r) =>
      r?.kind === "post" && r.id !== undefined ? h.postView(r.id) : r?.kind === "message" ? messages.get(r.messageId)?.post : undefined
    ));
    return { posts: posts.filter((p) => p) };
  }));
