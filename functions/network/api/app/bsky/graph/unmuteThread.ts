// app.bsky.graph.unmuteThread: the reader hears a thread again; unmuting a thread that is not muted (or a
// post that is gone) changes nothing, as in the app view.
import { unmuteThread } from "../../../../store/reader/graph.ts";
import { read } from "../../../../views/hydrate.ts";
import { postRef } from "../../../../views/lookup.ts";
import { method } from "../../../../xrpc/method.ts";
import { str } from "../../../../xrpc/params.ts";

export default method(
  "app.bsky.graph.unmuteThread",
  { auth: "reader", apps: true },
  (call) =>
    read(call, async (h) => {
      const ref = await postRef(h, str(call.input, "root"));
      if (ref?.kind === "post" && ref.id !== undefined) await unmuteThread(h.tx, call.viewer!.id, ref.id);
      return undefined;
    }),
);
