// app.bsky.notification.listNotifications: the reader's likes, reposts, follows, replies and quotes,
// newest first, each with the record that made it; two statements a page (the page, then the people).
import { atUri } from "../../../../identity.ts";
import { FOLLOW, LIKE, POST, REPOST } from "../../../../records.ts";
import { encodeFeedCursor } from "../../../../store/reader/feeds.ts";
import { notificationPage, seenAt } from "../../../../store/reader/notifications.ts";
import { read } from "../../../../views/hydrate.ts";
import { feedCursor, pageLimit, paged } from "../../../../views/lookup.ts";
import { method } from "../../../../xrpc/method.ts";
import { strs } from "../../../../xrpc/params.ts";

const COLLECTION = { like: LIKE, repost: REPOST, follow: FOLLOW, reply: POST, quote: POST } as const;

export default method("app.bsky.notification.listNotifications", { auth: "reader", apps: true }, (call) =>
  read(call, async (h) => {
    const limit = pageLimit(call);
    const me = call.viewer!;
    const found = await notificationPage(h.tx, me.id, { limit, cursor: feedCursor(call), reasons: strs(call.params, "reasons") });
    const { rows, cursor } = paged(found, limit, (r) => encodeFeedCursor({ at_us: r.at_us, kind: "p", item_id: r.id }));
    await h.loadActors(rows.map((r) => r.actor_id));
    const notifications = [];
    for (const row of rows) {
      const author = await h.profile(row.actor_id);
      const did = h.didOf(row.actor_id);
      if (!author || !did) continue;
      notifications.push({
        uri: atUri(did, COLLECTION[row.reason], row.rkey),
        cid: row.cid,
        author,
        reason: row.reason,
        ...(row.subject_rkey ? { reasonSubject: atUri(me.did, POST, row.subject_rkey) } : {}),
        record: row.record,
        isRead: row.is_read,
        indexedAt: row.created_at.toISOString(),
        labels: [],
      });
    }
    const seen = await seenAt(h.tx, me.id);
    return { notifications, ...(cursor ? { cursor } : {}), ...(seen ? { seenAt: seen.toISOString() } : {}) };
  }));
