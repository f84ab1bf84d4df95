// The booker page's own calls for the booking it made: read it, move it, cancel it. A visitor proves it
// with the booking's uid and the attendee's address; a key or a signed-in person acts as itself. Every
// route with its errors and its auth matrix. These tests take the weeks from 2031-01-06 + 57..58.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { addDays, assertError, call, guestBooking, host, monday, person } from "./support.ts";

const key = await host.key("scheduling");
const at = (week: number, day: number, utc: string) => `${addDays(monday(week), day)}T${utc}:00.000Z`;
const page = `${host.baseUrl}/book/intro-call`;

async function made(start: string, email = `page-${crypto.randomUUID().slice(0, 8)}@example.com`) {
  const r = await call("POST", `${page}/bookings`, null, {
    ...guestBooking("intro-call", start),
    attendee: { name: "Page Visitor", email, timeZone: "Europe/Berlin" },
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return { ...r.body.data, email };
}

test("reading the booking: the attendee's address, their JWT or a key; anyone else is refused", async () => {
  const b = await made(at(57, 1, "09:00"));
  const read = await call(
    "GET",
    `${page}/bookings/${b.uid}?email=${encodeURIComponent(b.email.toUpperCase())}`,
    null,
  );
  assert.equal(read.status, 200, JSON.stringify(read.body));
  assert.equal(read.body.data.uid, b.uid);
  assert.equal((await call("GET", `${page}/bookings/${b.uid}`, key)).status, 200);
  const attendee = await person("member", { email: b.email });
  assert.equal((await call("GET", `${page}/bookings/${b.uid}`, attendee.jwt)).status, 200);
  assertError(await call("GET", `${page}/bookings/${b.uid}`, null), 400, "BAD_REQUEST");
  assertError(await call("GET", `${page}/bookings/${b.uid}?email=not-an-address`, null), 400, "BAD_REQUEST");
  assertError(await call("GET", `${page}/bookings/${b.uid}?email=other@example.com`, null), 403, "FORBIDDEN");
  assertError(await call("GET", `${page}/bookings/${b.uid}`, (await person("member")).jwt), 403, "FORBIDDEN");
  assertError(await call("GET", `${page}/bookings/${b.uid}`, await host.key("forms")), 403, "FORBIDDEN");
  assertError(
    await call("GET", `${page}/bookings/${b.uid}`, await host.revokedKey("scheduling")),
    401,
    "UNAUTHORIZED",
  );
  assertError(await call("GET", `${page}/bookings/no-such-uid?email=${b.email}`, null), 404, "NOT_FOUND");
});

test("moving the booking from the page: its attendee moves it (uid kept); bad input is 400, others 403", async () => {
  const b = await made(at(57, 2, "09:00"));
  const move = (body: unknown, token: string | null = null) =>
    call("POST", `${page}/bookings/${b.uid}/reschedule`, token, body);
  assertError(await move({ start: at(57, 2, "10:00") }), 400, "BAD_REQUEST");
  assertError(await move({ start: at(57, 2, "10:00"), email: "other@example.com" }), 403, "FORBIDDEN");
  assertError(await move({ start: "tomorrow", email: b.email }), 400, "BAD_REQUEST");
  assertError(
    await move({ start: at(57, 2, "10:00"), email: b.email, reschedulingReason: 5 }),
    400,
    "BAD_REQUEST",
  );
  assertError(await move({ start: at(57, 5, "10:00"), email: b.email }), 400, "BAD_REQUEST", undefined);
  await made(at(57, 2, "09:30"));
  assertError(await move({ start: at(57, 2, "09:30"), email: b.email }), 409, "CONFLICT", "taken");
  assertError(await move("not json", null), 400, "BAD_REQUEST");
  const moved = await move({ start: at(57, 2, "10:00"), email: b.email, reschedulingReason: "later" });
  assert.equal(moved.status, 201, JSON.stringify(moved.body));
  assert.equal(moved.body.data.uid, b.uid);
  assert.equal(moved.body.data.start, at(57, 2, "10:00"));
  assert.equal(moved.body.data.reschedulingReason, "later");
  assertError(
    await move({ start: at(57, 2, "11:00") }, (await person("member")).jwt),
    403,
    "FORBIDDEN",
  );
  assert.equal((await move({ start: at(57, 2, "11:00") }, key)).status, 201, "a key acts as itself");
});

test("cancelling the booking from the page: its attendee cancels it once; others are refused", async () => {
  const b = await made(at(58, 1, "09:00"));
  const cancel = (body: unknown, token: string | null = null) =>
    call("POST", `${page}/bookings/${b.uid}/cancel`, token, body);
  assertError(await cancel({}), 400, "BAD_REQUEST");
  assertError(await cancel({ email: "other@example.com" }), 403, "FORBIDDEN");
  assertError(await cancel({ email: b.email }, await host.key("delivery")), 403, "FORBIDDEN");
  assertError(await cancel({ email: b.email, cancellationReason: ["x"] }), 400, "BAD_REQUEST");
  const done = await cancel({ email: b.email, cancellationReason: "ill" });
  assert.equal(done.status, 200, JSON.stringify(done.body));
  assert.equal(done.body.data.status, "cancelled");
  assert.equal(done.body.data.cancellationReason, "ill");
  assertError(await cancel({ email: b.email }), 400, "BAD_REQUEST", undefined);
  // the time is free again
  const again = await made(at(58, 1, "09:00"));
  assert.equal(again.start, at(58, 1, "09:00"));
});
