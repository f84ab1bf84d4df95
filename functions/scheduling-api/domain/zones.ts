// IANA time-zone arithmetic for schedules and slots. Availability is a wall-clock notion ("09:00 in
// Berlin on this date"); everything else is UTC milliseconds. The zone rules come from Intl (the tz
// database of the runtime); a zone's UTC offset is remembered per hour, because a 31-day slots answer asks
// for it thousands of times and Intl's formatToParts is the slow part (luxon calls it for every DateTime).
// @ts-types="@types/luxon"
import { IANAZone } from "luxon";

export const WEEKDAYS = [
  "Monday",
  "Tuesday",
  "Wednesday",
  "Thursday",
  "Friday",
  "Saturday",
  "Sunday",
] as const;
export type Weekday = typeof WEEKDAYS[number];

/** Zones already found valid: luxon's check builds an Intl formatter on every call (0.3 ms a slots request). */
const validZones = new Set<string>();

export function isZone(zone: unknown): zone is string {
  if (typeof zone !== "string" || zone.length === 0) return false;
  if (validZones.has(zone)) return true;
  if (!IANAZone.isValidZone(zone)) return false;
  // bounded: callers choose the names (a few hundred real ones, each in any letter case)
  if (validZones.size >= 4096) validZones.clear();
  validZones.add(zone);
  return true;
}

/** `HH:MM` → minutes after midnight; "24:00" is the end of the day. */
export function minutesOf(time: string): number {
  const m = /^(\d{1,2}):(\d{2})$/.exec(time);
  if (!m) throw new RangeError(`not a time of day: ${time}`);
  const minutes = Number(m[1]) * 60 + Number(m[2]);
  if (Number(m[2]) > 59 || minutes > 24 * 60) throw new RangeError(`not a time of day: ${time}`);
  return minutes;
}

const HOUR = 3_600_000;
const DAY = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();
const remembered = new Map<string, Map<number, number>>();

/** The zone's offset at an instant, read from Intl (whole seconds; the instant's milliseconds dropped). */
function readOffset(ms: number, zone: string): number {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(zone, f);
  }
  const p: Record<string, number> = {};
  for (const part of f.formatToParts(ms)) if (part.type !== "literal") p[part.type] = Number(part.value);
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return wall - (ms - (((ms % 1000) + 1000) % 1000));
}

/**
 * The zone's UTC offset in milliseconds at an instant. An hour whose two ends have the same offset has
 * it throughout (zones change at most once in an hour), so it is remembered for the whole hour.
 */
export function offsetAt(ms: number, zone: string): number {
  let hours = remembered.get(zone);
  if (!hours) remembered.set(zone, hours = new Map());
  const hour = Math.floor(ms / HOUR);
  const known = hours.get(hour);
  if (known !== undefined) return known;
  const first = readOffset(hour * HOUR, zone);
  if (first !== readOffset(hour * HOUR + HOUR - 1000, zone)) return readOffset(ms, zone);
  if (hours.size > 200_000) hours.clear(); // bounded: a long-running process asks about ever new hours
  hours.set(hour, first);
  return first;
}

/**
 * The instant a wall-clock time on a date has in a zone. A time inside a spring-forward gap moves
 * forward by the gap (02:30 on the New York spring date is 03:30 EDT); an ambiguous autumn time is the
 * later (standard-time) instant. Minutes may be 1440 (the next midnight).
 */
export function wallToUtc(date: string, minutes: number, zone: string): number {
  const [year, month, day] = date.split("-").map(Number);
  return wallDayToUtc(Date.UTC(year, month - 1, day) / DAY, minutes, zone);
}

/** wallToUtc for a date given as its day number (dayIn's, days since 1970-01-01). */
export function wallDayToUtc(dayNumber: number, minutes: number, zone: string): number {
  const local = dayNumber * DAY + (minutes >= 1440 ? DAY : minutes * 60_000);
  // the offsets a day either side: the wall time is one of local - before, local - after
  const before = offsetAt(local - DAY, zone), after = offsetAt(local + DAY, zone);
  const early = local - before, late = local - after;
  const earlyHolds = offsetAt(early, zone) === before, lateHolds = offsetAt(late, zone) === after;
  if (earlyHolds && lateHolds) return Math.max(early, late);
  if (earlyHolds) return early;
  if (lateHolds) return late;
  return local - before; // in the gap: the offset before the change moves the time forward by the gap
}

/** The day number (days since 1970-01-01) of the calendar date an instant falls on in a zone. */
export function dayIn(ms: number, zone: string): number {
  return Math.floor((ms + offsetAt(ms, zone)) / DAY);
}

/** ISO weekday (1 = Monday ... 7 = Sunday) of a day number (1970-01-01, day 0, was a Thursday). */
export function weekdayOfDay(dayNumber: number): number {
  return ((dayNumber % 7) + 10) % 7 + 1;
}

/** The calendar date (YYYY-MM-DD) of a day number. */
export function dateOfDay(dayNumber: number): string {
  return new Date(dayNumber * DAY).toISOString().slice(0, 10);
}

/** The calendar date (YYYY-MM-DD) an instant falls on in a zone. */
export function dateIn(ms: number, zone: string): string {
  return new Date(ms + offsetAt(ms, zone)).toISOString().slice(0, 10);
}

/** ISO weekday (1 = Monday ... 7 = Sunday) of a calendar date. */
export function weekdayOf(date: string): number {
  const [y, m, d] = date.split("-").map(Number);
  const day = new Date(Date.UTC(y, m - 1, d)).getUTCDay();
  return day === 0 ? 7 : day;
}

export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10);
}

/** Every calendar date from `from` to `to` inclusive. */
export function datesBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) out.push(d);
  return out;
}

/** ISO text of an instant with the zone's offset, as the slots answer shows it ("...T09:00:00.000+02:00"). */
export function isoIn(ms: number, zone: string): string {
  const offset = offsetAt(ms, zone);
  return new Date(ms + offset).toISOString().slice(0, 23) + offsetText(offset, zone);
}

/**
 * isoIn and dateIn of one instant, its zone offset read once (the slots answer needs both of each slot).
 * The texts are put together from remembered pieces (a day's date, a time of day, an offset): a 31-day
 * answer has a few hundred slots on a few dozen dates at a few dozen times, and a Date and its ISO text
 * for each was most of the answer's serialisation.
 */
export function isoAndDateIn(ms: number, zone: string): { iso: string; date: string } {
  const offset = offsetAt(ms, zone);
  const local = ms + offset;
  const day = Math.floor(local / DAY);
  const date = textOf(dateTexts, day, 0, 10);
  return { iso: date + textOf(timeTexts, local - day * DAY, 10, 23) + offsetText(offset, zone), date };
}

/** day number → YYYY-MM-DD; milliseconds into a day → THH:MM:SS.mmm */
const dateTexts = new Map<number, string>(), timeTexts = new Map<number, string>();

/** The [from, to) characters of the ISO text of `key` days (dateTexts) or milliseconds (timeTexts). */
function textOf(texts: Map<number, string>, key: number, from: number, to: number): string {
  let text = texts.get(key);
  if (text === undefined) {
    text = new Date(texts === dateTexts ? key * DAY : key).toISOString().slice(from, to);
    // bounded: slots fall on whole minutes of a few hundred years' days
    if (texts.size >= 100_000) texts.clear();
    texts.set(key, text);
  }
  return text;
}

const offsetTexts = new Map<number, string>();

/** How isoIn writes an offset: the zone named UTC (or GMT) as Z, any other as ±HH:MM, +00:00 included. */
function offsetText(offset: number, zone: string): string {
  if (zone.length === 3 && /^(utc|gmt)$/i.test(zone)) return "Z";
  let text = offsetTexts.get(offset);
  if (text === undefined) {
    const minutes = Math.round(Math.abs(offset) / 60_000);
    const hh = String(Math.floor(minutes / 60)).padStart(2, "0"), mm = String(minutes % 60).padStart(2, "0");
    text = `${offset < 0 ? "-" : "+"}${hh}:${mm}`;
    // offsets are whole seconds: a few hundred distinct ones in the whole tz database
    if (offsetTexts.size < 4096) offsetTexts.set(offset, text);
  }
  return text;
}

/**
 * The day, week (by weekStart), month or year an instant falls in, as a number: the same periods as
 * periodKey's, cheaper to make and to look up where thousands of instants are counted (the slots).
 */
export function periodIndex(
  ms: number,
  zone: string,
  period: "day" | "week" | "month" | "year",
  weekStart = 1,
): number {
  const day = dayIn(ms, zone);
  if (period === "day") return day;
  if (period === "week") return day - (weekdayOfDay(day) - weekStart + 7) % 7;
  const date = new Date(day * DAY);
  return period === "month" ? date.getUTCFullYear() * 12 + date.getUTCMonth() : date.getUTCFullYear();
}

/**
 * The start of the day, week (by weekStart), month or year an instant falls in, as a key: periodIndex's
 * period written as its first date (day, week), YYYY-MM or YYYY.
 */
export function periodKey(
  ms: number,
  zone: string,
  period: "day" | "week" | "month" | "year",
  weekStart = 1,
): string {
  const index = periodIndex(ms, zone, period, weekStart);
  if (period === "day" || period === "week") return dateOfDay(index);
  const year = (y: number) => String(y).padStart(4, "0");
  return period === "month" ? `${year(Math.floor(index / 12))}-${String(index % 12 + 1).padStart(2, "0")}` : year(index);
}

/** The first day of the period after the one `ms` falls in (for "next possible booking" answers). */
export function nextPeriodStart(ms: number, zone: string, period: "week" | "month", weekStart = 1): string {
  if (period === "week") return addDays(periodKey(ms, zone, "week", weekStart), 7);
  const [y, m] = dateIn(ms, zone).split("-").map(Number);
  return new Date(Date.UTC(y, m, 1)).toISOString().slice(0, 10);
}
