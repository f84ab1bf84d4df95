// The network function's route table (AT Protocol PDS-compatible): read this first.
//
//   GET|POST /xrpc/<nsid>               every wire method, one file each under api/ (listed in api/index.ts)
//   GET /.well-known/atproto-did        the DID of the member whose handle is the host asked
//   GET /.well-known/did.json           that member's did:web document, or the site's own on the site's host
//   GET /blob/<member id>/<cid>         a picture or video behind an address signed for one hour
//   GET /account/network                the account page: app passwords (the site's session)
//   GET /account/network/me, POST /account/network/sign-out-everywhere
//   GET /xrpc/com.atproto.sync.subscribeRepos   the event stream (WebSocket), federation/firehose.ts
//   POST /network/join|leave, POST /internal/project|crawl|rotate-key, GET /internal/firehose   routes/federation.ts
//
// The host maps /xrpc/*, /.well-known/atproto-did, /.well-known/did.json, /account/network and
// /network/* here (web/rewrites.ts); the function also answers at /functions/v1/network/...
// Every error leaves as an XRPC error body { error, message } (xrpc/errors.ts).
import { Hono } from "hono";
import type { FunctionContext } from "../../shared/context.ts";
import { answerEntryRefusal, openCors } from "../../shared/http.ts";
import { methodTable } from "./api/index.ts";
import { NSID as SUBSCRIBE_REPOS, subscribeRepos } from "./api/com/atproto/sync/subscribeRepos.ts";
import { accountRoutes } from "./routes/account.ts";
import { federationRoutes } from "./routes/federation.ts";
import { blobRoute } from "./routes/blob.ts";
import { atprotoDid, didJson } from "./routes/well-known.ts";
import { xrpcHandler } from "./xrpc/dispatch.ts";
import { XrpcError, xrpcErrorHandler } from "./xrpc/errors.ts";

export function createNetworkApp(ctx: FunctionContext): Hono {
  const app = new Hono({ strict: false });
  app.use(
    "*",
    openCors({
      // the headers @atproto/api sends on every request (accepted and ignored)
      allowHeaders: ["atproto-accept-labelers", "atproto-proxy", "atproto-content-labelers"],
      exposeHeaders: ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy", "Retry-After"],
    }),
  );
  // a method the host's entry cannot carry, or its failure, still leaves as an XRPC error body
  app.use("*", answerEntryRefusal((method) => new XrpcError(405, "InvalidRequest", `The method ${method} is not allowed.`)));
  app.onError(xrpcErrorHandler);
  app.notFound(() => {
    throw new XrpcError(404, "NotFound", "No such route in the protocol server.");
  });

  app.get(`/xrpc/${SUBSCRIBE_REPOS}`, subscribeRepos(ctx));
  app.all("/xrpc/:nsid", xrpcHandler(ctx, methodTable()));
  app.get("/.well-known/atproto-did", atprotoDid(ctx));
  app.get("/.well-known/did.json", didJson(ctx));
  app.get("/blob/:person/:cid", blobRoute(ctx));
  app.route("/account/network", accountRoutes(ctx));
  app.route("/", federationRoutes(ctx));
  return app;
}
