// Admission for the Store API: the storefront key (X-Shopify-Storefront-Access-Token, the spec's
// X-Vendor-Storefront-Access-Token, Shopify-Storefront-Private-Token, or a bearer), the store and api
// module switches, and rate limits per key and client address (a storefront key is public: every
// visitor's browser shares it, so one visitor must not spend another's allowance). One round trip.
import type { MiddlewareHandler } from "hono";
import type { FunctionContext } from "../../shared/context.ts";
import { admit, rateLimitHeaders } from "../../shared/gate.ts";
import { bearerToken, clientAddress } from "../../shared/http.ts";
import { moduleOn, type SiteSettings } from "../../shared/site.ts";
import { StoreError } from "./envelope.ts";

export const STORE_RATE_LIMITS = [
  { seconds: 60, limit: 2400 },
  { seconds: 1, limit: 80 },
];
/** routes without a key (the handoff read, the bag's checkout): per address */
export const PUBLIC_RATE_LIMITS = [
  { seconds: 60, limit: 600 },
  { seconds: 1, limit: 40 },
];

/**
 * The answer version the catalog's kept answers are built at: the Store API reads published records and
 * the site's settings, whose every change bumps this scope (migrations/20261126001550_answer_versions.sql).
 */
export const CATALOG_SCOPE = "content:published";

export type StoreEnv = {
  Variables: {
    requestId: string;
    site: SiteSettings;
    keyId: string | null;
    /** the catalog's version as this request's admission saw it (kept answers) */
    catalogVersion: number;
  };
};

/**
 * The storefront key a request presents, in a header only (Shopify's clients never put it in the address,
 * where it would land in logs and histories; `?access_token=` is not read).
 */
export function storefrontToken(request: Request): string | undefined {
  const h = request.headers;
  return h.get("x-shopify-storefront-access-token")?.trim() ||
    h.get("x-vendor-storefront-access-token")?.trim() ||
    h.get("shopify-storefront-private-token")?.trim() ||
    bearerToken(request);
}

/** `keyed`: the GraphQL API (a storefront key is required); otherwise a public route of the store. */
export function storeAccess(ctx: FunctionContext, options: { keyed: boolean }): MiddlewareHandler<StoreEnv> {
  return async (c, next) => {
    const address = clientAddress(c);
    const token = options.keyed ? storefrontToken(c.req.raw) : undefined;
    const admission = await admit(ctx.sql, {
      api: options.keyed ? `storefront@${address}` : "storefront-public",
      token,
      clientAddress: address,
      windows: options.keyed ? STORE_RATE_LIMITS : PUBLIC_RATE_LIMITS,
      scale: ctx.config.rateLimitScale,
      now: ctx.clock.now(),
    });
    // the headers go on every answer, refusals too
    const headers = rateLimitHeaders(admission.windows, admission.exceeded);
    if (admission.exceeded) throw new StoreError(429, "Throttled", "THROTTLED", headers);
    const site = admission.site;
    if (!site) throw new StoreError(503, "The site has not been imported yet.", "UNAVAILABLE", headers);
    if (!moduleOn(site, "store") || !moduleOn(site, "api")) {
      throw new StoreError(404, "Not Found", "NOT_FOUND", headers);
    }
    if (options.keyed) {
      if (!token || admission.unknownKey || admission.key?.revoked) {
        throw new StoreError(
          401,
          "[API] Invalid API key or access token (unrecognized login or wrong password)",
          "UNAUTHORIZED",
          headers,
        );
      }
      if (admission.key?.kind !== "storefront") {
        throw new StoreError(
          403,
          `A ${admission.key?.kind} key cannot use the Storefront API.`,
          "ACCESS_DENIED",
          headers,
        );
      }
    }
    c.set("site", site);
    c.set("keyId", admission.key?.id ?? null);
    c.set("catalogVersion", admission.versions[CATALOG_SCOPE] ?? 0);
    await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  };
}
