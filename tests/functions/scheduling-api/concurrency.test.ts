// Double booking is impossible in the database itself, limits the exclusion constraint cannot express
// (allowance, type count and duration limits, host caps, seats) hold under concurrent creates, and a
// paid checkout is fulfilled once. On a real PostgreSQL server the requests truly race; the embedded
// PGlite serializes connections, so there the same tests check the outcome without a real race, and the
// direct-SQL race is skipped. These tests take the weeks from 2031-01-06 + 30..32 and 100..106.
import assert from "node:assert/strict";
import { fnv31 } from "../../../functions/scheduling-api/domain/hosts.ts";
import { bookingTransaction } from "../../../functions/scheduling-api/domain/bookings.ts";
import { connect } from "../../../shared/db.ts";
import { onRealServer, testDatabaseUrl } from "../../helpers/db.ts";
import { LOCAL_WEBHOOK_SECRET } from "../../../shared/payments/local.ts";
import { signPayload } from "../../../shared/payments/signature.ts";
import { addDays, assertError, call, guestBooking, host, monday, person } from "./support.ts";

const key = await host.key("scheduling");
const at = (week: number, day: number, utc: string) => `${addDays(monday(week), day)}T${utc}:00.000Z`;
const realServer = await onRealServer();

Deno.test({
  name: "concurrent creates at one slot: exactly one 201, the rest 409 taken",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const n = realServer ? 30 : 8;
    const results = await Promise.all(
      Array.from(
        { length: n },
        () => call("POST", "/bookings", key, guestBooking("intro-call", at(30, 1, "10:00"))),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.equal(statuses.filter((s) => s === 201).length, 1, JSON.stringify(statuses));
    assert.ok(
      results.filter((r) => r.status !== 201).every((r) =>
        r.status === 409 && r.body.error.details.code === "taken"
      ),
    );
    const [{ n: held }] = await host.ctx.sql<{ n: number }[]>`
      select count(*)::int as n from public.scheduling_bookings
       where event_type_slug = 'intro-call' and start_at = ${
      at(30, 1, "10:00")
    } and status in ('accepted', 'pending')`;
    assert.equal(held, 1);
  },
});

Deno.test({
  name: "the exclusion constraint refuses overlapping held time from racing transactions (real server)",
  ignore: !realServer,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    // 20 connections, each inserting a booking and its held time for the same host in one transaction
    const pools = Array.from({ length: 20 }, () => connect(testDatabaseUrl(), { max: 1 }));
    try {
      const start = new Date(at(31, 1, "09:00"));
      const outcomes = await Promise.allSettled(pools.map((sql, i) =>
        sql.begin(async (tx) => {
          const [b] = await tx<{ id: number }[]>`
            insert into public.scheduling_bookings (uid, event_type_slug, event_type_id, title, start_at, end_at, status,
              host_emails, attendee_name, attendee_email, attendee_time_zone, ics_uid)
            values (${`race-${i}-${crypto.randomUUID()}`}, 'intro-call', ${
            fnv31("intro-call")
          }, 'Race', ${start},
                    ${new Date(start.getTime() + (10 + i) * 60_000)}, 'accepted', ${[
            "ada@demo.sitewire.dev",
          ]}, 'R', 'r@x.test', 'UTC', 'x')
            returning id`;
          await tx`insert into public.scheduling_holds (booking_id, host_email, during)
                   values (${b.id}, 'ada@demo.sitewire.dev', tstzrange(${start}, ${new Date(
            start.getTime() + (10 + i) * 60_000,
          )}))`;
        })
      ));
      assert.equal(outcomes.filter((o) => o.status === "fulfilled").length, 1);
      // each loser is refused by the constraint, or aborted as the victim of a deadlock between waiters on
      // it (the app runs such a victim's transaction again: bookingTransaction)
      for (const o of outcomes) {
        if (o.status === "rejected") {
          assert.ok(["23P01", "40P01"].includes((o.reason as { code?: string }).code!));
        }
      }
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  },
});

Deno.test({
  name: "20 concurrent confirmations of one paid checkout make exactly one booking",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const email = `buyer-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const start = at(32, 1, "15:00"); // Grace, 10:00 in New York
    const checkout = await call("POST", `${host.baseUrl}/book/deep-dive/checkout`, null, {
      start,
      attendee: { name: "Buyer", email, timeZone: "America/New_York" },
      bookingFieldsResponses: { notes: "paid" },
    });
    assert.equal(checkout.status, 201, JSON.stringify(checkout.body));
    const sessionId = checkout.body.data.id;
    assert.match(checkout.body.data.url, /\/pay\/local\/cs_local_/);
    // the local provider's paid event, exactly as its checkout page would post it (and a retry would)
    const event = {
      id: `evt_local_${crypto.randomUUID()}`,
      object: "event",
      type: "checkout.session.completed",
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: sessionId,
          object: "checkout.session",
          payment_status: "paid",
          amount_total: 12000,
          currency: "eur",
          customer_details: { email },
          metadata: (await host.ctx.sql<{ metadata: Record<string, string> }[]>`
            select metadata from public.payment_sessions where id = ${sessionId}`)[0].metadata,
        },
      },
    };
    const payload = JSON.stringify(event);
    const signature = await signPayload(
      await host.ctx.secrets.get(LOCAL_WEBHOOK_SECRET),
      payload,
      Math.floor(Date.now() / 1000),
    );
    const deliveries = await Promise.all(
      Array.from({ length: 20 }, () =>
        call("POST", "/payments/webhook", null, payload, {
          "stripe-signature": signature,
          "content-type": "application/json",
        })),
    );
    assert.ok(deliveries.every((d) => d.status === 200), JSON.stringify(deliveries.map((d) => d.body)));
    assert.equal(deliveries.filter((d) => d.body.data.claimed).length, 1);
    const [{ n }] = await host.ctx.sql<{ n: number }[]>`
      select count(*)::int as n from public.scheduling_bookings where payment_session_id = ${sessionId}`;
    assert.equal(n, 1);
    const state = await call("GET", `/payments/${sessionId}`, null);
    assert.equal(state.body.data.status, "booked");
    const booking =
      (await call("GET", `/bookings?attendeeEmail=${encodeURIComponent(email)}`, key)).body.data[0];
    assert.equal(booking.status, "pending", "deep-dive still waits for the host's confirmation");
    assert.equal(booking.start, start);
    // the session id is the buyer's: its state shows the booking it made, also from the booker page
    assert.deepEqual(state.body.data.booking, booking);
    const fromPage = await call("GET", `${host.baseUrl}/book/deep-dive/payments/${sessionId}`, null);
    assert.deepEqual(fromPage.body.data, state.body.data);
    assertError(
      await call("GET", `${host.baseUrl}/book/deep-dive/payments/cs_local_unknown`, null),
      404,
      "NOT_FOUND",
    );
    // a bad signature is refused
    const forged = await call("POST", "/payments/webhook", null, payload, {
      "stripe-signature": "t=1,v1=00",
    });
    assert.equal(forged.status, 401);

    // a second buyer paid for the same time: no booking, the payment stays a credit ('unavailable')
    const other = `late-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const late = {
      ...event,
      id: `evt_local_${crypto.randomUUID()}`,
      data: {
        object: {
          ...event.data.object,
          id: `cs_local_late_${crypto.randomUUID()}`,
          customer_details: { email: other },
        },
      },
    };
    const latePayload = JSON.stringify(late);
    const lateSig = await signPayload(
      await host.ctx.secrets.get(LOCAL_WEBHOOK_SECRET),
      latePayload,
      Math.floor(Date.now() / 1000),
    );
    const lateAnswer = await call("POST", "/payments/webhook", null, latePayload, {
      "stripe-signature": lateSig,
    });
    assert.equal(lateAnswer.body.data.status, "unavailable");
    assert.equal((await call("GET", `/payments/${late.data.object.id}`, null)).body.data.booking, null);
    // ...which a direct booking of the same type spends
    const direct = await call("POST", "/bookings", key, {
      ...guestBooking("deep-dive", at(32, 2, "15:00")),
      attendee: { name: "Late", email: other, timeZone: "UTC" },
    });
    assert.equal(direct.status, 201, JSON.stringify(direct.body));
  },
});

/** Statuses of concurrent answers, counted: { "201": 1, "403:over": 7 }. */
function tally(results: { status: number; body: any }[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of results) {
    const label = r.status === 201
      ? "201"
      : `${r.status}:${r.body?.error?.details?.code ?? r.body?.error?.code}`;
    out[label] = (out[label] ?? 0) + 1;
  }
  return out;
}

Deno.test({
  name: "concurrent creates of one attendee in one week: the weekly allowance of 1 gives exactly one 201",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const supporter = await person("member", { tier: "supporter" });
    // supporter-hour: Ada 09:00-17:00 Berlin (08:00Z-16:00Z in December), weekly allowance 1
    const times = [0, 1, 2, 3].flatMap((day) => [at(100, day, "09:00"), at(100, day, "12:00")]);
    const results = await Promise.all(times.map((t) =>
      call("POST", "/bookings", key, {
        ...guestBooking("supporter-hour", t),
        attendee: { name: "Supporter", email: supporter.email, timeZone: "UTC" },
      })
    ));
    assert.deepEqual(tally(results), { "201": 1, "403:over": 7 });
    const [{ n }] = await host.ctx.sql<{ n: number }[]>`
      select count(*)::int as n from public.scheduling_bookings
       where attendee_email = ${supporter.email} and status in ('accepted', 'pending')`;
    assert.equal(n, 1);
  },
});

Deno.test({
  name: "concurrent creates of different people on one day: the type's daily duration limit holds",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    // supporter-hour is 60 minutes with durationLimits { day: 120 }: two bookings a day, whoever books
    const people = await Promise.all(
      Array.from({ length: 6 }, () => person("member", { tier: "supporter" })),
    );
    const hours = ["08:00", "09:00", "10:00", "11:00", "12:00", "13:00"];
    const results = await Promise.all(hours.map((h, i) =>
      call("POST", "/bookings", key, {
        ...guestBooking("supporter-hour", at(101, 1, h)),
        attendee: { name: "Supporter", email: people[i].email, timeZone: "UTC" },
      })
    ));
    assert.deepEqual(tally(results), { "201": 2, "409:taken": 4 });
    const [{ minutes }] = await host.ctx.sql<{ minutes: number }[]>`
      select coalesce(sum(extract(epoch from end_at - start_at) / 60), 0)::int as minutes
        from public.scheduling_bookings
       where event_type_slug = 'supporter-hour' and status in ('accepted', 'pending')
         and start_at >= ${at(101, 1, "00:00")} and start_at < ${at(101, 2, "00:00")}`;
    assert.equal(minutes, 120);
  },
});

Deno.test({
  name: "concurrent creates on one host's day: the schedule's maxPerDay cap holds",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    // phone-consult: Grace (maxPerDay 6), 20 minutes, 09:00-17:00 New York (14:00Z-22:00Z in December)
    const member = await person("member");
    const times = Array.from({ length: 12 }, (_, i) => {
      const minutes = 14 * 60 + i * 20;
      return at(
        102,
        1,
        `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`,
      );
    });
    const results = await Promise.all(times.map((t) =>
      call("POST", "/bookings", key, {
        ...guestBooking("phone-consult", t),
        attendee: { name: "Caller", email: member.email, timeZone: "UTC", phoneNumber: "+4930123456" },
        bookingFieldsResponses: { topic: "Design" },
      })
    ));
    assert.deepEqual(tally(results), { "201": 6, "409:taken": 6 });
    const [{ n }] = await host.ctx.sql<{ n: number }[]>`
      select count(*)::int as n from public.scheduling_bookings
       where 'grace@demo.sitewire.dev' = any(host_emails) and status in ('accepted', 'pending')
         and start_at >= ${at(102, 1, "05:00")} and start_at < ${at(102, 2, "05:00")}`;
    assert.equal(n, 6);
  },
});

Deno.test({
  name: "10 concurrent joins of a 3-seat slot: exactly three 201, the rest 409 taken",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const open = await call(
      "GET",
      `/slots?eventTypeSlug=workshop&start=${addDays(monday(103), 1)}&end=${addDays(monday(103), 1)}`,
      key,
    );
    const start = open.body.data[addDays(monday(103), 1)][0].start as string;
    assert.equal(open.body.data[addDays(monday(103), 1)][0].seatsRemaining, 3);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => call("POST", "/bookings", key, guestBooking("workshop", start))),
    );
    assert.deepEqual(tally(results), { "201": 3, "409:taken": 7 });
    const seats = results.filter((r) => r.status === 201).map((r) => r.body.data);
    assert.equal(new Set(seats.map((b) => b.metadata.seatOf)).size, 1, "one seat group");
    const [{ n }] = await host.ctx.sql<{ n: number }[]>`
      select count(*)::int as n from public.scheduling_bookings
       where event_type_slug = 'workshop' and start_at = ${start} and status in ('accepted', 'pending')`;
    assert.equal(n, 3);
  },
});

Deno.test({
  name: "concurrent moves of one attendee's bookings into one week: the weekly allowance gives one 201",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    // a supporter (weekly 1) with a booking in each of two weeks moves both into a third at once
    const supporter = await person("member", { tier: "supporter" });
    const made: string[] = [];
    for (const t of [at(104, 1, "09:00"), at(105, 1, "09:00")]) {
      const r = await call("POST", "/bookings", supporter.jwt, {
        ...guestBooking("supporter-hour", t),
        attendee: { name: "Supporter", email: supporter.email, timeZone: "UTC" },
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      made.push(r.body.data.uid);
    }
    const results = await Promise.all([
      call("POST", `/bookings/${made[0]}/reschedule`, key, { start: at(106, 1, "09:00") }),
      call("POST", `/bookings/${made[1]}/reschedule`, key, { start: at(106, 2, "09:00") }),
    ]);
    assert.deepEqual(tally(results), { "201": 1, "403:over": 1 });
    const [{ n }] = await host.ctx.sql<{ n: number }[]>`
      select count(*)::int as n from public.scheduling_bookings
       where attendee_email = ${supporter.email} and status in ('accepted', 'pending')
         and start_at >= ${monday(106)} and start_at < ${monday(107)}`;
    assert.equal(n, 1);
  },
});

Deno.test({
  name:
    "webhook deliveries and success-page confirmations racing on one paid session make exactly one booking",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const email = `racer-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const start = at(104, 2, "15:00"); // Grace, 10:00 in New York
    const checkout = await call("POST", `${host.baseUrl}/book/deep-dive/checkout`, null, {
      start,
      attendee: { name: "Racer", email, timeZone: "America/New_York" },
    });
    assert.equal(checkout.status, 201, JSON.stringify(checkout.body));
    const sessionId = checkout.body.data.id;
    // the buyer pays on the local provider's page, but its event never reaches us (a dead notify address)
    await host.ctx
      .sql`update public.payment_sessions set notify_url = 'http://127.0.0.1:9/dead' where id = ${sessionId}`;
    const pay = await fetch(`${host.baseUrl}/pay/local/${sessionId}/pay`, {
      method: "POST",
      body: new URLSearchParams({ email }),
      redirect: "manual",
    });
    await pay.body?.cancel();
    assert.match(pay.headers.get("location") ?? "", /\?error=/, "the delivery failed");
    const [{ event }] = await host.ctx.sql<{ event: unknown }[]>`
      select event from public.payment_sessions where id = ${sessionId}`;
    const payload = JSON.stringify(event);
    const signature = await signPayload(
      await host.ctx.secrets.get(LOCAL_WEBHOOK_SECRET),
      payload,
      Math.floor(Date.now() / 1000),
    );
    const answers = await Promise.all(
      Array.from(
        { length: 20 },
        (_, i) =>
          i % 2
            ? call("POST", "/payments/webhook", null, payload, { "stripe-signature": signature })
            : call("GET", `${host.baseUrl}/book/deep-dive/payments/${sessionId}`, null),
      ),
    );
    assert.ok(answers.every((a) => a.status === 200), JSON.stringify(answers.map((a) => a.body)));
    const [{ n }] = await host.ctx.sql<{ n: number }[]>`
      select count(*)::int as n from public.scheduling_bookings where payment_session_id = ${sessionId}`;
    assert.equal(n, 1);
    const state = await call("GET", `/payments/${sessionId}`, null);
    assert.equal(state.body.data.status, "booked");
    assert.equal(state.body.data.booking.start, start);
    assert.equal(state.body.data.booking.attendees[0].email, email);
  },
});

Deno.test("a booking transaction aborted as a deadlock victim runs again; a clash, or a deadlock on every try, is 409 taken", async () => {
  const deadlock = Object.assign(new Error("deadlock detected"), { code: "40P01" });
  let runs = 0;
  const made = await bookingTransaction(() => {
    runs++;
    return runs < 3 ? Promise.reject(deadlock) : Promise.resolve("booked");
  });
  assert.deepEqual([made, runs], ["booked", 3]);

  for (const code of ["23P01", "23505", "40P01"]) {
    runs = 0;
    const failure = Object.assign(new Error(code), { code });
    await assert.rejects(
      bookingTransaction(() => {
        runs++;
        return Promise.reject(failure);
      }),
      (error: any) => error.code === "CONFLICT" && error.details?.code === "taken",
    );
    assert.equal(runs, code === "40P01" ? 3 : 1, code);
  }
  const other = new Error("something else");
  await assert.rejects(bookingTransaction(() => Promise.reject(other)), (error) => error === other);
});
