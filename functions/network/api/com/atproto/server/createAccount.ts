// com.atproto.server.createAccount: refused; accounts are made on the site, and the answer says where.
import { XrpcError } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";

export default method("com.atproto.server.createAccount", { auth: "none", apps: false }, (call) => {
  throw new XrpcError(
    400,
    "InvalidRequest",
    `Accounts are made on the site: sign up at ${call.site.origin}, then make an app password at ${call.site.origin}/account/network.`,
  );
});
