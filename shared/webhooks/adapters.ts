// Every API's webhook adapter, by the api name its outbox rows carry: the one list both delivery paths
// use, the long-running dispatcher the dev host starts and the content function's delivery route that
// pg_net and pg_cron call when deployed on Supabase. An API that sends webhooks registers here.
import type { FunctionContext } from "../context.ts";
import type { WebhookAdapter } from "./dispatcher.ts";
import { CONTENT_WEBHOOK_API, contentWebhookAdapter } from "../../functions/content/webhooks.ts";
import { FORMS_WEBHOOK_API, formsWebhookAdapter } from "../../functions/forms-api/webhooks.ts";
import { OUTBOX_API as SCHEDULING_WEBHOOK_API } from "../../functions/scheduling-api/domain/events.ts";
import { schedulingWebhookAdapter } from "../../functions/scheduling-api/webhook-adapter.ts";
import { SUPPORT_WEBHOOK_API, supportWebhookAdapter } from "../../functions/support-api/webhook-adapter.ts";

export function webhookAdapters(ctx: Pick<FunctionContext, "sql" | "clock" | "secrets">): Record<string, WebhookAdapter> {
  return {
    [CONTENT_WEBHOOK_API]: contentWebhookAdapter(ctx.sql, ctx.clock),
    [FORMS_WEBHOOK_API]: formsWebhookAdapter(ctx),
    [SCHEDULING_WEBHOOK_API]: schedulingWebhookAdapter(ctx.sql, ctx.clock),
    [SUPPORT_WEBHOOK_API]: supportWebhookAdapter(ctx.sql, ctx.clock),
  };
}
