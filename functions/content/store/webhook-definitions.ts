// Webhook definitions' SQL: the management routes' reads and writes, and the delivery adapter's secret
// headers and attempt records.
import type { Db, Tx } from "../../../shared/db.ts";

export interface DefinitionInput {
  name: string;
  url: string;
  topics: string[];
  headers: { key: string; value: string }[];
  secretHeaders: { key: string; value: string }[];
  active: boolean;
  /** Contentful's filters, as checked (domain/management-webhooks.ts); the outbox trigger applies them */
  filters: unknown[];
}

export interface DefinitionRow extends DefinitionInput {
  id: string;
  source: "hand" | "file";
  version: number;
  createdBy: string | null;
  updatedBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const DEFINITION_COLUMNS =
  `id, name, url, topics, headers, secret_headers as "secretHeaders", active, filters, source, version,
  created_by as "createdBy", updated_by as "updatedBy", created_at as "createdAt", updated_at as "updatedAt"`;

export async function webhookDefinitions(
  db: Db,
  page: { skip: number; limit: number },
): Promise<{ rows: DefinitionRow[]; total: number }> {
  const rows = await db<(DefinitionRow & { total: number })[]>`
    select ${db.unsafe(DEFINITION_COLUMNS)}, count(*) over () as total from public.content_webhook_definitions
    order by created_at, id limit ${page.limit} offset ${page.skip}`;
  if (rows.length || page.skip === 0) return { rows, total: rows[0]?.total ?? 0 };
  const [{ total }] = await db<
    { total: number }[]
  >`select count(*) as total from public.content_webhook_definitions`;
  return { rows: [], total };
}

export async function webhookDefinition(
  db: Db,
  id: string,
  lock = false,
): Promise<DefinitionRow | undefined> {
  const [row] = await db<DefinitionRow[]>`
    select ${db.unsafe(DEFINITION_COLUMNS)} from public.content_webhook_definitions where id = ${id}
    ${lock ? db`for update` : db``}`;
  return row;
}

/** Whether Postgres takes `pattern` as a regular expression (the filters' regexp runs there). */
export async function validRegexp(db: Db, pattern: string): Promise<boolean> {
  try {
    await db`select '' ~ ${pattern}`;
    return true;
  } catch {
    return false;
  }
}

/** Topics the database would refuse (the same check the table and the declared definitions use). */
export async function invalidTopics(db: Db, topics: string[]): Promise<string[]> {
  if (topics.length === 0) return [];
  const rows = await db<{ topic: string }[]>`
    select t as topic from unnest(${topics}::text[]) t where not public.content_webhook_topic_valid(t)`;
  return rows.map((r) => r.topic);
}

export async function insertWebhookDefinition(
  tx: Tx,
  id: string,
  input: DefinitionInput,
  now: Date,
): Promise<DefinitionRow> {
  const [row] = await tx<DefinitionRow[]>`
    insert into public.content_webhook_definitions
      (id, name, url, topics, headers, secret_headers, active, filters, source, created_by, updated_by, created_at,
       updated_at)
    values (${id}, ${input.name}, ${input.url}, ${input.topics}::text[], ${tx.json(input.headers)},
            ${tx.json(input.secretHeaders)}, ${input.active}, ${tx.json(input.filters as never)}, 'hand',
            public.content_actor(), public.content_actor(), ${now}, ${now})
    returning ${tx.unsafe(DEFINITION_COLUMNS)}`;
  return row;
}

export async function replaceWebhookDefinition(
  tx: Tx,
  id: string,
  input: DefinitionInput,
  now: Date,
): Promise<DefinitionRow> {
  const [row] = await tx<DefinitionRow[]>`
    update public.content_webhook_definitions set
      name = ${input.name}, url = ${input.url}, topics = ${input.topics}::text[], headers = ${
    tx.json(input.headers)
  },
      secret_headers = ${tx.json(input.secretHeaders)}, active = ${input.active},
      filters = ${tx.json(input.filters as never)}, version = version + 1,
      updated_by = public.content_actor(), updated_at = ${now}
    where id = ${id}
    returning ${tx.unsafe(DEFINITION_COLUMNS)}`;
  return row;
}

export async function deleteWebhookDefinition(db: Db, id: string): Promise<void> {
  await db`delete from public.content_webhook_definitions where id = ${id}`;
}

/** Records a delivery attempt on its definition (the dispatcher's adapter calls this). */
export async function recordWebhookAttempt(
  db: Db,
  id: string,
  attempt: { at: Date; status: number | null; error: string | null },
): Promise<void> {
  await db`
    update public.content_webhook_definitions
    set last_at = ${attempt.at}, last_status = ${attempt.status}, last_error = ${attempt.error}
    where id = ${id}`;
}
