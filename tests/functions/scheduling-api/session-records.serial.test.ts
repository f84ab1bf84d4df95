// Event types the demo site does not have, through the API and the booker page: session records
// written for the test (the catalogue stamp makes them types at once) and removed after it. Every field
// of a type by value, paid types a checkout must refuse and what a checkout carries, a mandatory
// round-robin host, assignAllTeamMembers, a range booking window, a time-based confirmation policy,
// count limits per month and year, teams, and a type's several places. Serial: the records change every
// caller's catalogue.
// These tests take the weeks from 2031-01-06 + 128..142 and 160.
import assert from "node:assert/strict";
import { fnv31 } from "../../../functions/scheduling-api/domain/hosts.ts";
import { launchChromium } from "../../helpers/browser.ts";
import { test } from "../../helpers/test.ts";
import {
  addDays,
  assertError,
  call,
  guestBooking,
  host,
  monday,
  person,
} from "./support.ts";

const key = await host.key("scheduling");
const at = (week: number, day: number, utc: string) => `${addDays(monday(week), day)}T${utc}:00.000Z`;
const HOSTS = {
  ada: "ada@demo.sitewire.dev",
  grace: "grace@demo.sitewire.dev",
  linus: "linus@demo.sitewire.dev",
};

type SessionRecord = {
  slug: string;
  price?: number;
  host?: string;
  location?: string;
  options?: unknown;
  /** further plain fields of the record (summary, lengths, currency...) */
  fields?: Record<string, unknown>;
};

/** Publishes session records for the body's time, then removes them. */
async function withSessions(records: SessionRecord[], body: () => Promise<void>) {
  const sql = host.ctx.sql;
  const tag = crypto.randomUUID().slice(0, 6);
  for (const r of records) {
    const fields: { [field: string]: { "en-US": unknown } } = {
      title: { "en-US": `Test ${r.slug}` },
      slug: { "en-US": r.slug },
      lengths: { "en-US": ["30"] },
      price: { "en-US": r.price ?? 0 },
      currency: { "en-US": "EUR" },
      location: { "en-US": r.location ?? "video" },
    };
    if (r.host) fields.host = { "en-US": r.host };
    if (r.options) fields.options = { "en-US": r.options };
    for (const [name, value] of Object.entries(r.fields ?? {})) fields[name] = { "en-US": value };
    await sql`insert into public.content_entries (stage, id, model_id, path, fields)
              values ('published', ${`session.${r.slug}`}, 'session', ${`records/sessions/${r.slug}-${tag}.md`},
                      ${sql.json(fields as never)})`;
  }
  try {
    await body();
  } finally {
    for (const r of records) {
      await sql`delete from public.content_entries where stage = 'published' and id = ${`session.${r.slug}`}`;
    }
  }
}

const EVERY: SessionRecord = {
  slug: "t-every-field",
  price: 35,
  location: "https://meet.example/every",
  fields: { summary: "Every option a session record has.", lengths: ["45", "20", "60"], currency: "USD" },
  options: {
    length: 60,
    locations: ["phone:+1 212 555 0100", "address:Harbour Room", { type: "attendeePhone" }, "video"],
    schedulingType: "collective",
    hosts: [
      { user: "grace", priority: "highest", mandatory: true },
      { user: "ada", priority: "low", schedule: "Evenings" },
    ],
    schedule: "Working hours",
    slotInterval: 15,
    offsetStart: 5,
    notice: 90,
    beforeBuffer: 10,
    afterBuffer: 20,
    recurrence: { interval: 2, occurrences: 3, frequency: "monthly" },
    seats: { perTimeSlot: 5, showAvailabilityCount: false, showAttendeeInfo: true },
    confirmationPolicy: { type: "time", noticeThreshold: { unit: "minutes", count: 30 } },
    team: "support",
    limits: { day: 2, week: 5, month: 10, year: 50 },
    durationLimits: { day: 120, week: 300 },
    bookingWindow: { type: "businessDays", value: 20, rolling: true },
    requires: "member",
    below: "staff",
    weekly: 2,
    monthly: 6,
    sku: "SKU-EVERY",
    form: [{ slug: "company", type: "text", label: "Company", required: false }],
    customName: "Every field with {ATTENDEE}",
    lockTimeZone: true,
    hideCalendarNotes: true,
    hideCalendarEventDetails: true,
    hideOrganizerEmail: true,
    hidden: true,
    requiresBookerEmailVerification: true,
    disableCancelling: true,
    disableRescheduling: true,
    allowReschedulingPastBookings: true,
    forwardParamsSuccessRedirect: false,
    successRedirectUrl: "https://example.com/thanks",
    disableGuests: true,
  },
};

const sessionsOf = async (email: string) =>
  (await host.ctx.sql<{ n: number }[]>`
    select count(*)::int as n from public.payment_sessions where customer_email = ${email}`)[0].n;

test("checkout of paid types: no host 503, a phone session without a number 400, an excluded plan 403", async () => {
  await withSessions([
    { slug: "t-paid-open", price: 40 },
    { slug: "t-paid-phone", price: 40, host: "grace", location: "phone" },
    { slug: "t-paid-supporters", price: 40, host: "ada", options: { requires: "supporter" } },
  ], async () => {
    const checkout = (slug: string, start: string, attendee: Record<string, unknown>) =>
      call("POST", `${host.baseUrl}/book/${slug}/checkout`, null, {
        start,
        attendee: { name: "Buyer", timeZone: "UTC", ...attendee },
      });
    const email = `paid-${crypto.randomUUID().slice(0, 8)}@example.com`;
    assertError(await checkout("t-paid-open", at(128, 1, "13:00"), { email }), 503, "SERVICE_UNAVAILABLE");
    assertError(await checkout("t-paid-phone", at(128, 1, "13:00"), { email }), 400, "BAD_REQUEST");
    const member = await person("member");
    assertError(
      await checkout("t-paid-supporters", at(128, 1, "07:00"), { email: member.email }),
      403,
      "FORBIDDEN",
      "not-included",
    );
    assertError(
      await checkout("t-paid-supporters", at(128, 1, "07:00"), { email }),
      403,
      "FORBIDDEN",
      "guest",
    );
    assert.equal(
      await sessionsOf(email) + await sessionsOf(member.email),
      0,
      "nothing was put up for payment",
    );
    const phoned = await checkout("t-paid-phone", at(128, 1, "13:00"), {
      email,
      phoneNumber: "+1 212 555 0100",
    });
    assert.equal(phoned.status, 201, JSON.stringify(phoned.body));
  });
});

test("a mandatory host is in every round-robin booking; assignAllTeamMembers makes every host a host", async () => {
  await withSessions([
    {
      slug: "t-rr-mandatory",
      options: {
        schedulingType: "roundRobin",
        hosts: [{ user: "linus", mandatory: true }, { user: "ada", priority: "high" }, {
          user: "grace",
          priority: "low",
        }],
      },
    },
    { slug: "t-all-hands", options: { schedulingType: "collective", assignAllTeamMembers: true } },
  ], async () => {
    const type = (await call("GET", "/event-types/t-rr-mandatory", key)).body.data;
    assert.deepEqual(type.hosts.map((h: any) => [h.name, h.mandatory]), [
      ["Linus Example", true],
      ["Ada Example", false],
      ["Grace Example", false],
    ]);
    // 13:00Z: Linus 14:00 London, Ada 15:00 Berlin, Grace 09:00 New York, all free
    const first = await call("POST", "/bookings", key, guestBooking("t-rr-mandatory", at(129, 1, "13:00")));
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.deepEqual(first.body.data.hosts.map((h: any) => h.email), [HOSTS.linus, HOSTS.ada]);
    // Grace is still free, but the mandatory host is not
    assertError(
      await call("POST", "/bookings", key, guestBooking("t-rr-mandatory", at(129, 1, "13:00"))),
      409,
      "CONFLICT",
      "taken",
    );

    const all = (await call("GET", "/event-types/t-all-hands", key)).body.data;
    assert.equal(all.assignAllTeamMembers, true);
    assert.deepEqual(all.hosts.map((h: any) => h.name).sort(), [
      "Ada Example",
      "Grace Example",
      "Linus Example",
    ]);
    const together = await call("POST", "/bookings", key, guestBooking("t-all-hands", at(129, 2, "13:00")));
    assert.equal(together.status, 201, JSON.stringify(together.body));
    assert.deepEqual(together.body.data.hosts.map((h: any) => h.email).sort(), [
      HOSTS.ada,
      HOSTS.grace,
      HOSTS.linus,
    ]);
  });
});

test("a range booking window: times only between its dates; a booking outside it is 400", async () => {
  const from = addDays(monday(130), 1), to = addDays(monday(130), 2);
  await withSessions([
    { slug: "t-window", host: "ada", options: { bookingWindow: { type: "range", value: [from, to] } } },
  ], async () => {
    const slots = await call(
      "GET",
      `/slots?eventTypeSlug=t-window&start=${monday(130)}&end=${addDays(monday(130), 4)}`,
      key,
    );
    assert.equal(slots.status, 200, JSON.stringify(slots.body));
    assert.deepEqual(Object.keys(slots.body.data).sort(), [from, to]);
    assertError(
      await call("POST", "/bookings", key, guestBooking("t-window", at(130, 3, "07:00"))),
      400,
      "BAD_REQUEST",
    );
    assert.equal(
      (await call("POST", "/bookings", key, guestBooking("t-window", at(130, 2, "07:00")))).status,
      201,
    );
  });
});

test("confirmationPolicy time: a booking inside the threshold waits for its host; beyond it, accepted", async () => {
  await withSessions([
    {
      slug: "t-confirm-far",
      host: "ada",
      options: { confirmationPolicy: { type: "time", noticeThreshold: { unit: "hours", count: 1_000_000 } } },
    },
    {
      slug: "t-confirm-near",
      host: "ada",
      options: { confirmationPolicy: { type: "time", noticeThreshold: { unit: "minutes", count: 60 } } },
    },
  ], async () => {
    const type = (await call("GET", "/event-types/t-confirm-far", key)).body.data;
    assert.deepEqual(type.confirmationPolicy, {
      type: "time",
      noticeThreshold: { unit: "hours", count: 1_000_000 },
    });
    assert.equal(type.requiresConfirmation, true);
    const within = await call("POST", "/bookings", key, guestBooking("t-confirm-far", at(131, 1, "07:00")));
    assert.equal(within.body.data.status, "pending", JSON.stringify(within.body));
    assert.equal(within.body.data.meetingUrl, null);
    const beyond = await call("POST", "/bookings", key, guestBooking("t-confirm-near", at(131, 1, "08:00")));
    assert.equal(beyond.body.data.status, "accepted", JSON.stringify(beyond.body));
  });
});

test("count limits per month and per year: the month's or year's last booking closes it; the next opens", async () => {
  await withSessions([
    { slug: "t-limit-month", host: "ada", options: { limits: { month: 1 } } },
    { slug: "t-limit-year", host: "ada", options: { limits: { year: 2 } } },
  ], async () => {
    // the month: July 2033 (weeks 132..133), then August (week 136)
    assert.equal(
      (await call("POST", "/bookings", key, guestBooking("t-limit-month", at(132, 1, "07:00")))).status,
      201,
    );
    const july = await call(
      "GET",
      `/slots?eventTypeSlug=t-limit-month&start=${monday(133)}&end=${addDays(monday(133), 4)}`,
      key,
    );
    assert.deepEqual(july.body.data, {}, "no time left in the month");
    assertError(
      await call("POST", "/bookings", key, guestBooking("t-limit-month", at(133, 1, "07:00"))),
      409,
      "CONFLICT",
      "taken",
    );
    assert.equal(
      (await call("POST", "/bookings", key, guestBooking("t-limit-month", at(136, 1, "07:00")))).status,
      201,
    );
    // the year: two in 2033, the third refused; 2034 opens again
    for (const start of [at(132, 2, "07:00"), at(134, 2, "07:00")]) {
      assert.equal((await call("POST", "/bookings", key, guestBooking("t-limit-year", start))).status, 201);
    }
    assertError(
      await call("POST", "/bookings", key, guestBooking("t-limit-year", at(135, 2, "07:00"))),
      409,
      "CONFLICT",
      "taken",
    );
    assert.equal(
      (await call("POST", "/bookings", key, guestBooking("t-limit-year", at(160, 2, "09:00")))).status,
      201,
    );
  });
});

test("every field of the event type comes from the session record: one with every option, one with none", async () => {
  const bare: SessionRecord = { slug: "t-no-options", host: "linus", location: "video" };
  await withSessions([EVERY, bare], async () => {
    const every = await call("GET", "/event-types/t-every-field", key);
    assert.equal(every.status, 200, JSON.stringify(every.body));
    const grace = fnv31("user:grace"), ada = fnv31("user:ada");
    const graceHours = fnv31("schedule:grace/Working hours");
    assert.deepEqual(every.body.data, {
      id: fnv31("t-every-field"),
      ownerId: grace,
      title: "Test t-every-field",
      slug: "t-every-field",
      description: "Every option a session record has.",
      lengthInMinutes: 60,
      lengthInMinutesOptions: [60, 45, 20],
      locations: [
        { type: "link", link: "https://meet.example/every" },
        { type: "phone", phone: "+1 212 555 0100" },
        { type: "address", address: "Harbour Room" },
        { type: "attendeePhone" },
        { type: "integration", integration: "cal-video" },
      ],
      bookingFields: [
        { type: "name", slug: "name", label: "Your name", required: true },
        { type: "email", slug: "email", label: "Email address", required: true },
        { type: "radioInput", slug: "location", label: "Location", required: false },
        { type: "phone", slug: "attendeePhoneNumber", label: "Phone number", required: true },
        { type: "text", slug: "title", label: "What is this meeting about?", required: false, hidden: true },
        { type: "textarea", slug: "notes", label: "Additional notes", required: false },
        {
          type: "textarea",
          slug: "rescheduleReason",
          label: "Reason for reschedule",
          required: false,
          hidden: true,
        },
        { type: "text", slug: "company", label: "Company", required: false },
      ],
      disableGuests: true,
      slotInterval: 15,
      offsetStart: 5,
      minimumBookingNotice: 90,
      beforeEventBuffer: 10,
      afterEventBuffer: 20,
      recurrence: { interval: 2, occurrences: 3, frequency: "monthly" },
      metadata: {
        requires: "member",
        below: "staff",
        weekly: 2,
        monthly: 6,
        scheduler: "native",
        sku: "SKU-EVERY",
        record: "session.t-every-field",
        team: "support",
        form: null,
        customName: "Every field with {ATTENDEE}",
      },
      price: 35,
      currency: "usd",
      lockTimeZoneToggleOnBookingPage: true,
      hideCalendarNotes: true,
      hideCalendarEventDetails: true,
      hideOrganizerEmail: true,
      successRedirectUrl: "https://example.com/thanks",
      forwardParamsSuccessRedirect: false,
      hidden: true,
      requiresBookerEmailVerification: true,
      disableCancelling: true,
      disableRescheduling: true,
      allowReschedulingPastBookings: true,
      seatsPerTimeSlot: 5,
      seatsShowAvailabilityCount: false,
      seats: { seatsPerTimeSlot: 5, showAvailabilityCount: false, showAttendeeInfo: true },
      scheduleId: graceHours,
      requiresConfirmation: true,
      confirmationPolicy: { type: "time", noticeThreshold: { unit: "minutes", count: 30 } },
      customName: "Every field with {ATTENDEE}",
      users: [
        { id: grace, name: "Grace Example", username: "grace" },
        { id: ada, name: "Ada Example", username: "ada" },
      ],
      hosts: [
        {
          userId: grace,
          name: "Grace Example",
          mandatory: true,
          priority: "highest",
          scheduleId: graceHours,
        },
        {
          userId: ada,
          name: "Ada Example",
          mandatory: false,
          priority: "low",
          scheduleId: fnv31("schedule:ada/Evenings"),
        },
      ],
      schedulingType: "COLLECTIVE",
      assignAllTeamMembers: false,
      teamId: fnv31("team:support"),
      bookingLimitsCount: { day: 2, week: 5, month: 10, year: 50 },
      bookingLimitsDuration: { day: 120, week: 300 },
      bookingWindow: { type: "businessDays", value: 20, rolling: true },
      _links: { book: `${host.baseUrl}/book/t-every-field` },
    });

    const none = (await call("GET", "/event-types/t-no-options", key)).body.data;
    const linus = fnv31("user:linus"), linusHours = fnv31("schedule:linus/Working hours");
    assert.deepEqual(none, {
      id: fnv31("t-no-options"),
      ownerId: linus,
      title: "Test t-no-options",
      slug: "t-no-options",
      description: "",
      lengthInMinutes: 30,
      lengthInMinutesOptions: [30],
      locations: [{ type: "integration", integration: "cal-video" }],
      bookingFields: [
        { type: "name", slug: "name", label: "Your name", required: true },
        { type: "email", slug: "email", label: "Email address", required: true },
        { type: "text", slug: "title", label: "What is this meeting about?", required: false, hidden: true },
        { type: "textarea", slug: "notes", label: "Additional notes", required: false },
        { type: "multiemail", slug: "guests", label: "Add guests", required: false },
        {
          type: "textarea",
          slug: "rescheduleReason",
          label: "Reason for reschedule",
          required: false,
          hidden: true,
        },
      ],
      disableGuests: false,
      slotInterval: null,
      offsetStart: 0,
      minimumBookingNotice: 0,
      beforeEventBuffer: 0,
      afterEventBuffer: 0,
      recurrence: null,
      metadata: {
        requires: "anyone",
        below: null,
        weekly: null,
        monthly: null,
        scheduler: "native",
        sku: null,
        record: "session.t-no-options",
        team: null,
        form: null,
        customName: null,
      },
      price: 0,
      currency: "eur",
      lockTimeZoneToggleOnBookingPage: false,
      hideCalendarNotes: false,
      hideCalendarEventDetails: false,
      hideOrganizerEmail: false,
      successRedirectUrl: null,
      forwardParamsSuccessRedirect: true,
      hidden: false,
      requiresBookerEmailVerification: false,
      disableCancelling: false,
      disableRescheduling: false,
      allowReschedulingPastBookings: false,
      seatsPerTimeSlot: null,
      seatsShowAvailabilityCount: null,
      seats: { disabled: true },
      scheduleId: linusHours,
      requiresConfirmation: false,
      confirmationPolicy: { type: "disabled" },
      customName: null,
      users: [{ id: linus, name: "Linus Example", username: "linus" }],
      hosts: [{
        userId: linus,
        name: "Linus Example",
        mandatory: false,
        priority: "medium",
        scheduleId: linusHours,
      }],
      schedulingType: "ROUND_ROBIN",
      assignAllTeamMembers: false,
      teamId: null,
      bookingLimitsCount: {},
      bookingLimitsDuration: {},
      bookingWindow: null,
      _links: { book: `${host.baseUrl}/book/t-no-options` },
    });
  });
});

test("a paid checkout carries the booking's answers: fields, notes, guests, place and metadata reach the booking it makes", async () => {
  await withSessions([{
    slug: "t-paid-form",
    price: 25,
    host: "ada",
    options: { form: [{ slug: "company", type: "text", label: "Company", required: true }] },
  }], async () => {
    const email = `form-buyer-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const order = (extra: Record<string, unknown>) =>
      call("POST", `${host.baseUrl}/book/t-paid-form/checkout`, null, {
        start: at(137, 1, "08:00"),
        attendee: { name: "Form Buyer", email, timeZone: "Europe/Berlin" },
        ...extra,
      });
    assertError(await order({}), 400, "BAD_REQUEST"); // the required field, as a direct booking asks
    assertError(
      await order({ bookingFieldsResponses: { company: "x".repeat(600) } }),
      400,
      "BAD_REQUEST",
    );
    assert.equal(await sessionsOf(email), 0, "nothing was put up for payment");
    const opened = await order({
      bookingFieldsResponses: { company: "Acme", notes: "Bring the numbers" },
      guests: ["colleague@example.com"],
      metadata: { campaign: "spring" },
      location: "The buyer's office",
    });
    assert.equal(opened.status, 201, JSON.stringify(opened.body));
    // paid on the local provider's page: its event reaches the webhook route, which books
    const paid = await fetch(`${host.baseUrl}/pay/local/${opened.body.data.id}/pay`, {
      method: "POST",
      body: new URLSearchParams({ email }),
      redirect: "manual",
    });
    await paid.body?.cancel();
    assert.match(paid.headers.get("location") ?? "", /\?paid=cs_local_/);
    const state = await call("GET", `/payments/${opened.body.data.id}`, null);
    assert.equal(state.body.data.status, "booked", JSON.stringify(state.body));
    const booking = state.body.data.booking;
    assert.equal(booking.attendees[0].name, "Form Buyer");
    assert.deepEqual(booking.bookingFieldsResponses, {
      name: "Form Buyer",
      email,
      notes: "Bring the numbers",
      company: "Acme",
    });
    assert.equal(booking.description, "Bring the numbers");
    assert.deepEqual(booking.guests, ["colleague@example.com"]);
    assert.equal(booking.metadata.campaign, "spring");
    assert.equal(booking.location, "The buyer's office");
  });
});

test("list by teamId and teamsIds: the bookings of the team's types", async () => {
  await withSessions([
    { slug: "t-team-support", host: "ada", options: { team: "support" } },
    { slug: "t-team-sales", host: "linus", options: { team: "sales" } },
  ], async () => {
    const email = `teams-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const book = async (slug: string, start: string) => {
      const r = await call("POST", "/bookings", key, {
        ...guestBooking(slug, start),
        attendee: { name: "Teams", email, timeZone: "UTC" },
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body.data.uid;
    };
    const support = await book("t-team-support", at(138, 1, "08:00"));
    const sales = await book("t-team-sales", at(138, 2, "09:00"));
    const other = await book("intro-call", at(138, 3, "08:00"));
    const list = async (params: string) =>
      (await call("GET", `/bookings?attendeeEmail=${encodeURIComponent(email)}&${params}`, key)).body.data
        .map((b: any) => b.uid);
    assert.deepEqual(await list(""), [support, sales, other]);
    assert.deepEqual(await list(`teamId=${fnv31("team:support")}`), [support]);
    assert.deepEqual(await list(`teamsIds=${fnv31("team:support")},${fnv31("team:sales")}`), [
      support,
      sales,
    ]);
    assert.deepEqual(await list("teamId=12345"), []);
    assertError(await call("GET", "/bookings?teamId=support", key), 400, "BAD_REQUEST");
  });
});

test("a type with several places: the booking keeps the one chosen, and only the video call has a meeting room", async () => {
  const places = {
    location: "video",
    options: { locations: ["address:Harbour Room", { type: "attendeePhone" }] },
  };
  await withSessions([
    { slug: "t-places", host: "ada", ...places },
    {
      slug: "t-places-confirmed",
      host: "ada",
      ...places,
      options: { ...places.options, requiresConfirmation: true },
    },
  ], async () => {
    const type = (await call("GET", "/event-types/t-places", key)).body.data;
    assert.deepEqual(type.locations, [
      { type: "integration", integration: "cal-video" },
      { type: "address", address: "Harbour Room" },
      { type: "attendeePhone" },
    ]);
    let made = 0;
    const book = async (
      slug: string,
      location: unknown,
      phoneNumber: string | null = "+49 30 123456",
    ) => {
      const r = await call("POST", "/bookings", key, {
        // Ada's hours are 07:00Z-15:00Z here: six a day
        ...guestBooking(
          slug,
          at(139, 1 + Math.floor(made / 6), `${String(7 + made++ % 6).padStart(2, "0")}:00`),
        ),
        attendee: {
          name: "Placed",
          email: "placed@example.com",
          timeZone: "UTC",
          ...(phoneNumber === null ? {} : { phoneNumber }),
        },
        ...(location === undefined ? {} : { location }),
      });
      return r;
    };
    const placeOf = async (location: unknown) => {
      const r = await book("t-places", location);
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return [r.body.data.location, r.body.data.meetingUrl !== null];
    };
    assert.deepEqual(
      await placeOf(undefined),
      ["integrations:cal-video", true],
      "the first place by default",
    );
    assert.deepEqual(await placeOf("Harbour Room"), ["Harbour Room", false]);
    assert.deepEqual(await placeOf({ type: "address", address: "Harbour Room" }), ["Harbour Room", false]);
    assert.deepEqual(await placeOf("attendeePhone"), ["+49 30 123456", false]);
    assert.deepEqual(await placeOf({ type: "integration", integration: "cal-video" }), [
      "integrations:cal-video",
      true,
    ]);
    assert.deepEqual(await placeOf("Our usual café"), ["Our usual café", true], "a caller's own text");
    // Cal's attendeePhone place carries the number itself
    const called = await book("t-places", { type: "attendeePhone", phone: "+1 212 555 0100" }, null);
    assert.equal(called.status, 201, JSON.stringify(called.body));
    assert.equal(called.body.data.location, "+1 212 555 0100");
    assert.equal(called.body.data.attendees[0].phoneNumber, "+1 212 555 0100");
    assertError(await book("t-places", "x".repeat(501)), 400, "BAD_REQUEST");
    // confirmed later: the meeting room still follows the place chosen
    const inPerson = await book("t-places-confirmed", "Harbour Room");
    const online = await book("t-places-confirmed", undefined);
    for (const r of [inPerson, online]) {
      assert.equal(r.body.data.status, "pending", JSON.stringify(r.body));
      assert.equal(r.body.data.meetingUrl, null);
    }
    const confirmed = async (uid: string) => (await call("POST", `/bookings/${uid}/confirm`, key)).body.data;
    assert.equal((await confirmed(inPerson.body.data.uid)).meetingUrl, null);
    assert.match((await confirmed(online.body.data.uid)).meetingUrl, /\/book\/video\//);
  });
});

test("the booker page offers a type's places and guests: the visitor's choice and guests reach the booking", async () => {
  await withSessions([{
    slug: "t-booker-places",
    host: "ada",
    location: "video",
    options: { locations: ["address:Harbour Room", { type: "attendeePhone" }] },
  }], async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ timezoneId: "Europe/Berlin" });
      const day = addDays(monday(140), 1);
      await page.goto(`${host.baseUrl}/book/t-booker-places?month=${day.slice(0, 7)}`);
      assert.deepEqual(await page.locator("#f-location option").allTextContents(), [
        "Video call",
        "In person: Harbour Room",
        "By phone: we call you",
      ]);
      await page.locator(`button.day[data-day="${day}"]`).click({ timeout: 20_000 });
      const time = page.locator("button.time").first();
      const start = await time.getAttribute("data-start");
      await time.click();
      await page.locator("#f-location").selectOption({ label: "In person: Harbour Room" });
      await page.locator("#f-name").fill("Placed Visitor");
      const email = `placed-${crypto.randomUUID().slice(0, 8)}@example.com`;
      await page.locator("#f-email").fill(email);
      await page.locator("#f-phone").fill("+49 30 123456");
      await page.locator("#f-guests").fill("one@example.com, two@example.com");
      await page.locator("#submit").click();
      await page.locator("#done-title").filter({ hasText: "Booked." }).waitFor({ timeout: 20_000 });
      const [row] = await host.ctx.sql<
        { start_at: Date; location: string; guests: string[]; meeting_url: string | null }[]
      >`select start_at, location, guests, meeting_url from public.scheduling_bookings where attendee_email = ${email}`;
      assert.deepEqual({ ...row, start_at: row.start_at.getTime() }, {
        start_at: new Date(start!).getTime(),
        location: "Harbour Room",
        guests: ["one@example.com", "two@example.com"],
        meeting_url: null,
      });
      // a type without guests offers no guests field; one place needs no choice
      await page.goto(`${host.baseUrl}/book/phone-consult`);
      await page.locator("#lengths").waitFor({ state: "attached" });
      assert.equal(await page.locator("#f-guests").count(), 0);
      assert.equal(await page.locator("#f-location").count(), 0);
    } finally {
      await browser.close();
    }
  });
});

test("a hidden type is off a person's listing but bookable by its link, as Cal's hidden types are", async () => {
  await withSessions([{ slug: "t-hidden", host: "ada", options: { hidden: true } }], async () => {
    const slugs = async (token: string) =>
      (await call("GET", "/event-types", token)).body.data.map((t: any) => t.slug);
    const member = await person("member");
    assert.ok((await slugs(key)).includes("t-hidden"), "a key lists it");
    assert.ok((await slugs((await person("admin")).jwt)).includes("t-hidden"), "so does an administrator");
    assert.ok(!(await slugs(member.jwt)).includes("t-hidden"), "a person's listing leaves it out");
    const direct = await call("GET", "/event-types/t-hidden", member.jwt);
    assert.equal(direct.status, 200, "addressed by its slug it is there");
    // its link: the booker page, its times and a visitor's booking
    const page = await fetch(direct.body.data._links.book);
    await page.body?.cancel();
    assert.equal(page.status, 200);
    const day = addDays(monday(141), 1);
    const slots = await call("GET", `${host.baseUrl}/book/t-hidden/slots?start=${day}&end=${day}`, null);
    assert.equal(slots.status, 200, JSON.stringify(slots.body));
    const first = slots.body.data[day][0].start;
    const made = await call("POST", `${host.baseUrl}/book/t-hidden/bookings`, null, {
      start: first,
      attendee: {
        name: "Linked",
        email: `linked-${crypto.randomUUID().slice(0, 8)}@example.com`,
        timeZone: "UTC",
      },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
  });
});

test("the admission check answers the first failing step in the spec's order, whatever fails after it", async () => {
  await withSessions([
    { slug: "t-order", price: 40, location: "phone", options: { requires: "supporter" } },
    { slug: "t-order-hosted", price: 40, host: "ada", location: "phone", options: { requires: "supporter" } },
  ], async () => {
    const credit = async (email: string, slug: string) => {
      await host.ctx
        .sql`insert into public.scheduling_payments (session_id, status, event_type_slug, attendee_email)
                         values (${`cs_test_${crypto.randomUUID()}`}, 'unavailable', ${slug}, ${email})`;
    };
    const member = await person("member");
    const supporter = await person("member", { tier: "supporter" });
    const other = await person("member", { tier: "supporter" });
    const book = (slug: string, email: string, start: string, token = key, phoneNumber?: string) =>
      call("POST", "/bookings", token, {
        start,
        eventTypeSlug: slug,
        attendee: { name: "Order", email, timeZone: "UTC", ...(phoneNumber ? { phoneNumber } : {}) },
      });
    const start = at(142, 1, "08:00");
    // t-order fails every later step too: a supporter's type, paid, no host, by phone
    assertError(
      await book("t-order", `guest-${crypto.randomUUID()}@example.com`, start),
      403,
      "FORBIDDEN",
      "guest",
    );
    assertError(await book("t-order", member.email, start), 403, "FORBIDDEN", "not-included");
    assertError(await book("t-order", supporter.email, start), 402, "PAYMENT_REQUIRED", "unpaid");
    await credit(supporter.email, "t-order");
    assertError(await book("t-order", supporter.email, start), 503, "SERVICE_UNAVAILABLE");
    // t-order-hosted: a taken time, booked by a person for someone else
    await credit(other.email, "t-order-hosted");
    assert.equal((await book("t-order-hosted", other.email, start, key, "+49 30 1")).status, 201);
    await credit(supporter.email, "t-order-hosted");
    const phone = await book("t-order-hosted", supporter.email, start, other.jwt);
    assertError(phone, 400, "BAD_REQUEST");
    assert.match(phone.body.error.message, /phone/);
    assertError(
      await book("t-order-hosted", supporter.email, start, other.jwt, "+49 30 2"),
      409,
      "CONFLICT",
      "taken",
    );
    const own = await book("t-order-hosted", supporter.email, at(142, 1, "09:00"), other.jwt, "+49 30 2");
    assertError(own, 403, "FORBIDDEN");
    assert.equal(own.body.error.details, undefined, "no details code: the address is not the caller's");
    // and nothing of it spent the supporter's credits
    const [{ n }] = await host.ctx.sql<{ n: number }[]>`
      select count(*)::int as n from public.scheduling_payments
       where attendee_email = ${supporter.email} and booking_id is null`;
    assert.equal(n, 2);
  });
});
