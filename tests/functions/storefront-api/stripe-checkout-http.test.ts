// The bag's checkout when the site uses Stripe (STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET): the store
// opens a Checkout Session on Stripe's API (a loopback stand-in for api.stripe.com records what it is
// sent), answers its address, and marks the order paid on an event signed by Stripe's own SDK; a refusal
// from Stripe is the store's 502.
import assert from "node:assert/strict";
import Stripe from "stripe";
import { test } from "../../helpers/test.ts";
import { createStorefrontApp } from "../../../functions/storefront-api/app.ts";
import { createCart, host, variant } from "./support.ts";

const WEBHOOK_SECRET = "whsec_store_test";

test("with Stripe: the checkout opens a Stripe session priced from the catalog; Stripe's signed event pays the order and closes the cart; a refusal is 502", async () => {
  const created: URLSearchParams[] = [];
  let refuse = false;
  const stripeApi = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    if (req.method !== "POST" || new URL(req.url).pathname !== "/v1/checkout/sessions") {
      return Response.json({ error: { type: "invalid_request_error" } }, { status: 404 });
    }
    const form = new URLSearchParams(await req.text());
    if (refuse) {
      return Response.json({ error: { type: "invalid_request_error", message: "Invalid currency" } }, {
        status: 400,
      });
    }
    created.push(form);
    const id = `cs_test_${created.length}`;
    return Response.json({ id, object: "checkout.session", url: `https://checkout.stripe.test/${id}` });
  });
  try {
    const app = createStorefrontApp({
      ...host.ctx,
      config: {
        ...host.ctx.config,
        payments: {
          stripeSecretKey: "sk_test_store",
          stripeWebhookSecret: WEBHOOK_SECRET,
          stripeApiBase: `http://127.0.0.1:${stripeApi.addr.port}`,
        },
      },
    }, { forward: () => Promise.resolve(undefined) });
    const cart = await createCart({
      lines: [{ merchandiseId: variant("FG-PRINT"), quantity: 2 }, { merchandiseId: variant("NG-EPUB") }],
    });
    const token = cart.id.split("/").pop()!;
    const checkout = (body: unknown) =>
      app.request(`${host.baseUrl}/checkout`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const bag = {
      lines: [{ sku: "FG-PRINT", quantity: 2 }, { sku: "NG-EPUB", quantity: 1 }],
      country: "AT",
      email: "stripe-buyer@example.org",
      cart: token,
    };

    const opened = await checkout(bag);
    assert.equal(opened.status, 201);
    const answer = await opened.json();
    assert.equal(answer.provider, "stripe");
    assert.equal(answer.url, "https://checkout.stripe.test/cs_test_1");
    const form = created[0];
    assert.equal(form.get("mode"), "payment");
    assert.equal(form.get("success_url"), `${host.ctx.config.publicUrl}/app?checkout=success`);
    assert.equal(form.get("customer_email"), "stripe-buyer@example.org");
    assert.equal(form.get("metadata[order]"), answer.order);
    assert.equal(form.get("metadata[cart]"), token);
    assert.equal(form.get("shipping_address_collection[allowed_countries][0]"), "AT");
    assert.deepEqual(
      [0, 1].map((i) => [
        form.get(`line_items[${i}][price_data][product_data][metadata][sku]`),
        form.get(`line_items[${i}][quantity]`),
        form.get(`line_items[${i}][price_data][currency]`),
        form.get(`line_items[${i}][price_data][unit_amount]`),
      ]),
      // the catalog's prices, as the Storefront API quotes them for the cart, in cents
      cart.lines.nodes.map((l: any) => [
        l.merchandise.sku,
        String(l.quantity),
        "eur",
        String(Math.round(Number(l.cost.amountPerQuantity.amount) * 100)),
      ]),
    );
    const total = Math.round(Number(cart.cost.totalAmount.amount) * 100);

    // Stripe's event, signed by Stripe's SDK as Stripe's servers sign it
    const payload = JSON.stringify({
      id: "evt_store_1",
      object: "event",
      type: "checkout.session.completed",
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: "cs_test_1",
          object: "checkout.session",
          client_reference_id: answer.order,
          amount_total: total,
          currency: "eur",
          payment_status: "paid",
          customer_details: { email: "stripe-buyer@example.org" },
          shipping_details: { address: { country: "AT" } },
          metadata: { order: answer.order, cart: token, reference: answer.order },
        },
      },
    });
    const signature = await new Stripe("sk_test_store").webhooks.generateTestHeaderStringAsync({
      payload,
      secret: WEBHOOK_SECRET,
    });
    const delivered = await app.request(`${host.baseUrl}/payments/webhook`, {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": signature },
      body: payload,
    });
    assert.equal(delivered.status, 200);
    assert.deepEqual(await delivered.json(), { received: true, handled: true });
    const [order] = await host.ctx.sql<{ status: string; amount_total: string; country: string }[]>`
      select status, amount_total, country from public.storefront_orders where id = ${answer.order}`;
    assert.deepEqual([order.status, Number(order.amount_total), order.country], ["paid", total, "AT"]);
    const handoff = await app.request(`${host.baseUrl}/carts/${token}`);
    assert.equal(handoff.status, 404, "a bought cart's address no longer opens it");
    await handoff.body?.cancel();

    refuse = true;
    const refused = await checkout({ ...bag, cart: undefined });
    assert.equal(refused.status, 502);
    const body = await refused.json();
    assert.equal(body.errors[0].extensions.code, "PAYMENT_PROVIDER");
    assert.match(body.errors[0].message, /Invalid currency/);
  } finally {
    await stripeApi.shutdown();
  }
});
