// com.atproto.server.createSession: a handle, a DID or the member's address, with an app password.
import { signIn } from "../../../../sessions.ts";
import { method } from "../../../../xrpc/method.ts";
import { str } from "../../../../xrpc/params.ts";

export default method("com.atproto.server.createSession", { auth: "none", apps: true }, async (call) =>
  await signIn(call.ctx, call.site, {
    identifier: str(call.input, "identifier"),
    password: str(call.input, "password"),
    clientAddress: call.clientAddress,
    now: call.now,
  }));
