// The site's analytics routes, compatible with PostHog's capture API and SDKs (posthog-js, posthog-node,
// posthog-python with host `{base_url}/api/events`). Mounted by the content app at /events:
//
//   GET|POST /events, /events/e/, /events/batch/   capture one event, a list, or a { batch } object
//   GET|POST /events/flags/                       feature flags from site.yaml `analytics.flags`
//   GET      /events/array/:token/config(.js)     remote config (JSON, or the script posthog-js loads)
//   OPTIONS  /events/...                          a browser's preflight (analyticsPreflight, mounted by app.ts)
//
// Errors leave in PostHog's envelope (analytics/envelope.ts); the project token is site.yaml
// `analytics.token`.
import { type Context, Hono } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { admit, type RateWindow } from "../../../shared/gate.ts";
import { answerEntryRefusal, clientAddress } from "../../../shared/http.ts";
import { readSiteSettings, type SiteSettings } from "../../../shared/site.ts";
import { ANALYTICS_TOKEN, analyticsConfigOf } from "../../../shared/site/analytics-config.ts";
import {
  AnalyticsError,
  analyticsErrorHandler,
  invalidPayload,
  methodNotAllowed,
  notFound,
} from "../analytics/envelope.ts";
import { captureEvents, checkToken, requestToken } from "../analytics/events.ts";
import { flagsResponse, remoteConfig, remoteConfigScript } from "../analytics/flags.ts";
import { readPayload } from "../analytics/payload.ts";
import { storeEvents } from "../store/analytics.ts";

/** Per client address: bursts of SDK batches pass, a flood does not. */
export const ANALYTICS_RATE_LIMITS: RateWindow[] = [
  { seconds: 1, limit: 100 },
  { seconds: 3600, limit: 36_000 },
];

const CONFIG_CACHE = { "Cache-Control": "public, max-age=300", "Vary": "Origin, Referer" };

/** The route table above; `windows` lets tests use small rate limits. */
export function analyticsRoutes(ctx: FunctionContext, options: { windows?: RateWindow[] } = {}): Hono {
  const windows = options.windows ?? ANALYTICS_RATE_LIMITS;
  const app = new Hono({ strict: false });
  app.onError(analyticsErrorHandler);
  app.use("*", answerEntryRefusal(methodNotAllowed));
  app.use("*", echoSiteOrigin(ctx));

  /** The site's settings for this request, counting it against the caller's rate limit. */
  const admitted = async (c: Context): Promise<SiteSettings> => {
    const admission = await admit(ctx.sql, {
      api: "analytics",
      clientAddress: clientAddress(c),
      windows,
      scale: ctx.config.rateLimitScale,
      now: ctx.clock.now(),
    });
    if (admission.exceeded) {
      throw new AnalyticsError(429, "validation_error", "rate_limit_exceeded", "Rate limit exceeded", null, {
        "Retry-After": String(admission.exceeded.resetIn),
      });
    }
    if (!admission.site) {
      throw new AnalyticsError(503, "server_error", "server_error", "The site has not been imported yet.");
    }
    return admission.site;
  };

  const capture = async (c: Context) => {
    const site = await admitted(c);
    const payload = await readPayload(c.req.raw);
    const events = captureEvents(payload, analyticsConfigOf(site.config).token, ctx.clock.now());
    await storeEvents(ctx.sql, events, clientAddress(c));
    return c.json({ status: 1 });
  };

  const flags = async (c: Context) => {
    const site = await admitted(c);
    const analytics = analyticsConfigOf(site.config);
    const payload = await readPayload(c.req.raw);
    checkToken(requestToken(payload), analytics.token);
    const data = payload.data as Record<string, unknown>;
    const distinctId = data && typeof data === "object" && !Array.isArray(data) ? data.distinct_id : undefined;
    if ((typeof distinctId !== "string" && typeof distinctId !== "number") || String(distinctId) === "") {
      throw invalidPayload(
        "The distinct_id field is missing from the request. Please include a valid identifier.",
        "distinct_id",
      );
    }
    const query = payload.query;
    const body = await flagsResponse(analytics, {
      distinctId: String(distinctId),
      version: Number.parseInt(query.get("v") ?? query.get("version") ?? "1", 10) || 1,
      withConfig: ["true", "1"].includes((query.get("config") ?? "").toLowerCase()),
    }, crypto.randomUUID());
    return c.json(body);
  };

  /** The token in /array/<token>/... must be the site's: 400 when malformed, 404 when another. */
  const configFor = async (c: Context) => {
    const token = c.req.param("token") ?? "";
    if (!ANALYTICS_TOKEN.test(token)) throw new AnalyticsError(400, "validation_error", "invalid_token", "Invalid token");
    const analytics = analyticsConfigOf((await admitted(c)).config);
    if (analytics.token !== token) throw notFound();
    return { analytics, token };
  };

  for (const path of ["/", "/e", "/batch"]) app.on(["GET", "POST"], path, capture);
  app.on(["GET", "POST"], "/flags", flags);
  app.get("/array/:token/config.js", async (c) => {
    const { analytics, token } = await configFor(c);
    return c.body(remoteConfigScript(analytics, token), 200, {
      "Content-Type": "application/javascript; charset=utf-8",
      ...CONFIG_CACHE,
    });
  });
  app.get("/array/:token/config", async (c) => {
    const { analytics, token } = await configFor(c);
    return c.json(remoteConfig(analytics, token), 200, CONFIG_CACHE);
  });
  // a known route asked with another method is 405; anything else under /events is 404
  app.all("*", (c) => {
    const known = /\/events(\/(e|batch|flags|array\/[^/]+\/config(\.js)?))?\/?$/.test(c.req.path);
    throw known ? methodNotAllowed(c.req.method) : notFound();
  });
  return app;
}

/**
 * The origins a credentialed browser may call the analytics routes from: the site's own (its public
 * address, its functions' address, and its domain with its subdomains over https). Any other origin
 * gets the open CORS of the rest of the API, without credentials: a page elsewhere must not send a
 * reader's cookies here and read the answer.
 */
export async function isSiteOrigin(ctx: FunctionContext, origin: string): Promise<boolean> {
  const own = [ctx.config.publicUrl, ctx.config.functionsUrl].map((url) => new URL(url).origin);
  if (own.includes(origin)) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "https:" || url.origin !== origin) return false;
  const domain = (await readSiteSettings(ctx.sql))?.domain?.toLowerCase();
  return !!domain && (url.hostname === domain || url.hostname.endsWith(`.${domain}`));
}

/**
 * A browser's preflight under /events from one of the site's origins, answered as PostHog's capture
 * answers it: the origin echoed with credentials allowed (posthog-js's XHR sends cookies and, with a
 * JSON body, preflights), so the request that follows may be sent. Mounted ahead of the app's open CORS,
 * whose `*` a credentialed request may not use; any other preflight is left to that.
 */
export function analyticsPreflight(ctx: FunctionContext) {
  return async (c: Context, next: () => Promise<void>) => {
    const origin = c.req.header("origin");
    if (c.req.method !== "OPTIONS" || !origin || !await isSiteOrigin(ctx, origin)) return await next();
    return c.json({ status: 1 }, 200, {
      "Access-Control-Allow-Origin": origin,
      "Access-Control-Allow-Credentials": "true",
      "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
      "Access-Control-Allow-Headers": c.req.header("access-control-request-headers") ||
        "X-Requested-With, Content-Type",
      "Access-Control-Max-Age": "86400",
      "Vary": "Origin, Access-Control-Request-Headers",
    });
  };
}

/**
 * posthog-js's XHR transport sends credentials, which `Access-Control-Allow-Origin: *` would not let it
 * read: like PostHog, name the caller's origin and allow credentials, for the site's own origins.
 */
function echoSiteOrigin(ctx: FunctionContext) {
  return async (c: Context, next: () => Promise<void>) => {
    await next();
    c.res.headers.append("Vary", "Origin");
    const origin = c.req.header("origin");
    if (!origin || !await isSiteOrigin(ctx, origin)) return;
    c.res.headers.set("Access-Control-Allow-Origin", origin);
    c.res.headers.set("Access-Control-Allow-Credentials", "true");
  };
}
