// POST /webhooks/deliver (and the spec's /deliver): the desk's due deliveries, sent with the shared
// dispatcher and this function's adapter. The database's calls (pg_net, pg_cron) and schedulers present the
// service key; body { event, id } may name what prompted the call (the batch sends everything due anyway).
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { presentsServiceKey } from "../../../shared/service-key.ts";
import { deliverDue } from "../../../shared/webhooks/dispatcher.ts";
import { unauthorized } from "../envelope.ts";
import { SUPPORT_WEBHOOK_API, supportWebhookAdapter } from "../webhook-adapter.ts";

/** Batches one call may send (20 rows each); a backlog beyond waits for the next call. */
export const DELIVERY_PASSES = 5;

export function deliveryHandler(ctx: FunctionContext) {
  return async (c: Context) => {
    if (!await presentsServiceKey(ctx, c.req.raw)) throw unauthorized("Webhook delivery needs the service key.");
    const counts = await deliverDue({
      sql: ctx.sql,
      clock: ctx.clock,
      adapters: { [SUPPORT_WEBHOOK_API]: supportWebhookAdapter(ctx.sql, ctx.clock) },
      allowPrivate: ctx.config.allowPrivateWebhookTargets,
    }, DELIVERY_PASSES);
    return c.json(counts, 200);
  };
}
