// SQL of the desk's webhook subscriptions. The secret is read back only by the delivery adapter.
import type { Db } from "../../../shared/db.ts";

export interface WebhookRow {
  id: number;
  url: string;
  subscriptions: string[];
  source: "hand" | "file";
  last_at: Date | null;
  last_error: string | null;
}

const COLUMNS = "id, url, subscriptions, source, last_at, last_error";

export async function listWebhooks(db: Db): Promise<WebhookRow[]> {
  return await db<WebhookRow[]>`select ${db.unsafe(COLUMNS)} from public.support_webhooks order by id`;
}

export async function webhookById(db: Db, id: number): Promise<WebhookRow | undefined> {
  const [row] = await db<WebhookRow[]>`select ${db.unsafe(COLUMNS)} from public.support_webhooks where id = ${id}`;
  return row;
}

export async function createWebhook(
  db: Db,
  input: { url: string; subscriptions: string[]; secret: string; createdBy: string | null },
): Promise<WebhookRow> {
  const [row] = await db<WebhookRow[]>`
    insert into public.support_webhooks (url, subscriptions, secret, created_by)
    values (${input.url}, ${input.subscriptions}, ${input.secret}, ${input.createdBy})
    returning ${db.unsafe(COLUMNS)}`;
  return row;
}

export async function updateWebhook(
  db: Db,
  id: number,
  change: { url?: string; subscriptions?: string[] },
): Promise<WebhookRow | undefined> {
  const [row] = await db<WebhookRow[]>`
    update public.support_webhooks
       set url = coalesce(${change.url ?? null}, url),
           subscriptions = coalesce(${change.subscriptions ?? null}::text[], subscriptions),
           updated_at = now()
     where id = ${id}
    returning ${db.unsafe(COLUMNS)}`;
  return row;
}

export async function deleteWebhook(db: Db, id: number): Promise<boolean> {
  return (await db`delete from public.support_webhooks where id = ${id} returning id`).length === 1;
}

/** The signing secret of a subscription that still exists (the delivery adapter's read). */
export async function webhookSecret(db: Db, id: number): Promise<string | undefined> {
  const [row] = await db<{ secret: string }[]>`select secret from public.support_webhooks where id = ${id}`;
  return row?.secret;
}

export async function recordWebhookAttempt(db: Db, id: number, at: Date, error: string | null): Promise<void> {
  await db`update public.support_webhooks set last_at = ${at}, last_error = ${error} where id = ${id}`;
}
