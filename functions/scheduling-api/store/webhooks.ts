// Webhook subscriptions' SQL: the API's reads and writes, the triggers' matches, and the delivery
// adapter's secrets and attempt records.
import type { Db } from "../../../shared/db.ts";

export interface WebhookRow {
  id: number;
  uid: string;
  subscriber_url: string;
  triggers: string[];
  active: boolean;
  secret: string | null;
  payload_template: string | null;
  event_type_slug: string | null;
  source: "hand" | "file";
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  last_at: Date | null;
  last_error: string | null;
}

export async function listWebhooks(
  db: Db,
  take: number,
  skip: number,
): Promise<{ rows: WebhookRow[]; total: number }> {
  const rows = await db<(WebhookRow & { total: number })[]>`
    select w.*, count(*) over () as total from public.scheduling_webhooks w order by id limit ${take} offset ${skip}`;
  return { rows: rows.map(({ total: _t, ...r }) => r as WebhookRow), total: rows[0]?.total ?? 0 };
}

/** By integer id or by the row's uuid. */
export async function webhookByRef(db: Db, ref: string): Promise<WebhookRow | undefined> {
  if (/^\d{1,15}$/.test(ref)) {
    const [row] = await db<WebhookRow[]>`select * from public.scheduling_webhooks where id = ${Number(ref)}`;
    return row;
  }
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(ref)) return undefined;
  const [row] = await db<WebhookRow[]>`select * from public.scheduling_webhooks where uid = ${ref}::uuid`;
  return row;
}

export async function insertWebhook(
  db: Db,
  w: Pick<
    WebhookRow,
    | "subscriber_url"
    | "triggers"
    | "active"
    | "secret"
    | "payload_template"
    | "event_type_slug"
    | "created_by"
  >,
): Promise<WebhookRow> {
  const [row] = await db<WebhookRow[]>`insert into public.scheduling_webhooks ${db(w)} returning *`;
  return row;
}

export async function updateWebhook(db: Db, id: number, changes: Partial<WebhookRow>): Promise<WebhookRow> {
  const [row] = await db<WebhookRow[]>`
    update public.scheduling_webhooks set ${
    db(changes as Record<string, unknown>)
  }, updated_at = now() where id = ${id} returning *`;
  return row;
}

export async function deleteWebhook(db: Db, id: number): Promise<void> {
  await db`delete from public.scheduling_webhooks where id = ${id}`;
}

/** Active subscriptions for a trigger, narrowed to the event type when they name one. */
export async function matchingWebhooks(db: Db, trigger: string, slug: string | null): Promise<WebhookRow[]> {
  return await db<WebhookRow[]>`
    select * from public.scheduling_webhooks
     where active and ${trigger} = any(triggers)
       and (event_type_slug is null or event_type_slug = ${slug})
     order by id`;
}

export async function webhookSecret(
  db: Db,
  id: number,
): Promise<{ secret: string | null; active: boolean } | undefined> {
  const [row] = await db<{ secret: string | null; active: boolean }[]>`
    select secret, active from public.scheduling_webhooks where id = ${id}`;
  return row;
}

export async function recordWebhookAttempt(
  db: Db,
  id: number,
  at: Date,
  error: string | null,
): Promise<void> {
  await db`update public.scheduling_webhooks set last_at = ${at}, last_error = ${error} where id = ${id}`;
}
