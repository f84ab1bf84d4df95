// The support desk's adapter for the shared webhook dispatcher, signed as Chatwoot's current webhooks
// are: X-Chatwoot-Signature `sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>">` keyed by the
// subscription's secret, X-Chatwoot-Timestamp (unix seconds), and X-Chatwoot-Delivery (the outbox row:
// the same id on every retry, so a receiver can drop repeats). Each attempt is recorded on the
// subscription as last_at / last_error. A line's files get their addresses (data_url, thumb_url) signed
// for an hour from the moment of each attempt, as the APIs' answers do.
import type { FunctionContext } from "../../shared/context.ts";
import type { WebhookAdapter } from "../../shared/webhooks/dispatcher.ts";
import { hmacSha256Hex } from "../../shared/webhooks/sign.ts";
import { signPayloadFiles } from "./files.ts";
import { recordWebhookAttempt, webhookSecret } from "./store/webhooks.ts";

/** The api name the desk's outbox rows carry (written by the database triggers). */
export const SUPPORT_WEBHOOK_API = "support";

type AdapterContext = Pick<FunctionContext, "sql" | "clock" | "secrets" | "config">;

/** This function's adapters by outbox api name: its delivery route's, and what the dev host composes. */
export function webhookAdapters(ctx: AdapterContext): Record<string, WebhookAdapter> {
  return { [SUPPORT_WEBHOOK_API]: supportWebhookAdapter(ctx) };
}

export async function chatwootSignature(secret: string, timestamp: number, body: string): Promise<string> {
  return `sha256=${await hmacSha256Hex(secret, `${timestamp}.${body}`)}`;
}

export function supportWebhookAdapter(ctx: AdapterContext): WebhookAdapter {
  const { sql, clock } = ctx;
  return {
    body: (row) => signPayloadFiles(ctx, row.body),
    async sign(row) {
      const secret = await webhookSecret(sql, Number(row.subscriptionId));
      if (!secret) return null;
      const timestamp = Math.floor(clock.now().getTime() / 1000);
      return {
        "X-Chatwoot-Signature": await chatwootSignature(secret, timestamp, row.body),
        "X-Chatwoot-Timestamp": String(timestamp),
        "X-Chatwoot-Delivery": String(row.id),
        "X-Chatwoot-Event": row.event,
      };
    },
    async record(db, row, outcome) {
      await recordWebhookAttempt(db, Number(row.subscriptionId), clock.now(), outcome.delivered ? null : outcome.error);
    },
  };
}
