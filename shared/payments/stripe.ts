// The Stripe provider: Checkout Sessions over Stripe's REST API (form-encoded bodies with bracketed
// keys, a secret key as bearer) and events verified with the endpoint's signing secret.
import type { Clock } from "../clock.ts";
import { systemClock } from "../clock.ts";
import { checkoutSessionState, parseEvent, verifySignature } from "./signature.ts";
import {
  type CheckoutSession,
  type CheckoutSessionInput,
  type CheckoutSessionState,
  PaymentError,
  type PaymentEvent,
  type PaymentProvider,
} from "./types.ts";

export const STRIPE_API = "https://api.stripe.com";
/** the API version this adapter was written against; sent so an account's default cannot change shapes */
export const STRIPE_API_VERSION = "2024-06-20";

export interface StripeOptions {
  secretKey: string;
  /** the webhook endpoint's signing secret (whsec_...) */
  webhookSecret: string;
  apiBase?: string;
  fetch?: typeof fetch;
  clock?: Clock;
}

/** Stripe's form encoding: nested objects and arrays become `a[b][0][c]=v` pairs. */
export function formEncode(value: Record<string, unknown>): string {
  const pairs: string[] = [];
  const walk = (prefix: string, v: unknown) => {
    if (v === undefined || v === null) return;
    if (Array.isArray(v)) v.forEach((item, i) => walk(`${prefix}[${i}]`, item));
    else if (typeof v === "object" && !(v instanceof Date)) {
      for (const [k, inner] of Object.entries(v as Record<string, unknown>)) {
        walk(prefix ? `${prefix}[${k}]` : k, inner);
      }
    } else {
      const text = v instanceof Date ? String(Math.floor(v.getTime() / 1000)) : String(v);
      pairs.push(`${encodeURIComponent(prefix)}=${encodeURIComponent(text)}`);
    }
  };
  walk("", value);
  return pairs.join("&");
}

/** The Checkout Session parameters for an input (exported so tests can compare with Stripe's own SDK). */
export function checkoutSessionParams(input: CheckoutSessionInput): Record<string, unknown> {
  const currency = input.currency.toLowerCase();
  return {
    mode: "payment",
    success_url: input.successUrl,
    cancel_url: input.cancelUrl,
    client_reference_id: input.reference,
    customer_email: input.customerEmail,
    line_items: input.items.map((item) => ({
      quantity: item.quantity,
      price_data: {
        currency,
        unit_amount: item.unitAmount,
        product_data: {
          name: item.name,
          description: item.description,
          images: item.image ? [item.image] : undefined,
          metadata: { sku: item.sku },
        },
      },
    })),
    metadata: { ...input.metadata, reference: input.reference },
    shipping_address_collection: input.shippingCountries?.length
      ? { allowed_countries: input.shippingCountries }
      : undefined,
    expires_at: input.expiresAt,
  };
}

export function stripeProvider(options: StripeOptions): PaymentProvider {
  const apiBase = (options.apiBase ?? STRIPE_API).replace(/\/+$/, "");
  const doFetch = options.fetch ?? fetch;
  const clock = options.clock ?? systemClock;

  /** One call of Stripe's API with the key and version: its answer and JSON body (undefined if none). */
  const call = async (
    path: string,
    init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ): Promise<{ response: Response; body: any }> => {
    let response: Response;
    try {
      response = await doFetch(`${apiBase}${path}`, {
        ...init,
        headers: {
          authorization: `Bearer ${options.secretKey}`,
          "stripe-version": STRIPE_API_VERSION,
          ...init.headers,
        },
        signal: AbortSignal.timeout(15_000),
      });
    } catch (error) {
      throw new PaymentError(`Stripe could not be reached: ${(error as Error).message}`);
    }
    return { response, body: await response.json().catch(() => undefined) };
  };

  /** Stripe's refusal, or an answer that is not what was asked for. */
  const refused = (response: Response, body: any) =>
    new PaymentError(
      body?.error?.message ?? `Stripe answered HTTP ${response.status}.`,
      response.status,
      body?.error?.code,
    );

  return {
    name: "stripe",
    async createCheckoutSession(input: CheckoutSessionInput): Promise<CheckoutSession> {
      const { response, body } = await call("/v1/checkout/sessions", {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          // a retried request for the same purchase must not open a second session
          "idempotency-key": `checkout-${input.reference}`,
        },
        body: formEncode(checkoutSessionParams(input)),
      });
      if (!response.ok || typeof body?.id !== "string" || typeof body?.url !== "string") {
        throw refused(response, body);
      }
      return {
        id: body.id,
        url: body.url,
        provider: "stripe",
        expiresAt: typeof body.expires_at === "number"
          ? new Date(body.expires_at * 1000).toISOString()
          : null,
      };
    },
    async retrieveCheckoutSession(id: string): Promise<CheckoutSessionState | undefined> {
      const { response, body } = await call(`/v1/checkout/sessions/${encodeURIComponent(id)}`);
      // Stripe answers an unknown session 404 resource_missing
      if (response.status === 404) return undefined;
      if (!response.ok || body?.object !== "checkout.session" || typeof body?.id !== "string") {
        throw refused(response, body);
      }
      return checkoutSessionState(body);
    },
    async verifyEvent(payload: string, signatureHeader: string | null): Promise<PaymentEvent> {
      await verifySignature(options.webhookSecret, payload, signatureHeader, clock.now());
      return parseEvent(payload);
    },
  };
}
