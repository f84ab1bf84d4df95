// Every function's webhook adapters together, by the api name their outbox rows carry: what the dev
// host's long-running dispatcher (task dev) delivers with. Deployed, each function delivers its own rows
// at its own POST /webhooks/deliver with only its own adapter; this is the one place that composes them.
// A function that sends webhooks keeps its adapter in functions/<fn>/webhook-adapter.ts and is added here.
import type { FunctionContext } from "../shared/context.ts";
import type { WebhookAdapter } from "../shared/webhooks/dispatcher.ts";
import { webhookAdapters as contentAdapters } from "../functions/content/webhook-adapter.ts";
import { webhookAdapters as formsAdapters } from "../functions/forms-api/webhook-adapter.ts";
import { webhookAdapters as schedulingAdapters } from "../functions/scheduling-api/webhook-adapter.ts";
import { webhookAdapters as supportAdapters } from "../functions/support-api/webhook-adapter.ts";

export function allWebhookAdapters(
  ctx: Pick<FunctionContext, "sql" | "clock" | "secrets" | "config">,
): Record<string, WebhookAdapter> {
  return { ...contentAdapters(ctx), ...formsAdapters(ctx), ...schedulingAdapters(ctx), ...supportAdapters(ctx) };
}
