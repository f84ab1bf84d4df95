// The pure slot computation with a fixed clock: properties over random bookings, buffers and hours
// (no slot overlaps held time or leaves the hosts' hours), DST weeks in New York and Berlin, and the
// rules one by one (notice, interval, offset, round robin vs collective, limits, window, seats).
import assert from "node:assert/strict";
import fc from "fast-check";
import { test } from "../../helpers/test.ts";
import {
  computeSlots,
  hostHours,
  type SlotHost,
  type SlotRules,
} from "../../../functions/scheduling-api/domain/slots.ts";
import { dateIn, wallToUtc } from "../../../functions/scheduling-api/domain/zones.ts";
import { fixedClock } from "../../../shared/clock.ts";

const MIN = 60_000;
const DAY = 86_400_000;
const WEEKDAYS = [1, 2, 3, 4, 5];

function host(email: string, zone: string, extra: Partial<SlotHost> = {}): SlotHost {
  return {
    email,
    mandatory: false,
    zone,
    weekly: [{ days: WEEKDAYS, start: "09:00", end: "17:00" }],
    overrides: {},
    away: [],
    busy: [],
    ...extra,
  };
}
function rules(extra: Partial<SlotRules> = {}): SlotRules {
  return { lengthMinutes: 30, schedulingType: "ROUND_ROBIN", zone: "UTC", ...extra };
}
const at = (iso: string) => Date.parse(iso);
const clock = fixedClock("2030-01-01T00:00:00Z");

test("wall-clock times in a DST gap move forward; an ambiguous autumn time is the later (standard-time) instant", () => {
  assert.equal(
    new Date(wallToUtc("2026-03-08", 150, "America/New_York")).toISOString(),
    "2026-03-08T07:30:00.000Z",
  );
  assert.equal(
    new Date(wallToUtc("2026-11-01", 90, "America/New_York")).toISOString(),
    "2026-11-01T06:30:00.000Z",
  );
  assert.equal(
    new Date(wallToUtc("2026-03-29", 150, "Europe/Berlin")).toISOString(),
    "2026-03-29T01:30:00.000Z",
  );
  assert.equal(
    new Date(wallToUtc("2026-10-25", 1440, "Europe/Berlin")).toISOString(),
    "2026-10-25T23:00:00.000Z",
  );
});

for (
  const [zone, change, before, after] of [
    ["America/New_York", "2026-03-08", "14:00", "13:00"],
    ["America/New_York", "2026-11-01", "13:00", "14:00"],
    ["Europe/Berlin", "2026-03-29", "08:00", "07:00"],
    ["Europe/Berlin", "2026-10-25", "07:00", "08:00"],
  ] as const
) {
  test(`across the DST change of ${change} in ${zone} the hours stay 09:00-17:00 local (UTC ${before} → ${after})`, () => {
    const h = host("a@x", zone, { weekly: [{ days: [1, 2, 3, 4, 5, 6, 7], start: "09:00", end: "17:00" }] });
    const from = at(`${change}T00:00:00Z`) - 3 * DAY;
    const slots = computeSlots(
      [h],
      rules({ lengthMinutes: 60, zone }),
      from,
      from + 7 * DAY,
      clock.now().getTime() - 4000 * DAY,
    );
    const byDay = new Map<string, number[]>();
    for (const s of slots) {
      byDay.set(dateIn(s.start, zone), [...(byDay.get(dateIn(s.start, zone)) ?? []), s.start]);
    }
    assert.equal(byDay.size, 7);
    for (const [day, starts] of byDay) {
      assert.equal(starts.length, 8, `${day}: eight hourly slots`);
      const first = new Date(starts[0]).toISOString().slice(11, 16);
      assert.equal(first, day < change ? before : after, `${day} opens at 09:00 local`);
      for (const s of starts) {
        const local = new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", minute: "2-digit" })
          .format(s);
        assert.ok(local >= "09:00" && local <= "16:00", `${day} ${local} inside the hours`);
      }
    }
  });
}

test("a slot inside the buffer across the DST change is refused", () => {
  const zone = "America/New_York";
  const h = host("a@x", zone, { weekly: [{ days: [1, 2, 3, 4, 5, 6, 7], start: "09:00", end: "17:00" }] });
  // a booking 10:00-10:30 local on the Monday after the change, 15 minutes either side
  const start = wallToUtc("2026-03-09", 600, zone);
  h.busy = [{ start: start - 15 * MIN, end: start + 45 * MIN }];
  const slots = computeSlots(
    [h],
    rules({ zone, intervalMinutes: 15, beforeBuffer: 15, afterBuffer: 15 }),
    wallToUtc("2026-03-09", 0, zone),
    wallToUtc("2026-03-10", 0, zone),
    0,
  );
  const local = slots.map((s) =>
    new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", minute: "2-digit" }).format(s.start)
  );
  // 09:15 + 30 + 15 buffer ends 10:00, touching the booking's before-buffer at 09:45? no: it overlaps [09:45, 10:45)
  assert.ok(local.includes("09:00"));
  assert.ok(
    !local.includes("09:15") && !local.includes("09:30") && !local.includes("10:00") &&
      !local.includes("10:30"),
  );
  assert.ok(local.includes("11:00"));
});

const zones = fc.constantFrom(
  "UTC",
  "America/New_York",
  "Europe/Berlin",
  "Asia/Kolkata",
  "Australia/Sydney",
  "America/Los_Angeles",
);
const hhmm = (m: number) =>
  `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;

/** A wall clock reading of an instant in a zone, read by Intl (independent of the code under test). */
function wallClock(ms: number, zone: string): { date: string; minutes: number } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", {
      timeZone: zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    }).formatToParts(ms).map((p) => [p.type, p.value]),
  );
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

/**
 * Whether a slot lies within daily hours [startM, endM) as the host's own clock reads them. On a day
 * whose clock jumps, an hour of slack: hours that begin or end in a skipped hour move with the jump.
 */
function insideWallHours(slot: { start: number; end: number }, zone: string, startM: number, endM: number) {
  if (startM === 0 && endM === 1440) return true; // every hour of every day: slots may span midnight
  const s = wallClock(slot.start, zone), e = wallClock(slot.end, zone);
  const nextDay = new Date(Date.parse(`${s.date}T12:00:00Z`) + DAY).toISOString().slice(0, 10);
  const endMinutes = e.date === s.date ? e.minutes : e.date === nextDay && e.minutes === 0 ? 1440 : Infinity;
  // the offsets either side of the date (from UTC-14 to UTC+14) differ when its clock may jump
  const offsetAt = (ms: number) => {
    const w = wallClock(ms, zone);
    return Date.parse(`${w.date}T00:00:00Z`) + w.minutes * MIN - ms;
  };
  const noon = Date.parse(`${s.date}T12:00:00Z`);
  const jumps = offsetAt(noon - 26 * 60 * MIN) !== offsetAt(noon + 26 * 60 * MIN);
  const slack = jumps ? 60 : 0;
  return s.minutes >= startM - slack && endMinutes <= endM + slack;
}

test("property: no slot overlaps held time (with buffers) or leaves the hosts' hours, in any zone and DST week", () => {
  fc.assert(
    fc.property(
      zones,
      fc.integer({ min: 0, max: 23 }).chain((s) =>
        fc.tuple(fc.constant(s * 30), fc.integer({ min: s + 1, max: 48 }).map((e) => e * 30))
      ),
      fc.constantFrom("2026-03-05", "2026-03-26", "2026-10-22", "2026-10-29", "2026-06-10"),
      fc.array(fc.tuple(fc.integer({ min: 0, max: 7 * 24 * 4 }), fc.integer({ min: 1, max: 12 })), {
        maxLength: 25,
      }),
      fc.constantFrom(15, 30, 45, 60),
      fc.constantFrom(null, 5, 10, 15, 30),
      fc.integer({ min: 0, max: 30 }),
      fc.integer({ min: 0, max: 30 }),
      fc.integer({ min: 0, max: 20 }),
      fc.constantFrom<"ROUND_ROBIN" | "COLLECTIVE">("ROUND_ROBIN", "COLLECTIVE"),
      (zone, [startM, endM], week, bookings, length, interval, before, after, offset, schedulingType) => {
        const from = at(`${week}T00:00:00Z`);
        const to = from + 7 * DAY;
        const mk = (email: string, z: string) =>
          host(email, z, {
            weekly: [{
              days: [1, 2, 3, 4, 5, 6, 7],
              start: hhmm(startM),
              end: endM === 1440 ? "24:00" : hhmm(endM),
            }],
          });
        const hosts = [mk("a@x", zone), mk("b@x", "Europe/Berlin")];
        bookings.forEach(([q, len], i) => {
          const s = from + q * 15 * MIN;
          hosts[i % 2].busy.push({ start: s - before * MIN, end: s + len * 15 * MIN + after * MIN });
        });
        for (const h of hosts) h.busy.sort((x, y) => x.start - y.start);
        const now = from + 2 * DAY + 7 * MIN;
        const r = rules({
          lengthMinutes: length,
          intervalMinutes: interval,
          beforeBuffer: before,
          afterBuffer: after,
          offsetStartMinutes: offset,
          noticeMinutes: 60,
          schedulingType,
          zone,
        });
        const slots = computeSlots(hosts, r, from, to, now);
        for (const slot of slots) {
          assert.equal(slot.end - slot.start, length * MIN);
          assert.ok(slot.start >= now + 60 * MIN, "minimum notice");
          assert.ok(slot.start >= from && slot.start < to);
          const padded = { start: slot.start - before * MIN, end: slot.end + after * MIN };
          const taking = schedulingType === "COLLECTIVE"
            ? hosts
            : hosts.filter((h) => slot.hosts.includes(h.email));
          assert.ok(taking.length > 0);
          for (const h of taking) {
            assert.ok(
              hostHours(h, slot.start - DAY, slot.end + DAY).some((w) =>
                w.start <= slot.start && slot.end <= w.end
              ),
              "inside the host's hours",
            );
            assert.ok(
              insideWallHours(slot, h.zone, startM, endM),
              "inside the hours on the host's wall clock",
            );
            for (const b of h.busy) {
              assert.ok(!(b.start < padded.end && padded.start < b.end), "never overlaps held time");
            }
          }
        }
      },
    ),
    { numRuns: 60, seed: 20261122 },
  );
});

test("round robin needs any host free; collective needs every host", () => {
  const a = host("a@x", "UTC"), b = host("b@x", "UTC");
  const day = at("2030-01-07T00:00:00Z");
  a.busy = [{ start: day + 9 * 60 * MIN, end: day + 12 * 60 * MIN }];
  const rr = computeSlots([a, b], rules(), day, day + DAY, 0);
  const col = computeSlots([a, b], rules({ schedulingType: "COLLECTIVE" }), day, day + DAY, 0);
  assert.equal(rr.length, 16);
  assert.deepEqual(rr[0].hosts, ["b@x"]);
  assert.equal(col.length, 10);
  assert.deepEqual(col[0].hosts, ["a@x", "b@x"]);
  const mandatory = computeSlots([{ ...a, mandatory: true }, b], rules(), day, day + DAY, 0);
  assert.equal(mandatory.length, 10, "a mandatory host of a round robin must be free");
});

test("interval, offsetStart and each offered length shape the starts", () => {
  const day = at("2030-01-07T00:00:00Z");
  const h = [host("a@x", "UTC")];
  const starts = (r: Partial<SlotRules>) =>
    computeSlots(h, rules(r), day, day + DAY, 0).map((s) => new Date(s.start).toISOString().slice(11, 16));
  assert.deepEqual(starts({ lengthMinutes: 120 }), ["09:00", "11:00", "13:00", "15:00"]);
  assert.deepEqual(starts({ lengthMinutes: 120, intervalMinutes: 180 }), ["09:00", "12:00", "15:00"]);
  assert.deepEqual(starts({ lengthMinutes: 120, offsetStartMinutes: 30 }), ["09:30", "11:30", "13:30"]);
});

test("overrides replace a date's hours, 00:00-00:00 is a day off, away periods block", () => {
  const h = host("a@x", "Europe/Berlin", {
    overrides: { "2030-01-07": [], "2030-01-08": [{ start: "12:00", end: "13:00" }] },
    away: [{ start: at("2030-01-09T00:00:00Z"), end: at("2030-01-10T00:00:00Z") }],
  });
  const slots = computeSlots(
    [h],
    rules({ lengthMinutes: 60 }),
    at("2030-01-07T00:00:00Z"),
    at("2030-01-11T00:00:00Z"),
    0,
  );
  const days = slots.map((s) => dateIn(s.start, "Europe/Berlin"));
  assert.ok(!days.includes("2030-01-07"));
  assert.deepEqual(
    slots.filter((s) => dateIn(s.start, "Europe/Berlin") === "2030-01-08").map((s) =>
      new Date(s.start).toISOString()
    ),
    ["2030-01-08T11:00:00.000Z"],
  );
  assert.ok(!days.includes("2030-01-09"));
  assert.ok(days.includes("2030-01-10"));
});

test("count and duration limits per day and week, per-host caps, the booking window", () => {
  const day = at("2030-01-07T00:00:00Z");
  const h = [host("a@x", "UTC")];
  const existing = [{ start: day + 9 * 3600_000, end: day + 9.5 * 3600_000 }, {
    start: day + 10 * 3600_000,
    end: day + 10.5 * 3600_000,
  }];
  const countDay = computeSlots(
    h,
    rules({ limitsCount: { day: 2 }, typeBookings: existing }),
    day,
    day + 2 * DAY,
    0,
  );
  assert.ok(countDay.every((s) => s.start >= day + DAY), "two a day: the first day is full");
  const countWeek = computeSlots(
    h,
    rules({ limitsCount: { week: 2 }, typeBookings: existing }),
    day,
    day + 7 * DAY,
    0,
  );
  assert.equal(countWeek.length, 0);
  const duration = computeSlots(
    h,
    rules({ lengthMinutes: 30, limitsDuration: { day: 90 }, typeBookings: existing }),
    day,
    day + DAY,
    0,
  );
  assert.ok(duration.length > 0, "60 + 30 ≤ 90");
  assert.equal(
    computeSlots(
      h,
      rules({ lengthMinutes: 60, limitsDuration: { day: 90 }, typeBookings: existing }),
      day,
      day + DAY,
      0,
    ).length,
    0,
  );
  const capped = computeSlots(
    [host("a@x", "UTC", { maxPerDay: 1, bookedStarts: [day + 9 * 3600_000] })],
    rules(),
    day,
    day + 2 * DAY,
    0,
  );
  assert.ok(capped.every((s) => s.start >= day + DAY));
  const windowed = computeSlots(
    h,
    rules({ bookingWindow: { type: "calendarDays", value: 2 } }),
    day,
    day + 10 * DAY,
    day,
  );
  assert.ok(windowed.every((s) => s.start < day + 3 * DAY) && windowed.some((s) => s.start >= day + 2 * DAY));
  const business = computeSlots(
    h,
    rules({ bookingWindow: { type: "businessDays", value: 5 } }),
    day,
    day + 14 * DAY,
    day,
  );
  assert.equal(
    dateIn(business.at(-1)!.start, "UTC"),
    "2030-01-14",
    "five business days from a Monday end on the next Monday",
  );
  const range = computeSlots(
    h,
    rules({ bookingWindow: { type: "range", value: ["2030-01-08", "2030-01-08"] } }),
    day,
    day + 7 * DAY,
    0,
  );
  assert.ok(range.every((s) => dateIn(s.start, "UTC") === "2030-01-08") && range.length === 16);
});

test("seats: a seat group's own time does not block joining it; a full group is gone", () => {
  const day = at("2030-01-07T00:00:00Z");
  const start = day + 9 * 3600_000;
  const h = host("a@x", "UTC", { busy: [{ start, end: start + 30 * MIN, group: "lead1" }] });
  const slots = computeSlots(
    [h],
    rules({ seatsPerTimeSlot: 3, seatGroups: [{ uid: "lead1", start, taken: 2 }] }),
    day,
    day + DAY,
    0,
  );
  assert.deepEqual(slots[0].seats, { booked: 2, remaining: 1, total: 3, bookingUid: "lead1" });
  assert.equal(slots[0].start, start);
  assert.deepEqual(slots[1].seats, { booked: 0, remaining: 3, total: 3 });
  const full = computeSlots(
    [h],
    rules({ seatsPerTimeSlot: 3, seatGroups: [{ uid: "lead1", start, taken: 3 }] }),
    day,
    day + DAY,
    0,
  );
  assert.ok(!full.some((s) => s.start === start));
});
