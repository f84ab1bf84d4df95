// Pieces every scheduling route uses: the site's catalogue, body and query readers that answer
// BAD_REQUEST (never a 5xx), and who may see which event type.
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { readJsonObject } from "../../../shared/http.ts";
import { type Caller, isPrivileged, type SchedulingEnv } from "../access.ts";
import type { Deps } from "../domain/bookings.ts";
import type { Outbound } from "../domain/forward.ts";
import { catalogFor } from "../catalogue.ts";
import { type Catalog, findType } from "../domain/catalog.ts";
import { type EventType, tierAdmits } from "../domain/event-types.ts";
import { badRequest, notFound } from "../envelope.ts";

/** The site's hosts and event types for this request's site settings. */
export function catalogOf(ctx: FunctionContext, c: Context<SchedulingEnv>): Promise<Catalog> {
  return catalogFor(ctx, c.get("site"));
}

/** Private and loopback schedulers only where the deployment allows such targets (development, tests). */
export function outboundOf(ctx: FunctionContext): Outbound {
  return { allowPrivate: ctx.config.allowPrivateWebhookTargets === true };
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

/** Keys and administrators see every type; a person the types their plan admits; a visitor open ones. */
export function typeVisible(type: EventType, caller: Caller): boolean {
  if (isPrivileged(caller)) return true;
  if (caller.kind === "person") return tierAdmits(type, caller.tier);
  return !type.flags.hidden;
}

export function visibleType(catalog: Catalog, ref: string, caller: Caller): EventType {
  const type = findType(catalog, ref);
  if (!type || !typeVisible(type, caller)) throw notFound(`Event type ${ref}`);
  return type;
}

export function jsonBody(c: Context): Promise<Record<string, unknown>> {
  return readJsonObject(c.req.raw, (message) => badRequest(message));
}

/** An ISO date or date-time; a bare date is that day's start (or, with `endOfDay`, its last instant) in UTC. */
export function parseInstant(value: unknown, field: string, endOfDay = false): number {
  if (typeof value !== "string" || !value.trim()) {
    throw badRequest(`${field} is required (an ISO 8601 date or date-time)`);
  }
  const text = value.trim().replace(/^"|"$/g, "");
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    const ms = Date.parse(`${text}T00:00:00Z`);
    if (Number.isNaN(ms)) throw badRequest(`${field} is not a valid date`);
    return endOfDay ? ms + 86_400_000 - 1 : ms;
  }
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i.test(text)) {
    throw badRequest(`${field} must be an ISO 8601 date-time with a zone (e.g. 2030-05-01T09:00:00Z)`);
  }
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw badRequest(`${field} is not a valid date-time`);
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

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export function isEmail(value: unknown): value is string {
  return typeof value === "string" && value.length <= 254 && EMAIL.test(value);
}
