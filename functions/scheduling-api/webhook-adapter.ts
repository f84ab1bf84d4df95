// The scheduling API's adapter for the shared webhook dispatcher: X-Cal-Signature-256 is the
// lower-case hex HMAC-SHA256 of the exact body keyed by the subscription's secret (Cal sends the
// literal "no-secret-provided" without one), and each attempt is recorded as lastDeliveredAt/lastError.
import { type Clock, systemClock } from "../../shared/clock.ts";
import type { Sql } from "../../shared/db.ts";
import type { FunctionContext } from "../../shared/context.ts";
import type { WebhookAdapter } from "../../shared/webhooks/dispatcher.ts";
import { hmacSha256Hex } from "../../shared/webhooks/sign.ts";
import { recordWebhookAttempt, webhookSecret } from "./store/webhooks.ts";
import { OUTBOX_API } from "./domain/events.ts";

export const NO_SECRET = "no-secret-provided";

/** This function's adapters by outbox api name: its delivery route's, and what the dev host composes. */
export function webhookAdapters(ctx: Pick<FunctionContext, "sql" | "clock">): Record<string, WebhookAdapter> {
  return { [OUTBOX_API]: schedulingWebhookAdapter(ctx.sql, ctx.clock) };
}

export function schedulingWebhookAdapter(sql: Sql, clock: Clock = systemClock): WebhookAdapter {
  return {
    async sign(row) {
      const sub = await webhookSecret(sql, Number(row.subscriptionId));
      if (!sub || !sub.active) return null;
      return { "X-Cal-Signature-256": sub.secret ? await hmacSha256Hex(sub.secret, row.body) : NO_SECRET };
    },
    async record(db, row, outcome) {
      await recordWebhookAttempt(
        db,
        Number(row.subscriptionId),
        clock.now(),
        outcome.delivered ? null : outcome.error,
      );
    },
  };
}
