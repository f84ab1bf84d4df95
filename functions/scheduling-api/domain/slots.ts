// Open slots: a pure function of the hosts' hours, away periods and held time, the type's rules and a
// clock reading. No I/O here: routes load the inputs (store.ts) and this decides, so the property
// tests can drive it with arbitrary bookings and a fixed "now".
//
// Availability is computed per host in the host's schedule zone, date by date (so a DST change moves
// the UTC instants, never the wall-clock hours), and the result is plain UTC milliseconds.
import { addDays, dateIn, datesBetween, minutesOf, periodKey, wallToUtc, weekdayOf } from "./zones.ts";

export interface Interval {
  start: number;
  end: number;
}

export interface WeeklyHours {
  /** ISO weekdays, 1 = Monday */
  days: number[];
  start: string;
  end: string;
}

export interface SlotHost {
  email: string;
  /** round robin: a mandatory host must be free for every slot; collective types need everyone */
  mandatory: boolean;
  zone: string;
  weekly: WeeklyHours[];
  /** date → that day's hours instead of the weekly ones; [] (written 00:00–00:00) is a day off */
  overrides: Record<string, { start: string; end: string }[]>;
  away: Interval[];
  /** held time of this host's active bookings, buffers included, sorted by start */
  busy: (Interval & { group?: string })[];
  /** per-host caps from the schedule's metadata */
  maxPerDay?: number;
  maxPerWeek?: number;
  /** starts of this host's active bookings (for the per-host caps) */
  bookedStarts?: number[];
}

export interface SeatGroup {
  /** the uid of the slot's first seat: its held time is the group's */
  uid: string;
  start: number;
  taken: number;
}

export interface SlotRules {
  lengthMinutes: number;
  /** minutes between slot starts; default the length */
  intervalMinutes?: number | null;
  offsetStartMinutes?: number;
  noticeMinutes?: number;
  beforeBuffer?: number;
  afterBuffer?: number;
  schedulingType: "ROUND_ROBIN" | "COLLECTIVE" | "MANAGED";
  /** the zone days, weeks and months are counted in (limits, booking window) */
  zone: string;
  weekStart?: number;
  bookingWindow?: BookingWindow | null;
  limitsCount?: { day?: number; week?: number; month?: number; year?: number };
  limitsDuration?: { day?: number; week?: number };
  /** this type's active bookings (for the type's count and duration limits) */
  typeBookings?: Interval[];
  seatsPerTimeSlot?: number | null;
  seatGroups?: SeatGroup[];
}

export type BookingWindow =
  | { type: "calendarDays" | "businessDays"; value: number; rolling?: boolean }
  | { type: "range"; value: [string, string] };

export interface Slot {
  start: number;
  end: number;
  /** the hosts who could take it (round robin picks one; collective takes all) */
  hosts: string[];
  seats?: { booked: number; remaining: number; total: number; bookingUid?: string };
}

const MINUTE = 60_000;
const PERIODS = ["day", "week", "month", "year"] as const;

/** The host's working hours as UTC intervals for every date overlapping [from, to). */
export function hostHours(host: SlotHost, from: number, to: number): Interval[] {
  const out: Interval[] = [];
  // one date of margin either side: a zone far from UTC has hours on the neighbouring UTC dates
  const dates = datesBetween(addDays(dateIn(from, host.zone), -1), addDays(dateIn(to, host.zone), 1));
  for (const date of dates) {
    const override = host.overrides[date];
    const spans = override ?? host.weekly.filter((w) => w.days.includes(weekdayOf(date)));
    for (const span of spans) {
      const s = minutesOf(span.start);
      let e = minutesOf(span.end);
      if (e === 0 && s > 0) e = 1440; // "22:00–00:00" runs to midnight
      if (e <= s) continue; // 00:00–00:00: a day off
      const start = wallToUtc(date, s, host.zone);
      const end = wallToUtc(date, e, host.zone);
      if (end > from && start < to && end > start) out.push({ start, end });
    }
  }
  return mergeIntervals(out);
}

export function mergeIntervals(list: Interval[]): Interval[] {
  const sorted = [...list].sort((a, b) => a.start - b.start);
  const out: Interval[] = [];
  for (const i of sorted) {
    const last = out[out.length - 1];
    if (last && i.start <= last.end) last.end = Math.max(last.end, i.end);
    else out.push({ ...i });
  }
  return out;
}

export function overlaps(a: Interval, b: Interval): boolean {
  return a.start < b.end && b.start < a.end;
}

/** Index of the first interval in a start-sorted list that could overlap one starting at `start`. */
function firstCandidate(sorted: Interval[], start: number, maxLength: number): number {
  let lo = 0, hi = sorted.length;
  const from = start - maxLength;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid].start < from) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The last bookable instant (exclusive) a booking window allows, or undefined for no window. */
export function windowEnd(
  window: BookingWindow | null | undefined,
  now: number,
  zone: string,
): Interval | undefined {
  if (!window) return undefined;
  if (window.type === "range") {
    return { start: wallToUtc(window.value[0], 0, zone), end: wallToUtc(window.value[1], 1440, zone) };
  }
  let date = dateIn(now, zone);
  let left = window.value;
  while (left > 0) {
    date = addDays(date, 1);
    if (window.type === "calendarDays" || weekdayOf(date) <= 5) left--;
  }
  return { start: -Infinity, end: wallToUtc(date, 1440, zone) };
}

/**
 * Every open slot starting in [from, to), in start order. `now` is the clock reading that minimum
 * notice and the booking window count from.
 */
export function computeSlots(
  hosts: SlotHost[],
  rules: SlotRules,
  from: number,
  to: number,
  now: number,
): Slot[] {
  const length = rules.lengthMinutes * MINUTE;
  const step = Math.max(1, rules.intervalMinutes || rules.lengthMinutes) * MINUTE;
  const offset = (rules.offsetStartMinutes ?? 0) * MINUTE;
  const before = (rules.beforeBuffer ?? 0) * MINUTE;
  const after = (rules.afterBuffer ?? 0) * MINUTE;
  const earliest = Math.max(from, now + (rules.noticeMinutes ?? 0) * MINUTE);
  const window = windowEnd(rules.bookingWindow, now, rules.zone);
  const weekStart = rules.weekStart ?? 1;
  if (!hosts.length || length <= 0) return [];

  const hours = new Map<string, Interval[]>();
  for (const host of hosts) hours.set(host.email, hostHours(host, from - length, to + length));
  const maxBusy = new Map<string, number>();
  for (const host of hosts) {
    maxBusy.set(
      host.email,
      host.busy.reduce((m, b) => Math.max(m, b.end - b.start), 0),
    );
  }

  // candidate starts: each window's start (plus the offset), then every step, while the slot fits
  const candidates = new Set<number>();
  for (const list of hours.values()) {
    for (const span of list) {
      for (let s = span.start + offset; s + length <= span.end; s += step) {
        if (s >= earliest && s < to) candidates.add(s);
      }
    }
  }

  const seatGroups = new Map<number, SeatGroup>();
  for (const g of rules.seatGroups ?? []) seatGroups.set(g.start, g);
  const seated = (rules.seatsPerTimeSlot ?? 0) > 0;

  const periodCounts = countPeriods(rules.typeBookings ?? [], rules.zone, weekStart);
  const hostCaps = new Map<string, { day: Map<string, number>; week: Map<string, number> }>();
  for (const host of hosts) {
    if (host.maxPerDay || host.maxPerWeek) {
      const day = new Map<string, number>(), week = new Map<string, number>();
      for (const s of host.bookedStarts ?? []) {
        const d = periodKey(s, host.zone, "day"), w = periodKey(s, host.zone, "week", weekStart);
        day.set(d, (day.get(d) ?? 0) + 1);
        week.set(w, (week.get(w) ?? 0) + 1);
      }
      hostCaps.set(host.email, { day, week });
    }
  }

  const slots: Slot[] = [];
  for (const start of [...candidates].sort((a, b) => a - b)) {
    const end = start + length;
    if (window && (start < window.start || end > window.end)) continue;
    if (!withinTypeLimits(start, length, rules, periodCounts, weekStart)) continue;

    const group = seated ? seatGroups.get(start) : undefined;
    if (group && group.taken >= (rules.seatsPerTimeSlot ?? 0)) continue;

    const padded = { start: start - before, end: end + after };
    const free = (host: SlotHost): boolean => {
      const list = hours.get(host.email)!;
      if (!list.some((h) => h.start <= start && end <= h.end)) return false;
      if (host.away.some((a) => overlaps(a, { start, end }))) return false;
      const caps = hostCaps.get(host.email);
      if (caps) {
        if (host.maxPerDay && (caps.day.get(periodKey(start, host.zone, "day")) ?? 0) >= host.maxPerDay) {
          return false;
        }
        if (
          host.maxPerWeek &&
          (caps.week.get(periodKey(start, host.zone, "week", weekStart)) ?? 0) >= host.maxPerWeek
        ) {
          return false;
        }
      }
      const busy = host.busy;
      for (let i = firstCandidate(busy, padded.start, maxBusy.get(host.email)!); i < busy.length; i++) {
        const b = busy[i];
        if (b.start >= padded.end) break;
        // the seat group being joined holds this very time: it does not count against itself
        if (group && b.group === group.uid) continue;
        if (overlaps(b, padded)) return false;
      }
      return true;
    };

    let chosen: string[];
    if (rules.schedulingType === "COLLECTIVE") {
      if (!hosts.every(free)) continue;
      chosen = hosts.map((h) => h.email);
    } else {
      const mandatory = hosts.filter((h) => h.mandatory);
      const rota = hosts.filter((h) => !h.mandatory);
      if (!mandatory.every(free)) continue;
      const freeRota = rota.filter(free);
      if (rota.length && !freeRota.length) continue;
      chosen = [...mandatory, ...freeRota].map((h) => h.email);
    }
    const slot: Slot = { start, end, hosts: chosen };
    if (seated) {
      const total = rules.seatsPerTimeSlot!;
      const booked = group?.taken ?? 0;
      slot.seats = { booked, remaining: total - booked, total, ...(group ? { bookingUid: group.uid } : {}) };
    }
    slots.push(slot);
  }
  return slots;
}

type PeriodCounts = Record<(typeof PERIODS)[number], Map<string, { count: number; minutes: number }>>;

function countPeriods(bookings: Interval[], zone: string, weekStart: number): PeriodCounts {
  const counts = { day: new Map(), week: new Map(), month: new Map(), year: new Map() } as PeriodCounts;
  for (const b of bookings) {
    for (const period of PERIODS) {
      const key = periodKey(b.start, zone, period, weekStart);
      const c = counts[period].get(key) ?? { count: 0, minutes: 0 };
      c.count++;
      c.minutes += (b.end - b.start) / MINUTE;
      counts[period].set(key, c);
    }
  }
  return counts;
}

function withinTypeLimits(
  start: number,
  length: number,
  rules: SlotRules,
  counts: PeriodCounts,
  weekStart: number,
) {
  const count = rules.limitsCount ?? {};
  const duration = rules.limitsDuration ?? {};
  for (const period of PERIODS) {
    const limit = count[period];
    const minutes = period === "day" || period === "week" ? duration[period] : undefined;
    if (limit === undefined && minutes === undefined) continue;
    const c = counts[period].get(periodKey(start, rules.zone, period, weekStart));
    if (limit !== undefined && (c?.count ?? 0) >= limit) return false;
    if (minutes !== undefined && (c?.minutes ?? 0) + length / MINUTE > minutes) return false;
  }
  return true;
}

/** Whether `start` is one of the open slots (the admission uses the same rules as the listing). */
export function slotAt(hosts: SlotHost[], rules: SlotRules, start: number, now: number): Slot | undefined {
  const length = rules.lengthMinutes * MINUTE;
  return computeSlots(hosts, rules, start, start + 1, now).find((s) =>
    s.start === start && s.end === start + length
  );
}
