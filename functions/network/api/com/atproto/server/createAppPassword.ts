// com.atproto.server.createAppPassword: made by the member (the account page uses the site's session),
// shown once, kept as a hash.
import { createAppPassword } from "../../../../app-passwords.ts";
import { method } from "../../../../xrpc/method.ts";
import { bool, str } from "../../../../xrpc/params.ts";

export default method("com.atproto.server.createAppPassword", { auth: "reader", apps: true }, async (call) => {
  const made = await createAppPassword(call.ctx.sql, call.viewer!, {
    name: str(call.input, "name"),
    privileged: bool(call.input, "privileged", false),
    now: call.now,
  });
  return {
    name: made.name,
    password: made.password,
    createdAt: made.createdAt.toISOString(),
    privileged: made.privileged,
  };
});
