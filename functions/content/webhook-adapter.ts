// The content API's adapter for the shared webhook dispatcher. Content events are written to the outbox
// by database triggers (migration 20261122000030) with their public headers; at send time this adapter
// adds the definition's secret headers (never stored in the outbox) and records each attempt on the
// definition (last_at, last_status, last_error).
import type { Db } from "../../shared/db.ts";
import type { Clock } from "../../shared/clock.ts";
import { systemClock } from "../../shared/clock.ts";
import type { FunctionContext } from "../../shared/context.ts";
import type { WebhookAdapter } from "../../shared/webhooks/dispatcher.ts";
import { recordWebhookAttempt, webhookDefinition } from "./store/webhook-definitions.ts";

/** The api name content rows carry in webhook_outbox. */
export const CONTENT_WEBHOOK_API = "content";

/** This function's adapters by outbox api name: its delivery route's, and what the dev host composes. */
export function webhookAdapters(ctx: Pick<FunctionContext, "sql" | "clock">): Record<string, WebhookAdapter> {
  return { [CONTENT_WEBHOOK_API]: contentWebhookAdapter(ctx.sql, ctx.clock) };
}

export function contentWebhookAdapter(db: Db, clock: Clock = systemClock): WebhookAdapter {
  return {
    async sign(row) {
      const definition = await webhookDefinition(db, row.subscriptionId);
      // gone or switched off since the event: the row fails for good, no request is made
      if (!definition || !definition.active) return null;
      return Object.fromEntries(definition.secretHeaders.map((h) => [h.key, h.value]));
    },
    async record(sql, row, outcome) {
      await recordWebhookAttempt(sql, row.subscriptionId, {
        at: clock.now(),
        status: outcome.status ?? null,
        error: outcome.delivered ? null : outcome.error,
      });
    },
  };
}
