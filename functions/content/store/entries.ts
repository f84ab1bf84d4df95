// The content API's SQL for entries and assets as delivery reads them: the rows, and the compiler that turns
// a collection plan (domain/entry-query.ts) into parameterised conditions and orders. The other areas'
// SQL is beside this file (sync, images, management, webhook definitions, GraphQL, analytics); nothing
// outside store/ writes SQL.
import type postgres from "postgres";
import type { Db } from "../../../shared/db.ts";
import { ContentError } from "../envelope.ts";
import type { ContentModel } from "../domain/content-types.ts";
import type {
  CollectionQuery,
  Condition,
  Filter,
  FilterTarget,
  Order,
  OrderTarget,
  WithheldBodies,
} from "../domain/entry-query.ts";
import { MIMETYPE_GROUPS } from "../../../shared/openapi/enums/content.ts";

export type Stage = "published" | "preview";
export type Fragment = postgres.PendingQuery<postgres.Row[]>;

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

export const ENTRY_COLUMNS =
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

/**
 * One page of entries and the total, in one round trip (a second only when skip is past the end). The
 * total is a scalar subquery, counted once over the index, not a window over the page's query: a window
 * makes the database build and sort every matching row, fields and all, before it keeps a page of them.
 */
export async function queryEntries(
  db: Db,
  stage: Stage,
  query: CollectionQuery,
  localeChain: string[],
): Promise<{ rows: EntryRow[]; total: number }> {
  const where = entryConditions(db, stage, query, localeChain);
  const rows = await db<(EntryRow & { total: number })[]>`
    select ${db.unsafe(ENTRY_COLUMNS)}, (select count(*) from public.content_entries e where ${where}) as total
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
    select ${db.unsafe(ASSET_COLUMNS)}, (select count(*) from public.content_assets a where ${where}) as total
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
export function listedFor(db: Db, map: Record<string, string[]>): Fragment {
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
export function linkColumn(db: Db, linkType: "Entry" | "Asset"): Fragment {
  return linkType === "Entry" ? db`e.links` : db`e.asset_links`;
}

/** Whether `json` holds, at any depth, a link of `linkType` to `id`. */
export function holdsLink(db: Db, json: Fragment, linkType: "Entry" | "Asset", id: Fragment): Fragment {
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

export function entryOrder(db: Db, orders: Order[], chain: string[], withheld?: WithheldBodies): Fragment {
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

// ---- where trees (GraphQL's where, and delivery's where): AND, OR, NOT over filters --------------------

function anyOf(db: Db, parts: Fragment[]): Fragment {
  return parts.reduce((acc, part) => db`${acc} or ${part}`);
}

/** GraphQL's where over entries (alias e). An empty AND or OR constrains nothing. */
export function entryCondition(
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
