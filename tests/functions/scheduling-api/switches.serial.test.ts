// Site-wide switches of the scheduling API: the module switches (the booker page and its paid bookings
// need only the sessions module; the API needs sessions and api), guest checkout, and a host schedule's
// own notice. Serial: they change the one settings row.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { withSettings } from "../../helpers/site-settings.ts";
import { fnv31 } from "../../../functions/scheduling-api/domain/hosts.ts";
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
// the weeks from 2031-01-06 + 126..127 (June 2033): nothing else books them
const at = (week: number, day: number, utc: string) => `${addDays(monday(week), day)}T${utc}:00.000Z`;

async function page(path: string) {
  const res = await fetch(`${host.baseUrl}${path}`);
  return { status: res.status, type: res.headers.get("content-type") ?? "", text: await res.text() };
}

test("the api module off: the booker page, its times, its bookings and its payments work; the API is 404", async () => {
  await withSettings((_config, modules) => (modules.api = false), async () => {
    const html = await page("/book/intro-call");
    assert.equal(html.status, 200, html.text.slice(0, 200));
    assert.match(html.type, /text\/html/);
    assert.equal((await page("/book/intro-call/embed?embed=")).status, 200);
    const slots = await call(
      "GET",
      `${host.baseUrl}/book/intro-call/slots?start=${monday(126)}&end=${addDays(monday(126), 1)}`,
      null,
    );
    assert.equal(slots.status, 200, JSON.stringify(slots.body));
    const first = slots.body.data[monday(126)][0].start;
    const made = await call(
      "POST",
      `${host.baseUrl}/book/intro-call/bookings`,
      null,
      guestBooking("intro-call", first),
    );
    assert.equal(made.status, 201, JSON.stringify(made.body));
    // a paid booking's checkout and the provider's events are the page's too
    const paid = await call("POST", `${host.baseUrl}/book/deep-dive/checkout`, null, {
      start: at(126, 1, "14:00"),
      attendee: {
        name: "Buyer",
        email: `api-off-${crypto.randomUUID().slice(0, 8)}@example.com`,
        timeZone: "UTC",
      },
    });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    assertError(
      await call("POST", "/payments/webhook", null, "{}", { "stripe-signature": "t=1,v1=00" }),
      401,
      "UNAUTHORIZED",
    );
    assertError(await call("GET", `/payments/${paid.body.data.id}`, null), 404, "NOT_FOUND");
    // the API itself is switched off, for a key as for anyone
    const api = await call("GET", "/event-types", key);
    assertError(api, 404, "NOT_FOUND");
    assert.match(api.body.error.message, /scheduling API is switched off/);
    assertError(
      await call("POST", "/bookings", key, guestBooking("intro-call", at(126, 2, "09:00"))),
      404,
      "NOT_FOUND",
    );
  });
});

test("the sessions module off: the booker page, its calls, the payment routes and the API are all 404", async () => {
  await withSettings((_config, modules) => (modules.sessions = false), async () => {
    // the pages a person opens answer the page's own 404, in HTML, not the API's JSON
    for (const path of ["/book/intro-call", "/book/intro-call/embed?embed=", "/book/video/some-room", "/book/no-such-type"]) {
      const html = await page(path);
      assert.equal(html.status, 404, path);
      assert.match(html.type, /^text\/html/, path);
      assert.match(html.text, /<h1>Session not found<\/h1>/, path);
    }
    assertError(
      await call(
        "GET",
        `${host.baseUrl}/book/intro-call/slots?start=${monday(126)}&end=${monday(126)}`,
        null,
      ),
      404,
      "NOT_FOUND",
    );
    assertError(await call("POST", "/payments/webhook", null, "{}"), 404, "NOT_FOUND");
    assertError(await call("GET", "/event-types", key), 404, "NOT_FOUND");
  });
  assert.equal((await page("/book/intro-call")).status, 200, "back on");
});

test("guest checkout off: a guest's checkout is 403 guest; a person with a profile still checks out", async () => {
  await withSettings((config) => (config.sessions.guestCheckout = false), async () => {
    const guest = await call("POST", `${host.baseUrl}/book/deep-dive/checkout`, null, {
      start: at(127, 1, "14:00"),
      attendee: {
        name: "Guest",
        email: `guest-${crypto.randomUUID().slice(0, 8)}@example.com`,
        timeZone: "UTC",
      },
    });
    assertError(guest, 403, "FORBIDDEN", "guest");
    const member = await person("member");
    const own = await call("POST", `${host.baseUrl}/book/deep-dive/checkout`, member.jwt, {
      start: at(127, 1, "14:00"),
      attendee: { name: "Member", email: member.email, timeZone: "UTC" },
    });
    assert.equal(own.status, 201, JSON.stringify(own.body));
  });
});

test("too-soon honours the notice a host's schedule asks for, as creation does", async () => {
  // intro-call has no notice of its own; Ada's working hours ask for 48 hours here
  await withSettings((config) => {
    const ada = config.sessions.hosts.find((h: any) => h.username === "ada");
    const hours = ada.schedules.find((s: any) => s.default);
    hours.metadata = { ...hours.metadata, noticeHours: 48 };
  }, async () => {
    const member = await person("member");
    const soon = new Date(Date.now() + 24 * 3600_000);
    const uid = `soon-${crypto.randomUUID().slice(0, 8)}`;
    await host.ctx.sql`
      insert into public.scheduling_bookings (uid, event_type_slug, event_type_id, title, start_at, end_at, status,
        host_emails, attendee_name, attendee_email, attendee_time_zone, ics_uid)
      values (${uid}, 'intro-call', ${fnv31("intro-call")}, 'Soon', ${soon}, ${new Date(
      soon.getTime() + 15 * 60_000,
    )},
              'accepted', ${["ada@demo.sitewire.dev"]}, 'M', ${member.email}, 'UTC', ${`${uid}@x`})`;
    assertError(
      await call("POST", `/bookings/${uid}/reschedule`, member.jwt, { start: at(127, 2, "09:00") }),
      403,
      "FORBIDDEN",
      "too-soon",
    );
    // a key is not bound by the notice for the booking's current time
    const moved = await call("POST", `/bookings/${uid}/reschedule`, key, { start: at(127, 2, "09:00") });
    assert.equal(moved.status, 201, JSON.stringify(moved.body));
  });
});

test("the upcoming and past lists' totalItems, taken from the live bookings kept per month, equal a count of the matches", async () => {
  const sql = host.ctx.sql;
  const tag = `months-${crypto.randomUUID().slice(0, 8)}`;
  const now = host.ctx.clock.now().getTime();
  const hour = 3_600_000;
  // around now: this month on both sides of now (a month's first instant too), earlier and later months;
  // live, pending and cancelled
  const ends = [-90 * 24, -40 * 24, -2, -1, 1, 2, 30 * 24, 70 * 24].map((h) => new Date(now + h * hour));
  const monthStart = new Date(Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1));
  ends.push(monthStart, new Date(monthStart.getTime() - 1000));
  let i = 0;
  for (const end of ends) {
    for (const status of ["accepted", "pending", "cancelled"]) {
      const uid = `${tag}-${i++}`;
      await sql`insert into public.scheduling_bookings (uid, event_type_slug, event_type_id, title, start_at, end_at, status,
                  host_emails, attendee_name, attendee_email, attendee_time_zone, ics_uid)
                values (${uid}, 'intro-call', ${fnv31("intro-call")}, 'Months', ${new Date(end.getTime() - 15 * 60_000)}, ${end},
                        ${status}, ${["ada@demo.sitewire.dev"]}, 'M', 'm@example.com', 'UTC', ${uid + "@x"})`;
    }
  }
  try {
    for (const status of ["upcoming", "past"]) {
      const kept = await call("GET", `/bookings?status=${status}&take=1`, key);
      // afterStart matching every booking: the same list, whose total is counted row by row
      const counted = await call("GET", `/bookings?status=${status}&take=1&afterStart=1970-01-01T00:00:00.000Z`, key);
      const [{ n }] = await sql<{ n: number }[]>`
        select count(*)::int as n from public.scheduling_bookings
        where status in ('accepted', 'pending') and ${status === "upcoming" ? sql`end_at >= ${new Date(now)}` : sql`end_at < ${new Date(now)}`}`;
      assert.equal(kept.status, 200, JSON.stringify(kept.body));
      assert.equal(kept.body.pagination.totalItems, counted.body.pagination.totalItems, status);
      // the clock moved on a little between the reads: no booking of this test ends in that moment
      assert.equal(kept.body.pagination.totalItems, n, status);
    }
  } finally {
    await sql`delete from public.scheduling_bookings where uid like ${tag + "-%"}`;
  }
});
