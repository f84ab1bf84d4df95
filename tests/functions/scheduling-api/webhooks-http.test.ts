// Scheduling webhooks: CRUD (key only; 405 for people), delivery through the outbox to a loopback
// receiver that verifies X-Cal-Signature-256, the eventTypeId filter, payload templates, lastError
// and retries, and the intake route's re-emission. These tests take the weeks from 2031-01-06 + 40..47.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { fnv31 } from "../../../functions/scheduling-api/domain/hosts.ts";
import { schedulingWebhookAdapter } from "../../../functions/scheduling-api/webhook-adapter.ts";
import { INTAKE_SECRET } from "../../../functions/scheduling-api/routes/intake.ts";
import { createDispatcher } from "../../../shared/webhooks/dispatcher.ts";
import { allWebhookAdapters } from "../../../web/webhook-adapters.ts";
import { hmacSha256Hex } from "../../../shared/webhooks/sign.ts";
import { addDays, assertError, call, guestBooking, host, hostPerson, monday, person } from "./support.ts";

const key = await host.key("scheduling");
const at = (week: number, day: number, utc: string) => `${addDays(monday(week), day)}T${utc}:00.000Z`;

// a loopback receiver: records every delivery; answers 500 while `failing`
const received: { headers: Headers; body: string }[] = [];
let failing = false;
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
  received.push({ headers: req.headers, body: await req.text() });
  return new Response(failing ? "no" : "ok", { status: failing ? 500 : 200 });
});
const receiver = `http://127.0.0.1:${server.addr.port}/hook`;
// other test files run their own dispatchers in parallel processes: each claims only what is
// addressed to its own receiver, so no process delivers (or fails) another's rows
const dispatcher = createDispatcher({
  sql: host.ctx.sql,
  adapters: { scheduling: schedulingWebhookAdapter(host.ctx.sql) },
  allowPrivate: true,
  listen: false,
  targets: [receiver],
});
async function deliverAll() {
  for (let i = 0; i < 5; i++) if ((await dispatcher.runOnce()).claimed === 0) break;
}
// a JSON body's members, or a form-encoded body's fields (a payload template that is not JSON)
const bodyOf = (body: string): any => {
  try {
    return JSON.parse(body);
  } catch {
    return Object.fromEntries(new URLSearchParams(body));
  }
};
const payloadsFor = (uid: string) =>
  received.map((r) => ({ ...r, json: bodyOf(r.body) })).filter((r) =>
    r.json.payload?.uid === uid || r.json.uid === uid
  );

test("webhook CRUD: create 201 without the secret, get by id or uuid, patch, delete; 400s and 404s", async () => {
  const created = await call("POST", "/webhooks", key, {
    subscriberUrl: receiver,
    triggers: ["BOOKING_CREATED"],
    secret: "s3cret",
    active: false,
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const w = created.body.data;
  for (
    const f of [
      "id",
      "uid",
      "subscriberUrl",
      "triggers",
      "active",
      "payloadTemplate",
      "eventTypeId",
      "userId",
      "createdAt",
      "updatedAt",
      "lastDeliveredAt",
      "lastError",
    ]
  ) assert.ok(f in w, f);
  assert.ok(!("secret" in w));
  assert.equal(typeof w.id, "number");
  assert.deepEqual((await call("GET", `/webhooks/${w.id}`, key)).body.data, w);
  assert.deepEqual((await call("GET", `/webhooks/${w.uid}`, key)).body.data, w);
  const patched = await call("PATCH", `/webhooks/${w.uid}`, key, {
    triggers: ["BOOKING_CANCELLED", "MEETING_ENDED"],
    eventTypeId: fnv31("intro-call"),
  });
  assert.deepEqual(patched.body.data.triggers, ["BOOKING_CANCELLED", "MEETING_ENDED"]);
  assert.equal(patched.body.data.eventTypeId, fnv31("intro-call"));
  assert.ok((await call("GET", "/webhooks", key)).body.data.some((x: any) => x.id === w.id));
  assertError(
    await call("POST", "/webhooks", key, { subscriberUrl: receiver, triggers: ["FORM_SUBMITTED"] }),
    400,
    "BAD_REQUEST",
  );
  assertError(
    await call("POST", "/webhooks", key, { subscriberUrl: receiver, triggers: [] }),
    400,
    "BAD_REQUEST",
  );
  assertError(
    await call("POST", "/webhooks", key, { subscriberUrl: "ftp://x", triggers: ["BOOKING_CREATED"] }),
    400,
    "BAD_REQUEST",
  );
  assertError(await call("POST", "/webhooks", key, { triggers: ["BOOKING_CREATED"] }), 400, "BAD_REQUEST");
  assertError(
    await call("POST", "/webhooks", key, {
      subscriberUrl: receiver,
      triggers: ["BOOKING_CREATED"],
      eventTypeId: 1,
    }),
    400,
    "BAD_REQUEST",
  );
  assertError(await call("PATCH", `/webhooks/${w.id}`, key, { active: "yes" }), 400, "BAD_REQUEST");
  assert.equal((await call("DELETE", `/webhooks/${w.id}`, key)).status, 200);
  assertError(await call("GET", `/webhooks/${w.id}`, key), 404, "NOT_FOUND");
  assertError(await call("GET", "/webhooks/not-a-ref", key), 404, "NOT_FOUND");
});

test("webhooks auth: key only; a person's and an administrator's JWT are 405; other kinds 403; none 401", async () => {
  const member = await person("member"), admin = await person("admin");
  for (const token of [member.jwt, admin.jwt]) {
    assertError(await call("GET", "/webhooks", token), 405, "METHOD_NOT_ALLOWED");
    assertError(
      await call("POST", "/webhooks", token, { subscriberUrl: receiver, triggers: ["BOOKING_CREATED"] }),
      405,
      "METHOD_NOT_ALLOWED",
    );
    assertError(await call("DELETE", "/webhooks/1", token), 405, "METHOD_NOT_ALLOWED");
  }
  assertError(await call("GET", "/webhooks", await host.key("support")), 403, "FORBIDDEN");
  assertError(await call("GET", "/webhooks", await host.revokedKey("scheduling")), 401, "UNAUTHORIZED");
  assertError(await call("GET", "/webhooks", null), 401, "UNAUTHORIZED");
});

test("delivery: signed with X-Cal-Signature-256 (hex HMAC of the exact body), one per event, per trigger", async () => {
  const hook = (await call("POST", "/webhooks", key, {
    subscriberUrl: receiver,
    triggers: ["BOOKING_CREATED", "BOOKING_RESCHEDULED", "BOOKING_CANCELLED"],
    secret: "whsec-1",
  })).body.data;
  const plain =
    (await call("POST", "/webhooks", key, { subscriberUrl: receiver, triggers: ["BOOKING_CANCELLED"] })).body
      .data;
  try {
    const b = (await call(
      "POST",
      "/bookings",
      key,
      guestBooking("intro-call", at(40, 1, "09:00"), { bookingFieldsResponses: { notes: "hi" } }),
    )).body.data;
    await call("POST", `/bookings/${b.uid}/reschedule`, key, {
      start: at(40, 1, "10:00"),
      reschedulingReason: "clash",
    });
    await call("POST", `/bookings/${b.uid}/cancel`, key, { cancellationReason: "ill" });
    await deliverAll();
    const got = payloadsFor(b.uid);
    const signed = got.filter((r) => r.headers.get("x-cal-signature-256") !== "no-secret-provided");
    assert.deepEqual(signed.map((r) => r.json.triggerEvent).sort(), [
      "BOOKING_CANCELLED",
      "BOOKING_CREATED",
      "BOOKING_RESCHEDULED",
    ]);
    for (const r of signed) {
      assert.equal(r.headers.get("x-cal-signature-256"), await hmacSha256Hex("whsec-1", r.body));
      assert.equal(r.headers.get("content-type"), "application/json");
      const p = r.json.payload;
      for (
        const f of [
          "type",
          "title",
          "description",
          "additionalNotes",
          "customInputs",
          "startTime",
          "endTime",
          "organizer",
          "attendees",
          "location",
          "destinationCalendar",
          "uid",
          "bookingId",
          "eventTypeId",
          "eventTitle",
          "status",
          "metadata",
          "responses",
        ]
      ) assert.ok(f in p, `${r.json.triggerEvent} has ${f}`);
      assert.equal(p.type, "intro-call");
      assert.equal(p.eventTypeId, fnv31("intro-call"));
      assert.equal(p.organizer.username, "ada");
      assert.equal(p.additionalNotes, "hi");
    }
    const byTrigger = Object.fromEntries(signed.map((r) => [r.json.triggerEvent, r.json.payload]));
    assert.equal(byTrigger.BOOKING_CREATED.status, "ACCEPTED");
    assert.equal(byTrigger.BOOKING_RESCHEDULED.rescheduleUid, b.uid);
    assert.equal(byTrigger.BOOKING_RESCHEDULED.startTime, at(40, 1, "10:00"));
    assert.equal(byTrigger.BOOKING_CANCELLED.status, "CANCELLED");
    assert.equal(byTrigger.BOOKING_CANCELLED.cancellationReason, "ill");
    assert.equal(byTrigger.BOOKING_CANCELLED.bookingId, b.id);
    const unsigned = got.filter((r) => r.headers.get("x-cal-signature-256") === "no-secret-provided");
    assert.deepEqual(unsigned.map((r) => r.json.triggerEvent), ["BOOKING_CANCELLED"]);
    assert.ok((await call("GET", `/webhooks/${hook.id}`, key)).body.data.lastDeliveredAt);
  } finally {
    await call("DELETE", `/webhooks/${hook.id}`, key);
    await call("DELETE", `/webhooks/${plain.id}`, key);
  }
});

test("the eventTypeId filter and a JSON payload template", async () => {
  const only = (await call("POST", "/webhooks", key, {
    subscriberUrl: receiver,
    triggers: ["BOOKING_CREATED", "BOOKING_REJECTED"],
    eventTypeId: fnv31("team-call"),
    payloadTemplate: '{"what":"{{triggerEvent}}","who":"{{organizer.name}}","uid":"{{uid}}"}',
  })).body.data;
  try {
    const intro =
      (await call("POST", "/bookings", key, guestBooking("intro-call", at(41, 1, "09:00")))).body.data;
    const team =
      (await call("POST", "/bookings", key, guestBooking("team-call", at(41, 1, "14:00")))).body.data;
    await deliverAll();
    assert.equal(payloadsFor(intro.uid).length, 0, "another type's booking is not sent");
    const got = payloadsFor(team.uid);
    assert.equal(got.length, 1);
    assert.deepEqual(got[0].json, { what: "BOOKING_CREATED", who: "Ada Example", uid: team.uid });
  } finally {
    await call("DELETE", `/webhooks/${only.id}`, key);
  }
});

test("a failing subscriber: lastError is stored, the delivery is retried and then succeeds", async () => {
  const hook = (await call("POST", "/webhooks", key, {
    subscriberUrl: receiver,
    triggers: ["BOOKING_CREATED"],
    eventTypeId: fnv31("workshop"),
    secret: "k",
  })).body.data;
  try {
    failing = true;
    const b = (await call("POST", "/bookings", key, guestBooking("workshop", at(42, 1, "08:30")))).body.data;
    await deliverAll();
    failing = false;
    const after = (await call("GET", `/webhooks/${hook.id}`, key)).body.data;
    assert.equal(after.lastError, "HTTP 500");
    // the retry is due after the backoff: make it due now. A second back, because the claim compares it
    // with the dispatcher's clock in whole milliseconds while now() has microseconds: within the same
    // millisecond "now" would still be a few microseconds in the future.
    await host.ctx
      .sql`update public.webhook_outbox set next_attempt_at = now() - interval '1 second' where api = 'scheduling' and subscription_id = ${
      String(hook.id)
    } and status = 'pending'`;
    await deliverAll();
    assert.equal(payloadsFor(b.uid).length, 2, "one failed attempt, one delivered");
    assert.equal((await call("GET", `/webhooks/${hook.id}`, key)).body.data.lastError, null);
  } finally {
    failing = false;
    await call("DELETE", `/webhooks/${hook.id}`, key);
  }
});

test("intake: a signed external booking event is re-emitted; a bad signature is 401; other triggers acknowledged", async () => {
  const hook = (await call("POST", "/webhooks", key, {
    subscriberUrl: receiver,
    triggers: ["BOOKING_CREATED"],
    eventTypeId: fnv31("partner-call"),
    secret: "re",
  })).body.data;
  try {
    const uid = `ext-${crypto.randomUUID()}`;
    const body = JSON.stringify({
      triggerEvent: "BOOKING_CREATED",
      createdAt: new Date().toISOString(),
      payload: { type: "partner-call", uid, title: "Partner", startTime: at(43, 1, "10:00") },
    });
    const secret = await host.ctx.secrets.get(INTAKE_SECRET);
    const post = (b: string, sig: string) => call("POST", "/intake", null, b, { "x-cal-signature-256": sig });
    // one hex digit changed (never the same digit: a fixed "00" prefix matched one signature in 256)
    const signature = await hmacSha256Hex(secret, body);
    const forged = (signature[0] === "0" ? "1" : "0") + signature.slice(1);
    assertError(await post(body, forged), 401, "UNAUTHORIZED");
    assertError(await post(body, ""), 401, "UNAUTHORIZED");
    const ok = await post(body, await hmacSha256Hex(secret, body));
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.deepEqual(ok.body.data, { accepted: true, triggerEvent: "BOOKING_CREATED", deliveries: 1 });
    const other = JSON.stringify({ triggerEvent: "OOO_CREATED", payload: {} });
    assert.equal((await post(other, await hmacSha256Hex(secret, other))).body.data.accepted, false);
    const broken = "{not json";
    assertError(await post(broken, await hmacSha256Hex(secret, broken)), 400, "BAD_REQUEST");
    // signed, but holding text Postgres cannot keep in the mirror: refused, never a 5xx
    const unstorable = JSON.stringify({
      triggerEvent: "BOOKING_CREATED",
      payload: { type: "partner-call", uid: `${uid}-nul`, title: "A\u0000B", startTime: at(43, 2, "10:00") },
    });
    const nul = await post(unstorable, await hmacSha256Hex(secret, unstorable));
    assertError(nul, 400, "BAD_REQUEST");
    assert.equal(nul.body.error.details.field, "payload.title");
    await deliverAll();
    const got = payloadsFor(uid);
    assert.equal(got.length, 1);
    assert.equal(got[0].json.payload.eventTypeId, fnv31("partner-call"));
    assert.equal(got[0].headers.get("x-cal-signature-256"), await hmacSha256Hex("re", got[0].body));
  } finally {
    await call("DELETE", `/webhooks/${hook.id}`, key);
  }
});

test("intake: every trigger the spec names is re-emitted, each signed (no-show and recording only come this way)", async () => {
  const triggers = [
    "BOOKING_CREATED",
    "BOOKING_RESCHEDULED",
    "BOOKING_CANCELLED",
    "BOOKING_REJECTED",
    "MEETING_STARTED",
    "MEETING_ENDED",
    "BOOKING_NO_SHOW_UPDATED",
    "RECORDING_READY",
  ];
  const created = await call("POST", "/webhooks", key, {
    subscriberUrl: receiver,
    triggers,
    eventTypeId: fnv31("partner-call"),
    secret: "every-trigger",
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  assert.deepEqual(created.body.data.triggers, triggers);
  try {
    const secret = await host.ctx.secrets.get(INTAKE_SECRET);
    const uid = `ext-${crypto.randomUUID()}`;
    for (const trigger of triggers) {
      const body = JSON.stringify({
        triggerEvent: trigger,
        createdAt: new Date().toISOString(),
        payload: {
          type: "partner-call",
          uid,
          title: "Partner",
          startTime: at(47, 1, "10:00"),
          endTime: at(47, 1, "10:30"),
          ...(trigger === "RECORDING_READY" ? { downloadLink: "https://partner.example/rec/1" } : {}),
          ...(trigger === "BOOKING_NO_SHOW_UPDATED"
            ? { attendees: [{ email: "a@x.test", noShow: true }] }
            : {}),
        },
      });
      const answer = await call("POST", "/intake", null, body, {
        "x-cal-signature-256": await hmacSha256Hex(secret, body),
      });
      assert.deepEqual(answer.body.data, { accepted: true, triggerEvent: trigger, deliveries: 1 }, trigger);
    }
    await deliverAll();
    const got = payloadsFor(uid);
    assert.deepEqual(got.map((r) => r.json.triggerEvent).sort(), [...triggers].sort());
    for (const r of got) {
      assert.equal(
        r.headers.get("x-cal-signature-256"),
        await hmacSha256Hex("every-trigger", r.body),
        r.json.triggerEvent,
      );
      assert.equal(r.json.payload.eventTypeId, fnv31("partner-call"));
    }
    const byTrigger = Object.fromEntries(got.map((r) => [r.json.triggerEvent, r.json.payload]));
    assert.equal(byTrigger.RECORDING_READY.downloadLink, "https://partner.example/rec/1");
    assert.deepEqual(byTrigger.BOOKING_NO_SHOW_UPDATED.attendees, [{ email: "a@x.test", noShow: true }]);
  } finally {
    await call("DELETE", `/webhooks/${created.body.data.id}`, key);
  }
});

test("the one dispatcher task dev runs (every API's adapter, web/webhook-adapters.ts) delivers scheduling events", async () => {
  const hook = (await call("POST", "/webhooks", key, {
    subscriberUrl: receiver,
    triggers: ["BOOKING_CREATED"],
    eventTypeId: fnv31("panel"),
    secret: "all-in-one",
  })).body.data;
  try {
    const member = await person("member");
    const b = await call("POST", "/bookings", member.jwt, {
      ...guestBooking("panel", at(44, 1, "08:45")),
      attendee: { name: "Member", email: member.email, timeZone: "UTC" },
    });
    assert.equal(b.status, 201, JSON.stringify(b.body));
    const all = createDispatcher({
      sql: host.ctx.sql,
      adapters: allWebhookAdapters(host.ctx),
      allowPrivate: true,
      listen: false,
      targets: [receiver],
    });
    for (let i = 0; i < 5; i++) if ((await all.runOnce()).claimed === 0) break;
    const got = payloadsFor(b.body.data.uid);
    assert.equal(got.length, 1);
    assert.equal(got[0].headers.get("x-cal-signature-256"), await hmacSha256Hex("all-in-one", got[0].body));
  } finally {
    await call("DELETE", `/webhooks/${hook.id}`, key);
  }
});

test("a pending booking sends BOOKING_CREATED when its host confirms it, BOOKING_REJECTED when declined", async () => {
  const hook = (await call("POST", "/webhooks", key, {
    subscriberUrl: receiver,
    triggers: ["BOOKING_CREATED", "BOOKING_REJECTED"],
    eventTypeId: fnv31("deep-dive"),
    secret: "decide",
  })).body.data;
  try {
    // deep-dive is paid and needs confirmation: two credits, as two paid checkouts would leave
    const email = `decide-${crypto.randomUUID().slice(0, 8)}@example.com`;
    for (let i = 0; i < 2; i++) {
      await host.ctx
        .sql`insert into public.scheduling_payments (session_id, status, event_type_slug, attendee_email)
                         values (${`cs_test_${crypto.randomUUID()}`}, 'unavailable', 'deep-dive', ${email})`;
    }
    const book = async (start: string) =>
      (await call("POST", "/bookings", key, {
        ...guestBooking("deep-dive", start),
        attendee: { name: "Decide", email, timeZone: "UTC" },
      })).body.data;
    const confirmed = await book(at(45, 1, "15:00"));
    const declined = await book(at(45, 2, "15:00"));
    assert.equal(confirmed.status, "pending");
    await deliverAll();
    assert.deepEqual(payloadsFor(confirmed.uid), [], "nothing is made while the host has not decided");

    const grace = await hostPerson("grace");
    assert.equal((await call("POST", `/bookings/${confirmed.uid}/confirm`, grace.jwt)).status, 200);
    assert.equal(
      (await call("POST", `/bookings/${declined.uid}/decline`, key, { reason: "Fully booked" })).status,
      200,
    );
    await deliverAll();
    const made = payloadsFor(confirmed.uid);
    assert.deepEqual(made.map((r) => [r.json.triggerEvent, r.json.payload.status]), [[
      "BOOKING_CREATED",
      "ACCEPTED",
    ]]);
    assert.match(made[0].json.payload.videoCallData.url, /\/book\/video\//);
    const rejected = payloadsFor(declined.uid);
    assert.deepEqual(rejected.map((r) => [r.json.triggerEvent, r.json.payload.status]), [[
      "BOOKING_REJECTED",
      "REJECTED",
    ]]);
    assert.equal(rejected[0].json.payload.cancellationReason, "Fully booked");
    for (const r of [...made, ...rejected]) {
      assert.equal(r.headers.get("x-cal-signature-256"), await hmacSha256Hex("decide", r.body));
    }
  } finally {
    await call("DELETE", `/webhooks/${hook.id}`, key);
  }
});

test("a payload template that is not JSON is sent as rendered, form-encoded", async () => {
  const hook = (await call("POST", "/webhooks", key, {
    subscriberUrl: receiver,
    triggers: ["BOOKING_CREATED"],
    eventTypeId: fnv31("panel"),
    payloadTemplate: "event={{triggerEvent}}&uid={{uid}}&who={{organizer.name}}",
  })).body.data;
  try {
    const member = await person("member");
    const b = await call("POST", "/bookings", member.jwt, {
      ...guestBooking("panel", at(46, 1, "08:45")),
      attendee: { name: "Member", email: member.email, timeZone: "UTC" },
    });
    assert.equal(b.status, 201, JSON.stringify(b.body));
    await deliverAll();
    const got = payloadsFor(b.body.data.uid);
    assert.equal(got.length, 1);
    assert.equal(got[0].headers.get("content-type"), "application/x-www-form-urlencoded");
    assert.equal(got[0].body, `event=BOOKING_CREATED&uid=${b.body.data.uid}&who=Ada Example`);
  } finally {
    await call("DELETE", `/webhooks/${hook.id}`, key);
  }
});
