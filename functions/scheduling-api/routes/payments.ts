// Paid bookings on the wire: POST /book/{slug}/checkout (the booker page, or any caller, starts a
// checkout), POST /v2/payments/webhook (the provider's signed events; no key: the signature is the
// credential) and GET /v2/payments/{sessionId} (the fulfilment's state, for the success page). The
// success page confirms the session itself: when no fulfilment is recorded yet, the status route asks
// the provider and fulfils a paid session (the one-time claim keeps that and the webhook idempotent).
import type { Context } from "hono";
import { readBodyText } from "../../../shared/http.ts";
import type { FunctionContext } from "../../../shared/context.ts";
import { PaymentError, PaymentSignatureError, providerFor } from "../../../shared/payments/mod.ts";
import type { SchedulingEnv } from "../access.ts";
import { ownAddressOnly } from "../domain/bookings.ts";
import {
  CHECKOUT_KIND,
  fulfilCheckout,
  paidSessionOf,
  STALE_CLAIM_MS,
  startCheckout,
} from "../domain/payments.ts";
import { badRequest, notFound, SchedulingError, success } from "../envelope.ts";
import { bookingById } from "../store/bookings.ts";
import { paymentBySession } from "../store/payments.ts";
import { bookingOut } from "../wire.ts";
import { parseCreate } from "./bookings.ts";
import { catalogOf, depsOf, jsonBody } from "./common.ts";

type C = Context<SchedulingEnv>;

export function paymentRoutes(ctx: FunctionContext) {
  const notifyUrl = `${ctx.config.functionsUrl}/functions/v1/scheduling-api/v2/payments/webhook`;
  return {
    async checkout(c: C) {
      const deps = await depsOf(ctx, c);
      const body = await jsonBody(c);
      delete body.eventTypeId;
      body.eventTypeSlug = c.req.param("slug");
      const input = parseCreate(body, deps.catalog);
      ownAddressOnly(c.get("caller"), input.attendee.email);
      const page = `${ctx.config.publicUrl}/book/${input.type.slug}`;
      try {
        const session = await startCheckout(deps, c.get("caller"), providerFor(ctx), input, {
          success: `${page}?paid={CHECKOUT_SESSION_ID}`,
          cancel: `${page}?checkout=cancelled`,
          notify: notifyUrl,
        });
        return success(c, session, 201);
      } catch (error) {
        if (error instanceof PaymentError) {
          throw new SchedulingError("BAD_GATEWAY", `The payment provider refused: ${error.message}`);
        }
        throw error;
      }
    },

    async webhook(c: C) {
      const raw = await readBodyText(c.req.raw);
      let event;
      try {
        event = await providerFor(ctx).verifyEvent(raw, c.req.header("stripe-signature") ?? null);
      } catch (error) {
        if (error instanceof PaymentSignatureError) throw new SchedulingError("UNAUTHORIZED", error.message);
        if (error instanceof PaymentError) throw badRequest(error.message);
        throw error;
      }
      if (event.type !== "checkout.session.completed" || event.metadata.kind !== CHECKOUT_KIND) {
        return success(c, { handled: false, type: event.type });
      }
      const result = await fulfilCheckout(await depsOf(ctx, c), event);
      return success(c, { handled: true, ...result });
    },

    /** the fulfilment's state; the session id is the buyer's secret, so it shows the booking it made */
    async status(c: C) {
      const id = c.req.param("id")!;
      if (!SESSION_ID.test(id)) throw notFound(`Payment ${id}`);
      let row = await paymentBySession(ctx.sql, id);
      const stale = row?.status === "processing" &&
        row.updated_at.getTime() < ctx.clock.now().getTime() - STALE_CLAIM_MS;
      if (!row || stale) {
        // the webhook has not come (or its fulfilment died): confirm with the provider ourselves
        let session;
        try {
          session = await providerFor(ctx).retrieveCheckoutSession(id);
        } catch (error) {
          if (error instanceof PaymentError) {
            throw new SchedulingError(
              "BAD_GATEWAY",
              `The payment provider could not be asked: ${error.message}`,
            );
          }
          throw error;
        }
        const paid = session?.status === "complete" && session.paymentStatus === "paid" &&
          session.metadata.kind === CHECKOUT_KIND;
        if (paid) {
          await fulfilCheckout(await depsOf(ctx, c), paidSessionOf(session!));
          row = await paymentBySession(ctx.sql, id);
        }
      }
      if (!row) throw notFound(`Payment ${id}`);
      const booking = row.booking_id === null ? undefined : await bookingById(ctx.sql, row.booking_id);
      return success(c, {
        sessionId: row.session_id,
        status: row.status,
        eventTypeSlug: row.event_type_slug,
        start: row.start_at?.toISOString() ?? null,
        booking: booking ? bookingOut(booking, await catalogOf(ctx, c)) : null,
      });
    },
  };
}

/** A provider's session id (Stripe's cs_..., the local provider's cs_local_...): nothing else is asked for. */
const SESSION_ID = /^[A-Za-z0-9_-]{1,255}$/;
