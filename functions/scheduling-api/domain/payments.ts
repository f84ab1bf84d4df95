// Paid bookings: checkout through the shared payment-provider adapter (Stripe's Checkout Sessions, or
// the local provider), and fulfilment of a paid session exactly once. The claim is the insert of the
// fulfilment record keyed by the session id: webhook retries and concurrent deliveries find it taken
// and answer its state; the winner books (processing → booked), finds the time gone (→ unavailable,
// the payment stays a credit for a later booking) or fails (→ failed).
import {
  type CheckoutSessionState,
  type PaymentEvent,
  type PaymentProvider,
  toMinorUnits,
} from "../../../shared/payments/mod.ts";
import { badRequest, SchedulingError } from "../envelope.ts";
import * as paymentStore from "../store/payments.ts";
import * as peopleStore from "../store/people.ts";
import type { Caller } from "../access.ts";
import { admitBooking, createBooking } from "./bookings.ts";
import type { CreateInput, Deps } from "./types.ts";
import { isPaid } from "./event-types.ts";

export const CHECKOUT_KIND = "session-booking";

/** A fulfilment claim still `processing` after this long died before settling; it may be claimed again. */
export const STALE_CLAIM_MS = 5 * 60_000;

/**
 * Starts a checkout for a paid type at a chosen time; answers where to send the buyer. Nobody pays for
 * a time that cannot be booked: the booking's own admission check runs first (less the credit the
 * checkout is about to buy).
 */
export async function startCheckout(
  deps: Deps,
  caller: Caller,
  provider: PaymentProvider,
  input: CreateInput,
  urls: { success: string; cancel: string; notify: string },
): Promise<{ id: string; url: string }> {
  const { type } = input;
  if (!isPaid(type)) throw badRequest("This session is free: book it directly.");
  if (
    !deps.catalog.sessions.guestCheckout && !(await peopleStore.personByEmail(deps.sql, input.attendee.email))
  ) {
    throw new SchedulingError("FORBIDDEN", "This site does not take guests to checkout.", { code: "guest" });
  }
  await admitBooking(deps, caller, input, { checkout: true });
  const amount = toMinorUnits(type.price, type.currency);
  if (amount === undefined) {
    throw new SchedulingError("SERVICE_UNAVAILABLE", "This session's price cannot be charged.");
  }
  const session = await provider.createCheckoutSession({
    reference: `${type.slug}@${new Date(input.start).toISOString()}`,
    currency: type.currency,
    items: [{
      name: type.title,
      description: type.description || undefined,
      sku: type.sku ?? `session:${type.slug}`,
      quantity: 1,
      unitAmount: amount,
    }],
    successUrl: urls.success,
    cancelUrl: urls.cancel,
    notifyUrl: urls.notify,
    customerEmail: input.attendee.email,
    metadata: {
      kind: CHECKOUT_KIND,
      eventTypeSlug: type.slug,
      start: new Date(input.start).toISOString(),
      lengthInMinutes: String(input.lengthMinutes ?? type.lengths[0]),
      timeZone: input.attendee.timeZone,
      language: input.attendee.language,
      ...(input.attendee.phoneNumber ? { phoneNumber: input.attendee.phoneNumber } : {}),
      ...carriedAnswers(input),
    },
  });
  return { id: session.id, url: session.url };
}

/** Stripe's limit for one metadata value: what the booking needs must fit in it to survive checkout. */
const METADATA_VALUE_MAX = 500;

/**
 * The booking's own answers as checkout metadata, so fulfilment books exactly what was asked for: the
 * name, the notes, the other booking fields' answers, the guests, the chosen place and the caller's
 * metadata. Refused (400) rather than cut when one does not fit a metadata value.
 */
function carriedAnswers(input: CreateInput): Record<string, string> {
  const { notes, ...fields } = input.responses;
  const carried: Record<string, string> = {};
  const carry = (name: string, label: string, value: string) => {
    if (value.length > METADATA_VALUE_MAX) {
      throw badRequest(`${label} may be at most ${METADATA_VALUE_MAX} characters for a paid booking.`);
    }
    if (value) carried[name] = value;
  };
  carry("name", "attendee.name", input.attendee.name);
  if (typeof notes === "string") carry("notes", "bookingFieldsResponses.notes", notes);
  if (Object.keys(fields).length) carry("responses", "The booking fields' answers", JSON.stringify(fields));
  carry("guests", "guests", input.guests.join(","));
  if (input.location !== undefined) carry("location", "location", input.location);
  if (Object.keys(input.metadata).length) {
    carry("bookingMetadata", "metadata", JSON.stringify(input.metadata));
  }
  return carried;
}

/** A JSON object the checkout carried, or {} (the metadata is ours, but never trusted to parse). */
function carriedObject(text: string | undefined): Record<string, unknown> {
  try {
    const value = JSON.parse(text ?? "{}");
    return value && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

export type FulfilmentStatus = paymentStore.PaymentRow["status"];

/** What fulfilment reads of a completed checkout: a verified event, or the session as the provider tells it. */
export type PaidSession = Pick<
  PaymentEvent,
  "sessionId" | "paymentStatus" | "amountTotal" | "currency" | "customerEmail" | "metadata"
>;

/** A provider's session as fulfilment reads it (the success page's path, beside the webhook's). */
export function paidSessionOf(session: CheckoutSessionState): PaidSession {
  return {
    sessionId: session.id,
    paymentStatus: session.paymentStatus,
    amountTotal: session.amountTotal,
    currency: session.currency,
    customerEmail: session.customerEmail,
    metadata: session.metadata,
  };
}

/** Fulfils a completed checkout once; every later call answers the recorded state. */
export async function fulfilCheckout(
  deps: Deps,
  event: PaidSession,
): Promise<{ status: FulfilmentStatus; bookingUid?: string; claimed: boolean }> {
  const m = event.metadata;
  const type = deps.catalog.types.find((t) => t.slug === m.eventTypeSlug);
  // the provider's email is the attendee's (a guest checkout has no other)
  const email = (event.customerEmail ?? "").trim().toLowerCase();
  const start = Date.parse(m.start ?? "");
  const now = deps.clock.now();
  const claimed = await paymentStore.claimPayment(deps.sql, {
    sessionId: event.sessionId,
    slug: m.eventTypeSlug ?? "",
    email,
    start: Number.isNaN(start) ? null : new Date(start),
    amount: event.amountTotal,
    currency: event.currency,
    now,
    staleBefore: new Date(now.getTime() - STALE_CLAIM_MS),
  });
  if (!claimed) {
    const row = await paymentStore.paymentBySession(deps.sql, event.sessionId);
    return { status: row?.status ?? "processing", claimed: false };
  }
  // a fulfilment that died after booking but before settling: its booking stands
  const made = await paymentStore.bookingByPaymentSession(deps.sql, event.sessionId);
  if (made) {
    await paymentStore.settlePayment(deps.sql, event.sessionId, "booked", made.id);
    return { status: "booked", bookingUid: made.uid, claimed: true };
  }
  if (!type || !email || Number.isNaN(start) || event.paymentStatus !== "paid") {
    await paymentStore.settlePayment(
      deps.sql,
      event.sessionId,
      "failed",
      null,
      "the event does not describe a paid session booking",
    );
    return { status: "failed", claimed: true };
  }
  const system: Caller = { kind: "key", keyId: "payment" };
  try {
    const [booking] = await createBooking(deps, system, {
      type,
      start,
      lengthMinutes: Number(m.lengthInMinutes) || undefined,
      attendee: {
        name: m.name || email,
        email,
        timeZone: m.timeZone || "UTC",
        language: m.language || "en",
        ...(m.phoneNumber ? { phoneNumber: m.phoneNumber } : {}),
      },
      guests: (m.guests ?? "").split(",").filter(Boolean),
      metadata: Object.fromEntries(
        Object.entries(carriedObject(m.bookingMetadata)).filter((e): e is [string, string] =>
          typeof e[1] === "string"
        ),
      ),
      responses: { ...carriedObject(m.responses), ...(m.notes ? { notes: m.notes } : {}) },
      ...(m.location ? { location: m.location } : {}),
      paymentSessionId: event.sessionId,
    });
    await paymentStore.settlePayment(deps.sql, event.sessionId, "booked", booking.id);
    return { status: "booked", bookingUid: booking.uid, claimed: true };
  } catch (error) {
    const taken = error instanceof SchedulingError &&
      (error.code === "CONFLICT" || error.code === "BAD_REQUEST");
    await paymentStore.settlePayment(
      deps.sql,
      event.sessionId,
      taken ? "unavailable" : "failed",
      null,
      (error as Error).message,
    );
    return { status: taken ? "unavailable" : "failed", claimed: true };
  }
}
