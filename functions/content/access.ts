// Admission for the content API: key, site, module switch, rate limits (36 000 an hour, 78 a second per
// key), and which stage and gating the caller reads. Sets the rate-limit headers on every answer.
import type { MiddlewareHandler } from "hono";
import type { KeptAnswer } from "../../shared/answer-cache.ts";
import type { FunctionContext } from "../../shared/context.ts";
import { admit, ietfRateLimitFields, presentedToken, type WindowCount } from "../../shared/gate.ts";
import { clientAddress } from "../../shared/http.ts";
import type { KeyKind } from "../../shared/keys.ts";
import { deliveryIsPublic, moduleOn, type SiteSettings } from "../../shared/site.ts";
import { ContentError, MANAGEMENT_MEDIA_TYPE } from "./envelope.ts";
import type { Stage } from "./store/entries.ts";

export const CONTENT_RATE_LIMITS = [
  { seconds: 3600, limit: 36_000 },
  { seconds: 1, limit: 78 },
];

export interface Access {
  stage: Stage;
  gated: boolean;
  keyKind?: KeyKind;
  /** the presented key's id (management writes record who made a change through it) */
  keyId?: string;
  /** the caller asked for management shapes (management media type) */
  management: boolean;
  /**
   * The version of what this caller's stage serves, as the request's admission saw it (the answer
   * cache); absent where no admission ran (an app called in-process without it keeps no answers)
   */
  answerVersion?: number;
}

/** The answer versions' scope of a stage: what a publish to it bumps, and what kept answers are kept under. */
export const answerScope = (stage: Access["stage"]) => `content:${stage}`;

export type ContentEnv = {
  Variables: { requestId: string; site: SiteSettings; access: Access; answer?: KeptAnswer };
};

function rateHeaders(windows: WindowCount[], exceeded?: WindowCount): Record<string, string> {
  const [hour, second] = windows;
  const headers: Record<string, string> = {
    "X-Contentful-RateLimit-Hour-Limit": String(hour.limit),
    "X-Contentful-RateLimit-Hour-Remaining": String(hour.remaining),
    "X-Contentful-RateLimit-Second-Limit": String(second.limit),
    "X-Contentful-RateLimit-Second-Remaining": String(second.remaining),
    "X-Contentful-RateLimit-Reset": String(exceeded ? exceeded.resetIn : 0),
    ...ietfRateLimitFields(windows),
  };
  if (exceeded) headers["Retry-After"] = String(exceeded.resetIn);
  return headers;
}

export function contentAccess(ctx: FunctionContext): MiddlewareHandler<ContentEnv> {
  return async (c, next) => {
    const token = presentedToken(c.req.raw);
    const admission = await admit(ctx.sql, {
      api: "content",
      token,
      clientAddress: clientAddress(c),
      windows: CONTENT_RATE_LIMITS,
      scale: ctx.config.rateLimitScale,
      now: ctx.clock.now(),
      // only keys are credentials here: a made-up token spends the caller's address budget
      unknownTokensBy: "address",
    });
    const headers = rateHeaders(admission.windows, admission.exceeded);
    if (admission.exceeded) {
      throw new ContentError("RateLimitExceeded", "Rate limit exceeded. Too many requests.", undefined, headers);
    }
    const fail = (id: "AccessTokenInvalid" | "AccessDenied" | "NotFound", message?: string) =>
      new ContentError(id, message, undefined, headers);
    const site = admission.site;
    if (!site) throw new ContentError("ServerError", "The site has not been imported yet.", undefined, headers);
    if (!moduleOn(site, "api")) throw fail("NotFound", "The content API is switched off for this site.");
    const management = (c.req.header("content-type") ?? "").includes(MANAGEMENT_MEDIA_TYPE);
    const key = admission.key;
    if (admission.unknownKey || key?.revoked) throw fail("AccessTokenInvalid");
    let access: Access;
    if (!key) {
      if (!deliveryIsPublic(site) || management) throw fail("AccessTokenInvalid");
      access = { stage: "published", gated: false, management: false };
    } else if (key.kind === "preview") {
      if (management) throw fail("AccessDenied");
      access = { stage: "preview", gated: key.gated, keyKind: key.kind, management: false };
    } else if (key.kind === "delivery") {
      if (management) throw fail("AccessDenied");
      access = { stage: "published", gated: key.gated, keyKind: key.kind, management: false };
    } else if (key.kind === "management") {
      access = { stage: management ? "preview" : "published", gated: true, keyKind: key.kind, keyId: key.id, management };
    } else {
      throw fail("AccessDenied", `A ${key.kind} key cannot read the content API.`);
    }
    c.set("site", site);
    c.set("access", { ...access, answerVersion: admission.versions[answerScope(access.stage)] ?? 0 });
    await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  };
}
