// app.bsky.actor.getProfiles: up to 25 members, in the order asked, those the reader may not see left out.
import { resolveActor } from "../../../../resolve.ts";
import { read } from "../../../../views/hydrate.ts";
import { invalidRequest } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { strs } from "../../../../xrpc/params.ts";

export default method("app.bsky.actor.getProfiles", { auth: "optional", apps: true }, (call) =>
  read(call, async (h) => {
    const actors = strs(call.params, "actors");
    if (!actors.length || actors.length > 25) throw invalidRequest("actors must name from 1 to 25 accounts");
    const members = await Promise.all(actors.map((a) => resolveActor(call.ctx.sql, a, h.domain)));
    const ids = [...new Set(members.filter((m) => m).map((m) => m!.id))];
    await h.loadActors(ids, { counts: true });
    const profiles = await Promise.all(ids.map((id) => h.profileDetailed(id)));
    return { profiles: profiles.filter((p) => p) };
  }));
