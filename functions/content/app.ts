// The content function's route table: read this first.
//
//   GET  /spaces/:space                              space
//   GET  /spaces/:space[/environments/master]/...    delivery & preview (routes/delivery.ts), sync
//   GET  /media/:space/:asset/:hash/:file            the images door (routes/media.ts)
//   GET  /openapi.json, /content/v1/openapi.json     the OpenAPI document (routes/openapi.ts)
//   POST, GET /content/v1/spaces/:space[/environments/master]   GraphQL (graphql/routes.ts)
//   *    /spaces/:space[/environments/master]/entries, assets, uploads   management, cloud mode
//                                                     (routes/management.ts, management-uploads.ts)
//   *    /spaces/:space/webhook_definitions           webhook definitions (routes/management-webhooks.ts)
//   POST /sweep-uploads                               the daily sweep, service key (routes/management-uploads.ts)
//   POST /sweep-image-cache                           cached transforms of gone files, service key (routes/media.ts)
//   POST /webhooks/deliver                            content's due webhooks, service key; pg_net and pg_cron
//                                                     call it on Supabase (webhook-adapter.ts)
//   POST /repository/push                             due pushes to the content directory (cloud mode), service
//                                                     key (routes/repository-push.ts)
//   *    /events/...                                  analytics, PostHog-compatible (routes/analytics.ts)
//   GET  /reference, /reference/scalar.js            the API reference page (public /api) and its renderer
//
// Paths are relative to the function root: the host maps /api/content/* and /functions/v1/content/* here.
import { Hono, type MiddlewareHandler } from "hono";
import { answerCache } from "../../shared/answer-cache.ts";
import type { FunctionContext } from "../../shared/context.ts";
import { answerEntryRefusal, entryPath, openCors, requestId } from "../../shared/http.ts";
import { unstorableUrlText } from "../../shared/input-text.ts";
import { contentAccess, type ContentEnv } from "./access.ts";
import { badQuery, ContentError, contentErrorHandler, notFound } from "./envelope.ts";
import { deliveryRoutes, spaceOf } from "./routes/delivery.ts";
import { spaceLink } from "./domain/shape.ts";
import { mediaHandler, sweepImageCacheHandler } from "./routes/media.ts";
import { managementRoutes } from "./routes/management.ts";
import { sweepHandler, uploadRoutes } from "./routes/management-uploads.ts";
import { webhookDefinitionRoutes } from "./routes/management-webhooks.ts";
import { webhookDeliveryHandler } from "../../shared/webhooks/delivery-route.ts";
import { webhookAdapters } from "./webhook-adapter.ts";
import { repositoryPushHandler } from "./routes/repository-push.ts";
import { analyticsPreflight, analyticsRoutes } from "./routes/analytics.ts";
import { openApiHandler } from "./routes/openapi.ts";
import { referencePageHandler, rendererHandler } from "./routes/reference.ts";
import { syncHandler } from "./routes/sync.ts";
import { graphqlRoutes } from "./graphql/routes.ts";

export function createContentApp(ctx: FunctionContext): Hono<ContentEnv> {
  // routed by the path its entry hands it (the entry passes GETs on as they came: see handToApp)
  const app = new Hono<ContentEnv>({ getPath: entryPath });
  // delivery's REST reads and GraphQL keep their answers in one budget, under the same versions
  const answers = answerCache(ctx.sql, ctx.config.answerCacheBytes);
  app.use("*", requestId("X-Contentful-Request-Id"));
  // the analytics routes answer in PostHog's envelope: they install their own (routes/analytics.ts)
  const refusal = answerEntryRefusal((method) =>
    new ContentError("BadRequest", `The method ${method} is not allowed on this resource.`)
  );
  app.use("*", (c, next) => c.req.path === "/events" || c.req.path.startsWith("/events/") ? next() : refusal(c, next));
  // credentialed browsers of the site's own origins need theirs echoed on analytics preflights: ahead of
  // the open CORS below
  app.use("/events/*", analyticsPreflight(ctx));
  app.use(
    "*",
    openCors({
      allowHeaders: [
        "X-Contentful-User-Agent",
        "X-Contentful-Version",
        "X-Contentful-Content-Type",
        "If-None-Match",
      ],
      exposeHeaders: [
        "ETag",
        "X-Contentful-Request-Id",
        "X-Contentful-RateLimit-Hour-Limit",
        "X-Contentful-RateLimit-Hour-Remaining",
        "X-Contentful-RateLimit-Second-Limit",
        "X-Contentful-RateLimit-Second-Remaining",
        "X-Contentful-RateLimit-Reset",
        "RateLimit-Policy",
        "RateLimit",
        "Retry-After",
      ],
    }),
  );
  app.onError(contentErrorHandler);
  app.notFound(() => {
    throw notFound();
  });

  // the REST doors read path and query into SQL: text Postgres cannot hold stops here
  app.use("/spaces/*", refuseUnstorableText);
  app.use("/media/*", refuseUnstorableText);

  const openapi = openApiHandler(ctx);
  app.get("/openapi.json", openapi);
  app.get("/content/v1/openapi.json", openapi);
  app.route("/content/v1/spaces/:space", graphqlRoutes(ctx, answers));

  app.get("/media/:space/:asset/:hash/:file", mediaHandler(ctx));
  app.post("/sweep-uploads", sweepHandler(ctx));
  app.post("/sweep-image-cache", sweepImageCacheHandler(ctx));
  app.post(
    "/webhooks/deliver",
    webhookDeliveryHandler(
      ctx,
      webhookAdapters(ctx),
      () => new ContentError("AccessTokenInvalid", "Webhook delivery needs the service key."),
    ),
  );
  app.post("/repository/push", repositoryPushHandler(ctx));
  app.route("/events", analyticsRoutes(ctx));
  app.get("/reference", referencePageHandler(ctx));
  app.get("/reference/scalar.js", rendererHandler(ctx));

  const space = new Hono<ContentEnv>({ strict: false });
  space.use("*", contentAccess(ctx));
  // the space and environment in the path must be this site's
  space.use("*", async (c, next) => {
    if (c.req.param("space") !== spaceOf(c)) {
      throw new ContentError("NotFound", "The resource could not be found.", {
        type: "Space",
        id: c.req.param("space"),
      });
    }
    // params of the routes below are not known yet in this middleware: read the environment off the path
    const environment = c.req.path.match(/\/spaces\/[^/]+\/environments\/([^/]+)/)?.[1];
    if (environment !== undefined && environment !== "master") {
      throw new ContentError("NotFound", "The resource could not be found.", {
        type: "Environment",
        id: environment,
      });
    }
    await next();
  });
  space.get(
    "/environments/:environment",
    (c) =>
      c.req.path.endsWith("/environments/master") || c.req.path.endsWith("/environments/master/")
        // sys.space too: the management client's legacy environment object builds every address from it
        ? c.json(
          { sys: { type: "Environment", id: "master", space: spaceLink(spaceOf(c)) }, name: "master" },
          200,
          {
            "Content-Type": "application/vnd.contentful.delivery.v1+json",
          },
        )
        : c.notFound(),
  );
  const sync = syncHandler(ctx);
  space.get("/sync", sync);
  space.get("/environments/:environment/sync", sync);
  // management first: its GETs answer only the management media type and leave the rest to delivery
  space.route("/", webhookDefinitionRoutes(ctx));
  for (const routes of [managementRoutes(ctx), uploadRoutes(ctx)]) {
    space.route("/environments/:environment", routes);
    space.route("/", routes);
  }
  const reads = deliveryRoutes(ctx, answers);
  space.route("/environments/:environment", reads);
  space.route("/", reads);

  app.route("/spaces/:space", space);
  return app;
}

/**
 * A path segment or query parameter holding text Postgres cannot store (NUL, a lone surrogate) names
 * nothing that can exist: NotFound for the path, BadQuery for the query.
 */
const refuseUnstorableText: MiddlewareHandler = async (c, next) => {
  const unstorable = unstorableUrlText(c.req.url);
  if (unstorable?.path) throw notFound();
  if (unstorable) {
    throw badQuery(
      "A query parameter holds the NUL character or a lone surrogate, which no value can contain.",
    );
  }
  await next();
};
