// The payment-provider adapter: one interface, two providers.
//
//   stripe  Stripe's Checkout Sessions REST API and its webhook signature scheme (deployed sites)
//   local   the embedded default and the tests: a checkout page served by the site host itself, which
//           posts a signed event back exactly as Stripe would (same event shape, same signature scheme)
//
// Callers (the store's bag checkout, the scheduling API's paid bookings) create a session, send the
// visitor to its url, and fulfil when a verified `checkout.session.completed` event arrives at their
// webhook route. Amounts are integers in the currency's minor unit (cents), as Stripe takes them.

export type PaymentProviderName = "stripe" | "local";

export interface CheckoutItem {
  /** what the buyer sees on the checkout page */
  name: string;
  description?: string;
  /** the caller's stock keeping unit; carried in the item's metadata */
  sku: string;
  quantity: number;
  /** price of one, in the currency's minor unit */
  unitAmount: number;
  /** an absolute image address, shown by the checkout page */
  image?: string;
}

export interface CheckoutSessionInput {
  /** the caller's own id for this purchase (an order id, a booking uid); comes back on every event */
  reference: string;
  /** ISO 4217 code, any case */
  currency: string;
  items: CheckoutItem[];
  /** where the buyer lands after paying (Stripe replaces {CHECKOUT_SESSION_ID}) */
  successUrl: string;
  /** where the buyer lands after giving up */
  cancelUrl: string;
  customerEmail?: string;
  /** ask for a shipping address in these ISO 3166 countries (omit for nothing to ship) */
  shippingCountries?: string[];
  /** free-form string pairs returned on the events (Stripe allows 50 keys) */
  metadata?: Record<string, string>;
  /**
   * Where the local provider posts its signed events. Stripe ignores it: a Stripe account configures its
   * webhook endpoints itself, and should point them at the same route.
   */
  notifyUrl: string;
  /** the session stops accepting payment after this (Stripe: 30 minutes to 24 hours from now) */
  expiresAt?: Date;
}

export interface CheckoutSession {
  id: string;
  /** send the buyer here */
  url: string;
  provider: PaymentProviderName;
  expiresAt: string | null;
}

/** The parts of a Stripe event a caller fulfils from; `raw` keeps the whole event. */
export interface PaymentEvent {
  id: string;
  /** Stripe's event type: checkout.session.completed, checkout.session.expired, ... */
  type: string;
  created: number;
  sessionId: string;
  reference: string | null;
  /** `paid`, `unpaid` or `no_payment_required` (Stripe's payment_status) */
  paymentStatus: string | null;
  amountTotal: number | null;
  /** upper-case ISO 4217, or null */
  currency: string | null;
  customerEmail: string | null;
  metadata: Record<string, string>;
  raw: Record<string, unknown>;
}

/** A checkout session as the provider tells it when asked (Stripe's GET /v1/checkout/sessions/{id}). */
export interface CheckoutSessionState {
  id: string;
  /** `open`, `complete` or `expired` (Stripe's status) */
  status: string | null;
  /** `paid`, `unpaid` or `no_payment_required` (Stripe's payment_status) */
  paymentStatus: string | null;
  reference: string | null;
  amountTotal: number | null;
  /** upper-case ISO 4217, or null */
  currency: string | null;
  customerEmail: string | null;
  metadata: Record<string, string>;
}

export interface PaymentProvider {
  readonly name: PaymentProviderName;
  createCheckoutSession(input: CheckoutSessionInput): Promise<CheckoutSession>;
  /**
   * Asks the provider for a session's current state, so a buyer's return to the success page can
   * confirm a payment whose webhook has not arrived. Answers undefined for a session the provider does
   * not know; throws PaymentError when the provider cannot be asked.
   */
  retrieveCheckoutSession(id: string): Promise<CheckoutSessionState | undefined>;
  /**
   * Checks a webhook delivery's `Stripe-Signature` header against the exact payload text and answers the
   * event. Throws PaymentSignatureError for a missing, wrong or stale signature, PaymentError for a
   * payload that is not an event.
   */
  verifyEvent(payload: string, signatureHeader: string | null): Promise<PaymentEvent>;
}

export class PaymentError extends Error {
  constructor(message: string, readonly status?: number, readonly code?: string) {
    super(message);
  }
}

export class PaymentSignatureError extends PaymentError {}
