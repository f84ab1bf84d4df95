// com.atproto.server.getSession: who this session is.
import { memberById } from "../../../../store/people.ts";
import { authRequired } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";

export default method("com.atproto.server.getSession", { auth: "reader", apps: true }, async (call) => {
  const member = await memberById(call.ctx.sql, call.viewer!.id);
  if (!member) throw authRequired("Token has been revoked");
  return {
    handle: call.viewer!.handle,
    did: call.viewer!.did,
    email: member.email,
    emailConfirmed: true,
    active: true,
  };
});
