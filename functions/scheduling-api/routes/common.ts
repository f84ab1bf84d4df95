// Pieces every scheduling route uses: the site's catalogue, body and query readers that answer
// BAD_REQUEST (never a 5xx), text Postgres cannot hold refused at the door, and who may see which
// event type.
import type { Context, MiddlewareHandler } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { readJsonObject } from "../../../shared/http.ts";
import {
  jsonPathText,
  jsonProblem,
  unstorableUrlText,
} from "../../../shared/input-text.ts";
import { type Caller, isPrivileged, type SchedulingEnv } from "../access.ts";
import type { Deps } from "../domain/types.ts";
import type { Outbound } from "../domain/types.ts";
import { catalogFor } from "../domain/catalog.ts";
import { type Catalog, findType } from "../domain/catalog.ts";
import { type EventType, tierAdmits } from "../domain/event-types.ts";
import { badRequest, notFound } from "../envelope.ts";

/** The site's hosts and event types for this request's site settings. */
export function catalogOf(ctx: FunctionContext, c: Context<SchedulingEnv>): Promise<Catalog> {
  return catalogFor(ctx, c.get("site"));
}

/** Private and loopback schedulers only where the deployment allows such targets (development, tests). */
export function outboundOf(ctx: FunctionContext): Outbound {
  return { allowPrivate: ctx.config.allowPrivateWebhookTargets };
}

export async function depsOf(ctx: FunctionContext, c: Context<SchedulingEnv>): Promise<Deps> {
  return {
    sql: ctx.sql,
    clock: ctx.clock,
    catalog: await catalogOf(ctx, c),
    publicUrl: ctx.config.publicUrl,
    outbound: outboundOf(ctx),
  };
}

/**
 * Who reaches a type by its id, slug or link: keys and administrators every type, a person the types
 * their plan admits, a visitor of the booker page any (the admission check decides who may book it).
 */
export function typeVisible(type: EventType, caller: Caller): boolean {
  if (isPrivileged(caller)) return true;
  if (caller.kind === "person") return tierAdmits(type, caller.tier);
  return true;
}

/**
 * Who finds a type in a listing: as above, less hidden types for a person. Hidden is Cal's: off the
 * listing, still bookable by its link (_links.book).
 */
export function typeListed(type: EventType, caller: Caller): boolean {
  return typeVisible(type, caller) && (isPrivileged(caller) || !type.flags.hidden);
}

export function visibleType(catalog: Catalog, ref: string, caller: Caller): EventType {
  const type = findType(catalog, ref);
  if (!type || !typeVisible(type, caller)) throw notFound(`Event type ${ref}`);
  return type;
}

/**
 * The type a booking names. Beside what the caller sees, a person reaches a type their plan excludes:
 * the admission check then answers 403 not-included, as it does for a key, instead of a 404.
 */
export function bookableType(catalog: Catalog, ref: string): EventType {
  const type = findType(catalog, ref);
  if (!type) throw notFound(`Event type ${ref}`);
  return type;
}

/**
 * The request's JSON object ({} when empty). Text Postgres cannot hold (NUL, a lone surrogate) or a body
 * nested too deep is BAD_REQUEST naming where it is (shared/input-text.ts).
 */
export async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  const body = await readJsonObject(c.req.raw, (message) => badRequest(message));
  refuseUnstorableJson(body);
  return body;
}

/** BAD_REQUEST naming the place of the first text Postgres cannot hold, or of nesting too deep. */
export function refuseUnstorableJson(value: unknown): void {
  const problem = jsonProblem(value);
  if (!problem) return;
  const where = jsonPathText(problem.path);
  throw badRequest(`${where || "The body"} ${problem.why}.`, where ? { field: where } : undefined);
}

/**
 * Every route reads its path and query into SQL: a segment that cannot be stored names nothing (404),
 * a query parameter that cannot be stored is BAD_REQUEST naming it.
 */
export const refuseUnstorableText: MiddlewareHandler = async (c, next) => {
  const unstorable = unstorableUrlText(c.req.url);
  if (unstorable?.path) {
    throw notFound("Route");
  }
  const parameter = unstorable?.parameter;
  if (parameter !== undefined) {
    throw badRequest(`${parameter} may not contain the NUL character (%00) or a lone surrogate`, {
      parameter,
    });
  }
  await next();
};

/** The years a date parameter may name: far enough for any booking, well inside what Postgres stores. */
export const INSTANT_YEARS = { min: 1970, max: 2200 } as const;

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):?(\d{2})))?$/i;

/**
 * An ISO date or date-time; a bare date is that day's start (or, with `endOfDay`, its last instant) in
 * UTC. A calendar date that does not exist (2031-02-30) or a year outside INSTANT_YEARS is refused,
 * never rolled over or passed on to the database; every refusal names the parameter in details.
 */
export function parseInstant(value: unknown, field: string, endOfDay = false): number {
  const refuse = (message: string) => badRequest(message, { parameter: field });
  if (typeof value !== "string" || !value.trim()) {
    throw refuse(`${field} is required (an ISO 8601 date or date-time)`);
  }
  const text = value.trim().replace(/^"|"$/g, "");
  const m = DATE_TIME.exec(text);
  if (!m) {
    throw refuse(`${field} must be an ISO 8601 date or date-time with a zone (e.g. 2030-05-01T09:00:00Z)`);
  }
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  const outOfRange = () =>
    refuse(`${field} must lie in the years ${INSTANT_YEARS.min} to ${INSTANT_YEARS.max}`);
  if (year < INSTANT_YEARS.min || year > INSTANT_YEARS.max) throw outOfRange();
  const calendar = new Date(Date.UTC(year, month - 1, day));
  const realDate = month >= 1 && month <= 12 && calendar.getUTCFullYear() === year &&
    calendar.getUTCMonth() === month - 1 && calendar.getUTCDate() === day;
  const realTime = hour <= 23 && minute <= 59 && second <= 59 &&
    (m[8] === undefined || (Number(m[8]) <= 23 && Number(m[9]) <= 59));
  if (!realDate || !realTime) throw refuse(`${field} is not a real date or time: ${text}`);
  const ms = m[4] === undefined
    ? calendar.getTime() + (endOfDay ? 86_400_000 - 1 : 0)
    : Date.parse(text.replace(/([+-]\d{2})(\d{2})$/, "$1:$2"));
  if (Number.isNaN(ms)) throw refuse(`${field} is not a real date or time: ${text}`);
  // an offset can carry a date in range just outside it (1970-01-01T00:30+01:00)
  const utcYear = new Date(ms).getUTCFullYear();
  if (utcYear < INSTANT_YEARS.min || utcYear > INSTANT_YEARS.max) throw outOfRange();
  return ms;
}

export function intParam(
  value: string | undefined,
  field: string,
  min: number,
  max: number,
  fallback: number,
): number {
  if (value === undefined || value === "") return fallback;
  if (!/^-?\d+$/.test(value)) throw badRequest(`${field} must be an integer from ${min} to ${max}`);
  const n = Number(value);
  if (n < min || n > max) throw badRequest(`${field} must be an integer from ${min} to ${max}`);
  return n;
}
