// app.bsky.actor.getProfiles: up to 25 members, in the order asked, those the reader may not see left out.
import { read } from "../../../../views/hydrate.ts";
import { visibleActor } from "../../../../views/lookup.ts";
import { invalidRequest } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { strs } from "../../../../xrpc/params.ts";

export default method("app.bsky.actor.getProfiles", { auth: "optional", apps: true }, (call) =>
  read(call, async (h) => {
    const actors = strs(call.params, "actors");
    if (!actors.length || actors.length > 25) throw invalidRequest("actors must name from 1 to 25 accounts");
    const found = [];
    for (const actor of actors) found.push(await visibleActor(h, actor));
    const ids = [...new Set(found.filter((id): id is string => !!id))];
    await h.loadActors(ids, { counts: true });
    const profiles = await Promise.all(ids.map((id) => h.profileDetailed(id)));
    return { profiles: profiles.filter((p) => p) };
  }));
