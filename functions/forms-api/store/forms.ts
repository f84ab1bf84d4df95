// The forms function's SQL for form documents (page records of kind form-slides in content_entries). The
// other areas' SQL is beside this file (responses, insights, webhooks); nothing outside store/ writes SQL.
import type postgres from "postgres";
import type { Db, Sql, Tx } from "../../../shared/db.ts";
import { type FormRecord, recordFields } from "../domain/forms.ts";
import type { FormDocument } from "../domain/document.ts";

export type Fragment = postgres.PendingQuery<postgres.Row[]>;

export const FORM_MODEL = "page";
export const FORM_KIND = "form-slides";

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
