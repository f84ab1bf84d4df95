// Stripe's webhook signature scheme, used by both providers (the local one signs its own events the
// same way, so a caller's webhook route has one code path):
//   Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<payload>")>[,v1=...]
// Several v1 entries may appear while a secret is being rolled; any one matching is enough.
import { hmacSha256Hex } from "../webhooks/sign.ts";
import { timingSafeEqual } from "../ids.ts";
import {
  type CheckoutSessionState,
  PaymentError,
  type PaymentEvent,
  PaymentSignatureError,
} from "./types.ts";

/** Stripe's default tolerance: a signature older (or newer) than five minutes is refused (replays). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

export async function signPayload(secret: string, payload: string, timestamp: number): Promise<string> {
  return `t=${timestamp},v1=${await hmacSha256Hex(secret, `${timestamp}.${payload}`)}`;
}

export async function verifySignature(
  secret: string,
  payload: string,
  header: string | null,
  now: Date,
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): Promise<void> {
  if (!header) throw new PaymentSignatureError("No Stripe-Signature header.");
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const [key, value] = part.trim().split("=", 2);
    if (key === "t" && /^\d+$/.test(value ?? "")) timestamp = Number(value);
    else if (key === "v1" && value) signatures.push(value);
  }
  if (timestamp === undefined || signatures.length === 0) {
    throw new PaymentSignatureError("The Stripe-Signature header has no timestamp or no v1 signature.");
  }
  const expected = await hmacSha256Hex(secret, `${timestamp}.${payload}`);
  if (!signatures.some((s) => timingSafeEqual(s, expected))) {
    throw new PaymentSignatureError("No signature matches the payload.");
  }
  if (Math.abs(now.getTime() / 1000 - timestamp) > toleranceSeconds) {
    throw new PaymentSignatureError("The signature's timestamp is outside the tolerance.");
  }
}

/** Reads a Stripe event (both providers send the same shape) into the fields callers fulfil from. */
export function parseEvent(payload: string): PaymentEvent {
  let event: any;
  try {
    event = JSON.parse(payload);
  } catch {
    throw new PaymentError("The payload is not JSON.");
  }
  const object = event?.data?.object;
  if (
    typeof event?.id !== "string" || typeof event?.type !== "string" || typeof object !== "object" || !object
  ) {
    throw new PaymentError("The payload is not an event.");
  }
  const session = checkoutSessionState(object);
  return {
    id: event.id,
    type: event.type,
    created: typeof event.created === "number" ? event.created : 0,
    sessionId: session.id,
    reference: session.reference,
    paymentStatus: session.paymentStatus,
    amountTotal: session.amountTotal,
    currency: session.currency,
    customerEmail: session.customerEmail,
    metadata: session.metadata,
    raw: event,
  };
}

/** Reads a Stripe checkout.session object (an event's data.object, or a retrieved session). */
export function checkoutSessionState(object: any): CheckoutSessionState {
  const metadata: Record<string, string> = {};
  for (const [k, v] of Object.entries(object?.metadata ?? {})) if (typeof v === "string") metadata[k] = v;
  return {
    id: String(object?.id ?? ""),
    status: typeof object?.status === "string" ? object.status : null,
    paymentStatus: typeof object?.payment_status === "string" ? object.payment_status : null,
    reference: typeof object?.client_reference_id === "string" ? object.client_reference_id : null,
    amountTotal: typeof object?.amount_total === "number" ? object.amount_total : null,
    currency: typeof object?.currency === "string" ? object.currency.toUpperCase() : null,
    customerEmail: object?.customer_details?.email ?? object?.customer_email ?? null,
    metadata,
  };
}
