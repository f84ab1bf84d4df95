// app.bsky.graph.unmuteActor: the reader lifts a mute.
import { unmute } from "../../../../store/reader/graph.ts";
import { read } from "../../../../views/hydrate.ts";
import { visibleActor } from "../../../../views/lookup.ts";
import { invalidRequest } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { str } from "../../../../xrpc/params.ts";

export default method("app.bsky.graph.unmuteActor", { auth: "reader", apps: true }, (call) =>
  read(call, async (h) => {
    const subject = await visibleActor(h, str(call.input, "actor"));
    if (!subject) throw invalidRequest("Actor not found");
    await unmute(h.tx, call.viewer!.id, subject);
    return undefined;
  }));
