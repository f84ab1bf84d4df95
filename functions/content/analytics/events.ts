// Capture as PostHog defines it, as pure functions of the decoded payload and a clock: where the project
// token is, which items are events, what each event's distinct id, uuid and timestamp are, and what is
// refused (with PostHog's own messages where it has one).
import { parseDate } from "../../../shared/site/dates.ts";
import { invalidApiKey, invalidPayload, missingApiKey } from "./envelope.ts";
import type { Payload } from "./payload.ts";

/** PostHog keeps at most 200 characters of an event name or a distinct id. */
export const MAX_NAME_LENGTH = 200;
/** PostHog's per-event limit. */
export const MAX_EVENT_BYTES = 1024 * 1024;
/** A timestamp more than 23 hours ahead of the server is taken as now (PostHog's ingestion rule). */
export const FUTURE_TOLERANCE_MS = 23 * 3600 * 1000;
/** Deeper JSON than this is refused rather than walked. */
export const MAX_DEPTH = 64;

export interface CapturedEvent {
  uuid: string;
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  timestamp: string;
  sent_at: string | null;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The project token of a request: `?token=`/`?api_key=`, the form's api_key/token, then the body (the first
 * event of a list): `$token`, `token`, `api_key`, `properties.token` (PostHog's get_token order).
 */
export function requestToken(payload: Payload): string | undefined {
  const fromParams = payload.query.get("token") || payload.query.get("api_key") ||
    payload.form?.get("api_key") || payload.form?.get("token");
  if (fromParams) return fromParams;
  const first = Array.isArray(payload.data) ? payload.data[0] : payload.data;
  return isObject(first) ? eventToken(first) : undefined;
}

function eventToken(item: Json): string | undefined {
  for (const value of [item.$token, item.token, item.api_key, isObject(item.properties) ? item.properties.token : undefined]) {
    if (typeof value === "string" && value) return value;
  }
  return undefined;
}

/** Refuses a request whose token is absent or is not the site's (401, PostHog's codes). */
export function checkToken(token: string | undefined, siteToken: string | null): void {
  if (!token) throw missingApiKey();
  if (siteToken === null || token !== siteToken) throw invalidApiKey();
}

/** sent_at: `?_=` (posthog-js, milliseconds), the body's sent_at, or the form's; seconds or ms or ISO 8601. */
export function sentAt(payload: Payload): Date | null {
  const raw = payload.query.get("_") ||
    (isObject(payload.data) && payload.data.sent_at !== undefined && payload.data.sent_at !== null
      ? String(payload.data.sent_at)
      : "") ||
    payload.form?.get("sent_at") || "";
  if (!raw) return null;
  // PostHog: more than 11 digits is milliseconds; either way the instant must lie in years 0001 to 9999
  const when = /^\d+(\.\d+)?$/.test(raw)
    ? parseDate(new Date(raw.split(".")[0].length > 11 ? Number(raw) : Number(raw) * 1000))
    : parseInstant(raw);
  if (!when) {
    throw invalidPayload(`Malformed request data, invalid sent at: ${JSON.stringify(raw).slice(0, 100)}`, "sent_at");
  }
  return when;
}

/** The items of a request: a list, a `{ batch: [...] }` object (the server libraries), or one event. */
export function eventItems(data: unknown): Json[] {
  let items: unknown[];
  if (Array.isArray(data)) items = data;
  else if (isObject(data) && Array.isArray(data.batch)) items = data.batch;
  else if (isObject(data)) items = [data];
  else throw invalidPayload("Invalid payload: the data must be an event, a list of events or a batch.");
  if (!items.length) throw invalidPayload("Invalid payload: request holds no event");
  if (!items.every((item) => item !== null && item !== undefined)) {
    throw invalidPayload("Invalid payload: some events are null");
  }
  if (!items.every(isObject)) throw invalidPayload("Invalid payload: every event must be a JSON object");
  return items as Json[];
}

/**
 * Validates and normalises the events of one request. Every event carrying a token of its own must carry
 * the request's (PostHog refuses a batch with inconsistent api_key values).
 */
export function captureEvents(
  payload: Payload,
  siteToken: string | null,
  now: Date,
): CapturedEvent[] {
  const items = eventItems(payload.data);
  checkToken(requestToken(payload), siteToken);
  for (const item of items) {
    const own = eventToken(item);
    if (own !== undefined && own !== siteToken) throw invalidApiKey();
  }
  const sent = sentAt(payload);
  return items.map((item) => normaliseEvent(item, sent, now));
}

export function normaliseEvent(item: Json, sent: Date | null, now: Date): CapturedEvent {
  assertDepth(item);
  if (JSON.stringify(item).length > MAX_EVENT_BYTES) throw invalidPayload("Invalid payload: maximum event size exceeded");
  const name = item.event;
  if (typeof name !== "string" || !name) {
    throw invalidPayload('Invalid payload: All events must have the event name field "event"!', "event");
  }
  const distinctId = distinctIdOf(item);
  let properties: Json = {};
  if (item.properties !== undefined && item.properties !== null) {
    if (!isObject(item.properties)) {
      throw invalidPayload(
        `Invalid payload: Properties must be a JSON object, received ${jsonType(item.properties)}!`,
        "properties",
      );
    }
    properties = { ...item.properties };
  }
  // top-level $set / $set_once are person updates: PostHog folds them into the properties
  for (const key of ["$set", "$set_once"]) {
    if (isObject(item[key])) {
      properties[key] = { ...item[key] as Json, ...(isObject(properties[key]) ? properties[key] as Json : {}) };
    }
  }
  let uuid: string = crypto.randomUUID();
  if (item.uuid !== undefined && item.uuid !== null && item.uuid !== "") {
    if (typeof item.uuid !== "string" || !UUID.test(item.uuid)) {
      throw invalidPayload('Invalid payload: Event field "uuid" is not a valid UUID!', "uuid");
    }
    uuid = item.uuid.toLowerCase();
  }
  return {
    uuid,
    event: clean(name).slice(0, MAX_NAME_LENGTH),
    distinct_id: distinctId,
    properties: cleanJson(properties) as Json,
    timestamp: eventTimestamp(item, sent, now).toISOString(),
    sent_at: sent?.toISOString() ?? null,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `$distinct_id`, then `properties.distinct_id`, then `distinct_id` (PostHog's order); at most 200 characters. */
function distinctIdOf(item: Json): string {
  let raw: unknown;
  if ("$distinct_id" in item) raw = item.$distinct_id;
  else if (isObject(item.properties) && "distinct_id" in item.properties) raw = item.properties.distinct_id;
  else if ("distinct_id" in item) raw = item.distinct_id;
  else throw invalidPayload('Invalid payload: All events must have the event field "distinct_id"!', "distinct_id");
  if (raw === null || raw === undefined || raw === "" || raw === false) {
    throw invalidPayload('Invalid payload: Event field "distinct_id" should not be blank!', "distinct_id");
  }
  if (typeof raw !== "string" && typeof raw !== "number" && typeof raw !== "boolean") {
    throw invalidPayload('Invalid payload: Event field "distinct_id" must be a string or a number!', "distinct_id");
  }
  const id = clean(String(raw)).slice(0, MAX_NAME_LENGTH);
  if (!id.trim()) throw invalidPayload('Invalid payload: Event field "distinct_id" should not be blank!', "distinct_id");
  return id;
}

/**
 * When the event happened (PostHog's parseEventTimestamp): `offset` ms before now; else the sender's
 * timestamp shifted by the sender's clock error (now - sent_at); else the timestamp; else now. A result
 * more than 23 hours ahead is taken as now.
 */
export function eventTimestamp(item: Json, sent: Date | null, now: Date): Date {
  let when = now;
  if (typeof item.offset === "number" && Number.isFinite(item.offset)) {
    when = new Date(now.getTime() - item.offset);
  } else if (item.timestamp !== undefined && item.timestamp !== null) {
    const stamp = typeof item.timestamp === "string" ? parseInstant(item.timestamp) : undefined;
    if (!stamp) {
      throw invalidPayload('Invalid payload: Event field "timestamp" must be an ISO 8601 date and time!', "timestamp");
    }
    when = sent ? new Date(now.getTime() + (stamp.getTime() - sent.getTime())) : stamp;
  }
  // outside years 0001 to 9999 (the one date check) or too far ahead: now
  return !parseDate(when) || when.getTime() > now.getTime() + FUTURE_TOLERANCE_MS ? now : when;
}

/**
 * ISO 8601 date-times as the one date check reads them (a date alone is its midnight UTC, real dates in
 * years 0001 to 9999 only); `t` and `z` in either case, as Python's isoformat may write them.
 */
function parseInstant(text: string): Date | undefined {
  return parseDate(text.toUpperCase());
}

function jsonType(value: unknown): string {
  if (Array.isArray(value)) return "list";
  if (typeof value === "string") return "str";
  if (typeof value === "number") return Number.isInteger(value) ? "int" : "float";
  if (typeof value === "boolean") return "bool";
  return typeof value;
}

/** Postgres text and jsonb hold neither NUL nor lone surrogates: both become U+FFFD. */
function clean(text: string): string {
  // deno-lint-ignore no-control-regex -- NUL is what it replaces
  return text.toWellFormed().replace(/\u0000/g, "\uFFFD");
}

/** Measured without recursion, so no depth of nesting can exhaust the stack before it is refused. */
function assertDepth(root: unknown): void {
  const stack: [unknown, number][] = [[root, 0]];
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== "object" || value === null) continue;
    if (depth >= MAX_DEPTH) {
      throw invalidPayload(`Invalid payload: an event is nested more than ${MAX_DEPTH} levels deep`, "properties");
    }
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
}

function cleanJson(value: unknown): unknown {
  if (typeof value === "string") return clean(value);
  if (Array.isArray(value)) return value.map((v) => cleanJson(v));
  if (isObject(value)) {
    const out: Json = {};
    for (const [key, v] of Object.entries(value)) out[clean(key)] = cleanJson(v);
    return out;
  }
  return value;
}
