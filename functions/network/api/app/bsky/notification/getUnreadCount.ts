// app.bsky.notification.getUnreadCount: notifications since the reader last marked them seen.
import { unreadCount } from "../../../../store/reader/notifications.ts";
import { method } from "../../../../xrpc/method.ts";

export default method("app.bsky.notification.getUnreadCount", { auth: "reader", apps: true }, (call) =>
  call.asReader(async (tx) => ({ count: await unreadCount(tx, call.viewer!.id) })));
