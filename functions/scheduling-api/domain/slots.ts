// Open slots: a pure function of the hosts' hours, away periods and held time, the type's rules and a
// clock reading. No I/O here: routes load the inputs (store.ts) and this decides, so the property
// tests can drive it with arbitrary bookings and a fixed "now".
//
// Availability is computed per host in the host's schedule zone, date by date (so a DST change moves
// the UTC instants, never the wall-clock hours), and the result is plain UTC milliseconds.
import {
  addDays,
  dateIn,
  dateOfDay,
  dayIn,
  minutesOf,
  periodIndex,
  wallDayToUtc,
  wallToUtc,
  weekdayOf,
  weekdayOfDay,
} from "./zones.ts";

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
  const weekly = host.weekly.map((w) => ({ days: w.days, start: minutesOf(w.start), end: minutesOf(w.end) }));
  const overridden = Object.keys(host.overrides).length > 0;
  const add = (day: number, s: number, e: number) => {
    if (e === 0 && s > 0) e = 1440; // "22:00–00:00" runs to midnight
    if (e <= s) return; // 00:00–00:00: a day off
    const start = wallDayToUtc(day, s, host.zone);
    const end = wallDayToUtc(day, e, host.zone);
    if (end > from && start < to && end > start) out.push({ start, end });
  };
  // one date of margin either side: a zone far from UTC has hours on the neighbouring UTC dates. Dates
  // as day numbers: a 31-day answer walks a hundred host-dates, and date strings were most of its cost
  const last = dayIn(to, host.zone) + 1;
  for (let day = dayIn(from, host.zone) - 1; day <= last; day++) {
    const override = overridden ? host.overrides[dateOfDay(day)] : undefined;
    if (override) {
      for (const span of override) add(day, minutesOf(span.start), minutesOf(span.end));
    } else {
      const weekday = weekdayOfDay(day);
      for (const span of weekly) if (span.days.includes(weekday)) add(day, span.start, span.end);
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

/** A host as the slot loop reads it: hours and caps worked out once per answer, not per candidate. */
interface HostState {
  host: SlotHost;
  hours: Interval[];
  /** the first of `hours` that can still hold a slot (candidates come in start order) */
  cursor: number;
  longestBusy: number;
  caps?: { day: Map<number, number>; week: Map<number, number> };
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

  const states = new Map<SlotHost, HostState>();
  for (const host of hosts) {
    const state: HostState = {
      host,
      hours: hostHours(host, from - length, to + length),
      cursor: 0,
      longestBusy: host.busy.reduce((m, b) => Math.max(m, b.end - b.start), 0),
    };
    if (host.maxPerDay || host.maxPerWeek) {
      const day = new Map<number, number>(), week = new Map<number, number>();
      for (const s of host.bookedStarts ?? []) {
        const d = periodIndex(s, host.zone, "day"), w = periodIndex(s, host.zone, "week", weekStart);
        day.set(d, (day.get(d) ?? 0) + 1);
        week.set(w, (week.get(w) ?? 0) + 1);
      }
      state.caps = { day, week };
    }
    states.set(host, state);
  }

  // candidate starts: each window's start (plus the offset), then every step, while the slot fits
  const candidates = new Set<number>();
  for (const { hours } of states.values()) {
    for (const span of hours) {
      for (let s = span.start + offset; s + length <= span.end; s += step) {
        if (s >= earliest && s < to) candidates.add(s);
      }
    }
  }

  const seatGroups = new Map<number, SeatGroup>();
  for (const g of rules.seatGroups ?? []) seatGroups.set(g.start, g);
  const seated = (rules.seatsPerTimeSlot ?? 0) > 0;

  const limited = PERIODS.some((p) =>
    rules.limitsCount?.[p] !== undefined ||
    ((p === "day" || p === "week") && rules.limitsDuration?.[p] !== undefined)
  );
  const periodCounts = limited ? countPeriods(rules.typeBookings ?? [], rules.zone, weekStart) : undefined;
  const collective = rules.schedulingType === "COLLECTIVE";
  const mandatory = hosts.filter((h) => h.mandatory).map((h) => states.get(h)!);
  const rota = hosts.filter((h) => !h.mandatory).map((h) => states.get(h)!);
  const everyone = hosts.map((h) => states.get(h)!);

  const slots: Slot[] = [];
  for (const start of [...candidates].sort((a, b) => a - b)) {
    const end = start + length;
    if (window && (start < window.start || end > window.end)) continue;
    if (periodCounts && !withinTypeLimits(start, length, rules, periodCounts, weekStart)) continue;

    const group = seated ? seatGroups.get(start) : undefined;
    if (group && group.taken >= (rules.seatsPerTimeSlot ?? 0)) continue;

    const slot = { start, end, paddedStart: start - before, paddedEnd: end + after, group, weekStart };
    let chosen: string[];
    if (collective) {
      if (!everyone.every((h) => hostFree(h, slot))) continue;
      chosen = hosts.map((h) => h.email);
    } else {
      if (!mandatory.every((h) => hostFree(h, slot))) continue;
      const freeRota = rota.filter((h) => hostFree(h, slot));
      if (rota.length && !freeRota.length) continue;
      chosen = [...mandatory, ...freeRota].map((h) => h.host.email);
    }
    const open: Slot = { start, end, hosts: chosen };
    if (seated) {
      const total = rules.seatsPerTimeSlot!;
      const booked = group?.taken ?? 0;
      open.seats = { booked, remaining: total - booked, total, ...(group ? { bookingUid: group.uid } : {}) };
    }
    slots.push(open);
  }
  return slots;
}

/** Whether a host can take a candidate slot (candidates reach it in start order: its hours' cursor moves on). */
function hostFree(
  state: HostState,
  slot: {
    start: number;
    end: number;
    paddedStart: number;
    paddedEnd: number;
    group?: SeatGroup;
    weekStart: number;
  },
): boolean {
  const { host, hours } = state;
  const { start, end } = slot;
  // merged hours are disjoint and in order: the only one that can hold the slot is the first ending at or
  // after its end, and an earlier one can hold no later candidate either
  while (state.cursor < hours.length && hours[state.cursor].end < end) state.cursor++;
  const span = hours[state.cursor];
  if (!span || span.start > start) return false;
  for (const a of host.away) if (a.start < end && start < a.end) return false;
  const caps = state.caps;
  if (caps) {
    if (host.maxPerDay && (caps.day.get(periodIndex(start, host.zone, "day")) ?? 0) >= host.maxPerDay) {
      return false;
    }
    if (
      host.maxPerWeek &&
      (caps.week.get(periodIndex(start, host.zone, "week", slot.weekStart)) ?? 0) >= host.maxPerWeek
    ) {
      return false;
    }
  }
  const busy = host.busy;
  for (let i = firstCandidate(busy, slot.paddedStart, state.longestBusy); i < busy.length; i++) {
    const b = busy[i];
    if (b.start >= slot.paddedEnd) break;
    // the seat group being joined holds this very time: it does not count against itself
    if (slot.group && b.group === slot.group.uid) continue;
    if (b.start < slot.paddedEnd && slot.paddedStart < b.end) return false;
  }
  return true;
}

type PeriodCounts = Record<(typeof PERIODS)[number], Map<number, { count: number; minutes: number }>>;

function countPeriods(bookings: Interval[], zone: string, weekStart: number): PeriodCounts {
  const counts = { day: new Map(), week: new Map(), month: new Map(), year: new Map() } as PeriodCounts;
  for (const b of bookings) {
    for (const period of PERIODS) {
      const key = periodIndex(b.start, zone, period, weekStart);
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
    const c = counts[period].get(periodIndex(start, rules.zone, period, weekStart));
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
