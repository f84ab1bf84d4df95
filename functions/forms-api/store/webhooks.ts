// Webhook subscriptions' SQL: the API's reads and writes, and the delivery adapter's outcomes.
import type { Db, Tx } from "../../../shared/db.ts";

export interface WebhookRow {
  id: string;
  form: string;
  tag: string;
  url: string;
  secret: string | null;
  enabled: boolean;
  verify_ssl: boolean;
  source: "hand" | "file";
  created_at: Date;
  updated_at: Date;
  last_at: Date | null;
  last_error: string | null;
}

export function listWebhooks(db: Db, form: string): Promise<WebhookRow[]> {
  return db<WebhookRow[]>`select * from public.form_webhooks where form = ${form} order by created_at, tag`;
}

export async function webhookByTag(db: Db, form: string, tag: string): Promise<WebhookRow | undefined> {
  const [row] = await db<
    WebhookRow[]
  >`select * from public.form_webhooks where form = ${form} and tag = ${tag}`;
  return row;
}

export async function webhookById(db: Db, id: string): Promise<WebhookRow | undefined> {
  if (!/^[0-9a-f-]{36}$/.test(id)) return undefined;
  const [row] = await db<WebhookRow[]>`select * from public.form_webhooks where id = ${id}::uuid`;
  return row;
}

/** Creates or updates (form, tag); a missing url or secret keeps the stored one. */
export async function upsertWebhook(
  db: Db,
  input: {
    form: string;
    tag: string;
    url?: string;
    secret?: string | null;
    enabled?: boolean;
    verifySsl?: boolean;
    now: Date;
  },
): Promise<{ row: WebhookRow; created: boolean }> {
  const [row] = await db<(WebhookRow & { created: boolean })[]>`
    insert into public.form_webhooks (form, tag, url, secret, enabled, verify_ssl, source, created_at, updated_at)
    values (${input.form}, ${input.tag}, ${input.url ?? ""}, ${input.secret ?? null}, ${
    input.enabled ?? false
  },
            ${input.verifySsl ?? false}, 'hand', ${input.now}, ${input.now})
    on conflict (form, tag) do update set
      url = coalesce(${input.url ?? null}, form_webhooks.url),
      secret = case when ${input.secret === undefined} then form_webhooks.secret else ${
    input.secret ?? null
  } end,
      enabled = coalesce(${input.enabled ?? null}, form_webhooks.enabled),
      verify_ssl = coalesce(${input.verifySsl ?? null}, form_webhooks.verify_ssl),
      updated_at = ${input.now}
    returning *, (xmax = 0) as created`;
  const { created, ...rest } = row;
  return { row: rest as WebhookRow, created };
}

export async function deleteWebhook(db: Db, form: string, tag: string): Promise<boolean> {
  const rows = await db`delete from public.form_webhooks where form = ${form} and tag = ${tag} returning 1`;
  return rows.length > 0;
}

export function enabledWebhooks(db: Db, form: string): Promise<WebhookRow[]> {
  return db<
    WebhookRow[]
  >`select * from public.form_webhooks where form = ${form} and enabled order by created_at, tag`;
}

/**
 * A completion tries failed deliveries of the same subscriptions again: their outbox rows become due
 * now with attempts to spare.
 */
export async function retryFailedDeliveries(tx: Tx, subscriptionIds: string[], now: Date): Promise<void> {
  if (!subscriptionIds.length) return;
  // failed for good, or waiting out a backoff: due now, with one more attempt allowed
  await tx`
    update public.webhook_outbox
    set status = 'pending', next_attempt_at = least(next_attempt_at, ${now}),
        max_attempts = greatest(max_attempts, attempts + 1)
    where api = 'forms' and subscription_id = any(${subscriptionIds}::text[])
      and (status = 'failed' or (status = 'pending' and attempts > 0))`;
}

export async function recordWebhookOutcome(
  db: Db,
  id: string,
  at: Date,
  error: string | null,
): Promise<void> {
  await db`update public.form_webhooks set last_at = ${at}, last_error = ${error} where id = ${id}::uuid`;
}
