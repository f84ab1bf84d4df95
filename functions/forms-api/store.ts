// All SQL of the forms function: form documents (page records of kind form-slides in content_entries),
// responses, webhook subscriptions and the statistics insights read. Nothing else in the function
// writes SQL.
import type postgres from "postgres";
import type { Db, Sql, Tx } from "../../shared/db.ts";
import { type FormRecord, recordFields } from "./domain/forms.ts";
import type { FormDocument } from "./domain/document.ts";
import type { ResponseQuery, ResponseRowLike, StoredAnswer } from "./domain/responses.ts";

type Fragment = postgres.PendingQuery<postgres.Row[]>;

export const FORM_MODEL = "page";
export const FORM_KIND = "form-slides";

// ------------------------------------------------------------------------------------- forms

/** A form page record (its fields keyed by field id, then locale). */
export type FormEntryRow = FormRecord;

/** The slug a form page answers to: its slug field, else the last part of its entry id. */
function slugOf(db: Db, locale: string): Fragment {
  return db`coalesce(e.fields -> 'slug' ->> ${locale}, regexp_replace(e.id, '^.*\\.', ''))`;
}

function isForm(db: Db, locale: string): Fragment {
  // containment, so the GIN index on fields narrows to form pages
  return db`e.model_id = ${FORM_MODEL} and e.fields @> ${db.json({ kind: { [locale]: FORM_KIND } })}`;
}

/** The published form page with this slug. */
export async function publishedForm(db: Db, locale: string, slug: string): Promise<FormEntryRow | undefined> {
  const [row] = await db<FormEntryRow[]>`
    select e.id, e.path, e.fields, e.revision, e.created_at, e.updated_at
    from public.content_entries e
    where e.stage = 'published' and ${isForm(db, locale)} and ${slugOf(db, locale)} = ${slug}
    order by e.id limit 1`;
  return row;
}

export interface FormListRow extends FormEntryRow {
  slug: string;
}

/** A page of published forms, newest first, searched by title; and how many match. */
export async function listForms(
  db: Db,
  locale: string,
  options: { search?: string; offset: number; limit: number },
): Promise<{ rows: FormListRow[]; total: number }> {
  const search = options.search
    ? db`and (e.fields -> 'title' ->> ${locale}) ilike ${
      "%" + options.search.replace(/[\\%_]/g, "\\$&") + "%"
    }`
    : db``;
  const [rows, [{ total }]] = await Promise.all([
    db<FormListRow[]>`
      select e.id, e.path, e.fields, e.revision, e.created_at, e.updated_at, ${slugOf(db, locale)} as slug
      from public.content_entries e
      where e.stage = 'published' and ${isForm(db, locale)} ${search}
      order by e.created_at desc, e.id
      offset ${options.offset} limit ${options.limit}`,
    db<{ total: number }[]>`
      select count(*)::int as total from public.content_entries e
      where e.stage = 'published' and ${isForm(db, locale)} ${search}`,
  ]);
  return { rows, total };
}

/** Whether a form id is taken: a form page with that slug, or an entry at the id a new form would get. */
export async function formIdTaken(db: Db, locale: string, slug: string, entryId: string): Promise<boolean> {
  const [row] = await db`
    select 1 from public.content_entries e
    where e.id = ${entryId} or (${isForm(db, locale)} and ${slugOf(db, locale)} = ${slug})
    limit 1`;
  return Boolean(row);
}

/** Holds a form id for the transaction: concurrent writes at one id take turns. */
export async function lockFormId(tx: Tx, id: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(hashtext(${"forms:" + id}))`;
}

/** The preview row of a form page (cloud-mode writes replace it), locked for the transaction. */
export async function lockFormEntry(tx: Tx, locale: string, slug: string): Promise<FormEntryRow | undefined> {
  const [row] = await tx<FormEntryRow[]>`
    select e.id, e.path, e.fields, e.revision, e.created_at, e.updated_at
    from public.content_entries e
    where e.stage = 'preview' and ${isForm(tx, locale)} and ${slugOf(tx, locale)} = ${slug}
    order by e.id limit 1
    for update`;
  return row;
}

export interface FormEntryWrite {
  id: string;
  path: string;
  fields: Record<string, Record<string, unknown>>;
  searchText: string;
  revision: number;
  createdAt: Date;
  updatedAt: Date;
}

/** Writes a form page and publishes it at once: the preview and the published row alike. */
export async function writeFormEntry(tx: Tx, entry: FormEntryWrite): Promise<void> {
  const row = {
    id: entry.id,
    model_id: FORM_MODEL,
    path: entry.path,
    access: "guest",
    fields: tx.json(entry.fields as never),
    links: tx.array([] as string[], 25),
    asset_links: tx.array([] as string[], 25),
    search_text: entry.searchText,
    revision: entry.revision,
    created_at: entry.createdAt,
    updated_at: entry.updatedAt,
  };
  await tx`
    insert into public.content_entries ${
    tx([{ stage: "preview", ...row }, { stage: "published", ...row }] as never)
  }
    on conflict (stage, id) do update set
      model_id = excluded.model_id, path = excluded.path, fields = excluded.fields, search_text = excluded.search_text,
      revision = excluded.revision, updated_at = excluded.updated_at`;
}

/**
 * Publishes a form document as a page record (both stages at once): the record's other fields, when it
 * exists, are kept. The API's writes, the bench and the tests' own forms all go through here.
 */
export async function publishForm(
  tx: Tx,
  input: { doc: FormDocument; locale: string; id: string; path: string; existing?: FormRecord; now: Date },
): Promise<void> {
  const { fields, searchText } = recordFields(input.doc, input.locale, input.existing?.fields);
  await writeFormEntry(tx, {
    id: input.id,
    path: input.path,
    fields,
    searchText,
    revision: (input.existing?.revision ?? 0) + 1,
    createdAt: input.existing?.created_at ?? input.now,
    updatedAt: input.now,
  });
}

/** Removes a form page (both stages); the content triggers leave the tombstones sync reports. */
export async function deleteFormEntry(tx: Tx, id: string): Promise<void> {
  await tx`delete from public.content_entries where id = ${id}`;
}

export function formTransaction<T>(sql: Sql, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return sql.begin((tx) => fn(tx)) as Promise<T>;
}

/** Library files by path (a picture choice may name `media/...`). */
export function assetsByPath(db: Db, paths: string[]) {
  return db<{ id: string; path: string; content_hash: string; file_name: string }[]>`
    select id, path, content_hash, file_name from public.content_assets where path = any(${paths}::text[]) and published`;
}

// --------------------------------------------------------------------------------- responses

/** A stored response: what an item shows, plus the form and the slides reached. */
export interface ResponseRow extends ResponseRowLike {
  form: string;
  seen: string[];
  last_slide: string | null;
}

const RESPONSE_COLUMNS =
  "token, form, landed_at, submitted_at, metadata, hidden, answers, seen, last_slide, score::float8 as score, ending";
const RESPONSE_COLUMNS_R =
  "r.token, r.form, r.landed_at, r.submitted_at, r.metadata, r.hidden, r.answers, r.seen, r.last_slide, r.score::float8 as score, r.ending";

export async function insertResponse(
  db: Db,
  row: {
    token: string;
    form: string;
    landedAt: Date;
    metadata: Record<string, string>;
    hidden: Record<string, string>;
    platform: string;
    networkId: string;
    searchText: string;
  },
): Promise<void> {
  await db`
    insert into public.form_responses (token, form, landed_at, at, updated_at, metadata, hidden, platform, network_id, search_text)
    values (${row.token}, ${row.form}, ${row.landedAt}, ${row.landedAt}, ${row.landedAt}, ${
    db.json(row.metadata)
  },
            ${db.json(row.hidden)}, ${row.platform}, ${row.networkId}, ${row.searchText})`;
}

/** An open or submitted response of a form, locked for the transaction that changes it. */
export async function lockResponse(tx: Tx, form: string, token: string): Promise<ResponseRow | undefined> {
  const [row] = await tx<ResponseRow[]>`
    select ${tx.unsafe(RESPONSE_COLUMNS)} from public.form_responses
    where token = ${token} and form = ${form} for update`;
  return row;
}

export async function saveProgress(
  tx: Tx,
  token: string,
  change: {
    answers: Record<string, StoredAnswer>;
    seen: string[];
    lastSlide: string | null;
    searchText: string;
    now: Date;
  },
): Promise<void> {
  await tx`
    update public.form_responses
    set answers = ${tx.json(change.answers as never)}, seen = ${
    tx.array(change.seen, 25)
  }, last_slide = ${change.lastSlide},
        search_text = ${change.searchText}, updated_at = ${change.now}
    where token = ${token}`;
}

export async function markSubmitted(
  tx: Tx,
  token: string,
  done: {
    answers: Record<string, StoredAnswer>;
    seen: string[];
    lastSlide: string | null;
    score: number;
    ending: { id: string; ref: string };
    searchText: string;
    now: Date;
  },
): Promise<void> {
  await tx`
    update public.form_responses
    set answers = ${tx.json(done.answers as never)}, seen = ${
    tx.array(done.seen, 25)
  }, last_slide = ${done.lastSlide},
        score = ${done.score}, ending = ${tx.json(done.ending)}, search_text = ${done.searchText},
        submitted_at = ${done.now}, at = ${done.now}, updated_at = ${done.now}
    where token = ${token}`;
}

function responseConditions(db: Db, form: string, q: ResponseQuery): Fragment {
  const parts: Fragment[] = [db`r.form = ${form}`];
  if (q.since) parts.push(db`r.at >= ${q.since}`);
  if (q.until) parts.push(db`r.at <= ${q.until}`);
  if (q.includedTokens) parts.push(db`r.token = any(${q.includedTokens}::text[])`);
  if (q.completed === true) parts.push(db`r.submitted_at is not null`);
  if (q.completed === false) parts.push(db`r.submitted_at is null`);
  if (q.query) parts.push(db`r.search @@ to_tsquery('simple', ${q.query})`);
  if (q.matchesNothing) parts.push(db`false`);
  if (q.answeredFields?.length) parts.push(db`r.answered @> ${q.answeredFields}::text[]`);
  return parts.reduce((all, part) => db`${all} and ${part}`);
}

/** The cursor response's sort key, or undefined when the token names no response of the form. */
export async function cursorOf(
  db: Db,
  form: string,
  token: string,
): Promise<{ at: Date; landed_at: Date } | undefined> {
  const [row] = await db<{ at: Date; landed_at: Date }[]>`
    select at, landed_at from public.form_responses where form = ${form} and token = ${token}`;
  return row;
}

/**
 * One page of responses and how many match the filters (cursor aside), in two statements that run
 * side by side; both are served by the (form, at) / (form, landed_at) indexes, the GIN indexes for
 * query and answered_fields.
 */
export async function listResponses(
  db: Db,
  form: string,
  q: ResponseQuery,
  cursor?: { direction: "before" | "after"; token: string; at: Date },
): Promise<{ rows: ResponseRow[]; total: number }> {
  const where = responseConditions(db, form, q);
  const key = q.sort.key === "landed_at" ? db`r.landed_at` : db`r.at`;
  const cursorPart = cursor
    ? cursor.direction === "before"
      ? db`and (${key}, r.token) < (${cursor.at}, ${cursor.token})`
      : db`and (${key}, r.token) > (${cursor.at}, ${cursor.token})`
    : db``;
  const order = q.sort.direction === "asc" ? db`${key} asc, r.token asc` : db`${key} desc, r.token desc`;
  const [rows, [{ total }]] = await Promise.all([
    db<ResponseRow[]>`
      select ${db.unsafe(RESPONSE_COLUMNS_R)}
      from public.form_responses r
      where ${where} ${cursorPart}
      order by ${order}
      limit ${q.pageSize}`,
    db<{ total: number }[]>`select count(*)::int as total from public.form_responses r where ${where}`,
  ]);
  return { rows, total };
}

/** Deletes responses of a form by token; answers the deleted rows' answers (their files go too). */
export async function deleteResponses(tx: Tx, form: string, tokens: string[]): Promise<ResponseRow[]> {
  return await tx<ResponseRow[]>`
    delete from public.form_responses where form = ${form} and token = any(${tokens}::text[])
    returning ${tx.unsafe(RESPONSE_COLUMNS)}`;
}

export async function responseAnswer(
  db: Db,
  form: string,
  token: string,
  ref: string,
): Promise<StoredAnswer | undefined> {
  const [row] = await db<{ answer: StoredAnswer | null }[]>`
    select answers -> ${ref} as answer from public.form_responses where form = ${form} and token = ${token}`;
  return row?.answer ?? undefined;
}

/** Records delivery failures on the response (meta.webhook_failed by subscriber, webhook_error). */
export async function recordResponseDelivery(
  db: Db,
  token: string,
  subscriber: string,
  failed: string | null,
): Promise<void> {
  if (failed) {
    await db`
      update public.form_responses
      set meta = jsonb_set(meta || jsonb_build_object('webhook_error', ${failed}::text),
                           '{webhook_failed}', coalesce(meta -> 'webhook_failed', '{}'::jsonb) || jsonb_build_object(${subscriber}::text, true))
      where token = ${token}`;
  } else {
    await db`
      update public.form_responses
      set meta = case when (meta -> 'webhook_failed') - ${subscriber}::text = '{}'::jsonb
                      then meta - 'webhook_failed' - 'webhook_error'
                      else jsonb_set(meta, '{webhook_failed}', (meta -> 'webhook_failed') - ${subscriber}::text) end
      where token = ${token} and meta ? 'webhook_failed'`;
  }
}

// ---------------------------------------------------------------------------------- insights

export interface PlatformStats {
  platform: string;
  total_visits: number;
  unique_visits: number;
  responses_count: number;
  average_time: number;
}

/** The admin statistics of one form: per platform, overall, and per slide (views, dropoffs). */
export async function formStatistics(db: Db, form: string) {
  const [platforms, [overall], slides] = await Promise.all([
    db<PlatformStats[]>`
      select platform, total_visits::int, unique_visits::int, responses_count::int, average_time::float8
      from public.form_statistics where form = ${form} order by platform`,
    db<PlatformStats[]>`
      select count(*)::int as total_visits, count(distinct nullif(network_id, ''))::int as unique_visits,
             count(submitted_at)::int as responses_count,
             coalesce(avg(extract(epoch from submitted_at - landed_at)) filter (where submitted_at is not null), 0)::float8
               as average_time
      from public.form_responses where form = ${form}`,
    db<{ slide: string; views: number; dropoffs: number }[]>`
      select s.slide, count(*)::int as views,
             count(*) filter (where r.last_slide = s.slide and r.submitted_at is null)::int as dropoffs
      from public.form_responses r, unnest(r.seen) as s(slide)
      where r.form = ${form}
      group by s.slide`,
  ]);
  return { platforms, overall, slides };
}

// ---------------------------------------------------------------------------------- webhooks

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
