// The payment-provider adapter. Pick a provider with `paymentProvider(...)`; see ./types.ts for the
// interface and the event fields callers fulfil from.
//
//   const provider = providerFor(ctx);   // Stripe when STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET are set
//   const session = await provider.createCheckoutSession({ reference, currency, items, successUrl,
//     cancelUrl, notifyUrl });            // send the buyer to session.url
//   // in the caller's webhook route, with the raw body text:
//   const event = await provider.verifyEvent(await request.text(), request.headers.get("stripe-signature"));
//   if (event.type === "checkout.session.completed") fulfil(event.reference);
import type { FunctionContext } from "../context.ts";
import { localCheckoutApp as localApp, type LocalDeps, localProvider } from "./local.ts";
import { stripeProvider } from "./stripe.ts";
import type { PaymentConfig } from "./config.ts";
import type { PaymentProvider } from "./types.ts";

export * from "./types.ts";
export { type PaymentConfig, readPaymentConfig } from "./config.ts";
export { currencyExponent, formatMinorUnits, toMinorUnits } from "./money.ts";
export { localCheckoutApp, localProvider } from "./local.ts";
export { stripeProvider } from "./stripe.ts";

/** Stripe when it is configured (both secrets), else the local provider. */
export function paymentProvider(config: PaymentConfig | undefined, local: LocalDeps): PaymentProvider {
  if (config?.stripeSecretKey && config.stripeWebhookSecret) {
    return stripeProvider({
      secretKey: config.stripeSecretKey,
      webhookSecret: config.stripeWebhookSecret,
      apiBase: config.stripeApiBase,
      clock: local.clock,
      fetch: local.fetch,
    });
  }
  return localProvider(local);
}

/** The provider a function uses, from its context (what every caller wants). */
export function providerFor(ctx: FunctionContext): PaymentProvider {
  return paymentProvider(ctx.config.payments, localDepsOf(ctx));
}

/** The local provider's checkout pages for the host, or undefined when the site uses Stripe. */
export function localCheckoutFor(ctx: FunctionContext): ReturnType<typeof localApp> | undefined {
  return usesLocalProvider(ctx.config.payments) ? localApp(localDepsOf(ctx)) : undefined;
}

function localDepsOf(ctx: FunctionContext): LocalDeps {
  return { sql: ctx.sql, secrets: ctx.secrets, clock: ctx.clock, publicUrl: ctx.config.publicUrl };
}

/** Whether the host should serve the local provider's checkout pages. */
export function usesLocalProvider(config: PaymentConfig = {}): boolean {
  return !(config.stripeSecretKey && config.stripeWebhookSecret);
}
