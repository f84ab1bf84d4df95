// Admission for the scheduling API: key or person JWT, the sessions and api module switches, and the
// rate limit (one round trip through shared/gate.ts). Sets the rate-limit headers on every answer.
//
//   scheduling key      everything (types, every booking, every host's hours, webhooks)
//   administrator JWT   reads and acts like a key, except webhooks
//   person JWT          their own bookings, the types their plan admits, booking for themselves
//   another key kind    403; no or a revoked or unknown credential 401
import type { Context, MiddlewareHandler } from "hono";
import type { FunctionContext } from "../../shared/context.ts";
import { admit, presentedToken, rateLimitHeaders } from "../../shared/gate.ts";
import { clientAddress } from "../../shared/http.ts";
import { verifyPersonToken } from "../../shared/people.ts";
import { moduleOn, type SiteSettings } from "../../shared/site.ts";
import type { Tier } from "./domain/event-types.ts";
import { SchedulingError, SessionsOff } from "./envelope.ts";
import { personById } from "./store/people.ts";

// per key (or per address without one), generous for servers that book on their users' behalf
export const SCHEDULING_RATE_LIMITS = [
  { seconds: 60, limit: 6000 },
  { seconds: 1, limit: 300 },
];

export interface PersonCaller {
  kind: "person";
  id: string;
  email: string;
  role: "admin" | "support" | "member";
  tier: Tier;
  admin: boolean;
}
/**
 * `attendee`: a visitor of the booker page who named a booking's uid and its attendee's address (the
 * links the page gives after booking carry both), acting on that booking as its attendee would.
 */
export type Caller =
  | { kind: "key"; keyId: string }
  | PersonCaller
  | { kind: "visitor" }
  | { kind: "attendee"; email: string };

/**
 * The answer version of the held time (migrations/20261126007200_scheduling_held_versions.sql): every
 * change to what the slot search reads bumps it in its own transaction, so slot data kept at the version
 * a request's admission saw is as fresh as a read of its own.
 */
export const HELD_SCOPE = "scheduling:held";

export type SchedulingEnv = {
  Variables: {
    requestId: string;
    site: SiteSettings;
    caller: Caller;
    /** HELD_SCOPE's version as this request's admission saw it (undefined where the scope is missing) */
    heldVersion: number | undefined;
  };
};

const JWT_SHAPE = /^ey[\w-]+\.[\w-]+\.[\w-]*$/;

async function verifyPerson(ctx: FunctionContext, token: string): Promise<PersonCaller | undefined> {
  const claims = await verifyPersonToken(ctx, token);
  if (!claims) return undefined;
  const person = await personById(ctx.sql, claims.sub);
  const email = (person?.email ?? (typeof claims.email === "string" ? claims.email : "")).toLowerCase();
  if (!email) return undefined;
  const role = person?.role ?? "member";
  return {
    kind: "person",
    id: claims.sub,
    email,
    role,
    tier: role === "admin" || role === "support" ? "staff" : person?.tier ?? "member",
    admin: role === "admin",
  };
}

/**
 * The API's admission. With `visitors` the booker page's own routes let a caller without credentials
 * through (as a visitor, limited per address); a presented credential is still checked. The API needs
 * the sessions and api modules; `pageOnly` routes (the booker page, its calls, its payments) belong to
 * the sessions module alone.
 */
export function schedulingAccess(
  ctx: FunctionContext,
  options: { visitors?: boolean; pageOnly?: boolean } = {},
): MiddlewareHandler<SchedulingEnv> {
  return async (c, next) => {
    const token = presentedToken(c.req.raw);
    const admission = await admit(ctx.sql, {
      api: "scheduling",
      token,
      clientAddress: clientAddress(c),
      windows: SCHEDULING_RATE_LIMITS,
      scale: ctx.config.rateLimitScale,
      now: ctx.clock.now(),
    });
    const headers = rateLimitHeaders(admission.windows, admission.exceeded);
    const fail = (
      code: "UNAUTHORIZED" | "FORBIDDEN" | "NOT_FOUND" | "TOO_MANY_REQUESTS" | "INTERNAL_SERVER_ERROR",
      message: string,
    ) => new SchedulingError(code, message, undefined, headers);
    if (admission.exceeded) throw fail("TOO_MANY_REQUESTS", "Too many requests. Try again later.");
    const site = admission.site;
    if (!site) throw fail("INTERNAL_SERVER_ERROR", "The site has not been imported yet.");
    if (!moduleOn(site, "sessions")) throw new SessionsOff(headers);
    if (!options.pageOnly && !moduleOn(site, "api")) {
      throw fail("NOT_FOUND", "The scheduling API is switched off for this site.");
    }
    let caller: Caller;
    if (!token) {
      if (!options.visitors) {
        throw fail("UNAUTHORIZED", "No credentials: send Authorization: Bearer <key or token>.");
      }
      caller = { kind: "visitor" };
    } else if (JWT_SHAPE.test(token) && !admission.key) {
      const person = await verifyPerson(ctx, token);
      if (!person) throw fail("UNAUTHORIZED", "The token is invalid or has expired.");
      caller = person;
    } else {
      const key = admission.key;
      if (!key || key.revoked) throw fail("UNAUTHORIZED", "The key is invalid or has been revoked.");
      if (key.kind !== "scheduling") {
        throw fail("FORBIDDEN", `A ${key.kind} key cannot use the scheduling API.`);
      }
      caller = { kind: "key", keyId: key.id };
    }
    c.set("site", site);
    c.set("caller", caller);
    c.set("heldVersion", admission.versions[HELD_SCOPE]);
    await next();
    for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
  };
}

/** Keys and administrators see and act on everything. */
export function isPrivileged(caller: Caller): boolean {
  return caller.kind === "key" || (caller.kind === "person" && caller.admin);
}

export function callerOf(c: Context<SchedulingEnv>): Caller {
  return c.get("caller");
}
