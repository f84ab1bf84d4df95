// Booking lifecycle: create (the admission check, in the spec's order), reschedule, cancel, confirm,
// decline. Every change and its webhook outbox rows commit in one transaction; the exclusion
// constraint on scheduling_holds is the last word on double booking (a lost race is 409 taken), and
// the limits it cannot express (allowance, type limits, host caps) are re-checked inside the
// transaction under advisory locks (holdStore.lockBookingScope), so racing requests cannot exceed them.
// @ts-types="@types/luxon"
import { DateTime } from "luxon";
import type { Db, Tx } from "../../../shared/db.ts";
import { randomBase62 } from "../../../shared/ids.ts";
import type { Caller } from "../access.ts";
import { badRequest, forbidden, SchedulingError } from "../envelope.ts";
import * as bookingStore from "../store/bookings.ts";
import * as holdStore from "../store/holds.ts";
import * as paymentStore from "../store/payments.ts";
import * as peopleStore from "../store/people.ts";
import type { BookingRow } from "../store/bookings.ts";
import { openSlots, rulesFor, type SlotDataLoader } from "./availability.ts";
import {
  type EventType,
  isBookable,
  isPaid,
  locationValue,
  namedLocation,
  PRIORITIES,
  type Tier,
  tierAdmits,
} from "./event-types.ts";
import { announce } from "./events.ts";
import { forwardAction, forwardBooking, isMirror, keepMirrors } from "./forward.ts";
import type { CreateInput, Deps } from "./types.ts";
import type { Slot } from "./slots.ts";
import { nextPeriodStart, periodKey, wallToUtc } from "./zones.ts";

const MINUTE = 60_000;

export function newUid(): string {
  return randomBase62(22);
}

/** The attendee's tier: staff by role, else their plan, else member; no profile is a guest. */
async function attendeeTier(db: Db, email: string): Promise<{ tier: Tier; personId?: string }> {
  const person = await peopleStore.personByEmail(db, email);
  if (!person) return { tier: "guest" };
  if (person.role === "admin" || person.role === "support") return { tier: "staff", personId: person.id };
  return { tier: person.tier ?? "member", personId: person.id };
}

/**
 * Steps 1 and 2 of the admission check: guest, tier, allowance, and (unless `credit` is false, as for a
 * checkout that is about to buy it) the paid type's credit.
 */
async function admissionCheck(
  deps: Deps,
  input: CreateInput,
  options: { credit?: boolean } = {},
): Promise<{ personId?: string }> {
  const { type, attendee } = input;
  const { tier, personId } = await attendeeTier(deps.sql, attendee.email);
  if (tier === "guest" && type.requires !== "anyone" && type.requires !== "guest") {
    throw forbidden("This session is for signed-up people; the address has no profile.", { code: "guest" });
  }
  if (!tierAdmits(type, tier)) {
    throw forbidden("This session is not included in the attendee's plan.", {
      code: "not-included",
      tier,
      requires: type.requires,
    });
  }
  await checkAllowance(deps, deps.sql, type, attendee.email, input.start);
  if (isPaid(type) && !input.paymentSessionId && options.credit !== false) {
    const credit = await deps.sql.begin((tx) => paymentStore.takeCredit(tx, attendee.email, type.slug));
    if (!credit) {
      throw new SchedulingError("PAYMENT_REQUIRED", "This session is paid: check out first.", {
        code: "unpaid",
        price: type.price,
        currency: type.currency,
      });
    }
  }
  return { personId };
}

/**
 * The weekly and monthly allowance: the attendee's active bookings of the type in the period of `start`
 * (less the one being moved, `exceptUid`) must stay below it. Read on `db`: inside a booking's
 * transaction, after lockBookingScope, it sees every rival that committed first.
 */
async function checkAllowance(
  deps: Deps,
  db: Db,
  type: EventType,
  email: string,
  start: number,
  exceptUid?: string,
): Promise<void> {
  const zone = rulesFor(type, type.lengths[0] ?? 30, deps.catalog.sessions.weekStart).zone;
  for (const period of ["week", "month"] as const) {
    const allowance = period === "week" ? type.weekly : type.monthly;
    if (allowance === null) continue;
    const key = periodKey(start, zone, period);
    const from = wallToUtc(key.length === 7 ? `${key}-01` : key, 0, zone);
    const to = wallToUtc(nextPeriodStart(start, zone, period), 0, zone);
    const used = await holdStore.countAttendeeBookings(
      db,
      email,
      type.slug,
      new Date(from),
      new Date(to),
      exceptUid,
    );
    if (used >= allowance) {
      throw forbidden(
        `The ${period === "week" ? "weekly" : "monthly"} allowance of this session is used up.`,
        {
          code: "over",
          next: nextPeriodStart(start, zone, period),
          allowance: { weekly: type.weekly, monthly: type.monthly },
        },
      );
    }
  }
}

/**
 * The advisory locks a booking of `type` for `email` takes before its in-transaction re-check: the
 * type when it has count or duration limits, each of its hosts with a daily or weekly cap (caps count a
 * host's bookings of every type), and the attendee's allowance of the type.
 */
function bookingScope(deps: Deps, type: EventType, email: string): string[] {
  const names: string[] = [];
  const limited = [...Object.values(type.limitsCount), ...Object.values(type.limitsDuration)]
    .some((v) => v !== undefined);
  if (limited) names.push(`type:${type.slug}`);
  for (const { host } of type.hosts) {
    const capped = deps.catalog.hosts.find((h) => h.email === host.email)?.schedules
      .some((s) => s.metadata.maxPerDay !== null || s.metadata.maxPerWeek !== null);
    if (capped) names.push(`host:${host.email}`);
  }
  if (type.weekly !== null || type.monthly !== null) {
    names.push(`allowance:${type.slug}:${email.toLowerCase()}`);
  }
  return names;
}

function occurrences(type: EventType, start: number, count: number | undefined, zone: string): number[] {
  if (!type.recurrence) return [start];
  const n = Math.max(1, Math.min(count ?? type.recurrence.occurrences, type.recurrence.occurrences));
  const unit = type.recurrence.frequency === "weekly"
    ? "weeks"
    : type.recurrence.frequency === "monthly"
    ? "months"
    : "years";
  // the wall-clock time repeats (a weekly 10:00 stays 10:00 across a DST change)
  const first = DateTime.fromMillis(start, { zone });
  return Array.from(
    { length: n },
    (_, k) => first.plus({ [unit]: k * type.recurrence!.interval }).toMillis(),
  );
}

function isUniqueOrExclusion(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return code === "23P01" || code === "23505";
}

const isDeadlock = (error: unknown) => (error as { code?: string })?.code === "40P01";

/**
 * Runs a booking's transaction, again when Postgres aborted it as a deadlock victim: racing inserts of
 * overlapping holds can wait on each other through the exclusion constraint, and the rerun then finds the
 * time free or taken. A clash (or a deadlock still there after the last try) is the 409 taken.
 */
export async function bookingTransaction<T>(run: () => Promise<T>, tries = 3): Promise<T> {
  for (let attempt = 1;; attempt++) {
    try {
      return await run();
    } catch (error) {
      if (isDeadlock(error) && attempt < tries) continue;
      if (isUniqueOrExclusion(error) || isDeadlock(error)) throw taken();
      throw error;
    }
  }
}

const taken = () => new SchedulingError("CONFLICT", "The time was just taken.", { code: "taken" });

/** Why a start is not open: taken (409) if it would be open without any booking, else never offered (400). */
async function notOpen(deps: Deps, type: EventType, start: number, length: number): Promise<SchedulingError> {
  const unheld = () => Promise.resolve({ busy: [], type_bookings: [], seat_groups: [] });
  if (await slotAt(deps, type, start, length, unheld)) return taken();
  return badRequest(`${new Date(start).toISOString()} is not an open slot of this session.`);
}

/** Picks hosts for a slot: collective takes all, round robin the mandatory ones plus one of the rota. */
function hostChoices(type: EventType, slot: Slot): string[][] {
  if (type.schedulingType === "COLLECTIVE") return [slot.hosts];
  const mandatory = type.hosts.filter((h) => h.mandatory).map((h) => h.host.email);
  const rota = type.hosts.filter((h) => !h.mandatory && slot.hosts.includes(h.host.email))
    .sort((a, b) => PRIORITIES.indexOf(b.priority) - PRIORITIES.indexOf(a.priority));
  if (!rota.length) return [mandatory];
  return rota.map((r) => [...mandatory, r.host.email]);
}

/** The slot starting at `start`, if it is open with the held time `load` reads. */
async function slotAt(
  deps: Deps,
  type: EventType,
  start: number,
  length: number,
  load: SlotDataLoader,
): Promise<Slot | undefined> {
  const slots = await openSlots(type, {
    from: start,
    to: start + 1,
    lengthMinutes: length,
    now: deps.clock.now().getTime(),
    weekStart: deps.catalog.sessions.weekStart,
  }, load);
  return slots.find((s) => s.start === start);
}

/**
 * The slot starting at `start`, if it is open now (held time read on `db`, a transaction's own);
 * `exceptBookingId` is a booking being moved, whose own minutes do not count against the type's limits.
 */
function slotFor(
  deps: Deps,
  db: Db,
  type: EventType,
  start: number,
  length: number,
  exceptBookingId?: number,
) {
  return slotAt(deps, type, start, length, (input) => holdStore.slotData(db, { ...input, exceptBookingId }));
}

function statusFor(type: EventType, start: number, now: number): "accepted" | "pending" {
  const p = type.confirmationPolicy;
  if (p.type === "always") return "pending";
  if (p.type === "time" && p.noticeThreshold) {
    const ms = p.noticeThreshold.count * (p.noticeThreshold.unit === "hours" ? 60 : 1) * MINUTE;
    return start - now < ms ? "pending" : "accepted";
  }
  return "accepted";
}

/**
 * A made booking's meeting room, when its place is the type's video call: the location it names, or
 * the type's first one when it names none of the type's (nothing chosen, or a caller's own text).
 */
function meetingUrl(deps: Deps, type: EventType, b: Pick<BookingRow, "uid" | "location" | "attendee_phone">) {
  const place = (b.location === null ? undefined : namedLocation(type, b.location, b.attendee_phone)) ??
    type.locations[0];
  return place?.type === "integration" ? `${deps.publicUrl}/book/video/${b.uid}` : null;
}

/** The place a booking keeps: the type's location it chose (its first by default), or the caller's text. */
function locationText(type: EventType, input: CreateInput): string | null {
  const phone = input.attendee.phoneNumber;
  const chosen = input.location === undefined
    ? type.locations[0]
    : namedLocation(type, input.location, phone);
  return chosen ? locationValue(chosen, phone) : input.location ?? null;
}

/** Step 6 of the admission check: a person books only for their own address. */
export function ownAddressOnly(caller: Caller, email: string): void {
  if (caller.kind === "person" && !caller.admin && caller.email !== email.toLowerCase()) {
    throw forbidden("A person can book only for their own address.");
  }
}

/** What the admission check found out about a booking it lets through. */
export interface Admitted {
  personId?: string;
  length: number;
  native: boolean;
  /** the occurrences' starts (one unless the type recurs); empty for an external scheduler's type */
  starts: number[];
  rules: ReturnType<typeof rulesFor>;
}

/**
 * The whole admission check in the spec's order, for a direct booking and for a paid checkout alike
 * (`checkout`: the credit is what the checkout buys, so it is not asked for): 1-2 guest, tier,
 * allowance, credit; 3 a native type with no host or length (503); 4 a phone session without a number
 * (400); 5 the time in the past or inside the notice (400), not open (400) or just taken (409); 6 a
 * person books only for their own address. An external scheduler decides 5 itself, so there 6 comes
 * first and the time is not looked at.
 */
export async function admitBooking(
  deps: Deps,
  caller: Caller,
  input: CreateInput,
  options: { checkout?: boolean } = {},
): Promise<Admitted> {
  const { type } = input;
  const length = input.lengthMinutes ?? type.lengths[0];
  if (input.lengthMinutes !== undefined && !type.lengths.includes(input.lengthMinutes)) {
    throw badRequest(`lengthInMinutes must be one of ${type.lengths.join(", ")}`);
  }
  // 1-2: guest, tier, allowance, credit
  const { personId } = await admissionCheck(deps, input, { credit: !options.checkout });
  // 3: a native type with no host or no length cannot be booked here
  const native = type.scheduler === "native";
  if (!isBookable(type) || (native && !length)) {
    throw new SchedulingError("SERVICE_UNAVAILABLE", "This session has no host or no length to book.");
  }
  // 4: a phone session needs the attendee's number
  if (type.locations.some((l) => l.type === "attendeePhone") && !input.attendee.phoneNumber) {
    throw badRequest("This session takes place by phone: attendee.phoneNumber is required.");
  }
  const rules = rulesFor(type, length, deps.catalog.sessions.weekStart);
  if (!native) {
    ownAddressOnly(caller, input.attendee.email);
    return { personId, length, native, starts: [], rules };
  }
  // 5: the time must be open (the database has the last word when the booking is written)
  const starts = occurrences(type, input.start, input.recurrenceCount, rules.zone);
  const now = deps.clock.now().getTime();
  for (const s of starts) {
    if (s < now + (rules.noticeMinutes ?? 0) * MINUTE) {
      throw badRequest("The start is inside the session's minimum booking notice or in the past.");
    }
    if (!(await slotFor(deps, deps.sql, type, s, length))) throw await notOpen(deps, type, s, length);
  }
  // 6: a person books only for their own address
  ownAddressOnly(caller, input.attendee.email);
  return { personId, length, native, starts, rules };
}

/** Creates a booking (a run of them for a recurring type). Throws SchedulingError per the spec's table. */
export async function createBooking(deps: Deps, caller: Caller, input: CreateInput): Promise<BookingRow[]> {
  const { type } = input;
  const { personId, length, native, starts, rules } = await admitBooking(deps, caller, input);
  if (!native) {
    const answer = await forwardBooking(deps.outbound, deps.catalog, input);
    const fallback = { attendees: [input.attendee], duration: length };
    return await deps.sql.begin((tx) =>
      keepMirrors(
        tx,
        type,
        answer.bookings.map((b) => ({ ...fallback, ...b })),
        answer.origin,
        personId,
        {
          creditOf: isPaid(type) && !input.paymentSessionId ? input.attendee.email : undefined,
          paymentSessionId: input.paymentSessionId,
        },
      )
    );
  }

  const recurringUid = starts.length > 1 ? newUid() : null;
  const attempt = () =>
    deps.sql.begin(async (tx) => {
      // rivals sharing a limit wait here; once through, the re-checks below see all that committed first
      await holdStore.lockBookingScope(tx, bookingScope(deps, type, input.attendee.email));
      await checkAllowance(deps, tx, type, input.attendee.email, input.start);
      let credit: paymentStore.PaymentRow | undefined;
      if (isPaid(type) && !input.paymentSessionId) {
        credit = await paymentStore.takeCredit(tx, input.attendee.email, type.slug);
        if (!credit) {
          throw new SchedulingError("PAYMENT_REQUIRED", "This session is paid: check out first.", {
            code: "unpaid",
          });
        }
      }
      const made: BookingRow[] = [];
      for (const s of starts) {
        made.push(
          await insertOne(
            deps,
            tx,
            input,
            s,
            length,
            rules,
            recurringUid,
            personId,
            credit?.session_id ?? input.paymentSessionId,
          ),
        );
      }
      if (credit) await paymentStore.spendCredit(tx, credit.session_id, made[0].id);
      for (const b of made) {
        if (b.status === "accepted") await bookingMade(deps, tx, b);
      }
      return made;
    });
  return await bookingTransaction(attempt);
}

async function insertOne(
  deps: Deps,
  tx: Tx,
  input: CreateInput,
  start: number,
  length: number,
  rules: ReturnType<typeof rulesFor>,
  recurringUid: string | null,
  personId: string | undefined,
  paymentSessionId: string | undefined,
): Promise<BookingRow> {
  const { type } = input;
  const now = deps.clock.now().getTime();
  const uid = newUid();
  const end = start + length * MINUTE;
  const status = statusFor(type, start, now);
  const location = locationText(type, input);
  const attendeePhone = input.attendee.phoneNumber ?? null;
  const meeting = status === "accepted"
    ? meetingUrl(deps, type, { uid, location, attendee_phone: attendeePhone })
    : null;
  const row = (hosts: string[], seatOf: string | null): bookingStore.NewBooking => ({
    uid,
    event_type_slug: type.slug,
    event_type_id: type.id,
    title: type.customName ??
      `${type.title} between ${
        deps.catalog.hosts.find((h) => h.email === hosts[0])?.name ?? hosts[0]
      } and ${input.attendee.name}`,
    description: typeof input.responses.notes === "string" ? input.responses.notes : "",
    start_at: new Date(start),
    end_at: new Date(end),
    before_buffer: rules.beforeBuffer ?? 0,
    after_buffer: rules.afterBuffer ?? 0,
    status,
    host_emails: hosts,
    attendee_name: input.attendee.name,
    attendee_email: input.attendee.email,
    attendee_time_zone: input.attendee.timeZone,
    attendee_language: input.attendee.language,
    attendee_phone: attendeePhone,
    guests: input.guests,
    location,
    meeting_url: meeting,
    metadata: { ...input.metadata, provider: "sitewire", event: type.entryId },
    responses: input.responses,
    cancellation_reason: null,
    rescheduling_reason: null,
    rescheduled_from_uid: null,
    rescheduled_by: null,
    recurring_uid: recurringUid,
    seat_of: seatOf,
    payment_session_id: paymentSessionId ?? null,
    booked_by: personId ?? null,
    ics_uid: `${uid}@sitewire`,
  });
  const held = (s: number, e: number) =>
    [
      new Date(s - (rules.beforeBuffer ?? 0) * MINUTE),
      new Date(e + (rules.afterBuffer ?? 0) * MINUTE),
    ] as const;

  if ((type.seatsPerTimeSlot ?? 0) > 0) {
    // join the slot's seat group when there is one (its lead row lock serializes joins)
    for (let round = 0; round < 2; round++) {
      const lead = await bookingStore.seatGroupAt(tx, type.slug, new Date(start));
      if (lead) {
        const group = await bookingStore.lockSeatGroup(tx, lead);
        if (group.taken >= type.seatsPerTimeSlot!) throw taken();
        return await bookingStore.insertBooking(tx, row(group.lead!.host_emails, lead));
      }
      const slot = await slotFor(deps, tx, type, start, length);
      if (!slot) throw taken();
      try {
        return await tx.savepoint(async (sp) => {
          const b = await bookingStore.insertBooking(sp, row(hostChoices(type, slot)[0], uid));
          const [s, e] = held(start, end);
          await holdStore.insertHolds(sp, b.id, b.host_emails, s, e);
          return b;
        });
      } catch (error) {
        // another first seat won the race: join its group instead
        if (!isUniqueOrExclusion(error) || round > 0) throw error;
      }
    }
    throw taken();
  }

  const slot = await slotFor(deps, tx, type, start, length);
  if (!slot) throw taken();
  let lastError: unknown = undefined;
  for (const hosts of hostChoices(type, slot)) {
    try {
      return await tx.savepoint(async (sp) => {
        const b = await bookingStore.insertBooking(sp, row(hosts, null));
        const [s, e] = held(start, end);
        await holdStore.insertHolds(sp, b.id, hosts, s, e);
        return b;
      });
    } catch (error) {
      // that host was taken a moment ago: try the next one of the rota
      if (!isUniqueOrExclusion(error)) throw error;
      lastError = error;
    }
  }
  throw lastError ?? taken();
}

// --- acting on a booking -------------------------------------------------------------------------

function mayAct(caller: Caller, b: BookingRow): boolean {
  if (caller.kind === "key") return true;
  if (caller.kind === "attendee") return b.attendee_email.toLowerCase() === caller.email;
  if (caller.kind !== "person") return false;
  return caller.admin || b.attendee_email.toLowerCase() === caller.email ||
    b.host_emails.includes(caller.email);
}

export async function loadFor(
  deps: Deps,
  caller: Caller,
  uid: string,
  db: Db = deps.sql,
  lock = false,
): Promise<BookingRow> {
  const b = await bookingStore.bookingByUid(db, uid, lock);
  if (!b) throw new SchedulingError("NOT_FOUND", `Booking ${uid} not found`);
  if (!mayAct(caller, b)) throw forbidden("This booking belongs to someone else.");
  return b;
}

/** Callers bound by the rules a booking's own people are (notice, disabled cancelling or moving). */
function actsForThemselves(caller: Caller): boolean {
  return (caller.kind === "person" && !caller.admin) || caller.kind === "attendee";
}

/**
 * Releases a booking's held time. A seat releases its group's time only when no other seat remains;
 * a departing first seat hands the group (and its held time) to the next seat. `leaving` says the
 * booking is still active (a move) and must not count as a remaining seat.
 */
async function release(tx: Tx, b: BookingRow, leaving: boolean): Promise<void> {
  if (!b.seat_of) return await holdStore.deleteHolds(tx, b.id);
  const group = await bookingStore.lockSeatGroup(tx, b.seat_of);
  const others = group.taken - (leaving ? 1 : 0);
  if (others <= 0) {
    if (group.lead) await holdStore.deleteHolds(tx, group.lead.id);
    return;
  }
  if (b.seat_of === b.uid) await bookingStore.passSeatLead(tx, b);
}

/**
 * The booking is made (accepted at once, or confirmed by its host): its invitation (GET .../ics) and
 * meeting room (meetingUrl) exist with the row; chat access is granted here and BOOKING_CREATED goes out.
 */
async function bookingMade(deps: Deps, tx: Tx, b: BookingRow): Promise<void> {
  await bookingStore.grantChat(tx, b, deps.clock.now());
  await announce(deps, tx, "BOOKING_CREATED", b);
}

function typeOf(deps: Deps, b: BookingRow): EventType | undefined {
  return deps.catalog.types.find((t) => t.slug === b.event_type_slug);
}

/** What a cancellation asks for (Cal's body): a reason, one seat of a seated slot, the run's later ones. */
export interface CancelInput {
  reason: string | null;
  /** a seat of the booking's slot, named by its uid (a seat's uid is its own booking's) */
  seatUid?: string;
  /** a recurring booking's later occurrences go too */
  subsequent?: boolean;
}

export async function cancelBooking(
  deps: Deps,
  caller: Caller,
  uid: string,
  input: CancelInput,
): Promise<BookingRow> {
  const { reason } = input;
  return await deps.sql.begin(async (tx) => {
    let b = await loadFor(deps, caller, uid, tx, true);
    if (input.seatUid !== undefined && input.seatUid !== b.uid) {
      const seat = await loadFor(deps, caller, input.seatUid, tx, true);
      if (!b.seat_of || seat.seat_of !== b.seat_of) {
        throw badRequest(`seatUid ${input.seatUid} is not a seat of booking ${uid}.`);
      }
      b = seat;
    }
    if (b.status !== "accepted" && b.status !== "pending") {
      throw badRequest(`A ${b.status} booking cannot be cancelled.`);
    }
    const type = typeOf(deps, b);
    if (type?.flags.disableCancelling && actsForThemselves(caller)) {
      throw forbidden("This session cannot be cancelled online.");
    }
    if (type && isMirror(type, b)) {
      return await forwardAction(deps.outbound, deps.catalog, tx, type, b, "cancel", {
        ...(reason === null ? {} : { cancellationReason: reason }),
        ...(input.subsequent ? { cancelSubsequentBookings: true } : {}),
      });
    }
    const cancelled = await cancelOne(deps, tx, b, reason);
    if (input.subsequent && b.recurring_uid) {
      for (const later of await bookingStore.bookingsByRecurring(tx, b.recurring_uid)) {
        if (later.start_at.getTime() <= b.start_at.getTime()) continue;
        const locked = await bookingStore.bookingByUid(tx, later.uid, true);
        if (locked && (locked.status === "accepted" || locked.status === "pending")) {
          await cancelOne(deps, tx, locked, reason);
        }
      }
    }
    return cancelled;
  });
}

/** Cancels one booking inside the caller's transaction: frees its time, ends chat access, announces it. */
async function cancelOne(deps: Deps, tx: Tx, b: BookingRow, reason: string | null): Promise<BookingRow> {
  const updated = await bookingStore.updateBooking(tx, b.id, {
    status: "cancelled",
    cancellation_reason: reason,
  });
  await release(tx, updated, false);
  await bookingStore.revokeChat(tx, b.id, deps.clock.now());
  await announce(deps, tx, "BOOKING_CANCELLED", updated);
  return updated;
}

async function decide(
  deps: Deps,
  caller: Caller,
  uid: string,
  to: "accepted" | "rejected",
  reason: string | null,
) {
  return await deps.sql.begin(async (tx) => {
    const b = await loadFor(deps, caller, uid, tx, true);
    const host = caller.kind === "person" && b.host_emails.includes(caller.email);
    if (!(caller.kind === "key" || (caller.kind === "person" && caller.admin) || host)) {
      throw forbidden("Only the booking's host or an administrator decides on it.");
    }
    if (b.status !== "pending") {
      throw badRequest(
        `Only a pending booking can be ${
          to === "accepted" ? "confirmed" : "declined"
        }; this one is ${b.status}.`,
      );
    }
    const type = typeOf(deps, b);
    if (type && isMirror(type, b)) {
      const body = to === "rejected" && reason !== null ? { reason } : {};
      return await forwardAction(
        deps.outbound,
        deps.catalog,
        tx,
        type,
        b,
        to === "accepted" ? "confirm" : "decline",
        body,
      );
    }
    if (to === "accepted") {
      const updated = await bookingStore.updateBooking(tx, b.id, {
        status: "accepted",
        meeting_url: type ? meetingUrl(deps, type, b) : null,
        confirmed_at: deps.clock.now(),
      });
      await bookingMade(deps, tx, updated);
      return updated;
    }
    const updated = await bookingStore.updateBooking(tx, b.id, {
      status: "rejected",
      cancellation_reason: reason,
    });
    await release(tx, updated, false);
    // the payment stays unspent: a later booking of the type may use it
    await paymentStore.releaseCreditOf(tx, b.id);
    await announce(deps, tx, "BOOKING_REJECTED", updated);
    return updated;
  });
}

export const confirmBooking = (deps: Deps, caller: Caller, uid: string) =>
  decide(deps, caller, uid, "accepted", null);
export const declineBooking = (deps: Deps, caller: Caller, uid: string, reason: string | null) =>
  decide(deps, caller, uid, "rejected", reason);

export async function rescheduleBooking(
  deps: Deps,
  caller: Caller,
  uid: string,
  input: { start: number; reason: string | null; rescheduledBy: string | null },
): Promise<BookingRow> {
  const current = await loadFor(deps, caller, uid);
  const type = typeOf(deps, current);
  if (!type) throw new SchedulingError("SERVICE_UNAVAILABLE", "The booking's session no longer exists.");
  if (current.status !== "accepted" && current.status !== "pending") {
    throw badRequest(`A ${current.status} booking cannot be rescheduled.`);
  }
  const now = deps.clock.now().getTime();
  const person = actsForThemselves(caller);
  if (person && type.flags.disableRescheduling) throw forbidden("This session cannot be rescheduled online.");
  const length = Math.round((current.end_at.getTime() - current.start_at.getTime()) / MINUTE);
  // the notice a creation honours (the type's, or a longer one its hosts' schedules ask for)
  const rules = rulesFor(type, length, deps.catalog.sessions.weekStart);
  const noticeMs = (rules.noticeMinutes ?? 0) * MINUTE;
  // 7: a person may not move a booking inside the type's notice period
  if (person && current.start_at.getTime() - now < noticeMs) {
    throw forbidden("The booking is too close to its start to be moved.", { code: "too-soon" });
  }
  if (current.end_at.getTime() < now && !type.flags.allowReschedulingPastBookings && caller.kind !== "key") {
    throw badRequest("A past booking cannot be rescheduled.");
  }
  if (input.start < now + noticeMs) {
    throw badRequest("The new start is inside the session's minimum booking notice or in the past.");
  }
  return await bookingTransaction(() =>
    deps.sql.begin(async (tx) => {
      if (!isMirror(type, current)) {
        // the same order as a creation takes them (before the row lock), so the two never deadlock
        await holdStore.lockBookingScope(tx, bookingScope(deps, type, current.attendee_email));
      }
      const b = await loadFor(deps, caller, uid, tx, true);
      if (b.status !== "accepted" && b.status !== "pending") {
        throw badRequest(`A ${b.status} booking cannot be rescheduled.`);
      }
      if (isMirror(type, b)) {
        return await forwardAction(deps.outbound, deps.catalog, tx, type, b, "reschedule", {
          start: new Date(input.start).toISOString(),
          ...(input.reason === null ? {} : { reschedulingReason: input.reason }),
          ...(input.rescheduledBy === null ? {} : { rescheduledBy: input.rescheduledBy }),
        });
      }
      // a move stays within the attendee's allowance (the booking itself not counted)
      await checkAllowance(deps, tx, type, b.attendee_email, input.start, b.uid);
      // the booking's own time does not stand in its way
      await release(tx, b, true);
      const slot = await slotFor(deps, tx, type, input.start, length, b.id);
      if (!slot) throw await notOpen(deps, type, input.start, length);
      const stillOk = type.schedulingType === "COLLECTIVE" ||
        b.host_emails.every((h) => slot.hosts.includes(h));
      const hosts = stillOk ? b.host_emails : hostChoices(type, slot)[0];
      const end = input.start + length * MINUTE;
      let seatOf: string | null = null;
      if (b.seat_of) {
        const lead = await bookingStore.seatGroupAt(tx, type.slug, new Date(input.start));
        if (lead) {
          const group = await bookingStore.lockSeatGroup(tx, lead);
          if (group.taken >= (type.seatsPerTimeSlot ?? 0)) throw taken();
          seatOf = lead;
        } else seatOf = b.uid;
      }
      const updated = await bookingStore.updateBooking(tx, b.id, {
        start_at: new Date(input.start),
        end_at: new Date(end),
        host_emails: hosts,
        seat_of: seatOf,
        rescheduled_from_uid: b.uid,
        rescheduling_reason: input.reason,
        rescheduled_by: input.rescheduledBy,
        ics_sequence: b.ics_sequence + 1,
        previous_start_at: b.start_at,
      });
      if (!seatOf || seatOf === b.uid) {
        await holdStore.insertHolds(
          tx,
          b.id,
          hosts,
          new Date(input.start - b.before_buffer * MINUTE),
          new Date(end + b.after_buffer * MINUTE),
        );
      }
      // chat access follows the booking to its (possibly new) hosts
      if (updated.status === "accepted") await bookingStore.grantChat(tx, updated, deps.clock.now());
      await announce(deps, tx, "BOOKING_RESCHEDULED", updated, {
        rescheduleUid: b.uid,
        rescheduleStartTime: b.start_at.toISOString(),
        rescheduleEndTime: b.end_at.toISOString(),
      });
      return updated;
    })
  );
}
