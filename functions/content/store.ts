// All SQL of the content API. Collection plans from domain/entry-query.ts become parameterised SQL here;
// nothing else in the function writes SQL.
import type postgres from "postgres";
import type { Db, Sql, Tx } from "../../shared/db.ts";
import { ContentError } from "./envelope.ts";
import type { ContentModel } from "./domain/content-types.ts";
import type {
  CollectionQuery,
  Condition,
  Filter,
  FilterTarget,
  Order,
  OrderTarget,
  WithheldBodies,
} from "./domain/entry-query.ts";
import { MIMETYPE_GROUPS } from "./domain/entry-query.ts";

export type Stage = "published" | "preview";
type Fragment = postgres.PendingQuery<postgres.Row[]>;

export interface EntryRow {
  id: string;
  model_id: string;
  access: string;
  fields: Record<string, Record<string, unknown>>;
  revision: number;
  created_at: Date;
  updated_at: Date;
  change_seq: number;
}

export interface AssetRow {
  id: string;
  path: string;
  file_name: string;
  content_type: string;
  size: number;
  width: number | null;
  height: number | null;
  title: Record<string, string>;
  description: Record<string, string>;
  content_hash: string;
  storage_key: string;
  revision: number;
  created_at: Date;
  updated_at: Date;
  change_seq: number;
}

const ENTRY_COLUMNS =
  "e.id, e.model_id, e.access, e.fields, e.revision, e.created_at, e.updated_at, e.change_seq";
const ASSET_COLUMNS =
  "a.id, a.path, a.file_name, a.content_type, a.size, a.width, a.height, a.title, a.description, a.content_hash, a.storage_key, a.revision, a.created_at, a.updated_at, a.change_seq";

export async function loadModels(db: Db): Promise<ContentModel[]> {
  const rows = await db<{
    id: string;
    name: string;
    description: string;
    display_field: string | null;
    fields: ContentModel["fields"];
    revision: number;
    created_at: Date;
    updated_at: Date;
  }[]>`select id, name, description, display_field, fields, revision, created_at, updated_at
       from public.content_models order by position, id`;
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description,
    displayField: r.display_field,
    fields: r.fields,
    revision: r.revision,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  }));
}

/** One page of entries and the total, in one round trip (a second only when skip is past the end). */
export async function queryEntries(
  db: Db,
  stage: Stage,
  query: CollectionQuery,
  localeChain: string[],
): Promise<{ rows: EntryRow[]; total: number }> {
  const where = entryConditions(db, stage, query, localeChain);
  const rows = await db<(EntryRow & { total: number })[]>`
    select ${db.unsafe(ENTRY_COLUMNS)}, count(*) over () as total
    from public.content_entries e
    where ${where}
    order by ${entryOrder(db, query.order, localeChain, query.withheld)}
    limit ${query.limit} offset ${query.skip}`;
  if (rows.length > 0 || (query.skip === 0 && query.limit > 0)) return { rows, total: rows[0]?.total ?? 0 };
  const [{ total }] = await db<{ total: number }[]>`
    select count(*) as total from public.content_entries e where ${where}`;
  return { rows, total };
}

export function entriesByIds(db: Db, stage: Stage, ids: string[]): Promise<EntryRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db<EntryRow[]>`
    select ${db.unsafe(ENTRY_COLUMNS)} from public.content_entries e
    where e.stage = ${stage} and e.id = any(${ids}::text[])
    order by e.id`; // a stable order keeps includes, and so ETags, the same between identical reads
}

/** Which assets a list sees: the library (processed files, what delivery serves), or every asset, pending ones too (management). */
export type AssetScope = "library" | "all";

export async function queryAssets(
  db: Db,
  query: CollectionQuery,
  localeChain: string[],
  scope: AssetScope = "library",
): Promise<{ rows: AssetRow[]; total: number }> {
  const where = assetConditions(db, query, localeChain, scope);
  const rows = await db<(AssetRow & { total: number })[]>`
    select ${db.unsafe(ASSET_COLUMNS)}, count(*) over () as total
    from public.content_assets a
    where ${where}
    order by ${assetOrder(db, query.order, localeChain, query.mediaPrefix)}
    limit ${query.limit} offset ${query.skip}`;
  if (rows.length > 0 || (query.skip === 0 && query.limit > 0)) return { rows, total: rows[0]?.total ?? 0 };
  const [{ total }] = await db<{ total: number }[]>`
    select count(*) as total from public.content_assets a where ${where}`;
  return { rows, total };
}

export function assetsByIds(db: Db, ids: string[]): Promise<AssetRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db<AssetRow[]>`
    select ${db.unsafe(ASSET_COLUMNS)} from public.content_assets a
    where a.published and a.id = any(${ids}::text[])
    order by a.id`;
}

export async function assetByStorage(db: Db, id: string): Promise<AssetRow | undefined> {
  const [row] = await db<AssetRow[]>`
    select ${db.unsafe(ASSET_COLUMNS)} from public.content_assets a where a.id = ${id} and a.published`;
  return row;
}

// ---- the images door's cache list (migration 20261124000202) ------------------------------------------

/** Records a cached transform of a file, by the file's content hash. */
export async function rememberImageVariant(db: Db, contentHash: string, variant: string): Promise<void> {
  await db`insert into public.content_image_variants (content_hash, variant) values (${contentHash}, ${variant})
           on conflict do nothing`;
}

/** Cached transforms of files no asset has any more (deleted, or replaced by another file), oldest first. */
export function orphanedImageVariants(
  db: Db,
  limit: number,
): Promise<{ contentHash: string; variant: string }[]> {
  return db<{ contentHash: string; variant: string }[]>`
    select v.content_hash as "contentHash", v.variant from public.content_image_variants v
    where not exists (select 1 from public.content_assets a where a.content_hash = v.content_hash)
    order by v.created_at limit ${limit}`;
}

export async function forgetImageVariant(db: Db, contentHash: string, variant: string): Promise<void> {
  await db`delete from public.content_image_variants where content_hash = ${contentHash} and variant = ${variant}`;
}

// ---- sync -------------------------------------------------------------------------------------------

export type SyncKind = "Entry" | "Asset" | "DeletedEntry" | "DeletedAsset";

export interface SyncItemRow {
  kind: SyncKind;
  id: string;
  /** the transaction that made the change (migration 20261124000200) */
  change_xid: number;
  change_seq: number;
}

/**
 * The mark a sync may go up to now: every transaction below it has finished, so each change they made is
 * visible and none can still appear below it (a sequence number would not do: numbers are taken before
 * commit, so a lower one can become visible after a higher one). A long-running writing transaction holds
 * the mark back until it ends; its changes and everything after them then come in the next delta.
 */
export async function finishedTransactionsBelow(db: Db): Promise<number> {
  const [{ xmin }] = await db<{ xmin: number }[]>`
    select pg_snapshot_xmin(pg_current_snapshot())::text::bigint as xmin`;
  return xmin;
}

/**
 * The next page of sync items: changes made by transactions from `from` (inclusive) to `to` (exclusive),
 * after `cursor` when paging on, in change order. Only ids and positions: the caller loads the page's
 * entities in batched reads.
 */
export function syncPage(
  db: Db,
  input: {
    stage: Stage;
    kinds: SyncKind[];
    contentType?: string;
    from: number;
    to: number;
    cursor?: { xid: number; seq: number };
    limit: number;
  },
): Promise<SyncItemRow[]> {
  const { stage, kinds, contentType, from, to, cursor, limit } = input;
  const want = (k: SyncKind) => kinds.includes(k);
  const window = db`change_xid >= ${String(from)}::xid8 and change_xid < ${String(to)}::xid8
    ${
    cursor ? db`and (change_xid, change_seq) > (${String(cursor.xid)}::xid8, ${cursor.seq}::bigint)` : db``
  }`;
  const parts: Fragment[] = [];
  if (want("Entry")) {
    parts.push(db`select 'Entry' as kind, id, change_xid, change_seq from public.content_entries
      where stage = ${stage} and ${window}
      ${contentType ? db`and model_id = ${contentType}` : db``}`);
  }
  if (want("Asset") && !contentType) {
    parts.push(db`select 'Asset' as kind, id, change_xid, change_seq from public.content_assets
      where published and ${window}`);
  }
  if (want("DeletedEntry")) {
    parts.push(db`select kind, id, change_xid, change_seq from public.content_tombstones
      where stage = ${stage} and kind = 'DeletedEntry' and ${window}
      ${contentType ? db`and model_id = ${contentType}` : db``}`);
  }
  if (want("DeletedAsset") && !contentType) {
    parts.push(db`select kind, id, change_xid, change_seq from public.content_tombstones
      where stage = 'published' and kind = 'DeletedAsset' and ${window}`);
  }
  if (parts.length === 0) return Promise.resolve([]);
  const union = parts.reduce((acc, part) => db`${acc} union all ${part}`);
  return db<SyncItemRow[]>`
    select kind, id, change_xid::text::bigint as change_xid, change_seq from (${union}) items
    order by items.change_xid, change_seq limit ${limit}`;
}

export interface TombstoneRow {
  id: string;
  kind: "DeletedEntry" | "DeletedAsset";
  model_id: string | null;
  revision: number;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date;
}

export function tombstonesByIds(db: Db, stage: Stage, ids: string[]): Promise<TombstoneRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db<TombstoneRow[]>`
    select id, kind, model_id, revision, created_at, updated_at, deleted_at from public.content_tombstones
    where id = any(${ids}::text[]) and (stage = ${stage} or kind = 'DeletedAsset')`;
}

// ---- conditions ---------------------------------------------------------------------------------------

function and(db: Db, parts: Fragment[]): Fragment {
  return parts.length === 0 ? db`true` : parts.reduce((acc, part) => db`${acc} and ${part}`);
}

/** The field's JSON value in the first locale of the chain that has one. */
function fieldJson(db: Db, field: string, chain: string[]): Fragment {
  const [first, ...rest] = chain;
  const head = db`(e.fields -> ${field}::text -> ${first}::text)`;
  return rest.length === 0 ? head : db`coalesce(${head}, ${fieldJson(db, field, rest)})`;
}

function likePatterns(words: string[]): string[] {
  return words.map((w) => `%${w.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
}

function entryConditions(db: Db, stage: Stage, q: CollectionQuery, chain: string[]): Fragment {
  const parts: Fragment[] = [db`e.stage = ${stage}`];
  if (q.contentType) parts.push(db`e.model_id = ${q.contentType.id}`);
  if (q.words.length) parts.push(db`${searchedText(db, q)} ilike all(${likePatterns(q.words)}::text[])`);
  if (q.linksToEntry !== undefined) parts.push(linksTo(db, q, "Entry", q.linksToEntry));
  if (q.linksToAsset !== undefined) parts.push(linksTo(db, q, "Asset", q.linksToAsset));
  for (const filter of q.filters) parts.push(entryFilter(db, filter, chain, q.withheld));
  if (q.where) parts.push(entryCondition(db, stage, q.where, chain, q.withheld));
  return and(db, parts);
}

// ---- gated bodies: a caller without gated access finds entries only by what it may read of them ----

/** The ids listed for the row's content type in a per-content-type map, as text[]. */
function listedFor(db: Db, map: Record<string, string[]>): Fragment {
  // sent as text: a parameter the server types jsonb would have the driver encode the string once more
  return db`array(select jsonb_array_elements_text(${JSON.stringify(map)}::text::jsonb -> e.model_id))`;
}

/** What `query` searches: the whole entry's text, or, where the body is withheld, its other text fields'. */
function searchedText(db: Db, q: CollectionQuery): Fragment {
  if (!q.withheld) return db`e.search_text`;
  return db`(case when e.access = 'guest' then e.search_text else coalesce((
    select string_agg(v #>> '{}', ' ')
    from jsonb_each(e.fields) f(field, value), jsonb_path_query(f.value, 'strict $.**') v
    where f.field = any(${listedFor(db, q.withheld.text)}) and jsonb_typeof(v) = 'string'), '') end)`;
}

/** links_to_entry / links_to_asset: a link anywhere in the entry, or, where the body is withheld, outside it. */
function linksTo(db: Db, q: CollectionQuery, linkType: "Entry" | "Asset", id: string): Fragment {
  const anywhere = db`${linkColumn(db, linkType)} @> array[${id}::text]`;
  if (!q.withheld) return anywhere;
  const fieldsButBodies = db`e.fields - ${listedFor(db, q.withheld.bodies)}`;
  const linkedOutside = holdsLink(db, fieldsButBodies, linkType, db`${id}::text`);
  return db`(${anywhere} and (e.access = 'guest' or ${linkedOutside}))`;
}

/** The entry's ids of linked entries or assets (links, asset_links: GIN-indexed, so they narrow first). */
function linkColumn(db: Db, linkType: "Entry" | "Asset"): Fragment {
  return linkType === "Entry" ? db`e.links` : db`e.asset_links`;
}

/** Whether `json` holds, at any depth, a link of `linkType` to `id`. */
function holdsLink(db: Db, json: Fragment, linkType: "Entry" | "Asset", id: Fragment): Fragment {
  return db`jsonb_path_exists(${json}, '$.** ? (@.type == "Link" && @.linkType == $type && @.id == $id)',
    jsonb_build_object('type', ${linkType}::text, 'id', ${id}))`;
}

/**
 * A field's value for filters and orders: null where it is a withheld body, that is on an entry beyond
 * guest access whose content type counts the field among its bodies (any type, so nested where filters
 * over linked entries of other types are masked too).
 */
function fieldValue(db: Db, field: string, chain: string[], withheld?: WithheldBodies): Fragment {
  const json = fieldJson(db, field, chain);
  const hiding = withheld
    ? Object.entries(withheld.bodies).filter(([, bodies]) => bodies.includes(field)).map(([model]) => model)
    : [];
  if (hiding.length === 0) return json;
  return db`(case when e.access = 'guest' or e.model_id <> all(${hiding}::text[]) then ${json} end)`;
}

function entryFilter(db: Db, filter: Filter, chain: string[], withheld?: WithheldBodies): Fragment {
  const { target, op, values } = filter;
  if (target.kind === "sys") {
    switch (target.field) {
      case "id":
        return scalarCondition(db, db`e.id`, op, values, "text");
      case "contentType":
        return scalarCondition(db, db`e.model_id`, op, values, "text");
      case "revision":
        return scalarCondition(db, db`e.revision`, op, values, "number");
      case "createdAt":
        return scalarCondition(db, db`e.created_at`, op, values, "date");
      case "updatedAt":
        return scalarCondition(db, db`e.updated_at`, op, values, "date");
    }
  }
  if (target.kind !== "field") throw unsupported(op);
  const json = fieldValue(db, target.field, chain, withheld);
  if (op === "exists") return values[0] === "true" ? db`${json} is not null` : db`${json} is null`;
  if (op === "match") {
    return db`${json}::text ilike all(${likePatterns(values[0].split(/\s+/).filter(Boolean))}::text[])`;
  }
  switch (target.valueKind) {
    case "list":
      return listCondition(db, json, op, values);
    case "link":
    case "linkList":
      if (!target.linkId) throw unsupported(op);
      return linkCondition(db, json, target.valueKind === "linkList", op, values);
    case "json":
      throw unsupported(op);
    default:
      return scalarCondition(db, db`(${json} #>> '{}')`, op, values, target.valueKind);
  }
}

function castOf(db: Db, expression: Fragment, kind: string): Fragment {
  if (kind === "number") return db`(${expression})::numeric`;
  if (kind === "date") return db`(${expression})::timestamptz`;
  return expression;
}

function param(db: Db, value: string, kind: string): Fragment {
  if (kind === "number") return db`${value}::numeric`;
  if (kind === "date") return db`${value}::timestamptz`;
  return db`${value}::text`;
}

function arrayParam(db: Db, values: string[], kind: string): Fragment {
  if (kind === "number") return db`${values}::numeric[]`;
  if (kind === "date") return db`${values}::timestamptz[]`;
  return db`${values}::text[]`;
}

function scalarCondition(
  db: Db,
  column: Fragment,
  op: Filter["op"],
  values: string[],
  kind: string,
): Fragment {
  const left = castOf(db, column, kind);
  const value = values[0];
  switch (op) {
    case "eq":
      return db`${left} = ${param(db, value, kind)}`;
    case "ne":
      return db`${left} is distinct from ${param(db, value, kind)}`;
    case "in":
      return db`${left} = any(${arrayParam(db, values, kind)})`;
    case "nin":
      return db`not coalesce(${left} = any(${arrayParam(db, values, kind)}), false)`;
    case "lt":
      return db`${left} < ${param(db, value, kind)}`;
    case "lte":
      return db`${left} <= ${param(db, value, kind)}`;
    case "gt":
      return db`${left} > ${param(db, value, kind)}`;
    case "gte":
      return db`${left} >= ${param(db, value, kind)}`;
    case "exists":
      return value === "true" ? db`${column} is not null` : db`${column} is null`;
    case "match":
      return db`(${column})::text ilike all(${likePatterns(value.split(/\s+/).filter(Boolean))}::text[])`;
    default:
      throw unsupported(op);
  }
}

/** Array-of-Symbol fields: equality means "contains", [in] any, [nin] none, [all] every. */
function listCondition(db: Db, json: Fragment, op: Filter["op"], values: string[]): Fragment {
  switch (op) {
    case "eq":
      return db`coalesce(${json} @> jsonb_build_array(${values[0]}::text), false)`;
    case "ne":
      return db`not coalesce(${json} @> jsonb_build_array(${values[0]}::text), false)`;
    case "in":
      return db`coalesce(${json} ?| ${values}::text[], false)`;
    case "nin":
      return db`not coalesce(${json} ?| ${values}::text[], false)`;
    case "all":
      return db`coalesce(${json} ?& ${values}::text[], false)`;
    default:
      throw unsupported(op);
  }
}

/** The ids a link field points at, as a text[] (one link, or a list of them). */
function linkIds(db: Db, json: Fragment, list: boolean): Fragment {
  return list
    ? db`(select array_agg(l -> 'sys' ->> 'id') from jsonb_array_elements(case when jsonb_typeof(${json}) = 'array' then ${json} else '[]'::jsonb end) l)`
    : db`array[${json} -> 'sys' ->> 'id']`;
}

function linkCondition(db: Db, json: Fragment, list: boolean, op: Filter["op"], values: string[]): Fragment {
  const ids = linkIds(db, json, list);
  switch (op) {
    case "eq":
      return db`coalesce(${ids} @> array[${values[0]}::text], false)`;
    case "ne":
      return db`not coalesce(${ids} @> array[${values[0]}::text], false)`;
    case "in":
      return db`coalesce(${ids} && ${values}::text[], false)`;
    case "nin":
      return db`not coalesce(${ids} && ${values}::text[], false)`;
    case "all":
      return db`coalesce(${ids} @> ${values}::text[], false)`;
    default:
      throw unsupported(op);
  }
}

function unsupported(op: string): ContentError {
  return new ContentError("InvalidQuery", `The operator [${op}] does not apply to this field`, {
    errors: [{ name: "unsupportedOperator", operator: op }],
  });
}

function direction(db: Db, order: Order): Fragment {
  return order.descending ? db`desc nulls last` : db`asc nulls last`;
}

function entryOrder(db: Db, orders: Order[], chain: string[], withheld?: WithheldBodies): Fragment {
  const list = orders.length
    ? orders
    : [{ target: { kind: "sys", field: "createdAt" }, descending: true } as Order];
  const parts = list.map((order) => {
    const t = order.target;
    let column: Fragment;
    if (t.kind === "sys") {
      column = t.field === "createdAt"
        ? db`e.created_at`
        : t.field === "updatedAt"
        ? db`e.updated_at`
        : t.field === "revision"
        ? db`e.revision`
        : db`e.id`;
    } else if (t.kind === "field") {
      column = castOf(db, db`(${fieldValue(db, t.field, chain, withheld)} #>> '{}')`, t.valueKind);
    } else throw unsupported("order");
    return db`${column} ${direction(db, order)}`;
  });
  return [...parts, db`e.id asc`].reduce((acc, part) => db`${acc}, ${part}`);
}

/** An asset's column for a filter or an order, and how its values compare. */
function assetColumn(
  db: Db,
  target: FilterTarget | OrderTarget,
  chain: string[],
  mediaPrefix?: string,
): { column: Fragment; kind: string } {
  const localized = (column: "title" | "description") =>
    db`coalesce(${
      chain.map((l) => db`a.${db(column)} ->> ${l}::text`).reduce((acc, p) => db`${acc}, ${p}`)
    })`;
  if (target.kind === "sys") {
    switch (target.field) {
      case "id":
        return { column: db`a.id`, kind: "text" };
      case "revision":
        return { column: db`a.revision`, kind: "number" };
      case "updatedAt":
        return { column: db`a.updated_at`, kind: "date" };
      case "createdAt":
        return { column: db`a.created_at`, kind: "date" };
    }
  } else if (target.kind === "asset") {
    switch (target.field) {
      case "title":
      case "description":
        return { column: localized(target.field), kind: "text" };
      case "fileName":
        return { column: db`a.file_name`, kind: "text" };
      case "contentType":
        return { column: db`a.content_type`, kind: "text" };
      case "size":
      case "width":
      case "height":
        return { column: db`a.${db(target.field)}`, kind: "number" };
      case "url":
        if (mediaPrefix !== undefined) return { column: assetAddress(db, mediaPrefix), kind: "text" };
    }
  }
  throw unsupported("field");
}

function assetConditions(db: Db, q: CollectionQuery, chain: string[], scope: AssetScope): Fragment {
  const parts: Fragment[] = scope === "library" ? [db`a.published`] : [];
  if (q.words.length) {
    parts.push(
      db`(a.file_name || ' ' || a.title::text || ' ' || a.description::text) ilike all(${
        likePatterns(q.words)
      }::text[])`,
    );
  }
  if (q.mimetypeGroup) parts.push(mimetypeCondition(db, q.mimetypeGroup));
  for (const filter of q.filters) parts.push(assetFilter(db, filter, chain));
  if (q.where) parts.push(assetCondition(db, q.where, chain, q.mediaPrefix));
  return and(db, parts);
}

function mimetypeCondition(db: Db, group: string): Fragment {
  const patterns = (types: string[]) => types.map((t) => (t.endsWith("/") || t.endsWith(".") ? `${t}%` : t));
  if (group === "attachment") {
    const every = Object.values(MIMETYPE_GROUPS).flat();
    return db`not (a.content_type like any(${patterns(every)}::text[]))`;
  }
  return db`a.content_type like any(${patterns(MIMETYPE_GROUPS[group])}::text[])`;
}

function assetOrder(db: Db, orders: Order[], chain: string[], mediaPrefix?: string): Fragment {
  const list = orders.length
    ? orders
    : [{ target: { kind: "sys", field: "createdAt" }, descending: true } as Order];
  const parts = list.map((order) => {
    const { column, kind } = assetColumn(db, order.target, chain, mediaPrefix);
    return db`${castOf(db, column, kind)} ${direction(db, order)}`;
  });
  return [...parts, db`a.id asc`].reduce((acc, part) => db`${acc}, ${part}`);
}

// ---- management (cloud mode): entries, assets, uploads, webhook definitions ---------------------------
// The management shapes are SQL functions (migration 20261122000030) shared with the webhook triggers;
// these reads and writes call them so an answer and a webhook body never differ.

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
    // 20261125190000); sitewire.key: the repository push names the key in its commit (migration 080)
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
// ---- end of management ---------------------------------------------------------------------------------

// ---- GraphQL (functions/content/graphql/): where trees, and the batched reads of one level of links ----

function anyOf(db: Db, parts: Fragment[]): Fragment {
  return parts.reduce((acc, part) => db`${acc} or ${part}`);
}

/** GraphQL's where over entries (alias e). An empty AND or OR constrains nothing. */
function entryCondition(
  db: Db,
  stage: Stage,
  condition: Condition,
  chain: string[],
  withheld?: WithheldBodies,
): Fragment {
  switch (condition.kind) {
    case "filter":
      return db`(${entryFilter(db, condition.filter, chain, withheld)})`;
    case "and":
    case "or": {
      const parts = condition.conditions.map((c) => entryCondition(db, stage, c, chain, withheld));
      if (parts.length === 0) return db`true`;
      return db`(${condition.kind === "and" ? and(db, parts) : anyOf(db, parts)})`;
    }
    case "not":
      return db`(not coalesce(${entryCondition(db, stage, condition.condition, chain, withheld)}, false))`;
    case "text": {
      // the text nodes only: the document's JSON keys (nodeType, paragraph...) would match every entry
      const text = db`(select string_agg(v #>> '{}', ' ') from jsonb_path_query(${
        fieldValue(db, condition.field, chain, withheld)
      }, 'lax $.**.value') v)`;
      return db`coalesce(${text} ilike all(${likePatterns(condition.words)}::text[]), false)`;
    }
    case "linked": {
      // the inner select names its own `e`, which shadows the outer one inside it: the linked entries are
      // found once (an uncorrelated subquery), then each outer entry's link ids are tested against them
      const types = condition.contentTypes
        ? db`and e.model_id = any(${condition.contentTypes}::text[])`
        : db``;
      const linked = db`select e.id from public.content_entries e
        where e.stage = ${stage} ${types} and ${entryCondition(db, stage, condition.where, chain, withheld)}`;
      return db`coalesce(${
        linkIds(db, fieldJson(db, condition.field, chain), condition.list)
      } && array(${linked}), false)`;
    }
  }
}

function assetFilter(db: Db, filter: Filter, chain: string[], mediaPrefix?: string): Fragment {
  const { column, kind } = assetColumn(db, filter.target, chain, mediaPrefix);
  return scalarCondition(db, column, filter.op, filter.values, kind);
}

/** GraphQL's where over assets (alias a). */
function assetCondition(db: Db, condition: Condition, chain: string[], mediaPrefix?: string): Fragment {
  switch (condition.kind) {
    case "filter":
      return db`(${assetFilter(db, condition.filter, chain, mediaPrefix)})`;
    case "and":
    case "or": {
      const parts = condition.conditions.map((c) => assetCondition(db, c, chain, mediaPrefix));
      if (parts.length === 0) return db`true`;
      return db`(${condition.kind === "and" ? and(db, parts) : anyOf(db, parts)})`;
    }
    case "not":
      return db`(not coalesce(${assetCondition(db, condition.condition, chain, mediaPrefix)}, false))`;
    default:
      throw unsupported(condition.kind);
  }
}

/**
 * An asset's address as domain/shape.ts's assetUrl makes it, in SQL: a picture kept elsewhere keeps its own;
 * a library file is the prefix, id, hash and the file name as encodeURIComponent encodes it.
 */
function assetAddress(db: Db, mediaPrefix: string): Fragment {
  const encodedName = db`coalesce((select string_agg(case when c ~ '^[A-Za-z0-9_.!~*''()-]$' then c
      else upper(regexp_replace(encode(convert_to(c, 'UTF8'), 'hex'), '(..)', '%\\1', 'g')) end, '' order by i)
    from regexp_split_to_table(a.file_name, '') with ordinality as t(c, i)), '')`;
  return db`(case when a.path ~ '^https?://' then a.path
    else ${mediaPrefix}::text || a.id || '/' || a.content_hash || '/' || ${encodedName} end)`;
}

/**
 * Entries among `ids` that match `where`, in `order`: one read answers a whole level of link collections
 * (or single links) that carry a where or an order.
 */
export function entriesByIdsWhere(
  db: Db,
  stage: Stage,
  ids: string[],
  input: {
    where?: Condition;
    order: Order[];
    contentTypes?: string[];
    chain: string[];
    withheld?: WithheldBodies;
  },
): Promise<EntryRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  const { where, order, contentTypes, chain, withheld } = input;
  return db<EntryRow[]>`
    select ${db.unsafe(ENTRY_COLUMNS)} from public.content_entries e
    where e.stage = ${stage} and e.id = any(${ids}::text[])
      ${contentTypes ? db`and e.model_id = any(${contentTypes}::text[])` : db``}
      and ${where ? entryCondition(db, stage, where, chain, withheld) : db`true`}
    order by ${entryOrder(db, order, chain, withheld)}`;
}

export interface LinkingQuery {
  stage: Stage;
  /** the linked entries' or assets' ids */
  targets: string[];
  linkType: "Entry" | "Asset";
  /** only entries of this type link */
  contentType?: string;
  /** a link counts when it sits in one of these locales of the linking entry */
  locales: string[];
  order: Order[];
  chain: string[];
  skip: number;
  limit: number;
  /** a caller without gated access: links inside withheld bodies do not count, nor do body orders */
  withheld?: WithheldBodies;
}

/**
 * linkedFrom for a whole level at once: for every target, one page of the entries linking to it and their
 * total. The links / asset_links arrays (GIN-indexed) narrow the rows; a JSON path then keeps only links
 * stored in the allowed locales.
 */
export async function linkingEntries(
  db: Db,
  q: LinkingQuery,
): Promise<Map<string, { rows: EntryRow[]; total: number }>> {
  const found = new Map(q.targets.map((t) => [t, { rows: [] as EntryRow[], total: 0 }]));
  if (q.targets.length === 0) return found;
  const notInBody = q.withheld
    ? db`(e.access = 'guest' or f.key <> all(${listedFor(db, q.withheld.bodies)})) and`
    : db``;
  const linking = db`e.stage = ${q.stage} and ${linkColumn(db, q.linkType)} @> array[t.target]
    ${q.contentType ? db`and e.model_id = ${q.contentType}` : db``}
    and exists (
      select 1 from jsonb_each(e.fields) f, unnest(${q.locales}::text[]) l(code)
      where ${notInBody} ${holdsLink(db, db`f.value -> l.code`, q.linkType, db`t.target`)})`;
  if (q.limit > 0) {
    const rows = await db<(EntryRow & { target: string; total: number })[]>`
      select t.target, x.* from unnest(${q.targets}::text[]) t(target)
      cross join lateral (
        select ${db.unsafe(ENTRY_COLUMNS)}, count(*) over () as total from public.content_entries e
        where ${linking}
        order by ${entryOrder(db, q.order, q.chain, q.withheld)}
        limit ${q.limit} offset ${q.skip}) x`;
    for (const { target, total, ...row } of rows) {
      const page = found.get(target)!;
      page.rows.push(row);
      page.total = total;
    }
  }
  // a page past the end (or limit 0) says nothing of the total: count those targets apart
  const uncounted = q.targets.filter((t) => found.get(t)!.rows.length === 0);
  if (uncounted.length > 0 && (q.skip > 0 || q.limit === 0)) {
    const counts = await db<{ target: string; total: number }[]>`
      select t.target, (select count(*) from public.content_entries e where ${linking}) as total
      from unnest(${uncounted}::text[]) t(target)`;
    for (const { target, total } of counts) found.get(target)!.total = total;
  }
  return found;
}
