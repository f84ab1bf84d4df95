// Rules the admission check and the moves keep, through the running host: date arguments are real
// dates in a sane range on every route, a person reaching a type their plan excludes hears why, a move
// stays within the allowance and is not blocked by its own minutes, list counts keep every filter, and
// a booking's metadata never shows the service's own state. These tests take the weeks from 2031-01-06
// + 110..113 and 117..123.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { addDays, assertError, call, guestBooking, host, hostPerson, monday, person } from "./support.ts";

const key = await host.key("scheduling");
const at = (week: number, day: number, utc: string) => `${addDays(monday(week), day)}T${utc}:00.000Z`;

test("dates: a year outside 1970..2200 or a day that does not exist is 400 naming the argument, on every route", async () => {
  const refused = async (r: Promise<{ status: number; body: any }>, parameter: string) => {
    const answer = await r;
    assertError(answer, 400, "BAD_REQUEST");
    assert.equal(answer.body.error.details?.parameter, parameter, JSON.stringify(answer.body));
  };
  await refused(call("GET", "/slots?eventTypeSlug=intro-call&start=9999-12-31&end=9999-12-31", key), "start");
  await refused(call("GET", "/slots?eventTypeSlug=intro-call&start=0000-01-03&end=2031-01-04", key), "start");
  await refused(call("GET", "/slots?eventTypeSlug=intro-call&start=2031-02-27&end=2031-02-30", key), "end");
  await refused(
    call("GET", `${host.baseUrl}/book/intro-call/slots?start=0000-01-03&end=0000-01-04`, null),
    "start",
  );
  await refused(
    call("GET", `${host.baseUrl}/book/intro-call/slots?start=2031-02-30&end=2031-03-02`, null),
    "start",
  );
  await refused(call("GET", "/bookings?afterStart=0000-01-01", key), "afterStart");
  await refused(call("GET", "/bookings?beforeEnd=2031-02-30", key), "beforeEnd");
  for (const start of ["9999-12-31T10:00:00Z", "2031-02-30T10:00:00Z", "2031-01-07T24:00:00Z"]) {
    await refused(call("POST", "/bookings", key, guestBooking("intro-call", start)), "start");
    await refused(
      call("POST", `${host.baseUrl}/book/deep-dive/checkout`, null, guestBooking("deep-dive", start)),
      "start",
    );
  }
  const made = await call("POST", "/bookings", key, guestBooking("intro-call", at(110, 1, "09:00")));
  assert.equal(made.status, 201, JSON.stringify(made.body));
  for (const start of ["9999-12-31T10:00:00Z", "2031-04-31T10:00:00Z"]) {
    await refused(call("POST", `/bookings/${made.body.data.uid}/reschedule`, key, { start }), "start");
  }
  // the edges of the range are answered, not refused (nothing is open that far ahead or back)
  const far = await call("GET", "/slots?eventTypeSlug=intro-call&start=2200-12-30&end=2200-12-31", key);
  assert.equal(far.status, 200, JSON.stringify(far.body));
  const early = await call("GET", "/bookings?afterStart=1970-01-01&beforeEnd=1970-01-02", key);
  assert.equal(early.status, 200);
  assert.deepEqual(early.body.data, []);
});

test("text Postgres cannot hold (NUL, a lone surrogate) or a body nested too deep is 400 naming where, on every route; a NUL in the path 404", async () => {
  const refused = async (
    r: Promise<{ status: number; body: any }>,
    place: { field: string } | { parameter: string },
  ) => {
    const answer = await r;
    assertError(answer, 400, "BAD_REQUEST");
    assert.deepEqual(answer.body.error.details, place, JSON.stringify(answer.body));
  };
  const booking = (extra: Record<string, unknown>) => ({
    ...guestBooking("intro-call", at(117, 1, "09:00")),
    ...extra,
  });
  await refused(
    call(
      "POST",
      "/bookings",
      key,
      booking({ attendee: { name: "A\u0000B", email: "a@b.cd", timeZone: "UTC" } }),
    ),
    { field: "attendee.name" },
  );
  await refused(
    call("POST", "/bookings", key, booking({ bookingFieldsResponses: { notes: "x\ud800y" } })),
    { field: "bookingFieldsResponses.notes" },
  );
  await refused(call("POST", "/bookings", key, booking({ metadata: { k: "\u0000" } })), {
    field: "metadata.k",
  });
  await refused(call("POST", "/bookings", key, booking({ guests: ["a\u0000@b.cd"] })), {
    field: "guests[0]",
  });
  const deep = JSON.parse("[".repeat(100) + "]".repeat(100));
  await refused(
    call("POST", "/bookings", key, booking({ bookingFieldsResponses: { x: deep } })),
    { field: `bookingFieldsResponses.x${"[0]".repeat(62)}` },
  );
  const made = await call("POST", "/bookings", key, booking({}));
  assert.equal(made.status, 201, JSON.stringify(made.body));
  const uid = made.body.data.uid;
  await refused(
    call("POST", `/bookings/${uid}/reschedule`, key, {
      start: at(117, 1, "10:00"),
      reschedulingReason: "\u0000",
    }),
    { field: "reschedulingReason" },
  );
  await refused(call("POST", `/bookings/${uid}/cancel`, key, { cancellationReason: "a\udc00" }), {
    field: "cancellationReason",
  });
  await refused(call("POST", `/bookings/${uid}/decline`, key, { reason: "\u0000" }), { field: "reason" });
  await refused(
    call("POST", "/webhooks", key, {
      subscriberUrl: "http://127.0.0.1:9/x",
      triggers: ["BOOKING_CREATED"],
      secret: "s\u0000",
    }),
    { field: "secret" },
  );
  await refused(
    call("POST", "/webhooks", key, {
      subscriberUrl: "http://127.0.0.1:9/x",
      triggers: ["BOOKING_CREATED"],
      payloadTemplate: "{{uid}}\u0000",
    }),
    { field: "payloadTemplate" },
  );
  for (const parameter of ["attendeeEmail", "attendeeName", "bookingUid", "eventTypeSlug"]) {
    await refused(call("GET", `/bookings?${parameter}=a%00b`, key), { parameter });
  }
  await refused(
    call("GET", "/slots?eventTypeSlug=intro-call&start=2031-06-02&end=2031-06-03&timeZone=Europe%00", key),
    { parameter: "timeZone" },
  );
  // the booker page's own calls, without a key
  await refused(
    call(
      "POST",
      `${host.baseUrl}/book/intro-call/bookings`,
      null,
      booking({ bookingFieldsResponses: { notes: "\u0000" } }),
    ),
    { field: "bookingFieldsResponses.notes" },
  );
  await refused(
    call("POST", `${host.baseUrl}/book/deep-dive/checkout`, null, {
      ...guestBooking("deep-dive", at(117, 1, "15:00")),
      attendee: { name: "\u0000", email: "n@x.io", timeZone: "UTC" },
    }),
    { field: "attendee.name" },
  );
  await refused(call("GET", `${host.baseUrl}/book/intro-call/bookings/${uid}?email=a%00@b.cd`, null), {
    parameter: "email",
  });
  // a NUL in the path names nothing
  for (const path of [`/bookings/${uid}%00`, "/webhooks/1%00", "/event-types/intro%00call"]) {
    assertError(await call("GET", path, key), 404, "NOT_FOUND");
  }
  assertError(await call("GET", `${host.baseUrl}/book/intro%00call`, null), 404, "NOT_FOUND");
  // nothing of the above was kept
  const [{ n }] = await host.ctx.sql<{ n: number }[]>`
    select count(*)::int as n from public.scheduling_bookings where start_at = ${at(117, 1, "09:00")}`;
  assert.equal(n, 1);
});

test("list: Cal's created and updated ranges and its other sorts (sortEnd, sortCreated, sortUpdatedAt); bad ones are 400", async () => {
  const email = `sorted-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const make = async (start: string, lengthInMinutes: number) => {
    const r = await call("POST", "/bookings", key, {
      ...guestBooking("intro-call", start),
      lengthInMinutes,
      attendee: { name: "Sorted", email, timeZone: "UTC" },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.data;
  };
  // made in the order a, b, c; c starts first, a ends last
  const a = await make(at(118, 3, "09:00"), 30);
  const b = await make(at(118, 2, "09:00"), 15);
  const c = await make(at(118, 1, "09:00"), 15);
  const moved =
    (await call("POST", `/bookings/${b.uid}/reschedule`, key, { start: at(118, 2, "10:00") })).body
      .data;
  const list = async (params: string) => {
    const r = await call("GET", `/bookings?attendeeEmail=${encodeURIComponent(email)}&${params}`, key);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data.map((x: any) => x.uid);
  };
  assert.deepEqual(await list(""), [c.uid, b.uid, a.uid], "by start, ascending, unless asked");
  assert.deepEqual(await list("sortEnd=desc"), [a.uid, b.uid, c.uid]);
  assert.deepEqual(await list("sortCreated=desc"), [c.uid, b.uid, a.uid]);
  assert.deepEqual(await list("sortCreated=asc"), [a.uid, b.uid, c.uid]);
  assert.deepEqual((await list("sortUpdatedAt=desc"))[0], b.uid, "the moved one was updated last");
  // the bounds are inclusive
  assert.deepEqual(await list(`afterCreatedAt=${b.createdAt}`), [c.uid, b.uid]);
  assert.deepEqual(await list(`beforeCreatedAt=${b.createdAt}`), [b.uid, a.uid]);
  assert.deepEqual(await list(`afterUpdatedAt=${moved.updatedAt}`), [b.uid]);
  assert.deepEqual(await list(`beforeUpdatedAt=${c.updatedAt}&sortCreated=asc`), [a.uid, c.uid]);
  for (const parameter of ["sortEnd", "sortCreated", "sortUpdatedAt"]) {
    const r = await call("GET", `/bookings?${parameter}=sideways`, key);
    assertError(r, 400, "BAD_REQUEST");
    assert.equal(r.body.error.details.parameter, parameter);
  }
  for (const parameter of ["afterCreatedAt", "beforeUpdatedAt"]) {
    const r = await call("GET", `/bookings?${parameter}=2031-02-30`, key);
    assertError(r, 400, "BAD_REQUEST");
    assert.equal(r.body.error.details.parameter, parameter);
  }
});

test("cancel as Cal's body has it: cancelSubsequentBookings ends a run from one occurrence on; seatUid names one seat of a slot", async () => {
  const member = await person("member");
  // coaching: Grace, four weekly occurrences; 15:00Z is 11:00 in New York (EDT)
  const run = await call("POST", "/bookings", key, {
    ...guestBooking("coaching", at(119, 1, "15:00")),
    attendee: { name: "Run", email: member.email, timeZone: "UTC" },
  });
  assert.equal(run.status, 201, JSON.stringify(run.body));
  const uids = run.body.data.map((b: any) => b.uid);
  assert.equal(uids.length, 4);
  assertError(
    await call("POST", `/bookings/${uids[1]}/cancel`, key, { cancelSubsequentBookings: "yes" }),
    400,
    "BAD_REQUEST",
  );
  const cancelled = await call("POST", `/bookings/${uids[1]}/cancel`, key, {
    cancellationReason: "Moving away",
    cancelSubsequentBookings: true,
  });
  assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
  assert.equal(cancelled.body.data.uid, uids[1]);
  const states = await Promise.all(
    uids.map(async (uid: string) => (await call("GET", `/bookings/${uid}`, key)).body.data),
  );
  assert.deepEqual(states.map((b) => [b.status, b.cancellationReason]), [
    ["accepted", null],
    ["cancelled", "Moving away"],
    ["cancelled", "Moving away"],
    ["cancelled", "Moving away"],
  ]);
  // without the flag only the one named goes
  const alone = await call("POST", "/bookings", key, {
    ...guestBooking("coaching", at(119, 2, "15:00")),
    attendee: { name: "Run", email: member.email, timeZone: "UTC" },
  });
  await call("POST", `/bookings/${alone.body.data[0].uid}/cancel`, key, {});
  assert.equal((await call("GET", `/bookings/${alone.body.data[1].uid}`, key)).body.data.status, "accepted");

  // a seated slot: two attendees; the second's seat is cancelled through the slot's first booking
  const start = at(123, 1, "07:30"); // Linus, 08:30 in London (BST)
  const first = (await call("POST", "/bookings", key, guestBooking("workshop", start))).body.data;
  const second = (await call("POST", "/bookings", key, guestBooking("workshop", start))).body.data;
  assert.equal(second.metadata.seatOf, first.uid);
  const seat = await call("POST", `/bookings/${first.uid}/cancel`, key, { seatUid: second.uid });
  assert.equal(seat.status, 200, JSON.stringify(seat.body));
  assert.equal(seat.body.data.uid, second.uid);
  assert.equal(seat.body.data.status, "cancelled");
  assert.equal((await call("GET", `/bookings/${first.uid}`, key)).body.data.status, "accepted");
  // a seatUid that is no seat of the booking's slot
  const elsewhere =
    (await call("POST", "/bookings", key, guestBooking("intro-call", at(123, 2, "09:00")))).body
      .data;
  assertError(
    await call("POST", `/bookings/${first.uid}/cancel`, key, { seatUid: elsewhere.uid }),
    400,
    "BAD_REQUEST",
  );
  assert.equal((await call("GET", `/bookings/${elsewhere.uid}`, key)).body.data.status, "accepted");
  // a person may not name another attendee's seat
  const third = await person("member");
  const own = (await call("POST", "/bookings", third.jwt, {
    ...guestBooking("workshop", start),
    attendee: { name: "Third", email: third.email, timeZone: "UTC" },
  })).body.data;
  assertError(
    await call("POST", `/bookings/${own.uid}/cancel`, third.jwt, { seatUid: first.uid }),
    403,
    "FORBIDDEN",
  );
});

test("admission 2 for a person: their JWT booking a type their plan excludes is 403 not-included, not 404", async () => {
  const member = await person("member");
  const own = {
    ...guestBooking("supporter-hour", at(110, 2, "09:00")),
    attendee: { name: "Member", email: member.email, timeZone: "UTC" },
  };
  assertError(await call("POST", "/bookings", member.jwt, own), 403, "FORBIDDEN", "not-included");
  // as the key's path answers
  assertError(await call("POST", "/bookings", key, own), 403, "FORBIDDEN", "not-included");
  // the type stays out of the member's listings
  assertError(await call("GET", "/event-types/supporter-hour", member.jwt), 404, "NOT_FOUND");
  // a supporter's JWT books it
  const supporter = await person("member", { tier: "supporter" });
  const mine = await call("POST", "/bookings", supporter.jwt, {
    ...own,
    attendee: { ...own.attendee, email: supporter.email },
  });
  assert.equal(mine.status, 201, JSON.stringify(mine.body));
});

test("a move stays within the weekly allowance (403 over); within its own week it is allowed", async () => {
  const supporter = await person("member", { tier: "supporter" });
  const book = async (start: string) => {
    const r = await call("POST", "/bookings", supporter.jwt, {
      ...guestBooking("supporter-hour", start),
      attendee: { name: "Supporter", email: supporter.email, timeZone: "UTC" },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.data;
  };
  await book(at(111, 1, "09:00"));
  const second = await book(at(112, 1, "09:00"));
  const over = await call("POST", `/bookings/${second.uid}/reschedule`, supporter.jwt, {
    start: at(111, 3, "09:00"),
  });
  assertError(over, 403, "FORBIDDEN", "over");
  assert.equal(over.body.error.details.next, monday(112));
  // a key moves within the same rules: the allowance is the attendee's, whoever asks
  assertError(
    await call("POST", `/bookings/${second.uid}/reschedule`, key, { start: at(111, 3, "10:00") }),
    403,
    "FORBIDDEN",
    "over",
  );
  const within = await call("POST", `/bookings/${second.uid}/reschedule`, supporter.jwt, {
    start: at(112, 3, "09:00"),
  });
  assert.equal(within.status, 201, JSON.stringify(within.body));
  assert.equal(within.body.data.start, at(112, 3, "09:00"));
});

test("a move under a daily duration limit: the booking's own minutes do not block it; a full day still does", async () => {
  // supporter-hour: 60 minutes, durationLimits { day: 120 }; Ada 09:00-17:00 Berlin (08:00Z-16:00Z)
  const booked = [];
  for (const h of ["08:00", "10:00"]) {
    const s = await person("member", { tier: "supporter" });
    const r = await call("POST", "/bookings", key, {
      ...guestBooking("supporter-hour", at(113, 1, h)),
      attendee: { name: "Supporter", email: s.email, timeZone: "UTC" },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    booked.push(r.body.data);
  }
  const late = await person("member", { tier: "supporter" });
  assertError(
    await call("POST", "/bookings", key, {
      ...guestBooking("supporter-hour", at(113, 1, "14:00")),
      attendee: { name: "Late", email: late.email, timeZone: "UTC" },
    }),
    409,
    "CONFLICT",
    "taken",
  );
  const moved = await call("POST", `/bookings/${booked[1].uid}/reschedule`, key, {
    start: at(113, 1, "12:00"),
  });
  assert.equal(moved.status, 201, JSON.stringify(moved.body));
  assert.equal(moved.body.data.start, at(113, 1, "12:00"));
  // into a day another booking already fills with the first: 120 minutes there, plus this one's 60
  const other = await person("member", { tier: "supporter" });
  for (const h of ["08:00", "09:00"]) {
    const r = await call("POST", "/bookings", key, {
      ...guestBooking("supporter-hour", at(113, 2, h)),
      attendee: { name: "Other", email: h === "08:00" ? other.email : late.email, timeZone: "UTC" },
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
  }
  assertError(
    await call("POST", `/bookings/${booked[0].uid}/reschedule`, key, { start: at(113, 2, "12:00") }),
    409,
    "CONFLICT",
    "taken",
  );
});

test("list: past the last page, totalItems still counts every filter (attendeeName, bookingUid)", async () => {
  const name = `Zebulon ${crypto.randomUUID().slice(0, 8)}`;
  const made = await call("POST", "/bookings", key, {
    ...guestBooking("intro-call", at(110, 3, "09:00")),
    attendee: { name, email: `zeb-${crypto.randomUUID().slice(0, 8)}@example.com`, timeZone: "UTC" },
  });
  assert.equal(made.status, 201);
  await call("POST", "/bookings", key, guestBooking("intro-call", at(110, 3, "10:00")));
  for (const filter of [`attendeeName=${encodeURIComponent(name)}`, `bookingUid=${made.body.data.uid}`]) {
    const first = await call("GET", `/bookings?${filter}&take=1`, key);
    assert.equal(first.body.pagination.totalItems, 1, filter);
    const beyond = await call("GET", `/bookings?${filter}&take=1&skip=5`, key);
    assert.deepEqual(beyond.body.data, []);
    assert.equal(beyond.body.pagination.totalItems, 1, filter);
    assert.equal(beyond.body.pagination.hasNextPage, false);
  }
});

test("list status=unconfirmed: pending bookings to come, not accepted ones", async () => {
  const email = `pending-${crypto.randomUUID().slice(0, 8)}@example.com`;
  await host.ctx
    .sql`insert into public.scheduling_payments (session_id, status, event_type_slug, attendee_email)
                     values (${`cs_test_${crypto.randomUUID()}`}, 'unavailable', 'deep-dive', ${email})`;
  const pending = await call("POST", "/bookings", key, {
    ...guestBooking("deep-dive", at(110, 1, "15:00")),
    attendee: { name: "Pending", email, timeZone: "UTC" },
  });
  assert.equal(pending.body.data.status, "pending");
  const accepted = await call("POST", "/bookings", key, {
    ...guestBooking("intro-call", at(110, 4, "09:00")),
    attendee: { name: "Accepted", email, timeZone: "UTC" },
  });
  assert.equal(accepted.body.data.status, "accepted");
  const listed = await call(
    "GET",
    `/bookings?status=unconfirmed&attendeeEmail=${encodeURIComponent(email)}`,
    key,
  );
  assert.deepEqual(listed.body.data.map((b: any) => b.uid), [pending.body.data.uid]);
  const both = await call(
    "GET",
    `/bookings?status=unconfirmed,upcoming&attendeeEmail=${encodeURIComponent(email)}`,
    key,
  );
  assert.equal(both.body.data.length, 2);
});

test("metadata shows the caller's members, provider and event: never confirmation, move or payment state", async () => {
  const email = `meta-${crypto.randomUUID().slice(0, 8)}@example.com`;
  await host.ctx
    .sql`insert into public.scheduling_payments (session_id, status, event_type_slug, attendee_email)
                     values (${`cs_test_${crypto.randomUUID()}`}, 'unavailable', 'deep-dive', ${email})`;
  const hook = (await call("POST", "/webhooks", key, {
    subscriberUrl: "http://127.0.0.1:9/metadata-check",
    triggers: ["BOOKING_CREATED", "BOOKING_RESCHEDULED"],
    eventTypeId: (await call("GET", "/event-types/deep-dive", key)).body.data.id,
  })).body.data;
  try {
    const made = await call("POST", "/bookings", key, {
      ...guestBooking("deep-dive", at(111, 1, "15:00")),
      attendee: { name: "Meta", email, timeZone: "UTC" },
      metadata: { mine: "1" },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const uid = made.body.data.uid;
    const expected = { mine: "1", provider: "sitewire", event: "session.deep-dive" };
    assert.deepEqual(made.body.data.metadata, expected);
    const grace = await hostPerson("grace");
    const confirmed = await call("POST", `/bookings/${uid}/confirm`, grace.jwt);
    assert.deepEqual(confirmed.body.data.metadata, expected);
    const moved = await call("POST", `/bookings/${uid}/reschedule`, key, { start: at(111, 2, "15:00") });
    assert.equal(moved.status, 201, JSON.stringify(moved.body));
    assert.deepEqual(moved.body.data.metadata, expected);
    assert.deepEqual((await call("GET", `/bookings/${uid}`, key)).body.data.metadata, expected);
    // the service's own state is kept, in its columns
    const [row] = await host.ctx.sql<{ confirmed_at: Date | null; previous_start_at: Date | null }[]>`
      select confirmed_at, previous_start_at from public.scheduling_bookings where uid = ${uid}`;
    assert.ok(row.confirmed_at instanceof Date);
    assert.equal(row.previous_start_at?.toISOString(), at(111, 1, "15:00"));
    // and the webhook payloads show the same metadata
    const bodies = await host.ctx.sql<{ event: string; body: string }[]>`
      select event, body from public.webhook_outbox
       where api = 'scheduling' and subscription_id = ${String(hook.id)} order by id`;
    assert.deepEqual(bodies.map((b) => b.event), ["BOOKING_CREATED", "BOOKING_RESCHEDULED"]);
    for (const b of bodies) assert.deepEqual(JSON.parse(b.body).payload.metadata, expected);
  } finally {
    await call("DELETE", `/webhooks/${hook.id}`, key);
    await host.ctx.sql`delete from public.webhook_outbox where api = 'scheduling' and subscription_id = ${
      String(hook.id)
    }`;
  }
});

test("reschedule and decline by a stranger's JWT are 403; by the attendee's a decline is still the host's", async () => {
  const member = await person("member");
  const made = await call("POST", "/bookings", member.jwt, {
    ...guestBooking("intro-call", at(112, 2, "09:00")),
    attendee: { name: "Own", email: member.email, timeZone: "UTC" },
  });
  assert.equal(made.status, 201);
  const stranger = await person("member");
  const uid = made.body.data.uid;
  assertError(
    await call("POST", `/bookings/${uid}/reschedule`, stranger.jwt, { start: at(112, 2, "10:00") }),
    403,
    "FORBIDDEN",
  );
  assertError(await call("POST", `/bookings/${uid}/decline`, stranger.jwt, {}), 403, "FORBIDDEN");
  assertError(await call("POST", `/bookings/${uid}/decline`, member.jwt, {}), 403, "FORBIDDEN");
  assert.equal((await call("GET", `/bookings/${uid}`, key)).body.data.start, at(112, 2, "09:00"));
});
