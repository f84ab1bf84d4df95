// Paid bookings through the running host: a checkout runs the booking's own admission before any
// payment session exists; the success page confirms a paid session itself when the provider's event
// does not come (the local provider here, and Stripe's API on a loopback stand-in); a fulfilment claim
// left `processing` by a crash is taken again after five minutes; events that are not a paid session
// booking are failed or not handled. These tests take the weeks from 2031-01-06 + 114..116 (Grace
// works 09:00-17:00 New York, 13:00Z-21:00Z after 2033-03-13).
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { createSchedulingApp } from "../../../functions/scheduling-api/app.ts";
import { LOCAL_WEBHOOK_SECRET } from "../../../shared/payments/local.ts";
import { signPayload } from "../../../shared/payments/signature.ts";
import { addDays, assertError, call, guestBooking, host, monday, person } from "./support.ts";

const key = await host.key("scheduling");
const at = (week: number, day: number, utc: string) => `${addDays(monday(week), day)}T${utc}:00.000Z`;

const buyer = () => `buyer-${crypto.randomUUID().slice(0, 8)}@example.com`;
const checkout = (start: string, email: string, extra: Record<string, unknown> = {}) =>
  call("POST", `${host.baseUrl}/book/deep-dive/checkout`, null, {
    start,
    attendee: { name: "Buyer", email, timeZone: "America/New_York" },
    ...extra,
  });
const sessionsOf = async (email: string) =>
  (await host.ctx.sql<{ n: number }[]>`
    select count(*)::int as n from public.payment_sessions where customer_email = ${email}`)[0].n;

/** Pays a local session on its page while its event cannot reach us; answers the event it stored. */
async function payWithoutWebhook(sessionId: string, email: string): Promise<string> {
  await host.ctx
    .sql`update public.payment_sessions set notify_url = 'http://127.0.0.1:9/dead' where id = ${sessionId}`;
  const paid = await fetch(`${host.baseUrl}/pay/local/${sessionId}/pay`, {
    method: "POST",
    body: new URLSearchParams({ email }),
    redirect: "manual",
  });
  await paid.body?.cancel();
  assert.match(paid.headers.get("location") ?? "", /\?error=/, "the provider's event did not arrive");
  const [{ event }] = await host.ctx.sql<{ event: unknown }[]>`
    select event from public.payment_sessions where id = ${sessionId}`;
  return JSON.stringify(event);
}

async function deliver(payload: string) {
  const signature = await signPayload(
    await host.ctx.secrets.get(LOCAL_WEBHOOK_SECRET),
    payload,
    Math.floor(Date.now() / 1000),
  );
  return await call("POST", "/payments/webhook", null, payload, { "stripe-signature": signature });
}

const bookingsOf = async (sessionId: string) =>
  (await host.ctx.sql<{ n: number }[]>`
    select count(*)::int as n from public.scheduling_bookings where payment_session_id = ${sessionId}`)[0].n;

test("checkout runs the booking's admission first: a closed, unaligned, past or taken time opens no payment", async () => {
  const email = buyer();
  assertError(await checkout(at(114, 5, "15:00"), email), 400, "BAD_REQUEST"); // a Saturday
  assertError(await checkout(at(114, 1, "15:07"), email), 400, "BAD_REQUEST"); // not a slot's start
  assertError(await checkout("2020-03-03T15:00:00Z", email), 400, "BAD_REQUEST"); // past
  // Grace is booked at 14:00Z (10:00 in New York) by another session: deep-dive there is taken
  const member = await person("member");
  const phone = await call("POST", "/bookings", key, {
    ...guestBooking("phone-consult", at(114, 1, "14:00")),
    attendee: { name: "P", email: member.email, timeZone: "UTC", phoneNumber: "+4930123456" },
    bookingFieldsResponses: { topic: "Hosting" },
  });
  assert.equal(phone.status, 201, JSON.stringify(phone.body));
  assertError(await checkout(at(114, 1, "14:00"), email), 409, "CONFLICT", "taken");
  assertError(
    await checkout(at(114, 1, "16:00"), email, { lengthInMinutes: 45 }),
    400,
    "BAD_REQUEST",
  );
  assert.equal(await sessionsOf(email), 0, "no payment session was opened for a time that cannot be booked");
  // a free session is booked directly
  assertError(
    await call(
      "POST",
      `${host.baseUrl}/book/intro-call/checkout`,
      null,
      guestBooking("intro-call", at(114, 1, "09:00")),
    ),
    400,
    "BAD_REQUEST",
  );
  const good = await checkout(at(114, 1, "16:00"), email);
  assert.equal(good.status, 201, JSON.stringify(good.body));
  assert.equal(await sessionsOf(email), 1);
});

test("the success page confirms a paid session whose webhook never came (local provider), once", async () => {
  const email = buyer();
  const start = at(114, 2, "14:00");
  const opened = await checkout(start, email);
  assert.equal(opened.status, 201, JSON.stringify(opened.body));
  const id = opened.body.data.id;
  const page = `${host.baseUrl}/book/deep-dive/payments/${id}`;
  assertError(await call("GET", page, null), 404, "NOT_FOUND"); // not paid yet
  await payWithoutWebhook(id, email);
  const confirmed = await call("GET", page, null);
  assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
  assert.equal(confirmed.body.data.status, "booked");
  assert.equal(confirmed.body.data.booking.start, start);
  assert.equal(confirmed.body.data.booking.attendees[0].email, email);
  assert.equal(confirmed.body.data.booking.status, "pending", "deep-dive waits for its host");
  const again = await call("GET", `/payments/${id}`, null);
  assert.deepEqual(again.body.data, confirmed.body.data);
  assert.equal(await bookingsOf(id), 1);
  // the provider's late event finds the claim taken
  const late = await deliver(JSON.stringify(
    (await host.ctx.sql<{ event: unknown }[]>`
    select event from public.payment_sessions where id = ${id}`)[0].event,
  ));
  assert.equal(late.body.data.claimed, false);
  assert.equal(late.body.data.status, "booked");
  assert.equal(await bookingsOf(id), 1);
  assertError(await call("GET", `/payments/cs_local_unknown`, null), 404, "NOT_FOUND");
  assertError(await call("GET", `/payments/not.a.session`, null), 404, "NOT_FOUND");
});

test("a fulfilment claim left processing is taken again after five minutes; a fresh one is not", async () => {
  // a claim that died before booking: the next delivery takes it and books
  const email = buyer();
  const stuck = (await checkout(at(114, 3, "14:00"), email)).body.data.id;
  const event = await payWithoutWebhook(stuck, email);
  await host.ctx.sql`
    insert into public.scheduling_payments (session_id, status, event_type_slug, attendee_email, start_at, updated_at)
    values (${stuck}, 'processing', 'deep-dive', ${email}, ${
    at(114, 3, "14:00")
  }, now() - interval '10 minutes')`;
  const retried = await deliver(event);
  assert.equal(retried.status, 200, JSON.stringify(retried.body));
  assert.equal(retried.body.data.claimed, true);
  assert.equal(retried.body.data.status, "booked");
  assert.equal(await bookingsOf(stuck), 1);

  // a claim being worked on right now is left alone: its state is answered, nothing is booked
  const busyEmail = buyer();
  const busy = (await checkout(at(114, 4, "14:00"), busyEmail)).body.data.id;
  const busyEvent = await payWithoutWebhook(busy, busyEmail);
  await host.ctx.sql`
    insert into public.scheduling_payments (session_id, status, event_type_slug, attendee_email)
    values (${busy}, 'processing', 'deep-dive', ${busyEmail})`;
  const answered = await deliver(busyEvent);
  assert.deepEqual(answered.body.data, { handled: true, status: "processing", claimed: false });
  assert.equal((await call("GET", `/payments/${busy}`, null)).body.data.status, "processing");
  assert.equal(await bookingsOf(busy), 0);

  // a claim that died after booking but before settling: taken again, it settles on that booking
  const doneEmail = buyer();
  const done = (await checkout(at(115, 1, "14:00"), doneEmail)).body.data.id;
  const doneEvent = await payWithoutWebhook(done, doneEmail);
  const first = await deliver(doneEvent);
  assert.equal(first.body.data.status, "booked");
  await host.ctx.sql`update public.scheduling_payments
                        set status = 'processing', booking_id = null, updated_at = now() - interval '6 minutes'
                      where session_id = ${done}`;
  const settled = await deliver(doneEvent);
  assert.deepEqual(settled.body.data, {
    handled: true,
    status: "booked",
    bookingUid: first.body.data.bookingUid,
    claimed: true,
  });
  assert.equal(await bookingsOf(done), 1);
  assert.equal(
    (await call("GET", `/payments/${done}`, null)).body.data.booking.uid,
    first.body.data.bookingUid,
  );
});

test("fulfilment: an unpaid event or an unknown type is failed; other events and other kinds are not handled", async () => {
  const event = (object: Record<string, unknown>, type = "checkout.session.completed") =>
    JSON.stringify({
      id: `evt_local_${crypto.randomUUID()}`,
      object: "event",
      type,
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: `cs_local_${crypto.randomUUID().replaceAll("-", "")}`,
          object: "checkout.session",
          payment_status: "paid",
          amount_total: 12000,
          currency: "eur",
          customer_details: { email: buyer() },
          metadata: {
            kind: "session-booking",
            eventTypeSlug: "deep-dive",
            start: at(115, 2, "14:00"),
            lengthInMinutes: "60",
          },
          ...object,
        },
      },
    });
  const unpaid = await deliver(event({ payment_status: "unpaid" }));
  assert.deepEqual(unpaid.body.data, { handled: true, status: "failed", claimed: true });
  const unknown = await deliver(event({
    metadata: { kind: "session-booking", eventTypeSlug: "no-such-session", start: at(115, 2, "14:00") },
  }));
  assert.deepEqual(unknown.body.data, { handled: true, status: "failed", claimed: true });
  const expired = await deliver(event({}, "checkout.session.expired"));
  assert.deepEqual(expired.body.data, { handled: false, type: "checkout.session.expired" });
  const cart = await deliver(event({ metadata: { kind: "cart" } }));
  assert.deepEqual(cart.body.data, { handled: false, type: "checkout.session.completed" });
  assert.equal(
    (await call("GET", `/bookings?afterStart=${at(115, 2, "00:00")}&beforeEnd=${at(115, 3, "00:00")}`, key))
      .body.data.length,
    0,
  );
});

test("with Stripe: checkout opens a Stripe session, the success page asks Stripe and books; Stripe's failures are 502", async () => {
  // a loopback stand-in for api.stripe.com: keeps the sessions it made, paid when the test says so
  const sessions = new Map<string, { metadata: Record<string, string>; email: string; paid: boolean }>();
  let refuse: "create" | "retrieve" | null = null;
  const stripe = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    if (req.method === "POST" && url.pathname === "/v1/checkout/sessions") {
      const form = new URLSearchParams(await req.text());
      if (refuse === "create") {
        return Response.json({ error: { type: "invalid_request_error", message: "No such price" } }, {
          status: 400,
        });
      }
      const id = `cs_test_${crypto.randomUUID().replaceAll("-", "")}`;
      const metadata: Record<string, string> = {};
      for (const [k, v] of form) {
        const m = /^metadata\[(.+)\]$/.exec(k);
        if (m) metadata[m[1]] = v;
      }
      sessions.set(id, { metadata, email: form.get("customer_email") ?? "", paid: false });
      return Response.json({ id, object: "checkout.session", url: `https://checkout.stripe.test/${id}` });
    }
    const m = /^\/v1\/checkout\/sessions\/(.+)$/.exec(url.pathname);
    const s = m && sessions.get(decodeURIComponent(m[1]));
    if (req.method === "GET" && refuse === "retrieve") {
      return Response.json({ error: { type: "api_error", message: "Stripe is down" } }, { status: 500 });
    }
    if (req.method === "GET" && s) {
      return Response.json({
        id: m![1],
        object: "checkout.session",
        status: s.paid ? "complete" : "open",
        payment_status: s.paid ? "paid" : "unpaid",
        amount_total: 12000,
        currency: "eur",
        customer_details: s.paid ? { email: s.email } : null,
        customer_email: s.email,
        metadata: s.metadata,
      });
    }
    return Response.json({ error: { type: "invalid_request_error", code: "resource_missing" } }, {
      status: 404,
    });
  });
  try {
    const app = createSchedulingApp({
      ...host.ctx,
      config: {
        ...host.ctx.config,
        payments: {
          stripeSecretKey: "sk_test_scheduling",
          stripeWebhookSecret: "whsec_scheduling",
          stripeApiBase: `http://127.0.0.1:${stripe.addr.port}`,
        },
      },
    });
    const ask = async (method: string, path: string, body?: unknown) => {
      const res = await app.request(`http://stripe-site.test${path}`, {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    };
    const email = buyer();
    const start = at(115, 3, "14:00");
    const opened = await ask("POST", "/book/deep-dive/checkout", {
      start,
      attendee: { name: "Stripe Buyer", email, timeZone: "America/New_York" },
    });
    assert.equal(opened.status, 201, JSON.stringify(opened.body));
    const id = opened.body.data.id;
    assert.match(opened.body.data.url, /^https:\/\/checkout\.stripe\.test\/cs_test_/);
    assert.equal(sessions.get(id)?.metadata.kind, "session-booking");
    assert.equal(sessions.get(id)?.metadata.start, start);

    assertError(await ask("GET", `/book/deep-dive/payments/${id}`), 404, "NOT_FOUND"); // open, unpaid
    refuse = "retrieve";
    assertError(await ask("GET", `/book/deep-dive/payments/${id}`), 502, "BAD_GATEWAY");
    refuse = null;
    sessions.get(id)!.paid = true;
    const confirmed = await ask("GET", `/book/deep-dive/payments/${id}`);
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    assert.equal(confirmed.body.data.status, "booked");
    assert.equal(confirmed.body.data.booking.start, start);
    assert.equal(confirmed.body.data.booking.attendees[0].email, email);
    assert.equal(await bookingsOf(id), 1);

    refuse = "create";
    assertError(
      await ask("POST", "/book/deep-dive/checkout", {
        start: at(115, 4, "14:00"),
        attendee: { name: "Refused", email: buyer(), timeZone: "UTC" },
      }),
      502,
      "BAD_GATEWAY",
    );
  } finally {
    await stripe.shutdown();
  }
});
