// Admission for the Forms API: a key of kind `forms` (Bearer header, any case of the scheme, or
// ?access_token=), both the forms and api modules on, and the rate limits (100 a second and 36 000 an
// hour per key). Every answer carries the rate-limit headers; 429 adds Retry-After. The form page's
// own routes need no key: they are limited per visitor address instead.
import type { Context, MiddlewareHandler } from "hono";
import type { FunctionContext } from "../../shared/context.ts";
import { admit, presentedToken, rateLimitHeaders, type RateWindow } from "../../shared/gate.ts";
import { clientAddress } from "../../shared/http.ts";
import { moduleOn, type SiteSettings } from "../../shared/site.ts";
import { FormsError } from "./envelope.ts";

export const FORMS_RATE_LIMITS: RateWindow[] = [
  { seconds: 1, limit: 100 },
  { seconds: 3600, limit: 36_000 },
];

/** Per visitor address on the form page's routes (landing, answers, uploads, submission). */
export const PAGE_RATE_LIMITS: RateWindow[] = [
  { seconds: 1, limit: 60 },
  { seconds: 60, limit: 1200 },
];

export interface FormsCaller {
  keyId: string;
  keyName: string;
}

export type FormsEnv = {
  Variables: { requestId: string; site: SiteSettings; caller: FormsCaller };
};

function siteOpen(site: SiteSettings | null, headers: Record<string, string>): SiteSettings {
  if (!site) throw new FormsError("NOT_FOUND", "The site has not been imported yet.", undefined, headers);
  if (!moduleOn(site, "forms") || !moduleOn(site, "api")) {
    throw new FormsError("NOT_FOUND", "The forms API is switched off for this site.", undefined, headers);
  }
  return site;
}

/** One admission round trip; 429 past a window (the headers go on every answer either way). */
async function admitted(
  ctx: FunctionContext,
  c: Context<FormsEnv>,
  api: string,
  token: string | undefined,
  windows: RateWindow[],
) {
  const admission = await admit(ctx.sql, {
    api,
    token,
    clientAddress: clientAddress(c),
    windows,
    scale: ctx.config.rateLimitScale,
    now: ctx.clock.now(),
  });
  const headers = rateLimitHeaders(admission.windows, admission.exceeded);
  if (admission.exceeded) {
    throw new FormsError(
      "TOO_MANY_REQUESTS",
      "Too many requests: slow down and retry after the given seconds.",
      undefined,
      headers,
    );
  }
  return { admission, headers };
}

export function formsAccess(ctx: FunctionContext): MiddlewareHandler<FormsEnv> {
  return async (c, next) => {
    const { admission, headers } = await admitted(
      ctx,
      c,
      "forms",
      presentedToken(c.req.raw),
      FORMS_RATE_LIMITS,
    );
    const key = admission.key;
    if (!key || key.revoked) {
      throw new FormsError(
        "AUTHENTICATION_FAILED",
        admission.unknownKey || key?.revoked
          ? "The access token is not valid (unknown or revoked)."
          : "An access token of kind forms is required (Authorization: Bearer <token> or ?access_token=).",
        undefined,
        headers,
      );
    }
    if (key.kind !== "forms") {
      throw new FormsError("FORBIDDEN", `A ${key.kind} key cannot use the Forms API.`, undefined, headers);
    }
    c.set("site", siteOpen(admission.site, headers));
    c.set("caller", { keyId: key.id, keyName: key.name });
    await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  };
}

/** The form page's routes: no key; the site and module checks, limited per visitor address. */
export function pageAccess(ctx: FunctionContext): MiddlewareHandler<FormsEnv> {
  return async (c, next) => {
    const { admission, headers } = await admitted(ctx, c, "forms-page", undefined, PAGE_RATE_LIMITS);
    c.set("site", siteOpen(admission.site, headers));
    await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  };
}
