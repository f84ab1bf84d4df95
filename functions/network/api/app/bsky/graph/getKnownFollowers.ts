// app.bsky.graph.getKnownFollowers: the followers of a member whom the reader follows too, newest first.
import { knownFollowerPage } from "../../../../store/reader/graph.ts";
import { encodeFeedCursor } from "../../../../store/reader/feeds.ts";
import { read } from "../../../../views/hydrate.ts";
import { feedCursor, paged, pageLimit, visibleActor } from "../../../../views/lookup.ts";
import { invalidRequest } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { str } from "../../../../xrpc/params.ts";

export default method(
  "app.bsky.graph.getKnownFollowers",
  { auth: "reader", apps: true },
  (call) =>
    read(call, async (h) => {
      const limit = pageLimit(call);
      const subject = await visibleActor(h, str(call.params, "actor"));
      if (!subject) throw invalidRequest("Profile not found");
      const found = await knownFollowerPage(h.tx, subject, call.viewer!.id, {
        limit,
        cursor: feedCursor(call),
      });
      const { rows, cursor } = paged(
        found,
        limit,
        (r) => encodeFeedCursor({ at_us: r.at_us, kind: "p", item_id: r.id }),
      );
      await h.loadActors(rows.map((r) => r.person_id));
      const followers = (await Promise.all(rows.map((r) => h.profile(r.person_id)))).filter((p) => p);
      return { subject: await h.profile(subject), followers, ...(cursor ? { cursor } : {}) };
    }),
);
