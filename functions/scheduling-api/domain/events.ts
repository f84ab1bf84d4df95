// Scheduling webhook events: one payload builder for every trigger (the spec's field list), the
// optional payload template, and the enqueue into the shared outbox inside the caller's transaction.
import { enqueueWebhook } from "../../../shared/webhooks/outbox.ts";
import type { Clock } from "../../../shared/clock.ts";
import type { Db, Tx } from "../../../shared/db.ts";
import { type BookingRow } from "../store/bookings.ts";
import { matchingWebhooks } from "../store/webhooks.ts";
import type { Catalog } from "./catalog.ts";
import { TRIGGERS } from "../../../shared/openapi/enums/scheduling.ts";

export type Trigger = typeof TRIGGERS[number];

export const OUTBOX_API = "scheduling";

/**
 * A booking's metadata as every answer and webhook payload shows it: the members its caller gave plus
 * provider and event (kept in the row's metadata) and, for a seat, seatOf. The service's own state lives
 * in columns (confirmed_at, previous_start_at, payment_session_id), never here.
 */
export function bookingMetadata(b: BookingRow): Record<string, unknown> {
  return { ...b.metadata, ...(b.seat_of ? { seatOf: b.seat_of } : {}) };
}

function utcOffset(zone: string, at: Date): number {
  try {
    const parts = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" })
      .formatToParts(at);
    const name = parts.find((p) => p.type === "timeZoneName")?.value ?? "GMT";
    const m = /GMT([+-])(\d{2}):?(\d{2})?/.exec(name);
    return m ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0)) : 0;
  } catch {
    return 0;
  }
}

/** The payload of a booking event, the same members for every trigger. */
export function bookingPayload(b: BookingRow, catalog: Catalog, extra: Record<string, unknown> = {}) {
  const host = catalog.hosts.find((h) => h.email === b.host_emails[0]);
  const responses: Record<string, unknown> = {
    name: { label: "Your name", value: b.attendee_name },
    email: { label: "Email address", value: b.attendee_email },
  };
  for (const [k, v] of Object.entries(b.responses ?? {})) responses[k] = { label: k, value: v };
  if (b.attendee_phone) responses.attendeePhoneNumber = { label: "Phone number", value: b.attendee_phone };
  return {
    type: b.event_type_slug,
    title: b.title,
    description: b.description,
    additionalNotes: typeof b.responses?.notes === "string" ? b.responses.notes : b.description,
    customInputs: {},
    startTime: b.start_at.toISOString(),
    endTime: b.end_at.toISOString(),
    organizer: {
      id: host?.id ?? null,
      name: host?.name ?? b.host_emails[0],
      email: b.host_emails[0],
      username: host?.username ?? null,
      timeZone: host?.timeZone ?? "UTC",
      language: { locale: "en" },
      utcOffset: utcOffset(host?.timeZone ?? "UTC", b.start_at),
    },
    attendees: [{
      name: b.attendee_name,
      email: b.attendee_email,
      timeZone: b.attendee_time_zone,
      language: { locale: b.attendee_language },
      utcOffset: utcOffset(b.attendee_time_zone, b.start_at),
    }],
    location: b.location,
    destinationCalendar: null,
    uid: b.uid,
    bookingId: b.id,
    eventTypeId: b.event_type_id,
    eventTitle: catalog.types.find((t) => t.slug === b.event_type_slug)?.title ?? b.title,
    status: b.status.toUpperCase(),
    metadata: bookingMetadata(b),
    responses,
    ...(b.cancellation_reason ? { cancellationReason: b.cancellation_reason } : {}),
    ...(b.meeting_url ? { videoCallData: { type: "daily_video", url: b.meeting_url } } : {}),
    ...extra,
  };
}

/**
 * A payload template as Cal renders it: `{{path}}` replaced by the value at that path of
 * { ...payload, triggerEvent, createdAt } (objects as JSON, strings as they are inside a JSON string).
 */
export function renderTemplate(template: string, vars: Record<string, unknown>): string {
  return template.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_, path: string) => {
    let v: unknown = vars;
    for (const part of path.split(".")) {
      v = v && typeof v === "object" ? (v as Record<string, unknown>)[part] : undefined;
    }
    if (v === undefined || v === null) return "";
    if (typeof v === "string") return JSON.stringify(v).slice(1, -1);
    return typeof v === "object" ? JSON.stringify(v) : String(v);
  });
}

/** The body and content type sent for one subscription. */
export function deliveryBody(
  trigger: string,
  createdAt: string,
  payload: Record<string, unknown>,
  template: string | null,
) {
  if (!template) {
    return {
      body: JSON.stringify({ triggerEvent: trigger, createdAt, payload }),
      contentType: "application/json",
    };
  }
  const body = renderTemplate(template, { ...payload, triggerEvent: trigger, createdAt });
  try {
    JSON.parse(body);
    return { body, contentType: "application/json" };
  } catch {
    return { body, contentType: "application/x-www-form-urlencoded" };
  }
}

/** Enqueues the event for every matching subscription; call inside the change's transaction. */
export async function emit(
  db: Db,
  trigger: Trigger,
  slug: string | null,
  payload: Record<string, unknown>,
  now: Date,
): Promise<number> {
  const hooks = await matchingWebhooks(db, trigger, slug);
  const createdAt = now.toISOString();
  for (const hook of hooks) {
    const { body, contentType } = deliveryBody(trigger, createdAt, payload, hook.payload_template);
    await enqueueWebhook(db, {
      api: OUTBOX_API,
      subscriptionId: hook.id,
      event: trigger,
      url: hook.subscriber_url,
      headers: { "content-type": contentType },
      body,
    });
  }
  return hooks.length;
}

/** Enqueues a booking event (one payload builder for every trigger) inside the change's transaction. */
export function announce(
  deps: { catalog: Catalog; clock: Clock },
  tx: Tx,
  trigger: Trigger,
  b: BookingRow,
  extra: Record<string, unknown> = {},
): Promise<number> {
  return emit(tx, trigger, b.event_type_slug, bookingPayload(b, deps.catalog, extra), deps.clock.now());
}
