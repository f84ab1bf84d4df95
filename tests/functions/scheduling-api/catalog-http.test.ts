// Event types, schedules, away periods and /v2/me over HTTP: fields, filters, addressing, the
// read-only 405s, and who sees what; each route answered with the cal-api-version Cal.com asks for.
// These tests take the week from 2031-01-06 + 70, and read slots in March 2036.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { fnv31 } from "../../../functions/scheduling-api/domain/hosts.ts";
import {
  addDays,
  api,
  assertError,
  call,
  guestBooking,
  host,
  hostPerson,
  monday,
  person,
} from "./support.ts";

const key = await host.key("scheduling");

test("event type ids are FNV-1a 31-bit of the slug (known vectors)", () => {
  // FNV-1a 32-bit of "" is 0x811c9dc5 and of "a" is 0xe40c292c; the id keeps the low 31 bits
  assert.equal(fnv31(""), 0x811c9dc5 & 0x7fffffff);
  assert.equal(fnv31("a"), 0xe40c292c & 0x7fffffff);
  assert.ok(fnv31("intro-call") > 0 && fnv31("intro-call") < 2 ** 31);
});

test("event types list every field of the spec's table, with the platform's booking fields first", async () => {
  const r = await call("GET", "/event-types", key);
  assert.equal(r.status, 200);
  assert.equal(r.body.status, "success");
  const intro = r.body.data.find((t: any) => t.slug === "intro-call");
  assert.ok(intro);
  for (
    const field of [
      "id",
      "ownerId",
      "title",
      "slug",
      "description",
      "lengthInMinutes",
      "lengthInMinutesOptions",
      "locations",
      "bookingFields",
      "disableGuests",
      "slotInterval",
      "offsetStart",
      "minimumBookingNotice",
      "beforeEventBuffer",
      "afterEventBuffer",
      "recurrence",
      "metadata",
      "price",
      "currency",
      "lockTimeZoneToggleOnBookingPage",
      "hideCalendarNotes",
      "hideCalendarEventDetails",
      "hideOrganizerEmail",
      "successRedirectUrl",
      "forwardParamsSuccessRedirect",
      "hidden",
      "requiresBookerEmailVerification",
      "disableCancelling",
      "disableRescheduling",
      "allowReschedulingPastBookings",
      "seatsPerTimeSlot",
      "seatsShowAvailabilityCount",
      "seats",
      "scheduleId",
      "requiresConfirmation",
      "confirmationPolicy",
      "customName",
      "users",
      "hosts",
      "schedulingType",
      "assignAllTeamMembers",
      "teamId",
      "bookingLimitsCount",
      "bookingLimitsDuration",
      "bookingWindow",
      "_links",
    ]
  ) assert.ok(field in intro, `event type has ${field}`);
  assert.equal(intro.id, fnv31("intro-call"));
  assert.equal(intro.lengthInMinutes, 15);
  assert.deepEqual(intro.lengthInMinutesOptions, [15, 30]);
  assert.deepEqual(intro.locations, [{ type: "integration", integration: "cal-video" }]);
  assert.deepEqual(intro.bookingFields.slice(0, 2).map((f: any) => f.slug), ["name", "email"]);
  assert.deepEqual(Object.keys(intro.metadata).sort(), [
    "below",
    "customName",
    "form",
    "monthly",
    "record",
    "requires",
    "scheduler",
    "sku",
    "team",
    "weekly",
  ]);
  assert.equal(intro.metadata.record, "session.intro-call");
  assert.equal(intro.schedulingType, "ROUND_ROBIN", "one host is a rota of one");
  assert.deepEqual(intro.seats, { disabled: true });
  assert.deepEqual(intro.confirmationPolicy, { type: "disabled" });
  assert.equal(intro._links.book, `${host.baseUrl}/book/intro-call`);
  assert.equal(intro.hosts[0].name, "Ada Example");
  assert.equal(intro.hosts[0].priority, "medium");

  const deep = r.body.data.find((t: any) => t.slug === "deep-dive");
  assert.equal(deep.beforeEventBuffer, 15);
  assert.equal(deep.afterEventBuffer, 15);
  assert.equal(deep.requiresConfirmation, true);
  assert.deepEqual(deep.confirmationPolicy, { type: "always" });
  assert.equal(deep.price, 120);
  assert.equal(deep.currency, "eur");

  const team = r.body.data.find((t: any) => t.slug === "team-call");
  assert.deepEqual(team.hosts.map((h: any) => [h.name, h.priority, h.mandatory]), [
    ["Ada Example", "high", false],
    ["Grace Example", "medium", false],
    ["Linus Example", "low", false],
  ]);
  const panel = r.body.data.find((t: any) => t.slug === "panel");
  assert.equal(panel.schedulingType, "COLLECTIVE");
  assert.equal(panel.metadata.requires, "member");
  const workshop = r.body.data.find((t: any) => t.slug === "workshop");
  assert.deepEqual(workshop.seats, {
    seatsPerTimeSlot: 3,
    showAvailabilityCount: true,
    showAttendeeInfo: false,
  });
  assert.equal(workshop.offsetStart, 30);
  assert.deepEqual(workshop.locations, [{ type: "address", address: "Harbour Room, Example Street 1" }]);
  const coaching = r.body.data.find((t: any) => t.slug === "coaching");
  assert.deepEqual(coaching.recurrence, { interval: 1, occurrences: 4, frequency: "weekly" });
  assert.deepEqual(coaching.bookingLimitsCount, { day: 4 });
  const phone = r.body.data.find((t: any) => t.slug === "phone-consult");
  assert.deepEqual(phone.locations, [{ type: "attendeePhone" }]);
  assert.ok(phone.bookingFields.some((f: any) => f.slug === "attendeePhoneNumber" && f.required));
  assert.deepEqual(phone.bookingFields.at(-1), {
    type: "select",
    slug: "topic",
    label: "Topic",
    required: true,
    options: ["Design", "Hosting", "Other"],
  });
  assert.ok(!phone.bookingFields.some((f: any) => f.slug === "guests"), "guests disabled");
  const supporter = r.body.data.find((t: any) => t.slug === "supporter-hour");
  assert.equal(supporter.metadata.weekly, 1);
  assert.equal(supporter.metadata.monthly, 2);
  assert.deepEqual(supporter.bookingLimitsDuration, { day: 120 });
  assert.deepEqual(supporter.bookingWindow, { type: "calendarDays", value: 3650, rolling: false });
});

test("event types filter by ?username and ?eventSlug and are addressed by id or slug", async () => {
  const byUser = await call("GET", "/event-types?username=grace", key);
  assert.ok(byUser.body.data.length >= 3);
  assert.ok(byUser.body.data.every((t: any) => t.hosts.some((h: any) => h.name === "Grace Example")));
  assert.deepEqual((await call("GET", "/event-types?username=nobody", key)).body.data, []);
  const bySlug = await call("GET", "/event-types?eventSlug=deep-dive", key);
  assert.deepEqual(bySlug.body.data.map((t: any) => t.slug), ["deep-dive"]);
  const byId = await call("GET", `/event-types/${fnv31("deep-dive")}`, key);
  assert.equal(byId.body.data.slug, "deep-dive");
  assert.equal((await call("GET", "/event-types/deep-dive", key)).body.data.id, fnv31("deep-dive"));
  assertError(await call("GET", "/event-types/no-such-type", key), 404, "NOT_FOUND");
  assertError(await call("GET", "/event-types/12345", key), 404, "NOT_FOUND");
});

test("writes to event types, schedules and away periods are 405", async () => {
  for (
    const [method, path] of [
      ["POST", "/event-types"],
      ["PATCH", `/event-types/${fnv31("intro-call")}`],
      ["DELETE", "/event-types/intro-call"],
      ["PUT", "/event-types/intro-call"],
      ["POST", "/schedules"],
      ["PATCH", "/schedules/1"],
      ["DELETE", "/schedules/1"],
      ["POST", "/ooo"],
      ["PATCH", "/ooo/1"],
      ["DELETE", "/ooo/1"],
      ["POST", "/me/ooo"],
    ]
  ) {
    assertError(await call(method, path, key, {}), 405, "METHOD_NOT_ALLOWED");
  }
});

test("schedules: every host's for a key, exactly one default each, a day off is 00:00 to 00:00", async () => {
  const r = await call("GET", "/schedules", key);
  assert.equal(r.status, 200);
  const byOwner = new Map<number, any[]>();
  for (const s of r.body.data) byOwner.set(s.ownerId, [...(byOwner.get(s.ownerId) ?? []), s]);
  assert.equal(byOwner.size, 3);
  for (const list of byOwner.values()) assert.equal(list.filter((s) => s.isDefault).length, 1);
  const ada = r.body.data.find((s: any) => s.name === "Working hours" && s.timeZone === "Europe/Berlin");
  assert.deepEqual(ada.availability, [{
    days: ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"],
    startTime: "09:00",
    endTime: "17:00",
  }]);
  assert.deepEqual(ada.overrides[0], { date: "2026-12-24", startTime: "00:00", endTime: "00:00" });
  assert.deepEqual(Object.keys(ada.metadata).sort(), [
    "afterBufferMinutes",
    "beforeBufferMinutes",
    "maxPerDay",
    "maxPerWeek",
    "noticeHours",
  ]);
  const one = await call("GET", `/schedules/${ada.id}`, key);
  assert.deepEqual(one.body.data, ada);
  assertError(await call("GET", "/schedules/999", key), 404, "NOT_FOUND");
  assert.equal((await call("GET", "/schedules/default", key)).body.data.isDefault, true);
});

test("a person sees their own schedules and away periods only; a host sees theirs", async () => {
  const member = await person("member");
  assert.deepEqual((await call("GET", "/schedules", member.jwt)).body.data, []);
  assert.deepEqual((await call("GET", "/ooo", member.jwt)).body.data, []);
  const ada = await hostPerson("ada");
  const own = await call("GET", "/schedules", ada.jwt);
  assert.equal(own.body.data.length, 2);
  assert.ok(own.body.data.every((s: any) => s.timeZone === "Europe/Berlin"));
  const grace = (await call("GET", "/schedules", key)).body.data.find((s: any) =>
    s.timeZone === "America/New_York"
  );
  assertError(await call("GET", `/schedules/${grace.id}`, ada.jwt), 404, "NOT_FOUND");
});

test("away periods: dates, reason and the covering host (toUser), null when nobody covers", async () => {
  const r = await call("GET", "/ooo", key);
  assert.equal(r.status, 200);
  const away = r.body.data[0];
  assert.deepEqual(Object.keys(away).sort(), ["end", "id", "notes", "reason", "start", "toUser", "userId"]);
  assert.equal(away.start, "2026-12-27T23:00:00.000Z", "a bare date is midnight in the host's zone");
  assert.equal(away.end, "2027-01-01T23:00:00.000Z", "the end date is inclusive");
  assert.deepEqual(away.reason, { emoji: "🏝️", reason: "vacation" });
  assert.equal(away.toUser.username, "grace");
  assert.deepEqual((await call("GET", "/me/ooo", key)).body.data, r.body.data);
});

test("/v2/me: the site's first host for a key, the person for a JWT", async () => {
  const r = await call("GET", "/me", key);
  assert.equal(r.status, 200);
  for (
    const f of [
      "id",
      "username",
      "email",
      "name",
      "timeFormat",
      "defaultScheduleId",
      "weekStart",
      "timeZone",
      "organizationId",
      "organization",
    ]
  ) {
    assert.ok(f in r.body.data, f);
  }
  assert.equal(r.body.data.username, "ada");
  const grace = await hostPerson("grace");
  const me = await call("GET", "/me", grace.jwt);
  assert.equal(me.body.data.email, "grace@demo.sitewire.dev");
  assert.equal(me.body.data.timeZone, "America/New_York");
  assert.equal(typeof me.body.data.defaultScheduleId, "number");
  const member = await person("member");
  const plain = await call("GET", "/me", member.jwt);
  assert.equal(plain.body.data.email, member.email);
  assert.equal(plain.body.data.defaultScheduleId, null);
});

test("a person lists the types their plan admits; a supporter sees the supporter hour", async () => {
  const member = await person("member");
  const slugs = (await call("GET", "/event-types", member.jwt)).body.data.map((t: any) => t.slug);
  assert.ok(slugs.includes("intro-call") && slugs.includes("panel"));
  assert.ok(!slugs.includes("supporter-hour"));
  assertError(await call("GET", "/event-types/supporter-hour", member.jwt), 404, "NOT_FOUND");
  const supporter = await person("member", { tier: "supporter" });
  assert.ok(
    (await call("GET", "/event-types", supporter.jwt)).body.data.some((t: any) =>
      t.slug === "supporter-hour"
    ),
  );
  const admin = await person("admin");
  assert.ok(
    (await call("GET", "/event-types", admin.jwt)).body.data.some((t: any) => t.slug === "supporter-hour"),
  );
});

test("auth matrix on reads: no key, revoked, another kind, garbage JWT, person, administrator, key", async () => {
  assertError(await call("GET", "/event-types", null), 401, "UNAUTHORIZED");
  assertError(await call("GET", "/event-types", await host.revokedKey("scheduling")), 401, "UNAUTHORIZED");
  assertError(
    await call("GET", "/event-types", "pk_scheduling_00000000000000000000000000000000"),
    401,
    "UNAUTHORIZED",
  );
  assertError(await call("GET", "/event-types", await host.key("delivery")), 403, "FORBIDDEN");
  assertError(await call("GET", "/event-types", await host.key("forms")), 403, "FORBIDDEN");
  assertError(
    await call("GET", "/event-types", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.bad"),
    401,
    "UNAUTHORIZED",
  );
  assert.equal((await call("GET", "/event-types", (await person("member")).jwt)).status, 200);
  assert.equal((await call("GET", "/event-types", (await person("admin")).jwt)).status, 200);
  assert.equal((await call("GET", `/event-types?access_token=${key}`, null)).status, 200);
});

test("cal-api-version is accepted (any value, quoted or not) and never required; CORS allows it", async () => {
  for (const v of [undefined, "2024-06-14", '"2024-06-14"', "1999-01-01"]) {
    const r = await call("GET", "/event-types", key, undefined, v ? { "cal-api-version": v } : {});
    assert.equal(r.status, 200);
  }
  const pre = await fetch(`${api}/bookings`, {
    method: "OPTIONS",
    headers: {
      origin: "https://elsewhere.example",
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization,cal-api-version,content-type",
    },
  });
  await pre.body?.cancel();
  assert.equal(pre.headers.get("access-control-allow-origin"), "*");
  assert.match(pre.headers.get("access-control-allow-headers") ?? "", /cal-api-version/i);
});

test("each route answers the shape of the cal-api-version Cal.com sends it (event types 2024-06-14, slots 2024-09-04, bookings 2024-08-13, schedules 2024-06-11)", async () => {
  const v = (version: string) => ({ "cal-api-version": version });
  // event types 2024-06-14: lengthInMinutes and lengthInMinutesOptions (the older shape had length)
  const types = await call("GET", "/event-types?eventSlug=intro-call", key, undefined, v("2024-06-14"));
  assert.equal(types.status, 200);
  assert.equal(types.body.data[0].lengthInMinutes, 15);
  assert.deepEqual(types.body.data[0].lengthInMinutesOptions, [15, 30]);
  assert.ok(!("length" in types.body.data[0]));
  const one = await call("GET", `/event-types/${fnv31("intro-call")}`, key, undefined, v("2024-06-14"));
  assert.equal(one.body.data.slug, "intro-call");

  // slots 2024-09-04: data keyed by day in the zone, { start } or with format=range { start, end }
  const day = addDays(monday(70), 1);
  const slots = await call(
    "GET",
    `/slots?eventTypeId=${fnv31("intro-call")}&start=${day}&end=${day}&timeZone=Europe/Berlin&format=range`,
    key,
    undefined,
    v("2024-09-04"),
  );
  assert.equal(slots.status, 200, JSON.stringify(slots.body));
  assert.deepEqual(Object.keys(slots.body.data), [day]);
  assert.deepEqual(slots.body.data[day][0], {
    start: `${day}T09:00:00.000+02:00`,
    end: `${day}T09:15:00.000+02:00`,
  });

  // bookings 2024-08-13: start, end, attendees, hosts (the older shape had startTime and user)
  const made = await call(
    "POST",
    "/bookings",
    key,
    guestBooking(fnv31("intro-call"), `${day}T08:00:00.000Z`),
    v("2024-08-13"),
  );
  assert.equal(made.status, 201, JSON.stringify(made.body));
  assert.equal(made.body.data.start, `${day}T08:00:00.000Z`);
  assert.equal(made.body.data.end, `${day}T08:15:00.000Z`);
  assert.equal(made.body.data.hosts[0].username, "ada");
  assert.ok(!("startTime" in made.body.data));
  const listed = await call(
    "GET",
    `/bookings?bookingUid=${made.body.data.uid}`,
    key,
    undefined,
    v("2024-08-13"),
  );
  assert.deepEqual(listed.body.data.map((b: any) => b.uid), [made.body.data.uid]);
  assert.equal(listed.body.pagination.totalItems, 1);
  const moved = await call(
    "POST",
    `/bookings/${made.body.data.uid}/reschedule`,
    key,
    { start: `${day}T09:00:00.000Z` },
    v("2024-08-13"),
  );
  assert.equal(moved.body.data.start, `${day}T09:00:00.000Z`);
  const cancelled = await call(
    "POST",
    `/bookings/${made.body.data.uid}/cancel`,
    key,
    { cancellationReason: "versioned" },
    v("2024-08-13"),
  );
  assert.equal(cancelled.status, 200);
  assert.equal(cancelled.body.data.status, "cancelled");

  // schedules 2024-06-11: availability as weekday names with HH:MM times
  const schedules = await call("GET", "/schedules", key, undefined, v("2024-06-11"));
  const adaHours = schedules.body.data.find((s: any) => s.id === fnv31("schedule:ada/Working hours"));
  assert.deepEqual(adaHours.availability, [{
    days: ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"],
    startTime: "09:00",
    endTime: "17:00",
  }]);
  const byDefault = await call("GET", "/schedules/default", key, undefined, v("2024-06-11"));
  assert.equal(byDefault.body.data.isDefault, true);
});

for (
  const [slug, zone, from, to, change, before, after] of [
    // Ada's hours in Berlin across 2036-03-30, Grace's in New York across 2036-03-09
    ["intro-call", "Europe/Berlin", "2036-03-27", "2036-04-02", "2036-03-30", "+01:00", "+02:00"],
    ["phone-consult", "America/New_York", "2036-03-06", "2036-03-12", "2036-03-09", "-05:00", "-04:00"],
  ] as const
) {
  test(`slots over the DST change of ${change} in ${zone}: the host's 09:00-17:00 in local time, the offset changing with the day`, async () => {
    const r = await call(
      "GET",
      `/slots?eventTypeSlug=${slug}&start=${from}&end=${to}&timeZone=${zone}`,
      key,
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const days = Object.keys(r.body.data).sort();
    assert.ok(days.some((d) => d < change) && days.some((d) => d > change), days.join(","));
    for (const day of days) {
      const starts: string[] = r.body.data[day].map((s: any) => s.start);
      assert.equal(starts[0], `${day}T09:00:00.000${day < change ? before : after}`, `${day} opens at 09:00`);
      for (const start of starts) {
        assert.ok(start.startsWith(day), start);
        assert.ok(start.endsWith(day < change ? before : after), `${start}: the day's offset`);
        const local = start.slice(11, 16);
        assert.ok(local >= "09:00" && local < "17:00", `${start} inside the hours`);
      }
    }
  });
}

test("the function's own address answers like the public one; unknown routes are NOT_FOUND in the envelope", async () => {
  const own = await call("GET", `${host.baseUrl}/functions/v1/scheduling-api/v2/event-types/intro-call`, key);
  assert.equal(own.body.data.slug, "intro-call");
  assertError(await call("GET", "/nothing-here", key), 404, "NOT_FOUND");
  const r = await call("GET", "/event-types", key);
  assert.ok(r.headers.get("x-ratelimit-limit"));
  assert.ok(r.headers.get("x-ratelimit-remaining"));
});
