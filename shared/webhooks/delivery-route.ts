// POST /webhooks/deliver, as every function that sends webhooks serves it: the deployed path of webhook
// delivery. On Supabase, pg_net calls a function's route after every transaction that wrote outbox rows of
// its API and pg_cron every minute for retries (migrations 20261122000036, 20261125001000); the route
// delivers what is due for that function's own API only, through the same dispatcher code the dev host's
// long-running dispatcher uses. Service key only, as the sweeps.
import type { Context } from "hono";
import type { FunctionContext } from "../context.ts";
import { presentsServiceKey } from "../service-key.ts";
import { deliverDue, type WebhookAdapter } from "./dispatcher.ts";

/** Batches one call may send (20 rows each): a backlog beyond waits for the next call, well inside a function's time limit. */
export const DELIVERY_PASSES = 5;

/**
 * The route's handler over the function's own adapters (by outbox api name); `refused` is the error of the
 * function's envelope for a caller without the service key.
 */
export function webhookDeliveryHandler(
  ctx: FunctionContext,
  adapters: Record<string, WebhookAdapter>,
  refused: () => Error,
) {
  return async (c: Context) => {
    if (!(await presentsServiceKey(ctx, c.req.raw))) throw refused();
    const counts = await deliverDue({
      sql: ctx.sql,
      clock: ctx.clock,
      adapters,
      allowPrivate: ctx.config.allowPrivateWebhookTargets,
    }, DELIVERY_PASSES);
    return c.json(counts, 200);
  };
}
