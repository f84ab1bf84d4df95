// com.atproto.server.revokeAppPassword: the password goes, and every session made with it ends at once.
import { revokeAppPassword } from "../../../../app-passwords.ts";
import { method } from "../../../../xrpc/method.ts";
import { str } from "../../../../xrpc/params.ts";

export default method("com.atproto.server.revokeAppPassword", { auth: "reader", apps: false }, async (call) => {
  await revokeAppPassword(call.ctx.sql, call.viewer!, str(call.input, "name"));
  return undefined;
});
