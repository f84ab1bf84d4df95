// Double booking is impossible in the database itself, and a paid checkout is fulfilled once. On a real
// PostgreSQL server the requests truly race; the embedded PGlite serializes connections, so there the
// same tests check the outcome without a real race, and the direct-SQL race is skipped.
import assert from "node:assert/strict";
import { fnv31 } from "../../../functions/scheduling-api/domain/hosts.ts";
import { connect } from "../../../shared/db.ts";
import { testDatabaseUrl } from "../../helpers/db.ts";
import { LOCAL_WEBHOOK_SECRET } from "../../../shared/payments/local.ts";
import { signPayload } from "../../../shared/payments/signature.ts";
import { addDays, assertError, call, guestBooking, host, monday } from "./support.ts";

const key = await host.key("scheduling");
const at = (week: number, day: number, utc: string) => `${addDays(monday(week), day)}T${utc}:00.000Z`;
const [{ version }] = await host.ctx.sql<{ version: string }[]>`select version()`;
const realServer = !/emscripten|wasm/i.test(version);

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
      for (const o of outcomes) {
        if (o.status === "rejected") assert.equal((o.reason as { code?: string }).code, "23P01");
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
