// app.bsky.graph.muteThread: the reader silences a thread's notifications (private, as actor mutes are);
// its posts then show threadMuted to them. A space's thread is the room's, not theirs to mute here.
import { muteThread } from "../../../../store/reader/graph.ts";
import { read } from "../../../../views/hydrate.ts";
import { postRef } from "../../../../views/lookup.ts";
import { invalidRequest } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { str } from "../../../../xrpc/params.ts";

export default method(
  "app.bsky.graph.muteThread",
  { auth: "reader", apps: true },
  (call) =>
    read(call, async (h) => {
      const ref = await postRef(h, str(call.input, "root"));
      if (
        ref?.kind !== "post" || ref.id === undefined || !(await muteThread(h.tx, call.viewer!.id, ref.id))
      ) {
        throw invalidRequest("Post not found");
      }
      return undefined;
    }),
);
