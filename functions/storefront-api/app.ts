// The store function's route table: read this first.
//
//   POST, GET /api/:version/graphql.json    the Storefront API (any version; also /graphql, as shopify-buy
//                                           posts); a storefront key                routes/graphql.ts
//   GET  /carts/:token                      the cart handoff read; no key           routes/carts.ts
//   POST /checkout                          the site's bag checkout; no key, a person JWT for lines
//                                           read online                             routes/checkout.ts
//   POST /payments/webhook                  the payment provider's signed events    routes/checkout.ts
//   POST /sign-in                           the sign-in link, intent buy            routes/sign-in.ts
//   GET  /cart/c/:token, /cart, /cart/bag.js, /app?checkout=success
//                                           the store's pages on the site           pages/cart.ts
//   *    /api/desk/api/v1/..., /api/content/..., /api/forms/forms, /api/me, /api/workspaces, /api/insights
//                                           pass-through to the other functions     routes/pass-through.ts
//
// Paths are relative to the function root: the host maps /api/store/*, /api/carts/*, /api/<v>/graphql.json,
// /cart*, /app and /functions/v1/storefront-api/* here.
import { Hono } from "hono";
import type { FunctionContext } from "../../shared/context.ts";
import { answerCache } from "../../shared/answer-cache.ts";
import { RATE_LIMIT_HEADER_NAMES } from "../../shared/gate.ts";
import { answerEntryRefusal, openCors, requestId } from "../../shared/http.ts";
import { storeAccess, type StoreEnv } from "./access.ts";
import { notFound, StoreError, storeErrorHandler } from "./envelope.ts";
import { handoffHandler } from "./routes/carts.ts";
import { checkoutHandler, paymentWebhookHandler } from "./routes/checkout.ts";
import { graphqlHandler } from "./routes/graphql.ts";
import { type Forward, PASS_THROUGH, passThroughHandler } from "./routes/pass-through.ts";
import { signInHandler } from "./routes/sign-in.ts";
import { cartPages } from "./pages/cart.ts";

export interface StoreAppOptions {
  /** reaches another function for the pass-through routes (the host in-process, else over HTTP) */
  forward: Forward;
  /** where sign-in links go in the embedded default (the host's log) */
  log?: (line: string) => void;
}

export function createStorefrontApp(ctx: FunctionContext, options: StoreAppOptions): Hono<StoreEnv> {
  const app = new Hono<StoreEnv>({ strict: false });
  app.use("*", requestId("X-Request-ID"));
  app.use(
    "*",
    answerEntryRefusal((method) => new StoreError(405, `The method ${method} is not allowed.`, "METHOD_NOT_ALLOWED")),
  );
  app.use(
    "*",
    openCors({
      allowHeaders: [
        "Accept",
        "Accept-Language",
        "X-Shopify-Storefront-Access-Token",
        "X-Vendor-Storefront-Access-Token",
        "Shopify-Storefront-Private-Token",
        "X-SDK-Variant",
        "X-SDK-Version",
        "X-SDK-Variant-Source",
        "Stripe-Signature",
      ],
      exposeHeaders: ["X-Request-ID", ...RATE_LIMIT_HEADER_NAMES],
    }),
  );
  app.onError(storeErrorHandler);
  app.notFound(() => {
    throw notFound();
  });

  const forward = passThroughHandler(options.forward);
  for (const { prefix } of PASS_THROUGH) {
    app.all(prefix.endsWith("/") ? `${prefix}*` : prefix, forward);
    if (!prefix.endsWith("/")) app.all(`${prefix}/*`, forward);
  }

  // kept catalog answers (ANSWER_CACHE_MB, as content's): dropped when the catalog's version moves
  const graphql = graphqlHandler(ctx, answerCache(ctx.sql, ctx.config.answerCacheBytes));
  const keyed = storeAccess(ctx, { keyed: true });
  for (const path of ["/api/:version/graphql.json", "/api/:version/graphql"]) {
    app.on(["GET", "POST"], path, keyed, graphql);
  }

  const open = storeAccess(ctx, { keyed: false });
  app.get("/carts/:token", open, handoffHandler(ctx));
  app.post("/checkout", open, checkoutHandler(ctx));
  app.post("/payments/webhook", open, paymentWebhookHandler(ctx));
  app.post("/sign-in", open, signInHandler(ctx, options.log));

  const pages = cartPages(ctx);
  const page = async (c: { req: { raw: Request } }) => {
    const answer = await pages(c.req.raw);
    if (!answer) throw notFound();
    return answer;
  };
  app.get("/cart", page);
  app.get("/cart/*", page);
  app.get("/app", page);
  return app;
}
