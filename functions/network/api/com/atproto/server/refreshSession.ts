// com.atproto.server.refreshSession: the refresh token (as bearer, no body) for a new pair.
import { bearerToken } from "../../../../../../shared/http.ts";
import { refresh } from "../../../../sessions.ts";
import { memberById } from "../../../../store/people.ts";
import { authRequired } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";

export default method("com.atproto.server.refreshSession", { auth: "refresh", apps: true }, async (call) => {
  const member = await memberById(call.ctx.sql, call.viewer!.id);
  if (!member) throw authRequired("Token has been revoked");
  return await refresh(call.ctx, call.site, call.viewer!, bearerToken(call.request)!, member, call.now);
});
