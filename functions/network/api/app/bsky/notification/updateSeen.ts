// app.bsky.notification.updateSeen: the reader has seen their notifications up to seenAt.
import { markSeen } from "../../../../store/reader/notifications.ts";
import { invalidRequest } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { str } from "../../../../xrpc/params.ts";

export default method("app.bsky.notification.updateSeen", { auth: "reader", apps: true }, async (call) => {
  const raw = str(call.input, "seenAt");
  const at = new Date(raw);
  if (Number.isNaN(at.getTime()) || !/^\d{4}-\d\d-\d\dT/.test(raw)) throw invalidRequest("seenAt must be a datetime");
  await call.asReader((tx) => markSeen(tx, call.viewer!.id, at));
  return undefined;
});
