// Bookings over HTTP: the admission check in the spec's order, create/get/list with every filter,
// reschedule, cancel, confirm, decline, recurring runs, seats, and the auth matrix per route.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { fnv31 } from "../../../functions/scheduling-api/domain/hosts.ts";
import { fillWindow } from "../../helpers/rate-limits.ts";
import { addDays, assertError, call, guestBooking, host, hostPerson, monday, person } from "./support.ts";

const key = await host.key("scheduling");
// Ada works 09:00-17:00 Europe/Berlin (08:00Z in winter), Grace 09:00-17:00 New York (14:00Z), Linus
// 08:00-16:00 London (08:00Z). These tests take the weeks from 2031-01-06 + 0..19.
const at = (week: number, day: number, utc: string) => `${addDays(monday(week), day)}T${utc}:00.000Z`;

async function slotsOf(slug: string, week: number, extra = "") {
  const r = await call(
    "GET",
    `/slots?eventTypeSlug=${slug}&start=${monday(week)}&end=${addDays(monday(week), 6)}${extra}`,
    key,
  );
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return Object.values(r.body.data).flat() as any[];
}

test("slots: keyed by day in the caller's zone, range format, by id or slug, every offered length", async () => {
  const r = await call(
    "GET",
    `/slots?eventTypeId=${fnv31("intro-call")}&start=${monday(0)}&end=${
      monday(0)
    }&timeZone=Europe/Berlin&format=range`,
    key,
  );
  assert.equal(r.status, 200);
  const day = r.body.data[monday(0)];
  assert.equal(day[0].start, `${monday(0)}T09:00:00.000+01:00`);
  assert.equal(day[0].end, `${monday(0)}T09:15:00.000+01:00`);
  assert.equal(day.length, 32, "15-minute slots from 09:00 to 17:00");
  const thirty = await call(
    "GET",
    `/slots?eventTypeSlug=intro-call&username=ada&start=${monday(0)}&end=${monday(0)}&duration=30`,
    key,
  );
  assert.equal(thirty.body.data[monday(0)].length, 16);
  assert.deepEqual(
    Object.keys(thirty.body.data[monday(0)][0]),
    ["start"],
    "without format=range only starts",
  );
  assert.equal(thirty.body.data[monday(0)][0].start, `${monday(0)}T08:00:00.000Z`);
  const ny = await call(
    "GET",
    `/slots?eventTypeSlug=team-call&start=${monday(0)}&end=${monday(0)}&timeZone=America/New_York`,
    key,
  );
  assert.ok(Object.keys(ny.body.data).every((d) => d === addDays(monday(0), -1) || d === monday(0)));
  assert.deepEqual(
    (await call(
      "GET",
      `/slots?eventTypeSlug=intro-call&start=${addDays(monday(0), 5)}&end=${addDays(monday(0), 6)}`,
      key,
    )).body.data,
    {},
    "weekend: no days",
  );
});

test("slots errors: missing type, bad dates, bad zone, bad length, too long a range, unknown type", async () => {
  const base = `start=${monday(0)}&end=${monday(0)}`;
  assertError(await call("GET", `/slots?${base}`, key), 400, "BAD_REQUEST");
  assertError(await call("GET", `/slots?eventTypeSlug=intro-call&end=${monday(0)}`, key), 400, "BAD_REQUEST");
  assertError(
    await call("GET", `/slots?eventTypeSlug=intro-call&start=yesterday&end=${monday(0)}`, key),
    400,
    "BAD_REQUEST",
  );
  assertError(
    await call("GET", `/slots?eventTypeSlug=intro-call&start=${monday(1)}&end=${monday(0)}`, key),
    400,
    "BAD_REQUEST",
  );
  assertError(
    await call("GET", `/slots?eventTypeSlug=intro-call&${base}&timeZone=Mars/Olympus`, key),
    400,
    "BAD_REQUEST",
  );
  assertError(
    await call("GET", `/slots?eventTypeSlug=intro-call&${base}&duration=25`, key),
    400,
    "BAD_REQUEST",
  );
  assertError(
    await call("GET", `/slots?eventTypeSlug=intro-call&${base}&format=grid`, key),
    400,
    "BAD_REQUEST",
  );
  assertError(
    await call("GET", `/slots?eventTypeSlug=intro-call&start=2031-01-01&end=2031-12-31`, key),
    400,
    "BAD_REQUEST",
  );
  assertError(await call("GET", `/slots?eventTypeId=abc&${base}`, key), 400, "BAD_REQUEST");
  assertError(await call("GET", `/slots?eventTypeSlug=nope&${base}`, key), 404, "NOT_FOUND");
  assertError(await call("GET", `/slots?eventTypeSlug=intro-call&${base}`, null), 401, "UNAUTHORIZED");
  assertError(
    await call("GET", `/slots?eventTypeSlug=intro-call&${base}`, await host.key("storefront")),
    403,
    "FORBIDDEN",
  );
});

test("create: 201 with the booking; the slot (and its buffers) leave the slots list; get answers it", async () => {
  const start = at(1, 1, "10:00");
  const r = await call(
    "POST",
    "/bookings",
    key,
    guestBooking("intro-call", start, {
      bookingFieldsResponses: { notes: "About my site" },
      metadata: { ref: "x1" },
    }),
  );
  assert.equal(r.status, 201, JSON.stringify(r.body));
  const b = r.body.data;
  for (
    const f of [
      "id",
      "uid",
      "title",
      "description",
      "hosts",
      "status",
      "cancellationReason",
      "rescheduledFromUid",
      "start",
      "end",
      "duration",
      "eventTypeId",
      "eventType",
      "meetingUrl",
      "location",
      "absentHost",
      "createdAt",
      "updatedAt",
      "metadata",
      "rating",
      "icsUid",
      "attendees",
      "guests",
      "bookingFieldsResponses",
    ]
  ) {
    assert.ok(f in b, f);
  }
  assert.equal(b.status, "accepted");
  assert.equal(b.start, start);
  assert.equal(b.duration, 15);
  assert.equal(b.description, "About my site");
  assert.deepEqual(b.eventType, { id: fnv31("intro-call"), slug: "intro-call" });
  assert.equal(b.hosts[0].username, "ada");
  assert.equal(b.metadata.ref, "x1");
  assert.equal(b.bookingFieldsResponses.notes, "About my site");
  assert.match(b.meetingUrl, /\/book\/video\//);
  const starts = (await slotsOf("intro-call", 1)).map((s) => s.start);
  assert.ok(!starts.includes(start));
  assert.ok(starts.includes(at(1, 1, "10:15")));
  const got = await call("GET", `/bookings/${b.uid}`, key);
  assert.deepEqual(got.body.data, b);
  const ics = await fetch(`${host.baseUrl}/api/scheduling/v2/bookings/${b.uid}/ics`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const text = await ics.text();
  assert.match(ics.headers.get("content-type")!, /text\/calendar/);
  assert.match(text, /BEGIN:VEVENT/);
  assert.match(text, new RegExp(`UID:${b.icsUid}`));
  assertError(await call("GET", "/bookings/nope", key), 404, "NOT_FOUND");
});

test("create validation: malformed bodies are 400 naming the field, unknown type 404", async () => {
  const ok = guestBooking("intro-call", at(1, 2, "10:00"));
  assertError(await call("POST", "/bookings", key, "{not json"), 400, "BAD_REQUEST");
  assertError(await call("POST", "/bookings", key, []), 400, "BAD_REQUEST");
  assertError(await call("POST", "/bookings", key, { ...ok, start: undefined }), 400, "BAD_REQUEST");
  assertError(await call("POST", "/bookings", key, { ...ok, start: "tomorrow" }), 400, "BAD_REQUEST");
  assertError(await call("POST", "/bookings", key, { ...ok, eventTypeSlug: undefined }), 400, "BAD_REQUEST");
  assertError(await call("POST", "/bookings", key, { ...ok, attendee: undefined }), 400, "BAD_REQUEST");
  assertError(
    await call("POST", "/bookings", key, { ...ok, attendee: { ...ok.attendee, email: "nope" } }),
    400,
    "BAD_REQUEST",
  );
  assertError(
    await call("POST", "/bookings", key, { ...ok, attendee: { ...ok.attendee, timeZone: "Nowhere/City" } }),
    400,
    "BAD_REQUEST",
  );
  assertError(await call("POST", "/bookings", key, { ...ok, guests: ["not-an-email"] }), 400, "BAD_REQUEST");
  assertError(await call("POST", "/bookings", key, { ...ok, metadata: { k: 5 } }), 400, "BAD_REQUEST");
  assertError(await call("POST", "/bookings", key, { ...ok, lengthInMinutes: 20 }), 400, "BAD_REQUEST");
  assertError(
    await call("POST", "/bookings", key, { ...ok, start: at(1, 5, "10:00") }),
    400,
    "BAD_REQUEST",
    undefined,
  );
  assertError(
    await call("POST", "/bookings", key, { ...ok, start: "2020-01-06T10:00:00Z" }),
    400,
    "BAD_REQUEST",
  );
  assertError(await call("POST", "/bookings", key, { ...ok, eventTypeSlug: "nope" }), 404, "NOT_FOUND");
});

test("admission 1: a guest is refused a type that requires a profile (403 guest)", async () => {
  const r = await call("POST", "/bookings", key, guestBooking("panel", at(2, 1, "09:00")));
  assertError(r, 403, "FORBIDDEN", "guest");
});

test("admission 2: tier (not-included), allowance (over, next, allowance), credit (402 unpaid)", async () => {
  const member = await person("member");
  const asMember = (slug: string, start: string) => ({
    ...guestBooking(slug, start),
    attendee: { name: "M", email: member.email, timeZone: "UTC" },
  });
  assertError(
    await call("POST", "/bookings", key, asMember("supporter-hour", at(2, 2, "09:00"))),
    403,
    "FORBIDDEN",
    "not-included",
  );

  const supporter = await person("member", { tier: "supporter" });
  const asSupporter = (start: string) => ({
    ...guestBooking("supporter-hour", start),
    attendee: { name: "S", email: supporter.email, timeZone: "UTC" },
  });
  assert.equal((await call("POST", "/bookings", key, asSupporter(at(2, 2, "09:00")))).status, 201);
  const over = await call("POST", "/bookings", key, asSupporter(at(2, 3, "09:00")));
  assertError(over, 403, "FORBIDDEN", "over");
  assert.equal(over.body.error.details.next, monday(3), "the next week starts on Monday");
  assert.deepEqual(over.body.error.details.allowance, { weekly: 1, monthly: 2 });

  const unpaid = await call("POST", "/bookings", key, guestBooking("deep-dive", at(2, 1, "15:00")));
  assertError(unpaid, 402, "PAYMENT_REQUIRED", "unpaid");
});

test("admission 3-5: no host is 503, a phone type without a number 400, a taken time 409 taken", async () => {
  assertError(
    await call("POST", "/bookings", key, guestBooking("open-office", at(3, 1, "10:00"))),
    503,
    "SERVICE_UNAVAILABLE",
  );
  const member = await person("member");
  const phone = {
    ...guestBooking("phone-consult", at(3, 1, "15:00")),
    attendee: { name: "P", email: member.email, timeZone: "UTC" },
    bookingFieldsResponses: { topic: "Design" },
  };
  assertError(await call("POST", "/bookings", key, phone), 400, "BAD_REQUEST");
  assertError(
    await call("POST", "/bookings", key, {
      ...phone,
      attendee: { ...phone.attendee, phoneNumber: "+49 30 123456" },
      bookingFieldsResponses: {},
    }),
    400,
    "BAD_REQUEST",
  );
  const made = await call("POST", "/bookings", key, {
    ...phone,
    attendee: { ...phone.attendee, phoneNumber: "+49 30 123456" },
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  assert.equal(made.body.data.location, "+49 30 123456");
  assert.equal(made.body.data.bookingFieldsResponses.attendeePhoneNumber, "+49 30 123456");

  const first = await call("POST", "/bookings", key, guestBooking("intro-call", at(3, 2, "12:00")));
  assert.equal(first.status, 201);
  assertError(
    await call("POST", "/bookings", key, guestBooking("intro-call", at(3, 2, "12:00"))),
    409,
    "CONFLICT",
    "taken",
  );
  // the other length overlapping it is taken too
  assertError(
    await call(
      "POST",
      "/bookings",
      key,
      guestBooking("intro-call", at(3, 2, "12:00"), { lengthInMinutes: 30 }),
    ),
    409,
    "CONFLICT",
    "taken",
  );
});

test("admission 6: a person's JWT books only for their own address; an administrator for anyone", async () => {
  const member = await person("member");
  const other = guestBooking("intro-call", at(4, 1, "09:00"));
  assertError(await call("POST", "/bookings", member.jwt, other), 403, "FORBIDDEN");
  const own = { ...other, attendee: { name: "Me", email: member.email, timeZone: "UTC" } };
  const made = await call("POST", "/bookings", member.jwt, own);
  assert.equal(made.status, 201);
  const admin = await person("admin");
  assert.equal(
    (await call("POST", "/bookings", admin.jwt, guestBooking("intro-call", at(4, 1, "10:00")))).status,
    201,
  );
  // the person reads their own booking, not another's
  assert.equal((await call("GET", `/bookings/${made.body.data.uid}`, member.jwt)).status, 200);
  const stranger = await person("member");
  assertError(await call("GET", `/bookings/${made.body.data.uid}`, stranger.jwt), 403, "FORBIDDEN");
  assertError(
    await call("POST", `/bookings/${made.body.data.uid}/cancel`, stranger.jwt, {}),
    403,
    "FORBIDDEN",
  );
  const mine = await call("GET", "/bookings", member.jwt);
  assert.deepEqual(mine.body.data.map((b: any) => b.uid), [made.body.data.uid]);
  assertError(await call("POST", "/bookings", await host.key("forms"), own), 403, "FORBIDDEN");
  assertError(await call("POST", "/bookings", await host.revokedKey("scheduling"), own), 401, "UNAUTHORIZED");
  assertError(await call("POST", "/bookings", null, own), 401, "UNAUTHORIZED");
});

test("reschedule keeps the uid; a person inside the notice period is 403 too-soon", async () => {
  const made =
    (await call("POST", "/bookings", key, guestBooking("intro-call", at(5, 1, "09:00")))).body.data;
  const moved = await call("POST", `/bookings/${made.uid}/reschedule`, key, {
    start: at(5, 1, "09:15"),
    reschedulingReason: "later",
    rescheduledBy: "host@example.com",
  });
  assert.ok(moved.status === 200 || moved.status === 201, JSON.stringify(moved.body));
  assert.equal(moved.body.data.uid, made.uid);
  assert.equal(moved.body.data.start, at(5, 1, "09:15"));
  assert.equal(moved.body.data.rescheduledFromUid, made.uid);
  assert.equal(moved.body.data.reschedulingReason, "later");
  const starts = (await slotsOf("intro-call", 5)).map((s) => s.start);
  assert.ok(starts.includes(at(5, 1, "09:00")), "the old time is free again");
  assert.ok(!starts.includes(at(5, 1, "09:15")));
  const other =
    (await call("POST", "/bookings", key, guestBooking("intro-call", at(5, 1, "11:00")))).body.data;
  assertError(
    await call("POST", `/bookings/${made.uid}/reschedule`, key, { start: other.start }),
    409,
    "CONFLICT",
    "taken",
  );
  assertError(
    await call("POST", `/bookings/${made.uid}/reschedule`, key, { start: "nope" }),
    400,
    "BAD_REQUEST",
  );
  assertError(
    await call("POST", `/bookings/nope/reschedule`, key, { start: at(5, 1, "12:00") }),
    404,
    "NOT_FOUND",
  );

  // coaching has a 120-minute notice: a person moving a booking that starts within it is too soon
  const member = await person("member");
  const soon = new Date(Date.now() + 60 * 60_000);
  await host.ctx.sql`
    insert into public.scheduling_bookings (uid, event_type_slug, event_type_id, title, start_at, end_at, status, host_emails,
      attendee_name, attendee_email, attendee_time_zone, ics_uid)
    values (${"soon-" + member.id}, 'coaching', ${fnv31("coaching")}, 'Soon', ${soon}, ${new Date(
    soon.getTime() + 30 * 60_000,
  )},
            'accepted', ${["grace@demo.sitewire.dev"]}, 'M', ${member.email}, 'UTC', 'soon@x')`;
  assertError(
    await call("POST", `/bookings/soon-${member.id}/reschedule`, member.jwt, { start: at(5, 2, "15:00") }),
    403,
    "FORBIDDEN",
    "too-soon",
  );
});

test("cancel stores the reason and frees the time; a cancelled booking cannot be cancelled again", async () => {
  const made =
    (await call("POST", "/bookings", key, guestBooking("intro-call", at(6, 1, "09:00")))).body.data;
  const r = await call("POST", `/bookings/${made.uid}/cancel`, key, { cancellationReason: "sick" });
  assert.equal(r.status, 200);
  assert.equal(r.body.data.status, "cancelled");
  assert.equal(r.body.data.cancellationReason, "sick");
  assert.ok((await slotsOf("intro-call", 6)).some((s) => s.start === at(6, 1, "09:00")));
  assertError(await call("POST", `/bookings/${made.uid}/cancel`, key, {}), 400, "BAD_REQUEST");
  assert.equal(
    (await call("POST", "/bookings", key, guestBooking("intro-call", at(6, 1, "09:00")))).status,
    201,
    "rebookable",
  );
});

test("confirm and decline: host or administrator, only while pending", async () => {
  // deep-dive requires confirmation and is paid: give the guest a credit as a paid checkout would
  const email = `payer-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const credit = async () => {
    const id = `cs_test_${crypto.randomUUID()}`;
    await host.ctx
      .sql`insert into public.scheduling_payments (session_id, status, event_type_slug, attendee_email)
                       values (${id}, 'unavailable', 'deep-dive', ${email})`;
    return id;
  };
  await credit();
  const body = (start: string) => ({
    ...guestBooking("deep-dive", start),
    attendee: { name: "Payer", email, timeZone: "UTC" },
  });
  const made = await call("POST", "/bookings", key, body(at(7, 1, "15:00")));
  assert.equal(made.status, 201, JSON.stringify(made.body));
  assert.equal(made.body.data.status, "pending");
  assert.equal(made.body.data.meetingUrl, null, "the meeting room comes with the confirmation");
  assertError(
    await call("POST", "/bookings", key, body(at(7, 2, "15:00"))),
    402,
    "PAYMENT_REQUIRED",
    "unpaid",
  );

  const uid = made.body.data.uid;
  const stranger = await person("member");
  assertError(await call("POST", `/bookings/${uid}/confirm`, stranger.jwt), 403, "FORBIDDEN");
  const ada = await hostPerson("ada");
  assertError(await call("POST", `/bookings/${uid}/confirm`, ada.jwt), 403, "FORBIDDEN", undefined);
  const grace = await hostPerson("grace");
  const confirmed = await call("POST", `/bookings/${uid}/confirm`, grace.jwt);
  assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  assert.equal(confirmed.body.data.status, "accepted");
  assert.match(confirmed.body.data.meetingUrl, /\/book\/video\//);
  assertError(await call("POST", `/bookings/${uid}/confirm`, grace.jwt), 400, "BAD_REQUEST");
  assertError(await call("POST", `/bookings/${uid}/decline`, key, {}), 400, "BAD_REQUEST");

  await credit();
  const second = (await call("POST", "/bookings", key, body(at(7, 2, "15:00")))).body.data;
  const admin = await person("admin");
  const declined = await call("POST", `/bookings/${second.uid}/decline`, admin.jwt, { reason: "full" });
  assert.equal(declined.status, 200);
  assert.equal(declined.body.data.status, "rejected");
  assert.ok((await slotsOf("deep-dive", 7)).some((s) => s.start === at(7, 2, "15:00")), "the time is freed");
  // the declined booking's credit stays unspent: booking again needs no new payment
  assert.equal((await call("POST", "/bookings", key, body(at(7, 3, "15:00")))).status, 201);
});

test("recurring: a run of weekly bookings keeps its wall-clock time across the DST change", async () => {
  const member = await person("member");
  // Grace in New York: 10:00 EST on 2031-03-03 is 15:00Z; after 2031-03-09 10:00 EDT is 14:00Z
  const r = await call("POST", "/bookings", key, {
    ...guestBooking("coaching", "2031-03-03T15:00:00.000Z"),
    attendee: { name: "R", email: member.email, timeZone: "America/New_York" },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.equal(r.body.data.length, 4);
  assert.deepEqual(r.body.data.map((b: any) => b.start), [
    "2031-03-03T15:00:00.000Z",
    "2031-03-10T14:00:00.000Z",
    "2031-03-17T14:00:00.000Z",
    "2031-03-24T14:00:00.000Z",
  ]);
  const runUid = r.body.data[0].recurringBookingUid;
  assert.ok(runUid && r.body.data.every((b: any) => b.recurringBookingUid === runUid));
  const listed = await call(
    "GET",
    `/bookings?status=recurring&attendeeEmail=${encodeURIComponent(member.email)}`,
    key,
  );
  assert.equal(listed.body.data.length, 4);
  const two = await call("POST", "/bookings", key, {
    ...guestBooking("coaching", "2031-03-04T15:00:00.000Z", { recurrenceCount: 2 }),
    attendee: { name: "R", email: member.email, timeZone: "UTC" },
  });
  assert.equal(two.body.data.length, 2);
});

test("seats: three attendees share a slot, a fourth is taken; cancelling a seat reopens one", async () => {
  const start = at(9, 1, "08:30");
  const seats: any[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await call("POST", "/bookings", key, guestBooking("workshop", start));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    seats.push(r.body.data);
  }
  assert.ok(seats.every((s) => s.metadata.seatOf === seats[0].uid));
  assertError(
    await call("POST", "/bookings", key, guestBooking("workshop", start)),
    409,
    "CONFLICT",
    "taken",
  );
  let slot = (await slotsOf("workshop", 9)).find((s) => s.start === start);
  assert.equal(slot, undefined);
  await call("POST", `/bookings/${seats[0].uid}/cancel`, key, {});
  slot = (await slotsOf("workshop", 9)).find((s) => s.start === start);
  assert.deepEqual([slot.seatsBooked, slot.seatsRemaining, slot.seatsTotal], [2, 1, 3]);
  assert.equal(slot.bookingUid, seats[1].uid, "the group passed to the next seat");
  const fourth = await call("POST", "/bookings", key, guestBooking("workshop", start));
  assert.equal(fourth.status, 201);
  assert.equal(fourth.body.data.metadata.seatOf, seats[1].uid);
  // full again: the slot is gone, the next one (two hours on) is open
  const starts =
    (await call("GET", `/slots?eventTypeSlug=workshop&start=${monday(9)}&end=${addDays(monday(9), 1)}`, key))
      .body.data;
  assert.equal(starts[addDays(monday(9), 1)][0].start, at(9, 1, "10:30"));
});

test("round robin gives the slot to the highest-priority free host, then the next", async () => {
  const start = at(10, 1, "14:00"); // Ada, Grace and Linus are all working at 14:00Z on a Tuesday
  const hosts: string[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await call("POST", "/bookings", key, guestBooking("team-call", start));
    assert.equal(r.status, 201, JSON.stringify(r.body));
    hosts.push(r.body.data.hosts[0].username);
  }
  assert.deepEqual(hosts, ["ada", "grace", "linus"]);
  assertError(
    await call("POST", "/bookings", key, guestBooking("team-call", start)),
    409,
    "CONFLICT",
    "taken",
  );
  const member = await person("member");
  const panel = await call("POST", "/bookings", key, {
    ...guestBooking("panel", at(10, 2, "08:45")),
    attendee: { name: "C", email: member.email, timeZone: "UTC" },
  });
  assert.equal(panel.status, 201);
  assert.deepEqual(
    panel.body.data.hosts.map((h: any) => h.username).sort(),
    ["ada", "linus"],
    "collective: both hosts",
  );
});

test("list: status, attendee, event type, dates, sort, take/skip, pagination", async () => {
  const email = `lister-${crypto.randomUUID().slice(0, 8)}+tag@example.com`;
  const mk = async (start: string) =>
    (await call("POST", "/bookings", key, {
      ...guestBooking("intro-call", start),
      attendee: { name: "Lister", email, timeZone: "UTC" },
    })).body.data;
  const a = await mk(at(11, 1, "09:00")), b = await mk(at(11, 2, "09:00")), c = await mk(at(11, 3, "09:00"));
  await call("POST", `/bookings/${c.uid}/cancel`, key, {});
  const q = (params: string) =>
    call("GET", `/bookings?attendeeEmail=${email.replace("+", " ")}&${params}`, key);
  assert.deepEqual(
    (await q("")).body.data.map((x: any) => x.uid),
    [a.uid, b.uid, c.uid],
    "a space in attendeeEmail is a +",
  );
  assert.deepEqual((await q("status=upcoming")).body.data.map((x: any) => x.uid), [a.uid, b.uid]);
  assert.deepEqual((await q("status=cancelled")).body.data.map((x: any) => x.uid), [c.uid]);
  assert.deepEqual((await q("status=upcoming,cancelled&sortStart=desc")).body.data.map((x: any) => x.uid), [
    c.uid,
    b.uid,
    a.uid,
  ]);
  assert.deepEqual((await q("status=past")).body.data, []);
  assert.deepEqual((await q(`afterStart=${at(11, 2, "00:00")}`)).body.data.map((x: any) => x.uid), [
    b.uid,
    c.uid,
  ]);
  assert.deepEqual((await q(`beforeEnd=${at(11, 2, "12:00")}`)).body.data.map((x: any) => x.uid), [
    a.uid,
    b.uid,
  ]);
  assert.deepEqual((await q(`eventTypeId=${fnv31("intro-call")}`)).body.data.length, 3);
  assert.deepEqual((await q("eventTypeSlug=deep-dive")).body.data, []);
  const page = await q("take=1&skip=1");
  assert.deepEqual(page.body.data.map((x: any) => x.uid), [b.uid]);
  assert.equal(page.body.pagination.totalItems, 3);
  assert.equal(page.body.pagination.hasNextPage, true);
  assert.equal((await q("take=1&skip=5")).body.pagination.totalItems, 3);
  for (
    const bad of [
      "take=0",
      "take=251",
      "take=x",
      "skip=-1",
      "status=soon",
      "sortStart=up",
      "eventTypeId=x",
      "afterStart=nope",
    ]
  ) {
    assertError(await q(bad), 400, "BAD_REQUEST");
  }
  const admin = await person("admin");
  assert.equal(
    (await call("GET", `/bookings?attendeeEmail=${encodeURIComponent(email)}`, admin.jwt)).body.data.length,
    3,
  );
  assertError(await call("GET", "/bookings", await host.key("delivery")), 403, "FORBIDDEN");
});

test("a host's JWT lists the bookings they host", async () => {
  const made =
    (await call("POST", "/bookings", key, guestBooking("intro-call", at(12, 1, "09:00")))).body.data;
  const ada = await hostPerson("ada");
  const listed = await call(
    "GET",
    `/bookings?afterStart=${monday(12)}&beforeEnd=${addDays(monday(12), 6)}`,
    ada.jwt,
  );
  assert.ok(listed.body.data.some((b: any) => b.uid === made.uid));
  const grace = await hostPerson("grace");
  assert.ok(
    !(await call("GET", `/bookings?afterStart=${monday(12)}&beforeEnd=${addDays(monday(12), 6)}`, grace.jwt))
      .body.data.some((b: any) => b.uid === made.uid),
  );
});

test("an external scheduler's type that cannot be reached is 502", async () => {
  assertError(
    await call("POST", "/bookings", key, guestBooking("partner-call", at(13, 1, "09:00"))),
    502,
    "BAD_GATEWAY",
  );
});

test("rate limit: past the window's limit a request is 429 with Retry-After, in the envelope", async () => {
  const own = await host.key("scheduling");
  const { hashKey } = await import("../../../shared/keys.ts");
  const { SCHEDULING_RATE_LIMITS } = await import("../../../functions/scheduling-api/access.ts");
  const bucket = `scheduling:key:${(await hashKey(own)).slice(0, 24)}`;
  const [minute] = SCHEDULING_RATE_LIMITS;
  await fillWindow(host.ctx.sql, bucket, SCHEDULING_RATE_LIMITS, minute.seconds, minute.limit);
  const r = await call("GET", "/event-types", own);
  assertError(r, 429, "TOO_MANY_REQUESTS");
  assert.ok(Number(r.headers.get("retry-after")) >= 1);
  assert.equal(r.headers.get("x-ratelimit-remaining"), "0");
  assert.equal((await call("GET", "/event-types", key)).status, 200, "other keys are not affected");
});

test("a body that is not JSON, or JSON but not an object, is BAD_REQUEST saying which (never a 5xx)", async () => {
  const member = await person("member");
  const notJson = await call("POST", "/bookings", member.jwt, "{nope");
  assertError(notJson, 400, "BAD_REQUEST");
  assert.equal(notJson.body.error.message, "The body is not valid JSON.");
  for (const body of ["[]", "null", "42"]) {
    const r = await call("POST", "/bookings", member.jwt, body);
    assertError(r, 400, "BAD_REQUEST");
    assert.equal(r.body.error.message, "The body must be a JSON object.", body);
  }
});
