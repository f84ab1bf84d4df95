// Chat access: a made booking (accepted at once, or confirmed) records the attendee's grant to talk with
// its hosts on the support desk; a pending booking has none until its host confirms; cancelling revokes
// it; a move that hands the booking to another host moves the grant with it. These tests take the weeks
// from 2031-01-06 + 55..56.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { addDays, call, guestBooking, host, hostPerson, monday } from "./support.ts";

const key = await host.key("scheduling");
const at = (week: number, day: number, utc: string) => `${addDays(monday(week), day)}T${utc}:00.000Z`;

async function grantOf(uid: string) {
  const [row] = await host.ctx.sql<
    { attendee_email: string; host_emails: string[]; revoked: boolean }[]
  >`select g.attendee_email, g.host_emails, g.revoked_at is not null as revoked
      from public.scheduling_chat_grants g join public.scheduling_bookings b on b.id = g.booking_id
     where b.uid = ${uid}`;
  return row;
}

test("a booking made at once grants its attendee chat with its hosts; cancelling revokes it", async () => {
  const made = await call("POST", "/bookings", key, {
    ...guestBooking("intro-call", at(55, 1, "09:00")),
    attendee: { name: "Chatty", email: "Chatty@Example.com", timeZone: "UTC" },
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  assert.deepEqual(await grantOf(made.body.data.uid), {
    attendee_email: "chatty@example.com",
    host_emails: ["ada@demo.sitewire.dev"],
    revoked: false,
  });
  await call("POST", `/bookings/${made.body.data.uid}/cancel`, key, { cancellationReason: "no" });
  assert.equal((await grantOf(made.body.data.uid)).revoked, true);
});

test("a booking that needs confirmation has no chat access until its host confirms it", async () => {
  const email = `confirm-${crypto.randomUUID().slice(0, 8)}@example.com`;
  await host.ctx
    .sql`insert into public.scheduling_payments (session_id, status, event_type_slug, attendee_email)
                     values (${`cs_test_${crypto.randomUUID()}`}, 'unavailable', 'deep-dive', ${email})`;
  const made = (await call("POST", "/bookings", key, {
    ...guestBooking("deep-dive", at(55, 2, "15:00")),
    attendee: { name: "Waiting", email, timeZone: "UTC" },
  })).body.data;
  assert.equal(made.status, "pending");
  assert.equal(await grantOf(made.uid), undefined);
  const confirmed = await call("POST", `/bookings/${made.uid}/confirm`, (await hostPerson("grace")).jwt);
  assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  assert.deepEqual(await grantOf(made.uid), {
    attendee_email: email,
    host_emails: ["grace@demo.sitewire.dev"],
    revoked: false,
  });
});

test("a move that hands a round-robin booking to another host moves the chat access to them", async () => {
  // 15:00Z on a Friday: Ada (Berlin, until 16:00Z) is the highest priority free host; at 20:00Z only
  // Grace (New York, until 22:00Z) is free.
  const made =
    (await call("POST", "/bookings", key, guestBooking("team-call", at(56, 4, "15:00")))).body.data;
  assert.deepEqual((await grantOf(made.uid)).host_emails, ["ada@demo.sitewire.dev"]);
  const moved = await call("POST", `/bookings/${made.uid}/reschedule`, key, { start: at(56, 4, "20:00") });
  assert.equal(moved.status, 201, JSON.stringify(moved.body));
  assert.deepEqual(moved.body.data.hosts.map((h: any) => h.email), ["grace@demo.sitewire.dev"]);
  assert.deepEqual(await grantOf(made.uid), {
    attendee_email: made.attendees[0].email,
    host_emails: ["grace@demo.sitewire.dev"],
    revoked: false,
  });
});
