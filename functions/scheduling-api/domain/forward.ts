// Types booked through an external scheduler (the type's metadata.scheduler is its address, a Cal.com
// API v2 compatible service): their open times and their bookings are forwarded to it, through the
// outbound URL guard, and its answer is ours. The booking is kept here as a mirror (metadata.provider
// names the scheduler; it holds no time, the scheduler owns it); cancelling, moving, confirming or
// declining it is forwarded too, and the scheduler's own webhooks, taken by the intake route, keep the
// mirror current. "The scheduler failed" is 502, as the spec's table says;
// a refusal the caller can act on (a bad request, a time just taken) keeps its meaning.
//
// The scheduler address is the service's API root; its query may name the type there (eventTypeId, or
// eventTypeSlug with username or teamSlug), else the type is asked for by our slug:
//   options.scheduler: https://api.cal.example?eventTypeSlug=partner-call&username=ada
import { checkOutboundUrl } from "../../../shared/webhooks/url-guard.ts";
import type { Tx } from "../../../shared/db.ts";
import { SchedulingError } from "../envelope.ts";
import * as bookingStore from "../store/bookings.ts";
import * as paymentStore from "../store/payments.ts";
import type { BookingRow, NewBooking } from "../store/bookings.ts";
import type { CreateInput, Outbound } from "./types.ts";
import type { Catalog } from "./catalog.ts";
import type { EventType } from "./event-types.ts";

/** How forwarded requests leave: the guard's switch for private targets, the fetch to use, a timeout. */
const BOOKINGS_VERSION = "2024-08-13";
const SLOTS_VERSION = "2024-09-04";

interface Target {
  root: string;
  /** how the scheduler names the type: { eventTypeId } or { eventTypeSlug, username?, teamSlug? } */
  typeRef: Record<string, string | number>;
  origin: string;
  key: string | undefined;
}

export function schedulerTarget(type: EventType, catalog: Catalog): Target {
  let url: URL;
  try {
    url = new URL(type.scheduler);
  } catch {
    throw new SchedulingError(
      "BAD_GATEWAY",
      `The session's scheduler address is not a URL: ${type.scheduler}`,
    );
  }
  const q = url.searchParams;
  const typeRef: Record<string, string | number> = {};
  const id = q.get("eventTypeId");
  if (id && /^\d+$/.test(id)) typeRef.eventTypeId = Number(id);
  else {
    typeRef.eventTypeSlug = q.get("eventTypeSlug") ?? type.slug;
    for (const name of ["username", "teamSlug", "organizationSlug"]) {
      const v = q.get(name);
      if (v) typeRef[name] = v;
    }
  }
  const root = `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
  const credential = catalog.sessions.schedulers
    .filter((s) => type.scheduler.startsWith(s.url))
    .sort((a, b) => b.url.length - a.url.length)[0];
  return { root, typeRef, origin: url.origin, key: credential?.key };
}

const failed = (target: Target, why: string, details: Record<string, unknown> = {}) =>
  new SchedulingError("BAD_GATEWAY", `The scheduler at ${target.origin} failed: ${why}`, {
    scheduler: target.origin,
    ...details,
  });

/** One request to the scheduler through the guard; answers the status and the parsed JSON body. */
async function send(
  out: Outbound,
  target: Target,
  method: "GET" | "POST",
  path: string,
  version: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const url = `${target.root}${path}`;
  const guard = await checkOutboundUrl(url, { allowPrivate: out.allowPrivate });
  if (!guard.ok) throw failed(target, `its address is refused (${guard.reason})`);
  const timeoutMs = out.timeoutMs ?? 10_000;
  let response: Response;
  try {
    response = await (out.fetch ?? fetch)(url, {
      method,
      headers: {
        accept: "application/json",
        "cal-api-version": version,
        "user-agent": "Sitewire-Scheduling/1",
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(target.key ? { authorization: `Bearer ${target.key}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      // a redirect could lead past the guard to a private address
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const name = (error as Error).name;
    throw failed(target, name === "TimeoutError" ? `no answer in ${timeoutMs} ms` : (error as Error).message);
  }
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw failed(target, `HTTP ${response.status} with a body that is not JSON`, { status: response.status });
  }
  if (!json || typeof json !== "object" || Array.isArray(json)) {
    throw failed(target, `HTTP ${response.status} with an unexpected body`, { status: response.status });
  }
  return { status: response.status, json: json as Record<string, unknown> };
}

/** The scheduler's refusal as ours: a bad request and a taken time keep their meaning, the rest is 502. */
function refusal(target: Target, status: number, json: Record<string, unknown>): SchedulingError {
  const error = (json.error ?? {}) as Record<string, unknown>;
  const message = typeof error.message === "string" ? error.message : `HTTP ${status}`;
  if (status === 400) {
    return new SchedulingError("BAD_REQUEST", `The scheduler refused the booking: ${message}`, {
      scheduler: target.origin,
    });
  }
  if (status === 409) {
    return new SchedulingError("CONFLICT", `The scheduler says the time was just taken: ${message}`, {
      code: "taken",
      scheduler: target.origin,
    });
  }
  return failed(target, message, { status });
}

/** Open times of an external type, as the scheduler answers them (keyed by day in `timeZone`). */
export async function forwardSlots(
  out: Outbound,
  type: EventType,
  catalog: Catalog,
  q: { start: string; end: string; timeZone: string; format: string; duration?: number },
): Promise<Record<string, unknown>> {
  const target = schedulerTarget(type, catalog);
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(target.typeRef)) params.set(k, String(v));
  params.set("start", q.start);
  params.set("end", q.end);
  params.set("timeZone", q.timeZone);
  params.set("format", q.format);
  if (q.duration) params.set("duration", String(q.duration));
  const { status, json } = await send(out, target, "GET", `/v2/slots?${params}`, SLOTS_VERSION);
  if (status < 200 || status > 299) throw refusal(target, status, json);
  const data = json.data;
  if (!data || typeof data !== "object" || Array.isArray(data)) {
    throw failed(target, "its slots answer has no data object");
  }
  return data as Record<string, unknown>;
}

/** Books an external type at the scheduler; answers the booking (a run of them for a recurring type). */
export async function forwardBooking(
  out: Outbound,
  catalog: Catalog,
  input: CreateInput,
): Promise<{ origin: string; bookings: Record<string, unknown>[] }> {
  const { type } = input;
  const target = schedulerTarget(type, catalog);
  const responses = { ...input.responses };
  const body = {
    start: new Date(input.start).toISOString(),
    ...target.typeRef,
    ...(input.lengthMinutes ? { lengthInMinutes: input.lengthMinutes } : {}),
    attendee: input.attendee,
    guests: input.guests,
    ...(input.location ? { location: input.location } : {}),
    ...(input.recurrenceCount ? { recurrenceCount: input.recurrenceCount } : {}),
    metadata: { ...input.metadata, sitewireEventTypeId: String(type.id) },
    bookingFieldsResponses: responses,
  };
  const { status, json } = await send(out, target, "POST", "/v2/bookings", BOOKINGS_VERSION, body);
  if (status < 200 || status > 299) throw refusal(target, status, json);
  const list = Array.isArray(json.data) ? json.data : [json.data];
  const bookings = list.filter((b): b is Record<string, unknown> =>
    Boolean(b) && typeof b === "object" && typeof (b as Record<string, unknown>).uid === "string" &&
    !Number.isNaN(Date.parse(String((b as Record<string, unknown>).start)))
  );
  if (!bookings.length || bookings.length !== list.length) {
    throw failed(target, "its answer is not a booking (no uid or start)");
  }
  return { origin: target.origin, bookings };
}

/** The actions on a booking the scheduler made: they are the scheduler's to take. */
export type MirrorAction = "cancel" | "reschedule" | "confirm" | "decline";

/** A booking kept here as the mirror of one an external scheduler made (its type is the scheduler's). */
export function isMirror(type: EventType, b: BookingRow): boolean {
  return type.scheduler !== "native" && b.metadata?.provider !== "sitewire";
}

/**
 * Forwards an action on a mirrored booking to its scheduler, then keeps what it answers: the same booking
 * changed, or (a Cal.com reschedule makes a new booking) the old one marked rescheduled and the new kept.
 * Runs in the caller's transaction, which holds the mirror's row, so actions on it go one at a time.
 */
export async function forwardAction(
  out: Outbound,
  catalog: Catalog,
  tx: Tx,
  type: EventType,
  before: BookingRow,
  action: MirrorAction,
  body: Record<string, unknown>,
): Promise<BookingRow> {
  const target = schedulerTarget(type, catalog);
  const path = `/v2/bookings/${encodeURIComponent(before.uid)}/${action}`;
  const { status, json } = await send(out, target, "POST", path, BOOKINGS_VERSION, body);
  if (status < 200 || status > 299) throw refusal(target, status, json);
  const answer = Array.isArray(json.data) ? json.data[0] : json.data;
  const row = answer && typeof answer === "object" && mirrorOf(type, {
    attendees: [{
      name: before.attendee_name,
      email: before.attendee_email,
      timeZone: before.attendee_time_zone,
    }],
    duration: Math.round((before.end_at.getTime() - before.start_at.getTime()) / 60_000),
    ...answer as Record<string, unknown>,
  }, target.origin);
  if (!row) throw failed(target, `its answer to ${action} is not a booking (no uid or start)`);
  if (row.uid === before.uid) {
    return await bookingStore.updateBooking(tx, before.id, {
      status: row.status,
      start_at: row.start_at,
      end_at: row.end_at,
      host_emails: row.host_emails,
      location: row.location,
      meeting_url: row.meeting_url,
      cancellation_reason: row.cancellation_reason,
      rescheduling_reason: row.rescheduling_reason,
    });
  }
  await bookingStore.updateBooking(tx, before.id, { status: "rescheduled" });
  const kept = await bookingStore.insertMirror(tx, {
    ...row,
    rescheduled_from_uid: before.uid,
    booked_by: before.booked_by,
    payment_session_id: null,
  });
  if (!kept) throw failed(target, `its new booking ${row.uid} cannot be kept`);
  return kept;
}

const STATUSES = ["accepted", "pending", "cancelled", "rejected", "rescheduled"] as const;
const text = (v: unknown): string | undefined => (typeof v === "string" && v ? v : undefined);

/**
 * The mirror row of an external booking, from either shape the scheduler sends: its API's booking
 * (start, end, hosts, attendees) or its webhook payload (startTime, endTime, organizer, attendees).
 */
export function mirrorOf(
  type: EventType,
  b: Record<string, unknown>,
  origin: string,
): NewBooking | undefined {
  const start = Date.parse(String(b.start ?? b.startTime));
  let end = Date.parse(String(b.end ?? b.endTime));
  if (Number.isNaN(end) && Number(b.duration) > 0) end = start + Number(b.duration) * 60_000;
  const uid = text(b.uid);
  if (!uid || Number.isNaN(start) || Number.isNaN(end) || end <= start) return undefined;
  const attendees = Array.isArray(b.attendees) ? b.attendees as Record<string, unknown>[] : [];
  const first = attendees[0] ?? {};
  const email = text(first.email);
  if (!email) return undefined;
  const hosts = (Array.isArray(b.hosts) ? b.hosts as Record<string, unknown>[] : [b.organizer])
    .map((h) => text((h as Record<string, unknown> | undefined)?.email)?.toLowerCase())
    .filter((e): e is string => Boolean(e));
  const status = String(b.status ?? "accepted").toLowerCase();
  const language = first.language;
  return {
    uid,
    event_type_slug: type.slug,
    event_type_id: type.id,
    title: text(b.title) ?? type.title,
    description: text(b.description) ?? "",
    start_at: new Date(start),
    end_at: new Date(end),
    before_buffer: 0,
    after_buffer: 0,
    status: (STATUSES as readonly string[]).includes(status) ? status as NewBooking["status"] : "accepted",
    host_emails: hosts.length ? hosts : type.hosts.map((h) => h.host.email),
    attendee_name: text(first.name) ?? email,
    attendee_email: email.toLowerCase(),
    attendee_time_zone: text(first.timeZone) ?? "UTC",
    attendee_language: text(language) ??
      text((language as Record<string, unknown> | undefined)?.locale) ?? "en",
    attendee_phone: text(first.phoneNumber) ?? null,
    guests: (Array.isArray(b.guests) ? b.guests : []).filter((g): g is string => typeof g === "string"),
    location: text(b.location) ?? null,
    meeting_url: text(b.meetingUrl) ??
      text((b.videoCallData as Record<string, unknown> | undefined)?.url) ?? null,
    metadata: {
      provider: origin,
      event: type.entryId,
      ...(b.id !== undefined || b.bookingId !== undefined ? { externalId: b.id ?? b.bookingId } : {}),
    },
    responses: {},
    cancellation_reason: text(b.cancellationReason) ?? null,
    rescheduling_reason: text(b.reschedulingReason) ?? null,
    rescheduled_from_uid: text(b.rescheduledFromUid) ?? text(b.rescheduleUid) ?? null,
    rescheduled_by: null,
    recurring_uid: text(b.recurringBookingUid) ?? null,
    seat_of: null,
    payment_session_id: null,
    booked_by: null,
    ics_uid: text(b.icsUid) ?? `${uid}@${new URL(origin).hostname}`,
  };
}

/**
 * Keeps the mirrors of a forwarded booking: a paid checkout's session goes on the first; a direct
 * booking of a paid type spends the attendee's credit (the admission checked there is one).
 */
export async function keepMirrors(
  tx: Tx,
  type: EventType,
  bookings: Record<string, unknown>[],
  origin: string,
  personId: string | undefined,
  paid: { creditOf?: string; paymentSessionId?: string },
): Promise<BookingRow[]> {
  const kept: BookingRow[] = [];
  for (const [i, b] of bookings.entries()) {
    const row = mirrorOf(type, b, origin);
    const mirror = row && await bookingStore.insertMirror(tx, {
      ...row,
      booked_by: personId ?? null,
      // a paid checkout's fulfilment: its session names the (first) booking, as a native one does
      payment_session_id: i === 0 ? paid.paymentSessionId ?? null : null,
    });
    if (!mirror) {
      throw new SchedulingError(
        "BAD_GATEWAY",
        `The scheduler at ${origin} answered a booking that cannot be kept (${String(b.uid)}).`,
        { scheduler: origin },
      );
    }
    kept.push(mirror);
  }
  if (paid.creditOf) {
    const credit = await paymentStore.takeCredit(tx, paid.creditOf, type.slug);
    if (credit) await paymentStore.spendCredit(tx, credit.session_id, kept[0].id);
  }
  return kept;
}

/**
 * What an accepted intake event does to the mirrors of an external type: a booking made there is kept
 * (if it was not forwarded from here), a cancelled or rejected one changes state, a move (the scheduler
 * makes a new booking, rescheduleUid naming the old) marks the old one rescheduled and keeps the new.
 */
export async function applyIntake(
  tx: Tx,
  type: EventType,
  trigger: string,
  payload: Record<string, unknown>,
): Promise<void> {
  if (type.scheduler === "native") return;
  let origin: string;
  try {
    origin = new URL(type.scheduler).origin;
  } catch {
    return;
  }
  const uid = text(payload.uid);
  if (!uid) return;
  switch (trigger) {
    case "BOOKING_CREATED": {
      const row = mirrorOf(type, payload, origin);
      if (row) await bookingStore.insertMirror(tx, row);
      return;
    }
    case "BOOKING_CANCELLED":
      await bookingStore.updateMirror(tx, uid, origin, {
        status: "cancelled",
        cancellation_reason: text(payload.cancellationReason) ?? null,
      });
      return;
    case "BOOKING_REJECTED":
      await bookingStore.updateMirror(tx, uid, origin, {
        status: "rejected",
        cancellation_reason: text(payload.rejectionReason) ?? text(payload.cancellationReason) ?? null,
      });
      return;
    case "BOOKING_RESCHEDULED": {
      const from = text(payload.rescheduleUid);
      if (from && from !== uid) await bookingStore.updateMirror(tx, from, origin, { status: "rescheduled" });
      const row = mirrorOf(type, payload, origin);
      if (row) await bookingStore.insertMirror(tx, { ...row, status: "accepted" });
      return;
    }
  }
}
