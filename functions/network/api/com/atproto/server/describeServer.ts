// com.atproto.server.describeServer: the site's DID and handle domain; accounts are made on the site.
import { method } from "../../../../xrpc/method.ts";

export default method("com.atproto.server.describeServer", { auth: "none", apps: false }, (call) =>
  Promise.resolve({
    did: call.site.did,
    availableUserDomains: [`.${call.site.handleDomain}`],
    inviteCodeRequired: true,
    links: {},
  }));
