// The zone arithmetic against luxon as the oracle for instants (the same dates, offsets and ISO texts
// across the zones people book in, DST and half-hour zones included), and against Intl itself for wall
// times, where luxon's resolution next to a change is not exact.
import assert from "node:assert/strict";
import fc from "fast-check";
// @ts-types="@types/luxon"
import { DateTime } from "luxon";
import { test } from "../../helpers/test.ts";
import {
  addDays,
  dateIn,
  dateOfDay,
  dayIn,
  isoAndDateIn,
  isoIn,
  offsetAt,
  periodIndex,
  periodKey,
  wallDayToUtc,
  wallToUtc,
  weekdayOf,
  weekdayOfDay,
} from "../../../functions/scheduling-api/domain/zones.ts";

const ZONES = [
  "UTC",
  "GMT",
  "Etc/UTC",
  "Europe/London",
  "Europe/Berlin",
  "America/New_York",
  "America/Sao_Paulo",
  "America/St_Johns",
  "Asia/Kolkata",
  "Asia/Kathmandu",
  "Australia/Lord_Howe",
  "Australia/Sydney",
  "Pacific/Chatham",
  "Pacific/Apia",
];
// 1990 to 2100: the years bookings live in
const instant = fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2100, 0, 1) });
const zone = fc.constantFrom(...ZONES);

test("dateIn, offsetAt and isoIn agree with luxon for any instant in any zone", () => {
  fc.assert(
    fc.property(instant, zone, (ms, z) => {
      const dt = DateTime.fromMillis(ms, { zone: z });
      assert.equal(dateIn(ms, z), dt.toISODate());
      assert.equal(offsetAt(ms, z), dt.offset * 60_000);
      assert.equal(isoIn(ms, z), dt.toISO({ suppressMilliseconds: false }));
      assert.deepEqual(isoAndDateIn(ms, z), { iso: isoIn(ms, z), date: dateIn(ms, z) });
    }),
    { numRuns: 5000 },
  );
});

test("the weekday, date and period number of a day number agree with the date texts' own", () => {
  fc.assert(
    fc.property(instant, zone, fc.integer({ min: 1, max: 7 }), (ms, z, weekStart) => {
      const date = dateIn(ms, z);
      assert.equal(dateOfDay(dayIn(ms, z)), date);
      assert.equal(weekdayOfDay(dayIn(ms, z)), weekdayOf(date));
      // the week's first date worked out from the date text alone
      const week = addDays(date, -((weekdayOf(date) - weekStart + 7) % 7));
      assert.equal(dateOfDay(periodIndex(ms, z, "week", weekStart)), week);
      assert.equal(periodKey(ms, z, "week", weekStart), week);
      assert.equal(periodKey(ms, z, "day"), date);
      const [y, m] = date.split("-").map(Number);
      assert.equal(periodIndex(ms, z, "month"), y * 12 + m - 1);
      assert.equal(periodIndex(ms, z, "year"), y);
      assert.equal(periodKey(ms, z, "month"), date.slice(0, 7));
      assert.equal(periodKey(ms, z, "year"), date.slice(0, 4));
      assert.equal(wallDayToUtc(dayIn(ms, z), 600, z), wallToUtc(date, 600, z));
    }),
    { numRuns: 3000 },
  );
});

test("instants next to a DST change (either side of the remembered hour) keep their own offset", () => {
  // 2031-03-30T01:00Z Berlin goes from +01:00 to +02:00; 2031-11-02T06:00Z New York from -04:00 to -05:00
  for (
    const [z, change, before, after] of [
      ["Europe/Berlin", Date.UTC(2031, 2, 30, 1), 60, 120],
      ["America/New_York", Date.UTC(2031, 10, 2, 6), -240, -300],
      ["Australia/Lord_Howe", Date.UTC(2031, 3, 5, 15), 660, 630],
    ] as const
  ) {
    for (const ms of [change - 1000, change, change + 1, change - 1800_000, change + 1800_000]) {
      assert.equal(
        offsetAt(ms, z),
        (ms < change ? before : after) * 60_000,
        `${z} ${new Date(ms).toISOString()}`,
      );
    }
  }
});

// luxon's own wall-time resolution is not exact next to a change (it answers 05:00 for 04:00 on the
// day Apia sprang forward, 2011-09-24), so wall times are checked against Intl itself: every instant
// within 14 hours whose wall clock in the zone reads the asked time, found by brute force.
const oracle = new Map<string, Intl.DateTimeFormat>();
function wallOf(ms: number, zone: string): string {
  let f = oracle.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-CA", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
    });
    oracle.set(zone, f);
  }
  const p = Object.fromEntries(f.formatToParts(ms).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
}

test("wallToUtc finds the instant whose wall clock reads the time (the later of two; past a gap by the gap)", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2100, 0, 1) }),
      fc.integer({ min: 0, max: 1439 }),
      zone,
      (dayMs, minutes, z) => {
        const date = new Date(dayMs).toISOString().slice(0, 10);
        const wanted = `${date} ${String(Math.floor(minutes / 60)).padStart(2, "0")}:${
          String(minutes % 60).padStart(2, "0")
        }`;
        const asUtc = Date.parse(`${date}T00:00:00Z`) + minutes * 60_000;
        // offsets are whole quarter hours from 1990 on: every candidate instant is asUtc minus k quarter hours
        const matches: number[] = [];
        for (let k = -56; k <= 56; k++) {
          const candidate = asUtc - k * 900_000;
          if (wallOf(candidate, z) === wanted) matches.push(candidate);
        }
        const ours = wallToUtc(date, minutes, z);
        if (matches.length > 0) {
          assert.equal(ours, Math.max(...matches), `${wanted} ${z}`);
        } else {
          // in a gap: the time moves forward by the gap, so the answer reads later than asked, within hours
          assert.ok(wallOf(ours, z) > wanted, `${wanted} ${z} → ${wallOf(ours, z)}`);
          assert.ok(wallOf(ours - 3_600_000 * 2, z) < wanted, `${wanted} ${z}: not more than the gap later`);
        }
      },
    ),
    { numRuns: 2000 },
  );
});

test("the day Apia sprang forward (2011-09-24, 03:00 → 04:00): 04:00 exists, 03:30 moves to 04:30", () => {
  assert.equal(
    new Date(wallToUtc("2011-09-24", 240, "Pacific/Apia")).toISOString(),
    "2011-09-24T14:00:00.000Z",
  );
  assert.equal(
    new Date(wallToUtc("2011-09-24", 210, "Pacific/Apia")).toISOString(),
    "2011-09-24T14:30:00.000Z",
  );
  assert.equal(
    new Date(wallToUtc("2011-09-24", 120, "Pacific/Apia")).toISOString(),
    "2011-09-24T13:00:00.000Z",
  );
});

test("1440 minutes is the next midnight, also where midnight is skipped", () => {
  assert.equal(wallToUtc("2031-06-01", 1440, "Europe/Berlin"), Date.UTC(2031, 5, 1, 22));
  // Santiago springs forward at 24:00 local in September: that midnight is 01:00
  const [ours] = [wallToUtc("2031-09-06", 1440, "America/Santiago")];
  assert.equal(
    ours,
    DateTime.fromObject({ year: 2031, month: 9, day: 7 }, { zone: "America/Santiago" }).toMillis(),
  );
});
