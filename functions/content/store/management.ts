// The Content Management API's SQL (cloud mode): entries, assets and uploads. The management shapes are
// SQL functions (migration 20261122000030) shared with the webhook triggers, so an answer and a webhook
// body never differ.
import type { Db, Sql, Tx } from "../../../shared/db.ts";

export interface ManagementActor {
  /** the key that writes; its maker (else the key) is recorded as createdBy / updatedBy */
  keyId?: string;
  /** the public host asset addresses point at */
  mediaHost: string;
}

/**
 * One management write: a transaction that first names the actor and the media host for the content
 * triggers (meta rows, webhook bodies), so everything the write causes commits, or fails, together.
 */
export async function managementTransaction<T>(
  sql: Sql,
  actor: ManagementActor,
  fn: (tx: Tx) => Promise<T>,
): Promise<T> {
  return await sql.begin(async (tx) => {
    // sitewire.actor: the key's maker, or the key itself when no person made it (migration
    // 20261125211000); sitewire.key: the repository push names the key in its commit (migration 080)
    await tx`select
      set_config('sitewire.actor', coalesce((select coalesce(created_by::text, id::text) from public.api_keys
      where id = ${actor.keyId ?? null}::uuid), ''), true),
      set_config('sitewire.key', ${actor.keyId ?? ""}, true),
      set_config('sitewire.media_host', ${actor.mediaHost}, true)`;
    return await fn(tx);
  }) as T;
}

export interface LockedEntry {
  modelId: string;
  revision: number;
  version: number;
  published: boolean;
  fields: Record<string, Record<string, unknown>>;
  access: string;
  publishedFields: Record<string, Record<string, unknown>> | null;
  publishedAccess: string | null;
  /** published at least once (now, or before an unpublish) */
  everPublished: boolean;
}

/** The draft row of an entry, locked until the transaction ends, with its current sys.version. */
export async function lockEntry(tx: Tx, id: string): Promise<LockedEntry | undefined> {
  const [row] = await tx<LockedEntry[]>`
    select p.model_id as "modelId", p.revision, p.fields, p.access,
           b.id is not null as published, b.fields as "publishedFields", b.access as "publishedAccess",
           (public.content_management_entry(p, b, null, '') -> 'sys' ->> 'version')::int as version,
           b.id is not null or m.first_published_at is not null as "everPublished"
    from public.content_entries p
    left join public.content_entries b on b.stage = 'published' and b.id = p.id
    left join public.content_meta m on m.kind = 'Entry' and m.id = p.id
    where p.stage = 'preview' and p.id = ${id}
    for update of p`;
  return row;
}

export async function managementEntry(db: Db, id: string): Promise<Record<string, any> | undefined> {
  const [row] = await db<{ entry: Record<string, any> | null }[]>`
    select public.content_management_entry_by_id(${id}) as entry`;
  return row?.entry ?? undefined;
}

/** Management shapes of these entries, in the order given. */
export async function managementEntries(db: Db, ids: string[]): Promise<Record<string, any>[]> {
  if (ids.length === 0) return [];
  const rows = await db<{ entry: Record<string, any> }[]>`
    select public.content_management_entry_by_id(x.id) as entry
    from unnest(${ids}::text[]) with ordinality x(id, n) order by x.n`;
  return rows.map((r) => r.entry).filter(Boolean);
}

export async function modelFolder(db: Db, modelId: string): Promise<string | undefined> {
  const [row] = await db<
    { folder: string }[]
  >`select folder from public.content_models where id = ${modelId}`;
  return row?.folder;
}

/** Processed library files among `ids`, and library paths to their ids (links must name them). */
export async function libraryFiles(
  db: Db,
  refs: { ids: string[]; paths: string[] },
): Promise<{ ids: Set<string>; byPath: Map<string, string> }> {
  const rows = refs.ids.length || refs.paths.length
    ? await db<{ id: string; path: string }[]>`
        select id, path from public.content_assets
        where published and (id = any(${refs.ids}::text[]) or path = any(${refs.paths}::text[]))`
    : [];
  return { ids: new Set(rows.map((r) => r.id)), byPath: new Map(rows.map((r) => [r.path, r.id])) };
}

export interface EntryValuesRow {
  fields: Record<string, Record<string, unknown>>;
  links: string[];
  assetLinks: string[];
  searchText: string;
}

/**
 * A new entry's draft; false when the id is taken, also by a create running at the same moment (the
 * insert waits for that one to commit, then skips: no unique-violation error, no trigger fires).
 */
export async function insertDraft(
  tx: Tx,
  input: { id: string; modelId: string; path: string; values: EntryValuesRow; now: Date; createdAt: Date },
): Promise<boolean> {
  const { values } = input;
  const inserted = await tx`
    insert into public.content_entries
      (stage, id, model_id, path, fields, links, asset_links, search_text, revision, created_at, updated_at)
    values ('preview', ${input.id}, ${input.modelId}, ${input.path}, ${tx.json(values.fields as never)},
            ${values.links}::text[], ${values.assetLinks}::text[], ${values.searchText}, 0, ${input.createdAt}, ${input.now})
    on conflict do nothing
    returning 1`;
  return inserted.length === 1;
}

/**
 * Replaces the typed fields of a draft (the access level and the path, the admin's own, stay); a
 * record's date, when given, is its createdAt.
 */
export async function replaceDraft(
  tx: Tx,
  id: string,
  input: { values: EntryValuesRow; revision: number; now: Date; dated: Date | null },
): Promise<void> {
  const { values } = input;
  await tx`
    update public.content_entries set
      fields = ${tx.json(values.fields as never)}, links = ${values.links}::text[],
      asset_links = ${values.assetLinks}::text[], search_text = ${values.searchText},
      revision = ${input.revision}, updated_at = ${input.now}, created_at = coalesce(${input.dated}::timestamptz, created_at)
    where stage = 'preview' and id = ${id}`;
}

/**
 * Publish: the draft's revision moves on first (content unchanged, so no save event), then the
 * published row becomes a copy of the draft (the publish event sees the final state).
 */
export async function publishDraft(
  tx: Tx,
  id: string,
  input: { revision: number; now: Date; createdAt: Date | null },
): Promise<void> {
  await tx`update public.content_entries
           set revision = ${input.revision}, updated_at = ${input.now}, created_at = coalesce(${input.createdAt}::timestamptz, created_at)
           where stage = 'preview' and id = ${id}`;
  await tx`
    insert into public.content_entries
      (stage, id, model_id, path, access, fields, links, asset_links, search_text, revision, created_at, updated_at)
    select 'published', id, model_id, path, access, fields, links, asset_links, search_text, revision, created_at, updated_at
    from public.content_entries where stage = 'preview' and id = ${id}
    on conflict (stage, id) do update set
      model_id = excluded.model_id, path = excluded.path, access = excluded.access, fields = excluded.fields,
      links = excluded.links, asset_links = excluded.asset_links, search_text = excluded.search_text,
      revision = excluded.revision, created_at = excluded.created_at, updated_at = excluded.updated_at`;
}

/** Unpublish: the draft's revision moves on, then the published row goes (its tombstone tells sync). */
export async function unpublishEntry(tx: Tx, id: string, revision: number, now: Date): Promise<void> {
  await tx`update public.content_entries set revision = ${revision}, updated_at = ${now}
           where stage = 'preview' and id = ${id}`;
  await tx`delete from public.content_entries where stage = 'published' and id = ${id}`;
}

/** Both rows in one statement: the triggers see a deletion, not an unpublish followed by one. */
export async function deleteEntry(tx: Tx, id: string): Promise<void> {
  await tx`delete from public.content_entries where id = ${id}`;
}

export interface LockedAsset {
  id: string;
  revision: number;
  version: number;
  published: boolean;
  path: string;
  storageKey: string;
  pendingFile: PendingFile | null;
}

export type PendingFile = {
  fileName: string;
  contentType: string;
  uploadFrom?: { sys: { type: "Link"; linkType: "Upload"; id: string } };
  upload?: string;
};

export async function lockAsset(tx: Tx, id: string): Promise<LockedAsset | undefined> {
  const [row] = await tx<LockedAsset[]>`
    select a.id, a.revision, a.published, a.path, a.storage_key as "storageKey", a.pending_file as "pendingFile",
           a.revision * 2 + case when a.pending_file is not null then 1 else 0 end as version
    from public.content_assets a where a.id = ${id} for update`;
  return row;
}

export async function managementAsset(
  db: Db,
  id: string,
  mediaHost: string,
): Promise<Record<string, any> | undefined> {
  const [row] = await db<{ asset: Record<string, any> | null }[]>`
    select public.content_management_asset_by_id(${id}, ${mediaHost}) as asset`;
  return row?.asset ?? undefined;
}

/**
 * Asset.publish for a library file published again: its row does not change (a library file is
 * published by existing), so no trigger speaks for it.
 */
export async function announceAssetPublish(tx: Tx, id: string): Promise<void> {
  await tx`
    select public.content_enqueue_event('Asset', 'publish',
      public.content_management_asset_by_id(${id}, public.content_media_host()))
    where public.content_wants_event('Asset', 'publish')`;
}

/** Management shapes of these assets, in the order given (a page queryAssets found). */
export async function managementAssets(
  db: Db,
  ids: string[],
  mediaHost: string,
): Promise<Record<string, any>[]> {
  if (ids.length === 0) return [];
  const rows = await db<{ asset: Record<string, any> }[]>`
    select public.content_management_asset_by_id(x.id, ${mediaHost}) as asset
    from unnest(${ids}::text[]) with ordinality x(id, n) order by x.n`;
  return rows.map((r) => r.asset).filter(Boolean);
}

export interface AssetText {
  title: Record<string, string>;
  description: Record<string, string>;
}

/**
 * A new asset waiting for its file: not in the library (published false) until processed. False when
 * the id is taken, also by a create running at the same moment (as insertDraft).
 */
export async function insertPendingAsset(
  tx: Tx,
  input: { id: string; text: AssetText; file: PendingFile; path: string; now: Date },
): Promise<boolean> {
  const inserted = await tx`
    insert into public.content_assets
      (id, path, file_name, content_type, size, title, description, content_hash, storage_key, published,
       pending_file, revision, created_at, updated_at)
    values (${input.id}, ${input.path}, ${input.file.fileName}, ${input.file.contentType}, 0,
            ${tx.json(input.text.title)}, ${tx.json(input.text.description)}, '', ${input.path}, false,
            ${tx.json(input.file as never)}, 0, ${input.now}, ${input.now})
    on conflict do nothing
    returning 1`;
  return inserted.length === 1;
}

/** Replaces title and description; a new pending file when one is given (null keeps the current). */
export async function updateAsset(
  tx: Tx,
  id: string,
  input: { text: AssetText; file: PendingFile | null; revision: number; now: Date },
): Promise<void> {
  await tx`
    update public.content_assets set
      title = ${tx.json(input.text.title)}, description = ${tx.json(input.text.description)},
      pending_file = coalesce(${input.file ? tx.json(input.file as never) : null}::jsonb, pending_file),
      revision = ${input.revision}, updated_at = ${input.now}
    where id = ${id}`;
}

/** The processed file: in the library now (published), its pending file done. */
export async function storeProcessedFile(
  tx: Tx,
  id: string,
  file: {
    path: string;
    fileName: string;
    contentType: string;
    size: number;
    width: number | null;
    height: number | null;
    contentHash: string;
  },
  revision: number,
  now: Date,
): Promise<void> {
  await tx`
    update public.content_assets set
      path = ${file.path}, storage_key = ${file.path}, file_name = ${file.fileName}, content_type = ${file.contentType},
      size = ${file.size}, width = ${file.width}, height = ${file.height}, content_hash = ${file.contentHash},
      published = true, pending_file = null, revision = ${revision}, updated_at = ${now}
    where id = ${id}`;
}

/** Entries (either stage) naming the asset. */
export async function assetUsers(db: Db, id: string): Promise<string[]> {
  const rows = await db<{ id: string }[]>`
    select distinct id from public.content_entries where asset_links @> array[${id}::text] order by id`;
  return rows.map((r) => r.id);
}

export async function deleteAssetRow(tx: Tx, id: string): Promise<void> {
  await tx`delete from public.content_assets where id = ${id}`;
}

export interface UploadRow {
  id: string;
  size: number;
  contentType: string;
  createdAt: Date;
  expiresAt: Date;
  createdBy: string | null;
}

const UPLOAD_COLUMNS =
  `id, size, content_type as "contentType", created_at as "createdAt", expires_at as "expiresAt",
  created_by as "createdBy"`;

export async function insertUpload(
  sql: Sql,
  actor: ManagementActor,
  input: { id: string; size: number; contentType: string; now: Date; expiresAt: Date },
): Promise<UploadRow> {
  return await managementTransaction(sql, actor, async (tx) => {
    const [row] = await tx<UploadRow[]>`
      insert into public.content_uploads (id, size, content_type, created_by, created_at, expires_at)
      values (${input.id}, ${input.size}, ${input.contentType}, public.content_actor(), ${input.now}, ${input.expiresAt})
      returning ${tx.unsafe(UPLOAD_COLUMNS)}`;
    return row;
  });
}

/** An upload that has not expired. */
export async function liveUpload(db: Db, id: string, now: Date): Promise<UploadRow | undefined> {
  const [row] = await db<UploadRow[]>`
    select ${db.unsafe(UPLOAD_COLUMNS)} from public.content_uploads where id = ${id} and expires_at > ${now}`;
  return row;
}

export async function deleteUpload(db: Db, id: string): Promise<void> {
  await db`delete from public.content_uploads where id = ${id}`;
}

/**
 * The sweep's rows: uploads past their expiry (or older than `olderThan` in a manual run) and assets
 * never processed since before `assetCutoff`. Answers what went, so the caller removes their bytes.
 */
export async function sweepUploads(
  tx: Tx,
  input: { now: Date; uploadCutoff: Date; assetCutoff: Date },
): Promise<{ uploads: string[]; assets: { id: string; fileName: string }[] }> {
  const uploads = await tx<{ id: string }[]>`
    delete from public.content_uploads
    where expires_at <= ${input.now} or created_at <= ${input.uploadCutoff} returning id`;
  const assets = await tx<{ id: string; fileName: string }[]>`
    delete from public.content_assets
    where not published and pending_file is not null and created_at <= ${input.assetCutoff}
    returning id, file_name as "fileName"`;
  return { uploads: uploads.map((u) => u.id), assets };
}
