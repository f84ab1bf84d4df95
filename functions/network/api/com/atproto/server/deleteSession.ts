// com.atproto.server.deleteSession: signs the app out (its refresh token as bearer).
import { deleteSession } from "../../../../store/sessions.ts";
import { method } from "../../../../xrpc/method.ts";

export default method("com.atproto.server.deleteSession", { auth: "refresh", apps: false }, async (call) => {
  await deleteSession(call.ctx.sql, call.viewer!.sessionId!);
  return undefined;
});
