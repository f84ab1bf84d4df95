// Responses' SQL: a visit's partial and completed responses, their lists, answers and deletion.
import type { Db, Tx } from "../../../shared/db.ts";
import type { ResponseQuery, ResponseRowLike, StoredAnswer } from "../domain/responses.ts";
import type { Fragment } from "./forms.ts";

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
    countMatches(db, form, q, where),
  ]);
  return { rows, total };
}

/**
 * How many responses match the filters. With none but `completed`, the form's kept counts answer
 * (migrations/20261126004100_form_response_counts.sql); with a `query` besides, the search's kept counts
 * (migrations/20261126007500_form_search_counts.sql: counted the first time a search is asked, then kept
 * by triggers); either way in time that does not grow with the form. Any other filter counts its matches.
 */
function countMatches(db: Db, form: string, q: ResponseQuery, where: Fragment): Promise<{ total: number }[]> {
  const kept = !q.since && !q.until && !q.includedTokens && !q.matchesNothing && !q.answeredFields?.length;
  if (!kept) return db<{ total: number }[]>`select count(*)::int as total from public.form_responses r where ${where}`;
  if (q.query) {
    const total = q.completed === undefined ? db`submitted + open` : q.completed ? db`submitted` : db`open`;
    return db<{ total: number }[]>`select (${total})::int as total from public.form_search_count(${form}, ${q.query})`;
  }
  const submitted = q.completed === undefined ? db`` : db`and submitted = ${q.completed}`;
  return db<{ total: number }[]>`
    select coalesce(sum(responses), 0)::int as total from public.form_response_counts
    where form = ${form} ${submitted}`;
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
