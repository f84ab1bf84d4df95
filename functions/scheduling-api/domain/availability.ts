// From an event type and the database's held time to the pure slot computation's inputs (and back).
// The only I/O is the one `slotData` round trip, passed in so this stays testable.
import type { SlotData, SlotDataInput } from "../store/holds.ts";
import type { EventType } from "./event-types.ts";
import { weekdayNumber } from "./hosts.ts";
import { computeSlots, type Slot, type SlotHost, type SlotRules } from "./slots.ts";
import { WEEKDAYS } from "./zones.ts";

const DAY = 86_400_000;

export interface SlotQuery {
  from: number;
  to: number;
  lengthMinutes: number;
  now: number;
  weekStart: string;
}

/** Reads the slot data of a request's hosts and window: slotData's input, less the booking a move leaves out. */
export type SlotDataLoader = (input: Omit<SlotDataInput, "exceptBookingId">) => Promise<SlotData>;

/** The window of bookings the type's count and duration limits need (null when it has none). */
export function limitsSpan(type: EventType, from: number, to: number): [Date, Date] | null {
  const c = type.limitsCount, d = type.limitsDuration;
  let margin = 0;
  if (c.year !== undefined) margin = 367 * DAY;
  else if (c.month !== undefined) margin = 32 * DAY;
  else if (c.week !== undefined || d.week !== undefined) margin = 8 * DAY;
  else if (c.day !== undefined || d.day !== undefined) margin = 2 * DAY;
  else return null;
  return [new Date(from - margin), new Date(to + margin)];
}

export function rulesFor(type: EventType, lengthMinutes: number, weekStart: string): SlotRules {
  const schedules = type.hosts.map((h) => h.schedule).filter((s) => s !== undefined);
  const maxOf = (pick: (s: NonNullable<typeof schedules[number]>) => number) =>
    schedules.reduce((m, s) => Math.max(m, pick(s)), 0);
  return {
    lengthMinutes,
    intervalMinutes: type.slotInterval,
    offsetStartMinutes: type.offsetStart,
    // a schedule's own buffers and notice apply to every type that asks for it
    noticeMinutes: Math.max(type.minimumBookingNotice, maxOf((s) => s.metadata.noticeHours * 60)),
    beforeBuffer: Math.max(type.beforeEventBuffer, maxOf((s) => s.metadata.beforeBufferMinutes)),
    afterBuffer: Math.max(type.afterEventBuffer, maxOf((s) => s.metadata.afterBufferMinutes)),
    schedulingType: type.schedulingType,
    zone: type.hosts[0]?.schedule?.timeZone ?? type.hosts[0]?.host.timeZone ?? "UTC",
    weekStart: weekdayNumber(weekStart) || 1,
    bookingWindow: type.bookingWindow,
    limitsCount: type.limitsCount,
    limitsDuration: type.limitsDuration,
    seatsPerTimeSlot: type.seatsPerTimeSlot,
  };
}

export function slotHosts(type: EventType, data: SlotData): SlotHost[] {
  // the held time by host in one pass (not one pass per host)
  const held = new Map<string, SlotData["busy"]>();
  for (const b of data.busy) {
    const list = held.get(b.host_email);
    if (list) list.push(b);
    else held.set(b.host_email, [b]);
  }
  return type.hosts.map(({ host, mandatory, schedule }) => {
    const overrides: SlotHost["overrides"] = {};
    for (const o of schedule?.overrides ?? []) {
      (overrides[o.date] ??= []).push({ start: o.startTime, end: o.endTime });
    }
    const rows = held.get(host.email) ?? [];
    const busy = rows.map((b) => ({
      start: Number(b.start),
      end: Number(b.end),
      group: b.group ?? undefined,
    }))
      .sort((a, b) => a.start - b.start);
    const bookedStarts = [...new Set(rows.map((b) => Number(b.booking_start)))];
    return {
      email: host.email,
      mandatory: type.schedulingType === "COLLECTIVE" ? true : mandatory,
      zone: schedule?.timeZone ?? host.timeZone,
      weekly: (schedule?.availability ?? []).map((a) => ({
        days: a.days.map((d) => (WEEKDAYS as readonly string[]).indexOf(d) + 1),
        start: a.startTime,
        end: a.endTime,
      })),
      overrides,
      away: host.away.map((a) => ({ start: Date.parse(a.start), end: Date.parse(a.end) })),
      busy,
      maxPerDay: schedule?.metadata.maxPerDay ?? undefined,
      maxPerWeek: schedule?.metadata.maxPerWeek ?? undefined,
      bookedStarts,
    };
  });
}

/** Open slots of a type for a range: one database round trip, then the pure computation. */
export async function openSlots(type: EventType, q: SlotQuery, load: SlotDataLoader): Promise<Slot[]> {
  const rules = rulesFor(type, q.lengthMinutes, q.weekStart);
  const margin = DAY + ((rules.beforeBuffer ?? 0) + (rules.afterBuffer ?? 0) + q.lengthMinutes) * 60_000;
  const span = limitsSpan(type, q.from, q.to);
  const data = await load({
    hosts: type.hosts.map((h) => h.host.email),
    from: new Date(q.from - margin),
    to: new Date(q.to + margin),
    slug: type.slug,
    limitsFrom: span?.[0] ?? null,
    limitsTo: span?.[1] ?? null,
    seated: (type.seatsPerTimeSlot ?? 0) > 0,
  });
  rules.typeBookings = data.type_bookings.map((b) => ({ start: Number(b.start), end: Number(b.end) }));
  rules.seatGroups = data.seat_groups.map((g) => ({ uid: g.uid, start: Number(g.start), taken: g.taken }));
  return computeSlots(slotHosts(type, data), rules, q.from, q.to, q.now);
}
