// com.atproto.identity.updateHandle: refused; the handle is the username, changed on the account page.
import { XrpcError } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";

export default method("com.atproto.identity.updateHandle", { auth: "reader", apps: true }, (call) => {
  throw new XrpcError(
    400,
    "InvalidRequest",
    `Your handle is your username on the site: change it at ${call.site.origin}/account/network.`,
  );
});
