// com.atproto.identity.resolveHandle: a handle on this site to its DID.
import { didOf } from "../../../../identity.ts";
import { resolveActor } from "../../../../resolve.ts";
import { notFound } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { str } from "../../../../xrpc/params.ts";

export default method("com.atproto.identity.resolveHandle", { auth: "none", apps: false }, async (call) => {
  const handle = str(call.params, "handle");
  const member = handle.startsWith("did:") ? undefined : await resolveActor(call.ctx.sql, handle, call.site.handleDomain);
  if (!member || member.suspended_at) throw notFound("HandleNotFound", "Unable to resolve handle");
  return { did: didOf(member, call.site.handleDomain) };
});
