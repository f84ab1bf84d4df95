// Meeting rooms over HTTP: the page a made booking's meetingUrl names, when the room opens and closes,
// who may join (the attendee, guests and hosts by address or token; administrators and keys), presence,
// ending by a signed-in host, the sweep, and MEETING_STARTED / MEETING_ENDED sent once each through the
// outbox. The room runs on a fixed clock (a second app over the same database); bookings are made
// through the running host. These tests take the weeks from 2031-01-06 + 50..54.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { fixedClock } from "../../../shared/clock.ts";
import { serviceKey } from "../../../shared/service-key.ts";
import { createDispatcher } from "../../../shared/webhooks/dispatcher.ts";
import { hmacSha256Hex } from "../../../shared/webhooks/sign.ts";
import { createSchedulingApp } from "../../../functions/scheduling-api/app.ts";
import { fnv31 } from "../../../functions/scheduling-api/domain/hosts.ts";
import { roomState } from "../../../functions/scheduling-api/domain/meetings.ts";
import { schedulingWebhookAdapter } from "../../../functions/scheduling-api/webhook-adapter.ts";
import { addDays, assertError, call, guestBooking, host, hostPerson, monday, person } from "./support.ts";

const key = await host.key("scheduling");
const at = (week: number, day: number, utc: string) => `${addDays(monday(week), day)}T${utc}:00.000Z`;

const clock = fixedClock("2031-01-01T00:00:00Z");
const app = createSchedulingApp({ ...host.ctx, clock });

async function room(method: string, path: string, token: string | null, body?: unknown) {
  const res = await app.request(`http://room.test/book/video/${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch { /* the page */ }
  return { status: res.status, body: parsed, headers: res.headers };
}

// a loopback subscriber for the meeting triggers
const received: { headers: Headers; body: string }[] = [];
const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
  received.push({ headers: req.headers, body: await req.text() });
  return new Response("ok");
});
// only what is addressed to this file's receiver: other test files' rows belong to their dispatchers
const dispatcher = createDispatcher({
  sql: host.ctx.sql,
  adapters: { scheduling: schedulingWebhookAdapter(host.ctx.sql) },
  allowPrivate: true,
  listen: false,
  targets: [`http://127.0.0.1:${server.addr.port}/`],
});
await call("POST", "/webhooks", key, {
  subscriberUrl: `http://127.0.0.1:${server.addr.port}/meetings`,
  triggers: ["MEETING_STARTED", "MEETING_ENDED"],
  eventTypeId: fnv31("intro-call"),
  secret: "rooms",
});
async function eventsFor(uid: string): Promise<string[]> {
  for (let i = 0; i < 5; i++) if ((await dispatcher.runOnce()).claimed === 0) break;
  // deliveries of one pass go out side by side: their order of arrival says nothing
  return received.map((r) => JSON.parse(r.body)).filter((e) => e.payload.uid === uid)
    .map((e) => e.triggerEvent).sort().reverse();
}

async function book(start: string, extra: Record<string, unknown> = {}) {
  const r = await call("POST", "/bookings", key, guestBooking("intro-call", start, extra));
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data;
}

test("a made booking's meetingUrl is its room: the page shows the booking; no room is 404", async () => {
  const b = await book(at(50, 1, "09:00"), { bookingFieldsResponses: { notes: "About the <site>" } });
  assert.equal(b.meetingUrl, `${host.baseUrl}/book/video/${b.uid}`);
  // through the host's public address, as the link is followed
  const page = await fetch(b.meetingUrl);
  assert.equal(page.status, 200);
  const html = await page.text();
  assert.match(html, /<title>Intro call between Ada Example and Guest Person · meeting room<\/title>/);
  assert.match(html, /About the &lt;site&gt;/, "the notes, escaped");
  assert.doesNotMatch(html, /guest-[0-9a-f]{8}@example\.com/, "no addresses on the page");
  clock.set(at(50, 1, "08:00"));
  const state = await room("GET", `${b.uid}/state`, null);
  assert.equal(state.status, 200);
  assert.equal(state.body.data.state, "waiting");
  assert.equal(state.body.data.opensAt, at(50, 1, "08:50"));
  assert.equal(state.body.data.closesAt, at(50, 1, "09:30"));
  assert.equal(state.body.data.now, at(50, 1, "08:00"));
  assert.deepEqual(state.body.data.hosts, [{ name: "Ada Example" }]);
  assert.equal(state.body.data.you, null);

  assertError(await room("GET", "no-such-room", null), 404, "NOT_FOUND");
  assertError(await room("GET", "no-such-room/state", null), 404, "NOT_FOUND");
  const workshop = (await call("POST", "/bookings", key, guestBooking("workshop", at(50, 2, "10:30"))))
    .body.data;
  assert.equal(workshop.meetingUrl, null, "a session in a room of bricks has no meeting room");
  assertError(await room("GET", workshop.uid, null), 404, "NOT_FOUND");
});

test("the room opens ten minutes before the start and closes fifteen after the end (403 room-closed)", async () => {
  const b = await book(at(50, 3, "10:00"));
  const attendee = { email: b.attendees[0].email };
  clock.set(at(50, 3, "09:49"));
  const early = await room("POST", `${b.uid}/join`, null, attendee);
  assertError(early, 403, "FORBIDDEN", "room-closed");
  assert.equal(early.body.error.details.state, "waiting");
  assert.equal(early.body.error.details.opensAt, at(50, 3, "09:50"));
  clock.set(at(50, 3, "09:50"));
  assert.equal((await room("POST", `${b.uid}/join`, null, attendee)).status, 200);
  clock.set(at(50, 3, "10:45"));
  const late = await room("POST", `${b.uid}/join`, null, attendee);
  assertError(late, 403, "FORBIDDEN", "room-closed");
  assert.equal(late.body.error.details.state, "ended");
  // a cancelled booking's room is closed
  const gone = await book(at(50, 3, "12:00"));
  await call("POST", `/bookings/${gone.uid}/cancel`, key, {});
  clock.set(at(50, 3, "12:00"));
  const cancelled = await room("POST", `${gone.uid}/join`, null, { email: gone.attendees[0].email });
  assertError(cancelled, 403, "FORBIDDEN", "room-closed");
  assert.equal(cancelled.body.error.details.state, "cancelled");
});

test("joining: the attendee, a guest and a host; strangers are 403, a missing or bad address 400", async () => {
  const b = await book(at(51, 1, "09:00"), { guests: ["friend@example.com"] });
  clock.set(at(51, 1, "09:02"));
  const attendee = b.attendees[0].email;
  const joined = await room("POST", `${b.uid}/join`, null, { email: attendee.toUpperCase(), name: "Me" });
  assert.equal(joined.status, 200, JSON.stringify(joined.body));
  assert.deepEqual(joined.body.data.you, { name: "Me", email: attendee, role: "attendee" });
  assert.equal(joined.body.data.state, "open");
  assert.equal(joined.body.data.startedAt, at(51, 1, "09:02"));
  clock.advance(1000); // participants are listed in the order they came in
  const guest = await room("POST", `${b.uid}/join`, null, { email: "friend@example.com" });
  assert.equal(guest.body.data.you.role, "guest");
  const ada = await hostPerson("ada");
  clock.advance(1000);
  const asHost = await room("POST", `${b.uid}/join`, ada.jwt, {});
  assert.deepEqual(asHost.body.data.you, {
    name: "Ada Example",
    email: "ada@demo.sitewire.dev",
    role: "host",
  });
  // a signed-in host's state names them; a visitor's names nobody
  assert.equal((await room("GET", `${b.uid}/state`, ada.jwt)).body.data.you.role, "host");
  const admin = await person("admin");
  assert.equal((await room("POST", `${b.uid}/join`, admin.jwt, {})).body.data.you.role, "administrator");
  assert.equal(
    (await room("POST", `${b.uid}/join`, key, { email: "ops@example.com" })).body.data.you.role,
    "administrator",
    "a key acts for the address it names",
  );
  assertError(await room("POST", `${b.uid}/join`, null, { email: "stranger@example.com" }), 403, "FORBIDDEN");
  assertError(await room("POST", `${b.uid}/join`, (await person("member")).jwt, {}), 403, "FORBIDDEN");
  assertError(await room("GET", `${b.uid}/state`, (await person("member")).jwt), 403, "FORBIDDEN");
  assertError(await room("POST", `${b.uid}/join`, null, {}), 400, "BAD_REQUEST");
  assertError(await room("POST", `${b.uid}/join`, null, { email: "not-an-address" }), 400, "BAD_REQUEST");
  assertError(await room("POST", `${b.uid}/join`, null, { email: attendee, name: 7 }), 400, "BAD_REQUEST");
  assertError(await room("POST", `${b.uid}/join`, null, "[1]"), 400, "BAD_REQUEST");
  assertError(await room("POST", `${b.uid}/join`, await host.key("delivery"), {}), 403, "FORBIDDEN");
  assertError(
    await room("POST", `${b.uid}/join`, await host.revokedKey("scheduling"), {}),
    401,
    "UNAUTHORIZED",
  );
  const names = (await room("GET", `${b.uid}/state`, null)).body.data.participants.map((p: any) =>
    `${p.name}:${p.role}`
  );
  assert.deepEqual(names.slice(0, 3), ["Me:attendee", "friend:guest", "Ada Example:host"]);
  assert.deepEqual(await eventsFor(b.uid), ["MEETING_STARTED"], "the first join starts it, once");
});

test("presence: a participant not heard from for 45 s, or who left, is not in the room", async () => {
  const b = await book(at(51, 2, "09:00"));
  const attendee = b.attendees[0].email;
  clock.set(at(51, 2, "09:00"));
  await room("POST", `${b.uid}/join`, null, { email: attendee });
  clock.advance(1000);
  const joined = await room("POST", `${b.uid}/join`, (await hostPerson("ada")).jwt, {});
  assert.equal(joined.status, 200, JSON.stringify(joined.body));
  clock.advance(30_000);
  await room("POST", `${b.uid}/join`, null, { email: attendee }); // the attendee's heartbeat
  clock.advance(29_000);
  const present = (await room("GET", `${b.uid}/state`, null)).body.data.participants.map((
    p: any,
  ) => [p.role, p.present]);
  assert.deepEqual(present, [["attendee", true], ["host", false]]);
  await room("POST", `${b.uid}/leave`, null, { email: attendee });
  assert.deepEqual(
    (await room("GET", `${b.uid}/state`, null)).body.data.participants.map((p: any) => p.present),
    [false, false],
  );
  assertError(
    await room("POST", `${b.uid}/leave`, null, { email: "stranger@example.com" }),
    403,
    "FORBIDDEN",
  );
});

test("ending: a signed-in host or an administrator ends the meeting (MEETING_ENDED once); others 403", async () => {
  const b = await book(at(52, 1, "09:00"));
  const ada = await hostPerson("ada");
  clock.set(at(52, 1, "09:00"));
  assertError(await room("POST", `${b.uid}/end`, ada.jwt), 400, "BAD_REQUEST", undefined);
  await room("POST", `${b.uid}/join`, null, { email: b.attendees[0].email });
  assertError(await room("POST", `${b.uid}/end`, null), 403, "FORBIDDEN");
  assertError(await room("POST", `${b.uid}/end`, (await person("member")).jwt), 403, "FORBIDDEN");
  assertError(await room("POST", `${b.uid}/end`, (await hostPerson("grace")).jwt), 403, "FORBIDDEN");
  clock.set(at(52, 1, "09:20"));
  const ended = await room("POST", `${b.uid}/end`, ada.jwt);
  assert.equal(ended.status, 200, JSON.stringify(ended.body));
  assert.equal(ended.body.data.state, "ended");
  assert.equal(ended.body.data.endedAt, at(52, 1, "09:20"));
  assert.equal((await room("POST", `${b.uid}/end`, ada.jwt)).status, 200, "ending again changes nothing");
  assertError(await room("POST", `${b.uid}/join`, null, { email: b.attendees[0].email }), 403, "FORBIDDEN");
  const events = await eventsFor(b.uid);
  assert.deepEqual(events, ["MEETING_STARTED", "MEETING_ENDED"]);
  // both signed with the subscription's secret: the hex HMAC of the exact body
  for (const r of received.filter((r) => JSON.parse(r.body).payload.uid === b.uid)) {
    assert.equal(r.headers.get("x-cal-signature-256"), await hmacSha256Hex("rooms", r.body));
  }
  const ending = received.map((r) => ({ ...r, json: JSON.parse(r.body) })).find((r) =>
    r.json.payload.uid === b.uid && r.json.triggerEvent === "MEETING_ENDED"
  )!;
  assert.equal(ending.json.payload.videoCallData.url, b.meetingUrl);
  assert.equal(ending.json.payload.eventTypeId, fnv31("intro-call"));
  // the second booking's meeting ends by an administrator
  const other = await book(at(52, 2, "09:00"));
  clock.set(at(52, 2, "09:05"));
  await room("POST", `${other.uid}/join`, null, { email: other.attendees[0].email });
  assert.equal((await room("POST", `${other.uid}/end`, (await person("admin")).jwt)).status, 200);
  assert.deepEqual(await eventsFor(other.uid), ["MEETING_STARTED", "MEETING_ENDED"]);
});

test("the sweep ends started meetings once their room has closed; it takes the service key only", async () => {
  const started = await book(at(53, 1, "09:00"));
  const untouched = await book(at(53, 1, "10:00"));
  clock.set(at(53, 1, "09:01"));
  await room("POST", `${started.uid}/join`, null, { email: started.attendees[0].email });
  const sweep = (token: string | null) =>
    app.request("http://room.test/v2/meetings/sweep", {
      method: "POST",
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  assert.equal((await sweep(null)).status, 401);
  const wrong = await sweep(key);
  assert.equal(wrong.status, 401);
  assert.equal((await wrong.json()).error.code, "UNAUTHORIZED");
  const service = await serviceKey(host.ctx);
  clock.set(at(53, 1, "09:29")); // 15 minutes long: the room closes at 09:30
  await (await sweep(service)).body?.cancel();
  assert.deepEqual(await eventsFor(started.uid), ["MEETING_STARTED"]);
  clock.set(at(53, 1, "09:30"));
  const swept = await sweep(service);
  assert.equal(swept.status, 200);
  assert.ok((await swept.json()).data.ended >= 1);
  assert.deepEqual(await eventsFor(started.uid), ["MEETING_STARTED", "MEETING_ENDED"]);
  await (await sweep(service)).body?.cancel();
  assert.deepEqual(await eventsFor(started.uid), ["MEETING_STARTED", "MEETING_ENDED"], "once");
  assert.deepEqual(await eventsFor(untouched.uid), [], "a meeting nobody joined neither starts nor ends");
});

test("roomState: pending, cancelled, waiting, open, ended", () => {
  const row = (extra: Record<string, unknown>) =>
    ({
      status: "accepted",
      start_at: new Date(Date.parse("2031-01-01T10:00:00Z")),
      end_at: new Date(Date.parse("2031-01-01T10:30:00Z")),
      meeting_ended_at: null,
      ...extra,
    }) as any;
  const t = (iso: string) => Date.parse(`2031-01-01T${iso}:00Z`);
  assert.equal(roomState(row({ status: "pending" }), t("10:00")), "pending");
  assert.equal(roomState(row({ status: "rejected" }), t("10:00")), "cancelled");
  assert.equal(roomState(row({}), t("09:49")), "waiting");
  assert.equal(roomState(row({}), t("09:50")), "open");
  assert.equal(roomState(row({}), t("10:44")), "open");
  assert.equal(roomState(row({}), t("10:45")), "ended");
  assert.equal(roomState(row({ meeting_ended_at: new Date(t("10:10")) }), t("10:11")), "ended");
});
