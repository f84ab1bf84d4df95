// app.bsky.actor.getProfile: a member the reader may see, with counts and the reader's standing.
import { read } from "../../../../views/hydrate.ts";
import { visibleActor } from "../../../../views/lookup.ts";
import { notFound } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { str } from "../../../../xrpc/params.ts";

export default method("app.bsky.actor.getProfile", { auth: "optional", apps: true }, (call) =>
  read(call, async (h) => {
    const actor = str(call.params, "actor");
    const id = await visibleActor(h, actor, { counts: true });
    if (!id) throw notFound("InvalidRequest", "Profile not found");
    return await h.profileDetailed(id);
  }));
