// Which payment provider the site uses, from the environment (read once at start, passed in).
export interface PaymentConfig {
  /** STRIPE_SECRET_KEY: set, the site takes payments through Stripe */
  stripeSecretKey?: string;
  /** STRIPE_WEBHOOK_SECRET: the signing secret of the Stripe webhook endpoint */
  stripeWebhookSecret?: string;
  /** STRIPE_API_BASE: another Stripe-compatible API (stripe-mock, a regional proxy) */
  stripeApiBase?: string;
}

/** Read once at start, like the rest of the configuration, and passed in. */
export function readPaymentConfig(env: { get(name: string): string | undefined } = Deno.env): PaymentConfig {
  return {
    stripeSecretKey: env.get("STRIPE_SECRET_KEY") || undefined,
    stripeWebhookSecret: env.get("STRIPE_WEBHOOK_SECRET") || undefined,
    stripeApiBase: env.get("STRIPE_API_BASE") || undefined,
  };
}
