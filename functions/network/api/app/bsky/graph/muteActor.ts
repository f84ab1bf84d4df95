// app.bsky.graph.muteActor: the reader mutes somebody they may see (private: no record, nobody else knows).
import { mute } from "../../../../store/reader/graph.ts";
import { read } from "../../../../views/hydrate.ts";
import { visibleActor } from "../../../../views/lookup.ts";
import { invalidRequest } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { str } from "../../../../xrpc/params.ts";

export default method("app.bsky.graph.muteActor", { auth: "reader", apps: true }, (call) =>
  read(call, async (h) => {
    const subject = await visibleActor(h, str(call.input, "actor"));
    if (!subject) throw invalidRequest("Actor not found");
    if (subject === call.viewer!.id) throw invalidRequest("Cannot mute oneself");
    await mute(h.tx, call.viewer!.id, subject);
    return undefined;
  }));
