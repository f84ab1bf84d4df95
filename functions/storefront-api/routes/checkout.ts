// The site's bag checkout (POST /checkout, public /api/store/checkout) and the payment provider's
// events (POST /payments/webhook). The checkout recomputes every price from the catalog, records a
// pending order, opens a session with the payment provider (shared/payments) and answers its address;
// only a verified `checkout.session.completed` event marks the order paid.
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { bearerToken } from "../../../shared/http.ts";
import { PaymentError, PaymentSignatureError, providerFor } from "../../../shared/payments/mod.ts";
import { personFromClaims, verifyPersonToken } from "../../../shared/people.ts";
import type { StoreEnv } from "../access.ts";
import { badRequest, bodyText, json, jsonBody, StoreError } from "../envelope.ts";
import { publicStoreContext, variantOf } from "../graphql/context.ts";
import {
  checkBag,
  checkoutItems,
  checkoutRequestOf,
  lineKey,
  orderLines,
  type ResolvedLine,
} from "../domain/checkout.ts";
import { imageUrl } from "../domain/images.ts";
import * as orderStore from "../store/orders.ts";

const STATUS: Record<string, number> = { SIGN_IN_REQUIRED: 401 };

export function checkoutHandler(ctx: FunctionContext) {
  const provider = providerFor(ctx);
  return async (c: Context<StoreEnv>) => {
    const request = checkoutRequestOf(await jsonBody(c.req.raw));
    if ("problem" in request) throw badRequest(request.problem.message, request.problem.code);
    const { lines, country, email, cart: cartToken } = request;

    // the buyer: a person JWT in Authorization, or a guest
    const bearer = bearerToken(c.req.raw);
    const claims = bearer ? await verifyPersonToken(ctx, bearer) : undefined;
    if (bearer && !claims) {
      throw new StoreError(401, "The session has expired; sign in again.", "UNAUTHORIZED", {}, {
        intent: "buy",
      });
    }
    const person = claims ? await personFromClaims(ctx.sql, claims) : undefined;

    const site = c.get("site");
    const shopper = publicStoreContext(ctx, site, country);
    const shop = await shopper.shop();
    const found = await Promise.all(lines.map(async (line) => {
      const hit = await variantOf(shopper, lineKey(line));
      return hit ? { line, ...hit } as ResolvedLine : undefined;
    }));
    const problem = checkBag(lines, found, { signedIn: Boolean(claims), country, shipsTo: shop.shipsTo });
    if (problem) {
      throw new StoreError(
        STATUS[problem.code] ?? 400,
        problem.message,
        problem.code,
        {},
        problem.code === "SIGN_IN_REQUIRED"
          ? { intent: "buy" }
          : "line" in problem
          ? { line: problem.line }
          : {},
      );
    }
    const resolved = found as ResolvedLine[];
    const assets = await Promise.all(
      resolved.map((r) => (r.variant.imageId ? shopper.loaders.asset.load(r.variant.imageId) : null)),
    );
    const items = checkoutItems(resolved, (r) => {
      const asset = assets[resolved.indexOf(r)];
      return asset ? imageUrl(asset, ctx.config.publicUrl, shopper.space) : undefined;
    });
    const currency = resolved[0].variant.currency;
    const ships = resolved.some((r) => r.variant.requiresShipping);
    const order = await orderStore.insertOrder(ctx.sql, {
      person_id: person?.id ?? claims?.sub ?? null,
      email: person?.email ?? (typeof claims?.email === "string" ? claims.email : null) ?? email,
      currency,
      amount_total: items.reduce((sum, i) => sum + i.unitAmount * i.quantity, 0),
      lines: orderLines(resolved),
      country,
      provider: provider.name,
      cart_id: cartToken,
    }, ctx.clock.now());
    try {
      const session = await provider.createCheckoutSession({
        reference: order.id,
        currency,
        items,
        successUrl: `${ctx.config.publicUrl}/app?checkout=success`,
        cancelUrl: `${ctx.config.publicUrl}/cart`,
        customerEmail: order.email ?? undefined,
        shippingCountries: ships ? (country ? [country] : shop.shipsTo) : undefined,
        metadata: { order: order.id, ...(cartToken ? { cart: cartToken } : {}) },
        notifyUrl: `${ctx.config.publicUrl}/api/store/payments/webhook`,
      });
      await orderStore.setOrderSession(ctx.sql, order.id, session.id);
      return json({ url: session.url, order: order.id, provider: session.provider }, 201);
    } catch (error) {
      if (error instanceof PaymentError) {
        throw new StoreError(
          502,
          `The payment provider refused the checkout: ${error.message}`,
          "PAYMENT_PROVIDER",
        );
      }
      throw error;
    }
  };
}

export function paymentWebhookHandler(ctx: FunctionContext) {
  const provider = providerFor(ctx);
  return async (c: Context<StoreEnv>) => {
    const payload = await bodyText(c.req.raw);
    let event;
    try {
      event = await provider.verifyEvent(payload, c.req.header("stripe-signature") ?? null);
    } catch (error) {
      if (error instanceof PaymentSignatureError) {
        throw new StoreError(400, error.message, "INVALID_SIGNATURE");
      }
      if (error instanceof PaymentError) throw badRequest(error.message);
      throw error;
    }
    const orderId = event.metadata.order ?? event.reference;
    // events of other callers on the same account (scheduling's payments) are not the store's
    const order = orderId ? await orderStore.readOrder(ctx.sql, orderId) : undefined;
    if (!order) return json({ received: true, handled: false });
    const paid = (event.type === "checkout.session.completed" && event.paymentStatus === "paid") ||
      event.type === "checkout.session.async_payment_succeeded";
    if (paid) {
      const country = (event.raw as any)?.data?.object?.shipping_details?.address?.country ?? null;
      const changed = await orderStore.markOrderPaid(ctx.sql, order.id, {
        sessionId: event.sessionId,
        amountTotal: event.amountTotal,
        email: event.customerEmail,
        country,
      }, ctx.clock.now());
      // a bought cart is done: its checkout address no longer opens it
      if (changed && order.cart_id) await orderStore.deleteCart(ctx.sql, order.cart_id);
    } else if (event.type === "checkout.session.expired") {
      await orderStore.markOrderExpired(ctx.sql, order.id, event.sessionId);
    }
    return json({ received: true, handled: true });
  };
}
