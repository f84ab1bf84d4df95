// The Stripe provider, checked against Stripe's own SDK: the SDK signs and verifies webhook payloads the
// way Stripe's servers do, and encodes Checkout Session requests the way Stripe's API expects them. A
// loopback server stands where api.stripe.com would be and records what each side sends.
import assert from "node:assert/strict";
import Stripe from "stripe";
import { test } from "../../helpers/test.ts";
import { fixedClock } from "../../../shared/clock.ts";
import { checkoutSessionParams, formEncode, stripeProvider } from "../../../shared/payments/stripe.ts";
import { signPayload, verifySignature } from "../../../shared/payments/signature.ts";
import {
  type CheckoutSessionInput,
  PaymentError,
  PaymentSignatureError,
} from "../../../shared/payments/mod.ts";

const SECRET = "whsec_test_secret";
const EVENT = JSON.stringify({
  id: "evt_123",
  object: "event",
  type: "checkout.session.completed",
  created: 1_700_000_000,
  data: {
    object: {
      id: "cs_test_1",
      object: "checkout.session",
      client_reference_id: "order-7",
      amount_total: 4900,
      currency: "eur",
      payment_status: "paid",
      customer_details: { email: "buyer@example.org" },
      metadata: { cart: "abc" },
    },
  },
});

test("our signature header is byte for byte the one Stripe's SDK generates", async () => {
  const stripe = new Stripe("sk_test_x");
  const theirs = await stripe.webhooks.generateTestHeaderStringAsync({
    payload: EVENT,
    secret: SECRET,
    timestamp: 1_700_000_000,
  });
  assert.equal(await signPayload(SECRET, EVENT, 1_700_000_000), theirs);
});

test("Stripe's SDK accepts an event we signed, and we accept one the SDK signed", async () => {
  const stripe = new Stripe("sk_test_x");
  const now = Math.floor(Date.now() / 1000);
  const ours = await signPayload(SECRET, EVENT, now);
  const parsed = await stripe.webhooks.constructEventAsync(EVENT, ours, SECRET);
  assert.equal(parsed.id, "evt_123");

  const theirs = await stripe.webhooks.generateTestHeaderStringAsync({ payload: EVENT, secret: SECRET });
  const provider = stripeProvider({ secretKey: "sk_test_x", webhookSecret: SECRET });
  const event = await provider.verifyEvent(EVENT, theirs);
  assert.deepEqual(
    [
      event.type,
      event.sessionId,
      event.reference,
      event.amountTotal,
      event.currency,
      event.customerEmail,
      event.paymentStatus,
    ],
    ["checkout.session.completed", "cs_test_1", "order-7", 4900, "EUR", "buyer@example.org", "paid"],
  );
  assert.deepEqual(event.metadata, { cart: "abc" });
});

test("a wrong secret, a changed payload, a stale or missing header are refused", async () => {
  const at = new Date("2026-01-01T00:00:00Z");
  const t = Math.floor(at.getTime() / 1000);
  const header = await signPayload(SECRET, EVENT, t);
  await verifySignature(SECRET, EVENT, header, at);
  await assert.rejects(verifySignature("whsec_other", EVENT, header, at), PaymentSignatureError);
  await assert.rejects(
    verifySignature(SECRET, EVENT.replace("4900", "1"), header, at),
    PaymentSignatureError,
  );
  await assert.rejects(
    verifySignature(SECRET, EVENT, header, new Date(at.getTime() + 301_000)),
    PaymentSignatureError,
  );
  await verifySignature(SECRET, EVENT, header, new Date(at.getTime() + 299_000));
  await assert.rejects(verifySignature(SECRET, EVENT, null, at), PaymentSignatureError);
  await assert.rejects(verifySignature(SECRET, EVENT, `t=${t}`, at), PaymentSignatureError);
  await assert.rejects(verifySignature(SECRET, EVENT, "garbage", at), PaymentSignatureError);
  // a secret being rolled: two v1 entries, one of them right
  const rolled = `${header},v1=${"0".repeat(64)}`;
  await verifySignature(SECRET, EVENT, rolled, at);
});

test("a signed payload that is not an event is a PaymentError, not a crash", async () => {
  const clock = fixedClock("2026-01-01T00:00:00Z");
  const provider = stripeProvider({ secretKey: "sk", webhookSecret: SECRET, clock });
  const t = Math.floor(clock.now().getTime() / 1000);
  for (const payload of ["not json", "{}", '{"id":"evt","type":"x"}']) {
    await assert.rejects(provider.verifyEvent(payload, await signPayload(SECRET, payload, t)), (e: Error) => {
      assert.ok(e instanceof PaymentError && !(e instanceof PaymentSignatureError));
      return true;
    });
  }
});

/** A loopback server standing where api.stripe.com would be; records each request. */
function recordingServer(answer: (request: Request) => Response) {
  const seen: { path: string; headers: Headers; body: string }[] = [];
  const controller = new AbortController();
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", signal: controller.signal, onListen: () => {} },
    async (request) => {
      seen.push({
        path: new URL(request.url).pathname,
        headers: request.headers,
        body: await request.text(),
      });
      return answer(request);
    },
  );
  return {
    seen,
    port: server.addr.port,
    close: async () => {
      controller.abort();
      await server.finished;
    },
  };
}

const INPUT: CheckoutSessionInput = {
  reference: "order-42",
  currency: "EUR",
  items: [
    {
      name: "Sitewire Tee / M",
      sku: "TEE-01",
      quantity: 2,
      unitAmount: 2500,
      image: "https://shop.example/tee.jpg",
    },
    { name: "A Field Guide (PDF)", description: "Download", sku: "FG-PDF", quantity: 1, unitAmount: 1200 },
  ],
  successUrl: "https://shop.example/app?checkout=success",
  cancelUrl: "https://shop.example/cart",
  customerEmail: "buyer@example.org",
  shippingCountries: ["DE", "AT"],
  metadata: { cart: "tok" },
  notifyUrl: "https://shop.example/ignored-by-stripe",
  expiresAt: new Date("2026-01-01T12:00:00Z"),
};

test("createCheckoutSession sends what Stripe's SDK sends for the same session, and reads the answer", async () => {
  const server = recordingServer(() =>
    Response.json({
      id: "cs_test_abc",
      object: "checkout.session",
      url: "https://checkout.stripe.com/c/pay/cs_test_abc",
      expires_at: 1_767_268_800,
    })
  );
  try {
    const provider = stripeProvider({
      secretKey: "sk_test_key",
      webhookSecret: SECRET,
      apiBase: `http://127.0.0.1:${server.port}`,
    });
    const session = await provider.createCheckoutSession(INPUT);
    assert.deepEqual(session, {
      id: "cs_test_abc",
      url: "https://checkout.stripe.com/c/pay/cs_test_abc",
      provider: "stripe",
      expiresAt: "2026-01-01T12:00:00.000Z",
    });

    const stripe = new Stripe("sk_test_key", {
      host: "127.0.0.1",
      port: server.port,
      protocol: "http",
      maxNetworkRetries: 0,
    });
    // the SDK takes the same parameters (Dates as unix seconds, as its docs say)
    const params = checkoutSessionParams(INPUT) as any;
    await stripe.checkout.sessions.create({
      ...params,
      expires_at: Math.floor(INPUT.expiresAt!.getTime() / 1000),
    });

    const [ours, sdk] = server.seen;
    assert.equal(ours.path, "/v1/checkout/sessions");
    assert.equal(sdk.path, "/v1/checkout/sessions");
    const pairs = (body: string) => [...new URLSearchParams(body)].sort(([a], [b]) => a.localeCompare(b));
    assert.deepEqual(pairs(ours.body), pairs(sdk.body));
    assert.equal(ours.headers.get("authorization"), "Bearer sk_test_key");
    assert.equal(ours.headers.get("content-type"), "application/x-www-form-urlencoded");
    assert.equal(ours.headers.get("idempotency-key"), "checkout-order-42");
    const sent = new URLSearchParams(ours.body);
    assert.equal(sent.get("line_items[0][price_data][unit_amount]"), "2500");
    assert.equal(sent.get("line_items[0][price_data][currency]"), "eur");
    assert.equal(sent.get("shipping_address_collection[allowed_countries][1]"), "AT");
    assert.equal(sent.get("client_reference_id"), "order-42");
  } finally {
    await server.close();
  }
});

test("a refusal from Stripe becomes a PaymentError with Stripe's message and code", async () => {
  const server = recordingServer(() =>
    Response.json({
      error: {
        type: "invalid_request_error",
        code: "parameter_invalid_integer",
        message: "Invalid integer: x",
      },
    }, { status: 400 })
  );
  try {
    const provider = stripeProvider({
      secretKey: "sk",
      webhookSecret: SECRET,
      apiBase: `http://127.0.0.1:${server.port}`,
    });
    await assert.rejects(provider.createCheckoutSession(INPUT), (e: PaymentError) => {
      assert.equal(e.message, "Invalid integer: x");
      assert.equal(e.status, 400);
      assert.equal(e.code, "parameter_invalid_integer");
      return true;
    });
  } finally {
    await server.close();
  }
  const unreachable = stripeProvider({
    secretKey: "sk",
    webhookSecret: SECRET,
    apiBase: "http://127.0.0.1:9",
  });
  await assert.rejects(unreachable.createCheckoutSession(INPUT), PaymentError);
});

test("form encoding nests objects and arrays with brackets and escapes values", () => {
  assert.equal(
    formEncode({ a: 1, b: { c: ["x y", "&"] }, d: undefined, e: null, f: true }),
    "a=1&b%5Bc%5D%5B0%5D=x%20y&b%5Bc%5D%5B1%5D=%26&f=true",
  );
});

test("retrieveCheckoutSession asks what Stripe's SDK asks (GET /v1/checkout/sessions/{id}) and reads the session", async () => {
  const session = {
    id: "cs_test_paid",
    object: "checkout.session",
    status: "complete",
    payment_status: "paid",
    client_reference_id: "deep-dive@2032-12-07T15:00:00.000Z",
    amount_total: 12000,
    currency: "eur",
    customer_details: { email: "buyer@example.org" },
    customer_email: null,
    metadata: { kind: "session-booking", eventTypeSlug: "deep-dive", nested: { ignored: true } },
  };
  const server = recordingServer((request) =>
    new URL(request.url).pathname === "/v1/checkout/sessions/cs_test_paid"
      ? Response.json(session)
      : Response.json({
        error: {
          type: "invalid_request_error",
          code: "resource_missing",
          message: "No such checkout.session",
        },
      }, { status: 404 })
  );
  try {
    const provider = stripeProvider({
      secretKey: "sk_test_key",
      webhookSecret: SECRET,
      apiBase: `http://127.0.0.1:${server.port}`,
    });
    assert.deepEqual(await provider.retrieveCheckoutSession("cs_test_paid"), {
      id: "cs_test_paid",
      status: "complete",
      paymentStatus: "paid",
      reference: "deep-dive@2032-12-07T15:00:00.000Z",
      amountTotal: 12000,
      currency: "EUR",
      customerEmail: "buyer@example.org",
      metadata: { kind: "session-booking", eventTypeSlug: "deep-dive" },
    });
    assert.equal(await provider.retrieveCheckoutSession("cs_test_unknown"), undefined);

    const stripe = new Stripe("sk_test_key", {
      host: "127.0.0.1",
      port: server.port,
      protocol: "http",
      maxNetworkRetries: 0,
    });
    await stripe.checkout.sessions.retrieve("cs_test_paid");
    const [ours, , sdk] = server.seen;
    assert.equal(ours.path, sdk.path);
    assert.equal(ours.headers.get("authorization"), sdk.headers.get("authorization"));
    assert.equal(ours.body, "");
  } finally {
    await server.close();
  }
});

test("retrieveCheckoutSession: a Stripe failure or an unreachable Stripe is a PaymentError, never undefined", async () => {
  const server = recordingServer(() =>
    Response.json({ error: { type: "api_error", message: "Something went wrong" } }, { status: 500 })
  );
  try {
    const provider = stripeProvider({
      secretKey: "sk",
      webhookSecret: SECRET,
      apiBase: `http://127.0.0.1:${server.port}`,
    });
    await assert.rejects(provider.retrieveCheckoutSession("cs_test_x"), (e: PaymentError) => {
      assert.equal(e.status, 500);
      assert.equal(e.message, "Something went wrong");
      return true;
    });
  } finally {
    await server.close();
  }
  const unreachable = stripeProvider({
    secretKey: "sk",
    webhookSecret: SECRET,
    apiBase: "http://127.0.0.1:9",
  });
  await assert.rejects(unreachable.retrieveCheckoutSession("cs_test_x"), PaymentError);
});
