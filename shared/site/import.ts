// site:import: loads a content directory into the database, in ONE transaction (all or nothing).
//
// The directory replaces the site's content: rows of records that no longer exist are deleted (the
// content triggers leave tombstones, so sync reports DeletedEntry / DeletedAsset), and rows that did
// not change are not rewritten (the upserts compare in SQL), so a re-import is idempotent and sync
// deltas stay small. A published record has a 'preview' and an identical 'published' row; an
// unpublished one only the 'preview' row.
//
// Which rows the import owns (migration 20261122000035): in git mode every row; in cloud mode, where the
// database is the source of truth, only rows of source `file`. Entries and assets made or changed by
// hand (the management API, an administrator) are left as they are, and a record of the directory at
// such an id is skipped with a warning; so is one whose change is still queued to be pushed to the
// directory (migration 080), which the directory does not show yet.
//
// In cloud mode the database also keeps its own revision and times (the management API's versions,
// first and last publish): a record whose content the directory does not change leaves its rows alone,
// so a record the repository push wrote reads back unchanged. A site that switches into cloud mode
// starts from the directory's values.
import type { Clock } from "../clock.ts";
import { systemClock } from "../clock.ts";
import type { Db, Sql, Tx } from "../db.ts";
import type { SiteMode } from "./config.ts";
import { readSiteDir } from "./content-dir.ts";
import {
  type AssetSnapshot,
  type EntrySnapshot,
  type ModelSnapshot,
  SiteImportError,
  type SiteSnapshot,
} from "./snapshot.ts";

export { SiteImportError };

export const MEDIA_BUCKET = "media";

export interface ImportOptions {
  dir: string;
  modeOverride?: SiteMode;
  clock?: Clock;
  onProgress?: (message: string) => void;
}

export interface RowCounts {
  /** rows written for the first time */
  inserted: number;
  /** rows that existed and changed */
  updated: number;
  /** rows removed (records or files no longer in the directory, or a record unpublished) */
  deleted: number;
  /** rows left as they were */
  unchanged: number;
}

export interface ImportResult {
  slug: string;
  space: string;
  mode: SiteMode;
  locales: string[];
  /** models: one row each */
  models: RowCounts & { total: number };
  /** entries: total records and how many are published; row counts cover both stages */
  entries: RowCounts & { total: number; published: number };
  assets: RowCounts & { total: number; bytesWritten: number };
  warnings: string[];
  ms: number;
}

/** Reads `dir` and writes it to the database (one transaction). Throws SiteImportError for a bad file. */
export async function importSite(sql: Db, options: ImportOptions): Promise<ImportResult> {
  const started = performance.now();
  const snapshot = await readSiteDir(options.dir, {
    modeOverride: options.modeOverride,
    onProgress: options.onProgress,
  });
  const result = await writeSiteSnapshot(sql, snapshot, {
    clock: options.clock,
    onProgress: options.onProgress,
  });
  result.ms = Math.round(performance.now() - started);
  return result;
}

/** Writes a snapshot; `sql` is a pool (a transaction is opened) or an open transaction (used as is). */
export async function writeSiteSnapshot(
  sql: Db,
  snapshot: SiteSnapshot,
  options: { clock?: Clock; onProgress?: (message: string) => void } = {},
): Promise<ImportResult> {
  const clock = options.clock ?? systemClock;
  const progress = options.onProgress ?? (() => {});
  const run = (tx: Tx) => writeInTransaction(tx, snapshot, clock.now(), progress);
  if ("begin" in sql && typeof (sql as Sql).begin === "function") {
    return await (sql as Sql).begin((tx) => run(tx)) as ImportResult;
  }
  return await run(sql as Tx);
}

async function writeInTransaction(
  tx: Tx,
  snapshot: SiteSnapshot,
  now: Date,
  progress: (message: string) => void,
): Promise<ImportResult> {
  // one import at a time: a second waits for the first to commit
  await tx`select pg_advisory_xact_lock(hashtext('sitewire.site-import'))`;
  // the rows this transaction writes are the directory's (source `file`)
  await tx`select set_config('sitewire.writer', 'import', true)`;

  const [before] = await tx<{ mode: string }[]>`select mode from public.site_settings`;
  const keepOwnTimes = snapshot.mode === "cloud" && before?.mode === "cloud";
  await writeSettings(tx, snapshot, now);
  const kept = await handMade(tx, snapshot);
  const warnings = [...snapshot.warnings, ...keptWarnings(snapshot, kept)];
  // stale rows first: a model can only go once no entry names it
  const entriesDeleted = await deleteStaleEntries(tx, snapshot.entries, kept.entries);
  const modelIds = snapshot.models.map((m) => m.id);
  await refuseUsedModels(tx, modelIds);
  const removedModels = await tx<{ id: string }[]>`
    delete from public.content_models where id <> all(${modelIds}::text[]) returning id`;
  const models = await writeModels(tx, snapshot.models, now);
  models.deleted = removedModels.length;
  progress(`models: ${describe(models)}`);
  const assets = await writeAssets(tx, snapshot.assets.filter((a) => !kept.assets.has(a.id)), kept.assets);
  progress(
    `assets: ${describe(assets)}${assets.bytesWritten ? `, ${assets.bytesWritten} bytes stored` : ""}`,
  );
  const entries = await writeEntries(tx, snapshot.entries.filter((e) => !kept.entries.has(e.id)), keepOwnTimes);
  entries.deleted = entriesDeleted;
  if (kept.entries.size || kept.assets.size) {
    progress(`kept as made by hand (cloud mode): ${kept.entries.size} entries, ${kept.assets.size} assets`);
  }
  progress(`entry rows (both stages): ${describe(entries)}`);

  return {
    slug: snapshot.config.slug,
    space: snapshot.config.api.space,
    mode: snapshot.mode,
    locales: snapshot.config.locales.map((l) => l.code),
    models: { total: snapshot.models.length, ...models },
    entries: {
      total: snapshot.entries.length,
      published: snapshot.entries.filter((e) => e.published).length,
      ...entries,
    },
    assets: { total: snapshot.assets.length, ...assets },
    warnings,
    ms: 0,
  };
}

interface HandMade {
  entries: Set<string>;
  assets: Set<string>;
}

/**
 * Ids of entries and assets made or changed by hand, or with a change still waiting to be pushed to the
 * directory, which a cloud-mode import leaves alone.
 */
async function handMade(tx: Tx, snapshot: SiteSnapshot): Promise<HandMade> {
  if (snapshot.mode !== "cloud") return { entries: new Set(), assets: new Set() };
  const entries = await tx<{ id: string }[]>`
    select id from public.content_entries where source = 'hand'
    union select entity_id from public.content_pushes where kind = 'Entry' and status = 'pending'`;
  const assets = await tx<{ id: string }[]>`
    select id from public.content_assets where source = 'hand'
    union select entity_id from public.content_pushes where kind = 'Asset' and status = 'pending'`;
  return { entries: new Set(entries.map((r) => r.id)), assets: new Set(assets.map((r) => r.id)) };
}

/** A record or file of the directory that a hand-made row shadows is not applied: say so. */
function keptWarnings(snapshot: SiteSnapshot, kept: HandMade): string[] {
  const shadowed = [
    ...snapshot.entries.filter((e) => kept.entries.has(e.id)).map((e) => e.path),
    ...snapshot.assets.filter((a) => kept.assets.has(a.id)).map((a) => a.path),
  ];
  return shadowed.map((path) => `${path}: changed through the API in cloud mode; the database's copy is kept`);
}

/** A model can leave the directory only once no entry the import keeps (a hand-made one) uses it. */
async function refuseUsedModels(tx: Tx, modelIds: string[]): Promise<void> {
  const used = await tx<{ model_id: string; folder: string; ids: string[] }[]>`
    select e.model_id, m.folder, array_agg(distinct e.id order by e.id) as ids
    from public.content_entries e join public.content_models m on m.id = e.model_id
    where e.model_id <> all(${modelIds}::text[])
    group by e.model_id, m.folder order by e.model_id`;
  if (!used.length) return;
  const [first] = used;
  throw new SiteImportError(
    `models/${first.folder}: the model ${first.model_id} is gone from the directory, but entries made through ` +
      `the API still use it (${first.ids.slice(0, 5).join(", ")}${first.ids.length > 5 ? ", ..." : ""}); ` +
      `delete them through the API first, or put the model back`,
    `models/${first.folder}`,
  );
}

function describe(c: RowCounts): string {
  return `${c.inserted} new, ${c.updated} changed, ${c.deleted} removed, ${c.unchanged} unchanged`;
}

async function writeSettings(tx: Tx, snapshot: SiteSnapshot, now: Date): Promise<void> {
  const { config } = snapshot;
  const locales = config.locales.map((l) => ({
    code: l.code,
    name: l.name,
    default: l.default,
    fallbackCode: l.fallbackCode,
    optional: l.optional,
  }));
  await tx`
    insert into public.site_settings (id, name, slug, domain, mode, modules, locales, config, source_dir, imported_at, updated_at)
    values (true, ${config.name}, ${config.slug}, ${config.domain}, ${snapshot.mode}, ${
    tx.json(config.modules)
  },
      ${tx.json(locales)}, ${tx.json(config.raw as never)}, ${snapshot.dir}, ${now}, ${now})
    on conflict (id) do update set
      name = excluded.name, slug = excluded.slug, domain = excluded.domain, mode = excluded.mode,
      modules = excluded.modules, locales = excluded.locales, config = excluded.config,
      source_dir = excluded.source_dir, imported_at = excluded.imported_at,
      updated_at = case
        when (site_settings.name, site_settings.slug, site_settings.domain, site_settings.mode,
              site_settings.modules, site_settings.locales, site_settings.config, site_settings.source_dir)
          is distinct from (excluded.name, excluded.slug, excluded.domain, excluded.mode,
              excluded.modules, excluded.locales, excluded.config, excluded.source_dir)
        then excluded.updated_at else site_settings.updated_at end`;
}

async function writeModels(tx: Tx, models: ModelSnapshot[], now: Date): Promise<RowCounts> {
  const rows = models.map((m) => ({
    id: m.id,
    folder: m.folder,
    name: m.name,
    description: m.description,
    display_field: m.displayField,
    fields: tx.json(m.fields as never),
    stock: m.stock,
    position: m.position,
    revision: 1,
    created_at: now,
    updated_at: now,
  }));
  const written = await tx<{ inserted: boolean }[]>`
    insert into public.content_models ${tx(rows)}
    on conflict (id) do update set
      folder = excluded.folder, name = excluded.name, description = excluded.description,
      display_field = excluded.display_field, fields = excluded.fields, stock = excluded.stock,
      position = excluded.position, revision = content_models.revision + 1, updated_at = excluded.updated_at
    where (content_models.folder, content_models.name, content_models.description, content_models.display_field,
           content_models.fields, content_models.stock, content_models.position)
      is distinct from (excluded.folder, excluded.name, excluded.description, excluded.display_field,
           excluded.fields, excluded.stock, excluded.position)
    returning (xmax = 0) as inserted`;
  return countWrites(written, rows.length, 0);
}

/** `keepOwnTimes`: a row whose content is unchanged keeps its revision and times (cloud mode, see above). */
async function writeEntries(tx: Tx, entries: EntrySnapshot[], keepOwnTimes: boolean): Promise<RowCounts> {
  const rows: Record<string, unknown>[] = [];
  for (const entry of entries) {
    const row = {
      id: entry.id,
      model_id: entry.modelId,
      path: entry.path,
      access: entry.access,
      fields: tx.json(entry.fields as never),
      links: tx.array(entry.links, 25),
      asset_links: tx.array(entry.assetLinks, 25),
      search_text: entry.searchText,
      revision: entry.revision,
      created_at: entry.createdAt,
      updated_at: entry.updatedAt,
      source: "file",
    };
    rows.push({ stage: "preview", ...row });
    if (entry.published) rows.push({ stage: "published", ...row });
  }
  let inserted = 0;
  let updated = 0;
  for (const batch of chunks(rows, 400)) {
    const written = await tx<{ inserted: boolean }[]>`
      insert into public.content_entries ${tx(batch as never)}
      on conflict (stage, id) do update set
        model_id = excluded.model_id, path = excluded.path, access = excluded.access, fields = excluded.fields,
        links = excluded.links, asset_links = excluded.asset_links, search_text = excluded.search_text,
        revision = excluded.revision, created_at = excluded.created_at, updated_at = excluded.updated_at,
        source = excluded.source
      where (content_entries.model_id, content_entries.path, content_entries.access, content_entries.fields,
             content_entries.links, content_entries.asset_links, content_entries.search_text, content_entries.source)
          is distinct from (excluded.model_id, excluded.path, excluded.access, excluded.fields,
             excluded.links, excluded.asset_links, excluded.search_text, excluded.source)
        or (not ${keepOwnTimes} and (content_entries.revision, content_entries.created_at, content_entries.updated_at)
          is distinct from (excluded.revision, excluded.created_at, excluded.updated_at))
      returning (xmax = 0) as inserted`;
    for (const w of written) w.inserted ? inserted++ : updated++;
  }
  return { inserted, updated, deleted: 0, unchanged: rows.length - inserted - updated };
}

/**
 * Removes the rows of records gone from the directory, and the published rows of unpublished ones;
 * entries made by hand (`kept`) stay whole.
 */
async function deleteStaleEntries(tx: Tx, entries: EntrySnapshot[], kept: Set<string>): Promise<number> {
  const previewIds = entries.map((e) => e.id);
  const publishedIds = entries.filter((e) => e.published).map((e) => e.id);
  const deleted = await tx`
    delete from public.content_entries
    where id <> all(${[...kept]}::text[])
      and ((stage = 'preview' and id <> all(${previewIds}::text[]))
        or (stage = 'published' and id <> all(${publishedIds}::text[])))
    returning 1`;
  return deleted.length;
}

/** Writes the directory's files; assets made by hand (`kept`) and their bytes stay. */
async function writeAssets(
  tx: Tx,
  assets: AssetSnapshot[],
  kept: Set<string>,
): Promise<RowCounts & { bytesWritten: number }> {
  const ids = [...assets.map((a) => a.id), ...kept];
  const keys = assets.filter((a) => !a.external).map((a) => a.storageKey);
  const deleted = await tx`delete from public.content_assets where id <> all(${ids}::text[]) returning 1`;
  await tx`
    delete from public.storage_objects o
    where o.bucket = ${MEDIA_BUCKET} and o.key <> all(${keys}::text[])
      and not exists (select 1 from public.content_assets a where a.storage_key = o.key and a.id = any(${[...kept]}::text[]))`;

  // bytes go over the wire only for files that are new or changed
  const stored = new Map(
    (await tx<{ key: string; size: number; content_hash: string | null }[]>`
      select o.key, o.size, a.content_hash
      from public.storage_objects o
      left join public.content_assets a on a.storage_key = o.key and a.path = o.key
      where o.bucket = ${MEDIA_BUCKET}`).map((r) => [r.key, r]),
  );
  const uploads = assets.filter((a) => {
    if (a.external || !a.bytes) return false;
    const seen = stored.get(a.storageKey);
    return !seen || seen.size !== a.size || seen.content_hash !== a.contentHash;
  });
  let bytesWritten = 0;
  for (const batch of chunksBySize(uploads, 8 * 1024 * 1024)) {
    const rows = batch.map((a) => ({
      bucket: MEDIA_BUCKET,
      key: a.storageKey,
      content_type: a.contentType,
      size: a.size,
      bytes: a.bytes!,
    }));
    await tx`
      insert into public.storage_objects ${tx(rows)}
      on conflict (bucket, key) do update set
        content_type = excluded.content_type, size = excluded.size, bytes = excluded.bytes, created_at = now()`;
    bytesWritten += batch.reduce((n, a) => n + a.size, 0);
  }

  const rows = assets.map((a) => ({
    id: a.id,
    path: a.path,
    file_name: a.fileName,
    content_type: a.contentType,
    size: a.size,
    width: a.width,
    height: a.height,
    title: tx.json(a.title),
    description: tx.json(a.description),
    content_hash: a.contentHash,
    storage_key: a.storageKey,
    published: true,
    revision: a.revision,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
    source: "file",
  }));
  let inserted = 0;
  let updated = 0;
  for (const batch of chunks(rows, 500)) {
    const written = await tx<{ inserted: boolean }[]>`
      insert into public.content_assets ${tx(batch)}
      on conflict (id) do update set
        path = excluded.path, file_name = excluded.file_name, content_type = excluded.content_type,
        size = excluded.size, width = excluded.width, height = excluded.height, title = excluded.title,
        description = excluded.description, content_hash = excluded.content_hash,
        storage_key = excluded.storage_key, published = excluded.published, revision = excluded.revision,
        created_at = excluded.created_at, updated_at = excluded.updated_at, source = excluded.source
      where (content_assets.path, content_assets.file_name, content_assets.content_type, content_assets.size,
             content_assets.width, content_assets.height, content_assets.title, content_assets.description,
             content_assets.content_hash, content_assets.storage_key, content_assets.published,
             content_assets.revision, content_assets.created_at, content_assets.updated_at, content_assets.source)
        is distinct from (excluded.path, excluded.file_name, excluded.content_type, excluded.size,
             excluded.width, excluded.height, excluded.title, excluded.description,
             excluded.content_hash, excluded.storage_key, excluded.published,
             excluded.revision, excluded.created_at, excluded.updated_at, excluded.source)
      returning (xmax = 0) as inserted`;
    for (const w of written) w.inserted ? inserted++ : updated++;
  }
  return {
    inserted,
    updated,
    deleted: deleted.length,
    unchanged: rows.length - inserted - updated,
    bytesWritten,
  };
}

function countWrites(written: { inserted: boolean }[], total: number, deleted: number): RowCounts {
  const inserted = written.filter((w) => w.inserted).length;
  const updated = written.length - inserted;
  return { inserted, updated, deleted, unchanged: total - inserted - updated };
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function chunksBySize(assets: AssetSnapshot[], maxBytes: number): AssetSnapshot[][] {
  const out: AssetSnapshot[][] = [];
  let current: AssetSnapshot[] = [];
  let bytes = 0;
  for (const asset of assets) {
    if (current.length && bytes + asset.size > maxBytes) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(asset);
    bytes += asset.size;
  }
  if (current.length) out.push(current);
  return out;
}
