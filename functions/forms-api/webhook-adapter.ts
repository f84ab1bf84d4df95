// The forms API's webhook adapter for the shared dispatcher: signs each delivery at send time and
// records its outcome on the subscription (last_at, last_error) and on the response (meta.webhook_failed
// by subscriber, webhook_error). Subscriptions sign with Typeform-Signature (sha256=<base64 HMAC of
// the raw body>, only when they have a secret); the document's own webhook with X-Form-Signature
// (sha256=<hex HMAC>, keyed by FORMS_WEBHOOK_SECRET).
import type { Clock } from "../../shared/clock.ts";
import type { Db, Sql } from "../../shared/db.ts";
import type { FunctionContext } from "../../shared/context.ts";
import type { Secrets } from "../../shared/secrets.ts";
import type { WebhookAdapter } from "../../shared/webhooks/dispatcher.ts";
import { enqueueWebhook } from "../../shared/webhooks/outbox.ts";
import { hmacSha256Base64, hmacSha256Hex } from "../../shared/webhooks/sign.ts";
import { randomBase62 } from "../../shared/ids.ts";
import {
  enabledWebhooks,
  recordWebhookOutcome,
  retryFailedDeliveries,
  webhookById,
} from "./store/webhooks.ts";
import { recordResponseDelivery } from "./store/responses.ts";
import type { Tx } from "../../shared/db.ts";

export const FORMS_WEBHOOK_API = "forms";
export const DOCUMENT_WEBHOOK_SECRET = "forms_webhook";
const DOCUMENT_PREFIX = "document:";

/** This function's adapters by outbox api name: its delivery route's, and what the dev host composes. */
export function webhookAdapters(
  ctx: Pick<FunctionContext, "sql" | "clock" | "secrets">,
): Record<string, WebhookAdapter> {
  return { [FORMS_WEBHOOK_API]: formsWebhookAdapter(ctx) };
}

export function formsWebhookAdapter(deps: { sql: Sql; clock: Clock; secrets: Secrets }): WebhookAdapter {
  return {
    async sign(row): Promise<Record<string, string> | null> {
      if (row.subscriptionId.startsWith(DOCUMENT_PREFIX)) {
        const secret = await deps.secrets.get(DOCUMENT_WEBHOOK_SECRET);
        return { "X-Form-Signature": `sha256=${await hmacSha256Hex(secret, row.body)}` };
      }
      const hook = await webhookById(deps.sql, row.subscriptionId);
      if (!hook || !hook.enabled) return null;
      return hook.secret
        ? { "Typeform-Signature": `sha256=${await hmacSha256Base64(hook.secret, row.body)}` }
        : {};
    },
    async record(sql, row, outcome) {
      const error = outcome.delivered ? null : outcome.error;
      let subscriber = "document";
      if (!row.subscriptionId.startsWith(DOCUMENT_PREFIX)) {
        const hook = await webhookById(sql, row.subscriptionId);
        if (!hook) return;
        subscriber = hook.tag;
        await recordWebhookOutcome(sql, hook.id, deps.clock.now(), error);
      }
      const token = (JSON.parse(row.body) as { form_response?: { token?: string } }).form_response?.token;
      if (token) await recordResponseDelivery(sql, token, subscriber, error);
    },
  };
}

/**
 * Writes one delivery per enabled subscription of the form (and one to the document's own webhook)
 * inside the caller's transaction, so a completed response and its deliveries commit together; a
 * subscription whose earlier deliveries failed gets them tried again now.
 */
export async function enqueueCompletion(
  tx: Tx,
  input: { form: string; documentWebhook?: string; payload: (eventId: string) => unknown; now: Date },
): Promise<number> {
  const hooks = await enabledWebhooks(tx, input.form);
  const targets = hooks.map((h) => ({ id: h.id, url: h.url }));
  if (input.documentWebhook) {
    targets.push({ id: `${DOCUMENT_PREFIX}${input.form}`, url: input.documentWebhook });
  }
  for (const target of targets) {
    // serialize once: the signature is computed over these exact bytes
    const body = JSON.stringify(input.payload(randomBase62(26)));
    await enqueueWebhook(tx as Db, {
      api: FORMS_WEBHOOK_API,
      subscriptionId: target.id,
      event: "form_response",
      url: target.url,
      headers: { "X-Form": input.form },
      body,
    });
  }
  await retryFailedDeliveries(tx, targets.map((t) => t.id), input.now);
  return targets.length;
}
