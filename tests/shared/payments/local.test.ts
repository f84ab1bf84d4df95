// The local provider end to end: a session row, its checkout page, paying it, and the signed event it
// posts to the caller's notify address (a real loopback server here), verified as a caller would.
import assert from "node:assert/strict";
import Stripe from "stripe";
import { test } from "../../helpers/test.ts";
import { testSql } from "../../helpers/db.ts";
import { fixedClock } from "../../../shared/clock.ts";
import { databaseSecrets } from "../../../shared/secrets.ts";
import {
  type CheckoutSessionInput,
  localCheckoutApp,
  localProvider,
  PaymentError,
  PaymentSignatureError,
} from "../../../shared/payments/mod.ts";
import { LOCAL_WEBHOOK_SECRET } from "../../../shared/payments/local.ts";

function receiver(status = 200) {
  const deliveries: { signature: string | null; body: string }[] = [];
  const controller = new AbortController();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", signal: controller.signal, onListen: () => {} },
    async (request) => {
      deliveries.push({ signature: request.headers.get("stripe-signature"), body: await request.text() });
      return new Response(null, { status });
    },
  );
  return {
    deliveries,
    url: `http://127.0.0.1:${server.addr.port}/hook`,
    close: async () => {
      controller.abort();
      await server.finished;
    },
  };
}

function setup(start = "2026-03-01T10:00:00Z") {
  const sql = testSql();
  const clock = fixedClock(start);
  const deps = { sql, secrets: databaseSecrets(sql), clock, publicUrl: "http://shop.test" };
  return { sql, clock, deps, provider: localProvider(deps), app: localCheckoutApp(deps) };
}

const input = (notifyUrl: string, reference = `order-${crypto.randomUUID()}`): CheckoutSessionInput => ({
  reference,
  currency: "eur",
  items: [
    { name: "Sitewire Tee / M", sku: "TEE-01", quantity: 2, unitAmount: 2500 },
    { name: "Field Guide <PDF>", sku: "FG-PDF", quantity: 1, unitAmount: 1200 },
  ],
  successUrl: "http://shop.test/app?checkout=success",
  cancelUrl: "http://shop.test/cart",
  customerEmail: "buyer@example.org",
  shippingCountries: ["DE", "AT"],
  metadata: { cart: "tok-1" },
  notifyUrl,
});

test("paying a local session posts a signed checkout.session.completed and lands on the success address", async () => {
  const hook = receiver();
  const { provider, app, sql } = setup();
  try {
    const session = await provider.createCheckoutSession(input(hook.url, "order-local-1"));
    assert.match(session.id, /^cs_local_/);
    assert.equal(session.url, `http://shop.test/pay/local/${session.id}`);
    assert.equal(session.provider, "local");

    const page = await app.request(`http://shop.test/${session.id}`);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /Sitewire Tee \/ M/);
    assert.match(html, /Field Guide &lt;PDF&gt;/, "names are escaped");
    assert.match(html, /data-total>62\.00 EUR/);
    assert.match(html, /name="robots" content="noindex"/);

    const paid = await app.request(`http://shop.test/${session.id}/pay`, {
      method: "POST",
      body: new URLSearchParams({ email: "other@example.org", country: "AT" }),
    });
    assert.equal(paid.status, 303);
    assert.equal(paid.headers.get("location"), "http://shop.test/app?checkout=success");

    assert.equal(hook.deliveries.length, 1);
    const [delivery] = hook.deliveries;
    const event = await provider.verifyEvent(delivery.body, delivery.signature);
    assert.equal(event.type, "checkout.session.completed");
    assert.equal(event.sessionId, session.id);
    assert.equal(event.reference, "order-local-1");
    assert.equal(event.amountTotal, 6200);
    assert.equal(event.currency, "EUR");
    assert.equal(event.paymentStatus, "paid");
    assert.equal(event.customerEmail, "other@example.org");
    assert.equal(event.metadata.cart, "tok-1");
    assert.equal((event.raw as any).data.object.shipping_details.address.country, "AT");

    // Stripe's own SDK verifies the local provider's events with the same secret
    const secret = await databaseSecrets(sql).get(LOCAL_WEBHOOK_SECRET);
    const stripe = new Stripe("sk_test_x");
    const parsed = await stripe.webhooks.constructEventAsync(delivery.body, delivery.signature!, secret, 1e9);
    assert.equal(parsed.type, "checkout.session.completed");

    const [row] =
      await sql`select status, notify_status from public.payment_sessions where id = ${session.id}`;
    assert.deepEqual({ ...row }, { status: "complete", notify_status: 200 });
  } finally {
    await hook.close();
  }
});

test("the success address's {CHECKOUT_SESSION_ID} is filled with the session id, as Stripe fills it", async () => {
  const hook = receiver();
  const { provider, app } = setup();
  try {
    const session = await provider.createCheckoutSession({
      ...input(hook.url),
      successUrl: "http://shop.test/book/x?paid={CHECKOUT_SESSION_ID}",
    });
    const paid = await app.request(`http://shop.test/${session.id}/pay`, { method: "POST" });
    assert.equal(paid.status, 303);
    assert.equal(paid.headers.get("location"), `http://shop.test/book/x?paid=${session.id}`);
  } finally {
    await hook.close();
  }
});

test("paying again after a failed delivery resends the same event, never a second payment", async () => {
  const failing = receiver(500);
  const { provider, app, sql } = setup();
  try {
    const session = await provider.createCheckoutSession(input(failing.url));
    const first = await app.request(`http://shop.test/${session.id}/pay`, {
      method: "POST",
      body: new URLSearchParams({}),
    });
    assert.equal(first.status, 303);
    assert.match(first.headers.get("location")!, new RegExp(`/pay/local/${session.id}\\?error=HTTP%20500`));
    const again = await app.request(`http://shop.test/${session.id}/pay`, {
      method: "POST",
      body: new URLSearchParams({}),
    });
    assert.equal(again.status, 303);
    assert.equal(failing.deliveries.length, 2);
    const ids = failing.deliveries.map((d) => JSON.parse(d.body).id);
    assert.equal(ids[0], ids[1]);
    const [row] =
      await sql`select notify_status, notify_error from public.payment_sessions where id = ${session.id}`;
    assert.deepEqual({ ...row }, { notify_status: 500, notify_error: "HTTP 500" });
  } finally {
    await failing.close();
  }
});

test("an address that is no address (or holds a NUL) is asked for again: nothing is paid or posted", async () => {
  const hook = receiver();
  const { provider, app, sql } = setup();
  try {
    const session = await provider.createCheckoutSession(input(hook.url));
    for (const email of ["not an address", "nul\u0000@example.org", `${"x".repeat(260)}@example.org`]) {
      const pay = await app.request(`http://shop.test/${session.id}/pay`, {
        method: "POST",
        body: new URLSearchParams({ email }),
      });
      assert.equal(pay.status, 303);
      assert.equal(
        pay.headers.get("location"),
        `/pay/local/${session.id}?error=${encodeURIComponent("enter a valid email address")}`,
      );
    }
    assert.equal(hook.deliveries.length, 0);
    const [row] = await sql`select status, event from public.payment_sessions where id = ${session.id}`;
    assert.deepEqual({ ...row }, { status: "open", event: null });
    const paid = await app.request(`http://shop.test/${session.id}/pay`, {
      method: "POST",
      body: new URLSearchParams({ email: "payer@example.org" }),
    });
    assert.equal(paid.headers.get("location"), "http://shop.test/app?checkout=success");
    const event = await provider.verifyEvent(hook.deliveries[0].body, hook.deliveries[0].signature);
    assert.equal(event.customerEmail, "payer@example.org");
  } finally {
    await hook.close();
  }
});

test("a session visited after it expired posts checkout.session.expired once and cannot be paid", async () => {
  const hook = receiver();
  const { provider, app, clock } = setup();
  try {
    const session = await provider.createCheckoutSession({
      ...input(hook.url),
      expiresAt: new Date("2026-03-01T10:30:00Z"),
    });
    clock.advance(31 * 60 * 1000);
    const page = await app.request(`http://shop.test/${session.id}`);
    assert.match(await page.text(), /expired/);
    const pay = await app.request(`http://shop.test/${session.id}/pay`, {
      method: "POST",
      body: new URLSearchParams({}),
    });
    assert.equal(pay.headers.get("location"), `/pay/local/${session.id}`);
    assert.equal(hook.deliveries.length, 1);
    const event = await provider.verifyEvent(hook.deliveries[0].body, hook.deliveries[0].signature);
    assert.equal(event.type, "checkout.session.expired");
    assert.equal(event.paymentStatus, "unpaid");
  } finally {
    await hook.close();
  }
});

test("cancel returns to the cancel address; an unknown session is a 404 page", async () => {
  const { provider, app } = setup();
  const session = await provider.createCheckoutSession(input("http://127.0.0.1:9/hook"));
  const cancel = await app.request(`http://shop.test/${session.id}/cancel`, { method: "POST" });
  assert.equal(cancel.status, 303);
  assert.equal(cancel.headers.get("location"), "http://shop.test/cart");
  assert.equal((await app.request("http://shop.test/cs_local_nope")).status, 404);
  assert.equal((await app.request("http://shop.test/cs_local_nope/pay", { method: "POST" })).status, 404);
});

test("the local provider refuses what Stripe would refuse, and events signed by someone else", async () => {
  const { provider, clock } = setup();
  const good = input("http://127.0.0.1:9/hook");
  await assert.rejects(provider.createCheckoutSession({ ...good, items: [] }), PaymentError);
  await assert.rejects(provider.createCheckoutSession({ ...good, currency: "euro" }), PaymentError);
  await assert.rejects(
    provider.createCheckoutSession({ ...good, items: [{ ...good.items[0], unitAmount: 12.5 }] }),
    PaymentError,
  );
  await assert.rejects(
    provider.createCheckoutSession({ ...good, items: [{ ...good.items[0], quantity: 0 }] }),
    PaymentError,
  );
  await assert.rejects(provider.createCheckoutSession({ ...good, successUrl: "/relative" }), PaymentError);
  const { signPayload } = await import("../../../shared/payments/signature.ts");
  const forged = await signPayload(
    "not-the-secret",
    '{"id":"e","type":"t","data":{"object":{}}}',
    Math.floor(clock.now().getTime() / 1000),
  );
  await assert.rejects(
    provider.verifyEvent('{"id":"e","type":"t","data":{"object":{}}}', forged),
    PaymentSignatureError,
  );
});

test("retrieveCheckoutSession tells a local session's state: open and unpaid, then complete and paid by the payer", async () => {
  const failing = receiver(500);
  const { provider, app } = setup();
  try {
    const session = await provider.createCheckoutSession(input(failing.url, "order-retrieve"));
    const open = await provider.retrieveCheckoutSession(session.id);
    assert.deepEqual(
      [
        open?.status,
        open?.paymentStatus,
        open?.reference,
        open?.amountTotal,
        open?.currency,
        open?.customerEmail,
      ],
      ["open", "unpaid", "order-retrieve", 6200, "EUR", "buyer@example.org"],
    );
    assert.equal(open?.metadata.cart, "tok-1");
    // paid, though the caller never heard (its webhook answered 500): the provider still knows
    await app.request(`http://shop.test/${session.id}/pay`, {
      method: "POST",
      body: new URLSearchParams({ email: "payer@example.org" }),
    });
    const paid = await provider.retrieveCheckoutSession(session.id);
    assert.deepEqual(
      [paid?.id, paid?.status, paid?.paymentStatus, paid?.customerEmail],
      [session.id, "complete", "paid", "payer@example.org"],
    );
    assert.equal(await provider.retrieveCheckoutSession("cs_local_nope"), undefined);
  } finally {
    await failing.close();
  }
});
