// POST /webhooks/deliver: the deployed path of webhook delivery. On Supabase, pg_net calls it after every
// transaction that wrote outbox rows and pg_cron every minute for retries (migration 20261122000036);
// it delivers what is due for every API through the same dispatcher code and adapter registry the dev
// host's long-running dispatcher uses. Service key only, as the sweep.
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { presentedToken } from "../../../shared/gate.ts";
import { timingSafeEqual } from "../../../shared/ids.ts";
import { webhookAdapters } from "../../../shared/webhooks/adapters.ts";
import { deliverDue } from "../../../shared/webhooks/dispatcher.ts";
import { ContentError } from "../envelope.ts";
import { serviceKey } from "./management-uploads.ts";

/** Batches one call may send (20 rows each): a backlog beyond waits for the next call, well inside a function's time limit. */
export const DELIVERY_PASSES = 5;

export function deliveryHandler(ctx: FunctionContext) {
  return async (c: Context) => {
    const token = presentedToken(c.req.raw);
    if (!token || !timingSafeEqual(token, await serviceKey(ctx))) {
      throw new ContentError("AccessTokenInvalid", "Webhook delivery needs the service key.");
    }
    const counts = await deliverDue({
      sql: ctx.sql,
      clock: ctx.clock,
      adapters: webhookAdapters(ctx),
      allowPrivate: ctx.config.allowPrivateWebhookTargets,
    }, DELIVERY_PASSES);
    return c.json(counts, 200);
  };
}
