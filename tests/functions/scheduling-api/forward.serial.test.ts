// Types booked through an external scheduler: the demo's partner-call is pointed at a loopback service
// that speaks Cal.com's API v2 (its record's options.scheduler, and a key for it in sessions.schedulers),
// so slots and bookings are forwarded through the outbound guard and answered as the scheduler answers;
// its failures are 502, its refusals keep their meaning; the bookings are mirrored here and the intake
// keeps the mirrors current. Serial: it changes a published record and the site's configuration.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { withSettings } from "../../helpers/site-settings.ts";
import { createSchedulingApp } from "../../../functions/scheduling-api/app.ts";
import { fnv31 } from "../../../functions/scheduling-api/domain/hosts.ts";
import { INTAKE_SECRET } from "../../../functions/scheduling-api/routes/intake.ts";
import { hmacSha256Hex } from "../../../shared/webhooks/sign.ts";
import { assertError, call, guestBooking, host, person } from "./support.ts";

const key = await host.key("scheduling");
const START = "2032-06-07T09:00:00.000Z";

// the external scheduler: records what it is asked, answers as `answer` says
type Seen = { method: string; path: string; query: URLSearchParams; headers: Headers; body: any };
const seen: Seen[] = [];
let answer: (req: Seen) => Response = () => new Response("{}", { status: 500 });
const scheduler = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
  const url = new URL(req.url);
  const text = await req.text();
  const entry = {
    method: req.method,
    path: url.pathname,
    query: url.searchParams,
    headers: req.headers,
    body: text ? JSON.parse(text) : undefined,
  };
  seen.push(entry);
  return answer(entry);
});
const origin = `http://127.0.0.1:${scheduler.addr.port}`;
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

function calBooking(uid: string, attendeeEmail: string, extra: Record<string, unknown> = {}) {
  return {
    id: 9001,
    uid,
    title: "Partner call with the partner",
    description: "",
    hosts: [{
      id: 1,
      name: "Partner Host",
      email: "host@partner.example",
      username: "partner",
      timeZone: "UTC",
    }],
    status: "accepted",
    start: START,
    end: "2032-06-07T09:30:00.000Z",
    duration: 30,
    eventTypeId: 77,
    eventType: { id: 77, slug: "partner-call" },
    meetingUrl: "https://video.partner.example/r/1",
    location: "https://video.partner.example/r/1",
    attendees: [{ name: "Guest Person", email: attendeeEmail, timeZone: "Europe/Berlin", language: "en" }],
    guests: [],
    icsUid: `${uid}@partner.example`,
    ...extra,
  };
}

/** Points partner-call at the loopback scheduler (with a key for it) for the body, then puts both back. */
async function withScheduler(body: () => Promise<void>) {
  const sql = host.ctx.sql;
  const [entry] = await sql<{ fields: Record<string, Record<string, any>> }[]>`
    select fields from public.content_entries where stage = 'published' and id = 'session.partner-call'`;
  const fields = structuredClone(entry.fields);
  for (const locale of Object.keys(fields.options ?? {})) {
    fields.options[locale] = {
      ...fields.options[locale],
      scheduler: `${origin}/partner?username=ada-partner`,
    };
  }
  await sql`update public.content_entries set fields = ${sql.json(fields)}
            where stage = 'published' and id = 'session.partner-call'`;
  try {
    await withSettings((config) => {
      config.sessions = {
        ...config.sessions,
        schedulers: [{ url: `${origin}/partner`, key: "cal_live_partner" }],
      };
    }, body);
  } finally {
    await sql`update public.content_entries set fields = ${sql.json(entry.fields)}
              where stage = 'published' and id = 'session.partner-call'`;
  }
}

test("slots of an external type are the scheduler's, asked with its version header and key", () =>
  withScheduler(async () => {
    const theirs = {
      "2032-06-07": [{ start: "2032-06-07T11:00:00.000+02:00", end: "2032-06-07T11:30:00.000+02:00" }],
    };
    answer = () => json(200, { status: "success", data: theirs });
    seen.length = 0;
    const r = await call(
      "GET",
      "/slots?eventTypeSlug=partner-call&start=2032-06-07&end=2032-06-08&timeZone=Europe/Berlin&format=range",
      key,
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.data, theirs);
    assert.equal(seen.length, 1);
    const asked = seen[0];
    assert.equal(asked.method, "GET");
    assert.equal(asked.path, "/partner/v2/slots");
    assert.equal(asked.query.get("eventTypeSlug"), "partner-call");
    assert.equal(asked.query.get("username"), "ada-partner");
    assert.equal(asked.query.get("start"), "2032-06-07T00:00:00.000Z");
    assert.equal(asked.query.get("end"), "2032-06-08T23:59:59.999Z");
    assert.equal(asked.query.get("timeZone"), "Europe/Berlin");
    assert.equal(asked.query.get("format"), "range");
    assert.equal(asked.headers.get("cal-api-version"), "2024-09-04");
    assert.equal(asked.headers.get("authorization"), "Bearer cal_live_partner");
    answer = () => json(503, { status: "error", error: { code: "SERVICE_UNAVAILABLE", message: "down" } });
    const down = await call("GET", "/slots?eventTypeSlug=partner-call&start=2032-06-07&end=2032-06-08", key);
    assertError(down, 502, "BAD_GATEWAY");
    assert.equal(down.body.error.details.status, 503);
  }));

test("a booking is forwarded, answered as the scheduler made it (our type's id) and kept as a mirror", () =>
  withScheduler(async () => {
    const uid = `ext${crypto.randomUUID().replaceAll("-", "")}`;
    answer = (req) => json(201, { status: "success", data: calBooking(uid, req.body.attendee.email) });
    seen.length = 0;
    const request = guestBooking("partner-call", START, {
      bookingFieldsResponses: { notes: "From the site" },
      metadata: { campaign: "spring" },
    });
    const made = await call("POST", "/bookings", key, request);
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const sent = seen[0];
    assert.equal(sent.method, "POST");
    assert.equal(sent.path, "/partner/v2/bookings");
    assert.equal(sent.headers.get("cal-api-version"), "2024-08-13");
    assert.equal(sent.headers.get("authorization"), "Bearer cal_live_partner");
    assert.deepEqual(sent.body, {
      start: START,
      eventTypeSlug: "partner-call",
      username: "ada-partner",
      attendee: { ...request.attendee, language: "en" },
      guests: [],
      metadata: { campaign: "spring", sitewireEventTypeId: String(fnv31("partner-call")) },
      bookingFieldsResponses: { notes: "From the site" },
    });
    const b = made.body.data;
    assert.equal(b.uid, uid);
    assert.equal(b.eventTypeId, fnv31("partner-call"));
    assert.deepEqual(b.eventType, { id: fnv31("partner-call"), slug: "partner-call" });
    assert.equal(b.start, START);
    assert.equal(b.meetingUrl, "https://video.partner.example/r/1");
    assert.deepEqual(b.hosts.map((h: any) => h.email), ["host@partner.example"]);
    assert.deepEqual(b.metadata, { provider: origin, event: "session.partner-call", externalId: 9001 });
    assert.deepEqual((await call("GET", `/bookings/${uid}`, key)).body.data, b, "the mirror reads back");
    const [held] = await host.ctx.sql<{ n: number }[]>`
      select count(*)::int as n from public.scheduling_holds h join public.scheduling_bookings b on b.id = h.booking_id
       where b.uid = ${uid}`;
    assert.equal(held.n, 0, "the scheduler owns the time: nothing is held here");
  }));

test("acting on a mirrored booking forwards the action: cancel, and a move the scheduler makes a new booking", () =>
  withScheduler(async () => {
    const uid = `act${crypto.randomUUID().replaceAll("-", "")}`;
    answer = (req) => json(201, { status: "success", data: calBooking(uid, req.body.attendee.email) });
    const made = (await call("POST", "/bookings", key, guestBooking("partner-call", START))).body.data;
    assert.equal(made.uid, uid);

    // the scheduler fails: 502, and the mirror stays as it was
    answer = () => json(500, { status: "error", error: { message: "boom" } });
    assertError(
      await call("POST", `/bookings/${uid}/cancel`, key, { cancellationReason: "x" }),
      502,
      "BAD_GATEWAY",
    );
    assert.equal((await call("GET", `/bookings/${uid}`, key)).body.data.status, "accepted");

    // a move: Cal.com makes a new booking and answers it
    const next = `next${crypto.randomUUID().replaceAll("-", "")}`;
    seen.length = 0;
    answer = (req) =>
      json(201, {
        status: "success",
        data: calBooking(next, made.attendees[0].email, {
          start: req.body.start,
          end: "2032-06-10T09:30:00.000Z",
          rescheduledFromUid: uid,
          reschedulingReason: req.body.reschedulingReason,
        }),
      });
    const moved = await call("POST", `/bookings/${uid}/reschedule`, key, {
      start: "2032-06-10T09:00:00.000Z",
      reschedulingReason: "clash",
    });
    assert.equal(moved.status, 201, JSON.stringify(moved.body));
    assert.equal(seen[0].path, `/partner/v2/bookings/${uid}/reschedule`);
    assert.deepEqual(seen[0].body, { start: "2032-06-10T09:00:00.000Z", reschedulingReason: "clash" });
    assert.equal(moved.body.data.uid, next);
    assert.equal(moved.body.data.rescheduledFromUid, uid);
    assert.equal(moved.body.data.start, "2032-06-10T09:00:00.000Z");
    assert.equal((await call("GET", `/bookings/${uid}`, key)).body.data.status, "rescheduled");

    // a cancel: the same booking, cancelled there and here
    seen.length = 0;
    answer = () =>
      json(200, {
        status: "success",
        data: calBooking(next, made.attendees[0].email, {
          start: "2032-06-10T09:00:00.000Z",
          end: "2032-06-10T09:30:00.000Z",
          status: "cancelled",
          cancellationReason: "ill",
        }),
      });
    const cancelled = await call("POST", `/bookings/${next}/cancel`, key, { cancellationReason: "ill" });
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(seen[0].path, `/partner/v2/bookings/${next}/cancel`);
    assert.deepEqual(seen[0].body, { cancellationReason: "ill" });
    assert.equal(cancelled.body.data.status, "cancelled");
    assert.equal(cancelled.body.data.cancellationReason, "ill");
    assertError(await call("POST", `/bookings/${next}/cancel`, key, {}), 400, "BAD_REQUEST");

    // a booking the scheduler holds for confirmation: confirming it is the scheduler's to do too
    const waiting = `wait${crypto.randomUUID().replaceAll("-", "")}`;
    answer = (req) =>
      json(201, {
        status: "success",
        data: calBooking(waiting, req.body.attendee.email, { status: "pending" }),
      });
    const pending = (await call("POST", "/bookings", key, guestBooking("partner-call", START))).body.data;
    assert.equal(pending.status, "pending");
    seen.length = 0;
    answer = () =>
      json(200, {
        status: "success",
        data: calBooking(waiting, pending.attendees[0].email, { status: "accepted" }),
      });
    const confirmed = await call("POST", `/bookings/${waiting}/confirm`, key);
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    assert.equal(seen[0].path, `/partner/v2/bookings/${waiting}/confirm`);
    assert.equal(confirmed.body.data.status, "accepted");
  }));

test("the scheduler's refusals keep their meaning; its failures are 502; nothing is kept", () =>
  withScheduler(async () => {
    const cases: [Response, number, string, string?][] = [
      [
        json(409, { status: "error", error: { code: "CONFLICT", message: "slot taken" } }),
        409,
        "CONFLICT",
        "taken",
      ],
      [
        json(400, { status: "error", error: { code: "BAD_REQUEST", message: "bad phone" } }),
        400,
        "BAD_REQUEST",
      ],
      [json(500, { status: "error", error: { message: "boom" } }), 502, "BAD_GATEWAY"],
      [json(401, { status: "error", error: { message: "no key" } }), 502, "BAD_GATEWAY"],
      [new Response("<html>proxy error</html>", { status: 200 }), 502, "BAD_GATEWAY"],
      [json(201, { status: "success", data: { title: "no uid" } }), 502, "BAD_GATEWAY"],
      [
        new Response(null, { status: 302, headers: { location: "http://169.254.169.254/" } }),
        502,
        "BAD_GATEWAY",
      ],
    ];
    for (const [response, status, code, detail] of cases) {
      answer = () => response;
      const before = await host.ctx.sql<{ n: number }[]>`
        select count(*)::int as n from public.scheduling_bookings where event_type_slug = 'partner-call'`;
      const r = await call("POST", "/bookings", key, guestBooking("partner-call", START));
      assertError(r, status, code, detail);
      const after = await host.ctx.sql<{ n: number }[]>`
        select count(*)::int as n from public.scheduling_bookings where event_type_slug = 'partner-call'`;
      assert.equal(after[0].n, before[0].n, `${status}: no mirror`);
    }
  }));

test("the admission comes first: another's address is 403 and the scheduler is never asked", () =>
  withScheduler(async () => {
    answer = () => json(500, {});
    seen.length = 0;
    const member = await person("member");
    assertError(
      await call("POST", "/bookings", member.jwt, guestBooking("partner-call", START)),
      403,
      "FORBIDDEN",
    );
    assertError(
      await call("POST", "/bookings", key, {
        ...guestBooking("partner-call", START),
        attendee: { name: "x" },
      }),
      400,
      "BAD_REQUEST",
    );
    assert.equal(seen.length, 0);
  }));

test("the outbound guard: where private targets are not allowed, a loopback scheduler is refused unasked", () =>
  withScheduler(async () => {
    answer = () => json(201, {});
    seen.length = 0;
    const strict = createSchedulingApp({
      ...host.ctx,
      config: { ...host.ctx.config, allowPrivateWebhookTargets: false },
    });
    const res = await strict.request("http://strict.test/v2/bookings", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(guestBooking("partner-call", START)),
    });
    const body = await res.json();
    assert.equal(res.status, 502);
    assert.equal(body.error.code, "BAD_GATEWAY");
    assert.match(body.error.message, /refused \(loopback address 127\.0\.0\.1\)/);
    assert.equal(seen.length, 0);
  }));

test("intake keeps the mirrors: a booking made at the scheduler, cancelled there, moved there", () =>
  withScheduler(async () => {
    const secret = await host.ctx.secrets.get(INTAKE_SECRET);
    const intake = async (triggerEvent: string, payload: Record<string, unknown>) => {
      const body = JSON.stringify({ triggerEvent, createdAt: new Date().toISOString(), payload });
      const r = await call("POST", "/intake", null, body, {
        "x-cal-signature-256": await hmacSha256Hex(secret, body),
      });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.data;
    };
    const payload = (uid: string, extra: Record<string, unknown> = {}) => ({
      type: "partner-call-there",
      uid,
      bookingId: 42,
      title: "Made at the partner",
      startTime: "2032-06-08T10:00:00.000Z",
      endTime: "2032-06-08T10:30:00.000Z",
      organizer: { name: "Partner Host", email: "host@partner.example" },
      attendees: [{
        name: "Direct",
        email: "direct@example.com",
        timeZone: "UTC",
        language: { locale: "en" },
      }],
      metadata: { sitewireEventTypeId: String(fnv31("partner-call")) },
      status: "ACCEPTED",
      ...extra,
    });
    const first = `there${crypto.randomUUID().replaceAll("-", "")}`;
    assert.equal((await intake("BOOKING_CREATED", payload(first))).accepted, true);
    const kept = (await call("GET", `/bookings/${first}`, key)).body.data;
    assert.equal(kept.status, "accepted");
    assert.equal(kept.start, "2032-06-08T10:00:00.000Z");
    assert.deepEqual(kept.attendees.map((a: any) => a.email), ["direct@example.com"]);
    assert.equal(kept.metadata.provider, origin);

    const moved = `moved${crypto.randomUUID().replaceAll("-", "")}`;
    await intake(
      "BOOKING_RESCHEDULED",
      payload(moved, {
        rescheduleUid: first,
        startTime: "2032-06-09T10:00:00.000Z",
        endTime: "2032-06-09T10:30:00.000Z",
      }),
    );
    assert.equal((await call("GET", `/bookings/${first}`, key)).body.data.status, "rescheduled");
    const now = (await call("GET", `/bookings/${moved}`, key)).body.data;
    assert.equal(now.start, "2032-06-09T10:00:00.000Z");
    assert.equal(now.rescheduledFromUid, first);

    await intake("BOOKING_CANCELLED", payload(moved, { cancellationReason: "changed plans" }));
    const cancelled = (await call("GET", `/bookings/${moved}`, key)).body.data;
    assert.equal(cancelled.status, "cancelled");
    assert.equal(cancelled.cancellationReason, "changed plans");

    // a native booking that happens to be named in an intake event is never touched
    const native =
      (await call("POST", "/bookings", key, guestBooking("intro-call", "2032-06-08T09:00:00.000Z")))
        .body.data;
    await intake("BOOKING_CANCELLED", payload(native.uid));
    assert.equal((await call("GET", `/bookings/${native.uid}`, key)).body.data.status, "accepted");
  }));

test("a session record written in the database is a type at once, and gone at once (the catalogue stamp)", async () => {
  const sql = host.ctx.sql;
  const id = `session.stamp-${crypto.randomUUID().slice(0, 8)}`;
  const slug = id.slice("session.".length);
  await sql`insert into public.content_entries (stage, id, model_id, path, fields)
            values ('published', ${id}, 'session', ${`records/sessions/${slug}.md`},
                    ${
    sql.json({
      title: { "en-US": "Stamped" },
      slug: { "en-US": slug },
      lengths: { "en-US": ["20"] },
      host: { "en-US": "ada" },
    })
  })`;
  try {
    const found = await call("GET", `/event-types/${slug}`, key);
    assert.equal(found.status, 200, JSON.stringify(found.body));
    assert.equal(found.body.data.title, "Stamped");
  } finally {
    await sql`delete from public.content_entries where stage = 'published' and id = ${id}`;
  }
  assertError(await call("GET", `/event-types/${slug}`, key), 404, "NOT_FOUND");
});
