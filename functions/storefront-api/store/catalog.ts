// The storefront's SQL for the catalog: pages and lookups over the storefront_catalog and
// storefront_collections views (whose expression indexes back the lookups), assets and the storefront
// record. The other areas' SQL is beside this file (carts, each mutation under a row lock; orders);
// nothing outside store/ writes SQL.
import type postgres from "postgres";
import type { Db } from "../../../shared/db.ts";
import type { RecordRow } from "../domain/catalog.ts";
import type { Window } from "../domain/paging.ts";
import { type KeysetSort, SORT_VALUES } from "../domain/cursor.ts";

type Fragment = postgres.PendingQuery<postgres.Row[]>;

export interface CatalogRow extends RecordRow {
  kind: "good" | "book";
  handle: string;
  names: string[];
  /** the value the page was sorted on (for the cursor) */
  sort_value: unknown;
}

export interface CollectionRow extends RecordRow {
  handle: string;
  names: string[];
  sort_value: unknown;
}

export interface AssetRow {
  id: string;
  path: string;
  file_name: string;
  content_type: string;
  width: number | null;
  height: number | null;
  title: Record<string, string>;
  description: Record<string, string>;
  content_hash: string;
}

/** Sorts of the catalog: each is a value per product, ties broken by handle. */
export type ProductSort = KeysetSort;
export type CollectionSort = Extract<KeysetSort, "position" | "title" | "updated">;

export interface SortContext {
  /** the default locale: titles sort by their value in it */
  locale: string;
  /** vendor of goods (the site's name) */
  siteName: string;
}

const CATALOG_COLUMNS =
  "c.entry_id as id, c.model_id, c.path, c.fields, c.created_at, c.updated_at, c.kind, c.handle, c.names";
const COLLECTION_COLUMNS =
  "c.entry_id as id, 'collection' as model_id, c.position as path, c.fields, c.created_at, c.updated_at, c.handle, c.names";

function productSortValue(db: Db, sort: ProductSort, ctx: SortContext): Fragment {
  switch (sort) {
    case "title":
      return db`lower(coalesce(c.fields -> 'title' ->> ${ctx.locale}, public.storefront_value(c.fields -> 'title') #>> '{}', c.handle))`;
    case "price":
      return db`c.min_price`;
    case "created":
      return db`c.created_at`;
    case "updated":
      return db`c.updated_at`;
    case "type":
      return db`c.kind`;
    case "vendor":
      return db`coalesce(public.storefront_text(public.storefront_value(c.fields -> 'author')), ${ctx.siteName})`;
    case "collection":
      return db`c.ord`;
    default:
      return db`c.position`;
  }
}

/** A cursor's sort value back in its SQL type (domain/cursor.ts has checked it has that type's shape). */
function castCursor(db: Db, sort: ProductSort | CollectionSort, value: unknown): Fragment {
  switch (SORT_VALUES[sort]) {
    case "numeric":
      return db`${String(value)}::numeric`;
    case "timestamp":
      return db`${String(value)}::timestamptz`;
    case "integer":
      return db`${Number(value)}::bigint`;
    default:
      return db`${String(value)}::text`;
  }
}

/** The keyset condition and order of a window over (sort value, handle). */
function keyset(
  db: Db,
  value: Fragment,
  sort: ProductSort | CollectionSort,
  window: Window,
  reverse: boolean,
) {
  // reading from the end flips the order; `after` and `before` keep their meaning in the list's order
  const descending = reverse !== window.fromEnd;
  const greater = (parts: unknown[]) =>
    db`(${value}, c.handle) > (${castCursor(db, sort, parts[0])}, ${String(parts[1])}::text)`;
  const less = (parts: unknown[]) =>
    db`(${value}, c.handle) < (${castCursor(db, sort, parts[0])}, ${String(parts[1])}::text)`;
  const conditions: Fragment[] = [];
  if (window.after) conditions.push(reverse ? less(window.after) : greater(window.after));
  if (window.before) conditions.push(reverse ? greater(window.before) : less(window.before));
  const where = conditions.reduce((acc, c) => db`${acc} and ${c}`, db`true`);
  const order = descending ? db`${value} desc, c.handle desc` : db`${value} asc, c.handle asc`;
  return { where, order };
}

/** Escapes a user's word for ILIKE. */
const likePattern = (word: string) => `%${word.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export async function productsPage(
  db: Db,
  input: {
    sort: ProductSort;
    reverse: boolean;
    window: Window;
    search?: string;
    kind?: "good" | "book";
    exclude?: string;
    ctx: SortContext;
  },
): Promise<CatalogRow[]> {
  const value = productSortValue(db, input.sort, input.ctx);
  const { where, order } = keyset(db, value, input.sort, input.window, input.reverse);
  const filters = db`
    ${input.search ? db`and c.search like ${likePattern(input.search)}` : db``}
    ${input.kind ? db`and c.kind = ${input.kind}` : db``}
    ${input.exclude ? db`and c.handle <> ${input.exclude}` : db``}`;
  return await db<CatalogRow[]>`
    select ${db.unsafe(CATALOG_COLUMNS)}, ${value} as sort_value
    from public.storefront_catalog c
    where ${where} ${filters}
    order by ${order}
    limit ${input.window.size + 1}`;
}

/**
 * The pages of products of several collections at once (each collection's record names its products
 * by handle or sku, in order): one query, each row tagged with its collection's place in `groups`.
 */
export function collectionProductsPages(
  db: Db,
  input: { groups: string[][]; sort: ProductSort; reverse: boolean; window: Window; ctx: SortContext },
): Promise<(CatalogRow & { group: number })[]> {
  const value = productSortValue(db, input.sort, input.ctx);
  const { where, order } = keyset(db, value, input.sort, input.window, input.reverse);
  return db<(CatalogRow & { group: number })[]>`
    select * from (
      select ${db.unsafe(CATALOG_COLUMNS)}, ${value} as sort_value, c.grp as "group",
             row_number() over (partition by c.grp order by ${order}) as rank
      from (
        -- a product named twice (by handle and by sku) keeps its first place
        select distinct on (g.grp, c.handle) c.*, g.grp, n.ord
        from jsonb_array_elements(${db.json(input.groups)}::jsonb) with ordinality as g(names, grp)
        cross join lateral jsonb_array_elements_text(g.names) with ordinality as n(name, ord)
        join public.storefront_catalog c on c.names @> array[n.name]
        order by g.grp, c.handle, n.ord
      ) c
      where ${where}
    ) ranked
    where rank <= ${input.window.size + 1}
    order by "group", rank`;
}

export function productsByHandles(db: Db, handles: string[]): Promise<CatalogRow[]> {
  if (handles.length === 0) return Promise.resolve([]);
  return db<CatalogRow[]>`
    select ${db.unsafe(CATALOG_COLUMNS)}, null as sort_value from public.storefront_catalog c
    where c.handle = any(${handles}::text[]) order by c.position`;
}

/** Products answering to any of the names (handles or skus), in the records' order. */
export function productsByNames(db: Db, names: string[]): Promise<CatalogRow[]> {
  if (names.length === 0) return Promise.resolve([]);
  return db<CatalogRow[]>`
    select ${db.unsafe(CATALOG_COLUMNS)}, null as sort_value from public.storefront_catalog c
    where c.names && ${names}::text[] order by c.position`;
}

/** Distinct product tags in alphabetical order (QueryRoot.productTags). */
export async function catalogTags(db: Db, limit: number): Promise<string[]> {
  const rows = await db<{ tag: string }[]>`
    select distinct t.tag from public.storefront_catalog c,
      jsonb_array_elements_text(case when jsonb_typeof(public.storefront_value(c.fields -> 'tags')) = 'array'
        then public.storefront_value(c.fields -> 'tags') else '[]'::jsonb end) as t(tag)
    order by t.tag limit ${limit}`;
  return rows.map((r) => r.tag);
}

/** The product types present (QueryRoot.productTypes): `book`, `good`. */
export async function catalogKinds(db: Db): Promise<string[]> {
  const rows = await db<
    { kind: string }[]
  >`select distinct kind from public.storefront_catalog order by kind`;
  return rows.map((r) => r.kind);
}

function collectionSortValue(db: Db, sort: CollectionSort, ctx: SortContext): Fragment {
  if (sort === "title") {
    return db`lower(coalesce(c.fields -> 'title' ->> ${ctx.locale}, public.storefront_value(c.fields -> 'title') #>> '{}', c.handle))`;
  }
  if (sort === "updated") return db`c.updated_at`;
  return db`c.position`;
}

export function collectionsPage(
  db: Db,
  input: { sort: CollectionSort; reverse: boolean; window: Window; search?: string; ctx: SortContext },
): Promise<CollectionRow[]> {
  const value = collectionSortValue(db, input.sort, input.ctx);
  const { where, order } = keyset(db, value, input.sort, input.window, input.reverse);
  return db<CollectionRow[]>`
    select ${db.unsafe(COLLECTION_COLUMNS)}, ${value} as sort_value
    from public.storefront_collections c
    where ${where} ${input.search ? db`and c.search like ${likePattern(input.search)}` : db``}
    order by ${order}
    limit ${input.window.size + 1}`;
}

/** How many collections a `collections` query matches, across all its pages (CollectionConnection.totalCount). */
export async function collectionsCount(db: Db, search?: string): Promise<number> {
  const [row] = await db<{ count: number }[]>`
    select count(*)::int as count from public.storefront_collections c
    where true ${search ? db`and c.search like ${likePattern(search)}` : db``}`;
  return row.count;
}

export function collectionsByHandles(db: Db, handles: string[]): Promise<CollectionRow[]> {
  if (handles.length === 0) return Promise.resolve([]);
  return db<CollectionRow[]>`
    select ${db.unsafe(COLLECTION_COLUMNS)}, null as sort_value from public.storefront_collections c
    where c.handle = any(${handles}::text[]) order by c.position`;
}

/** Collections listing any of the names (for Product.collections of a whole page at once). */
export function collectionsNaming(db: Db, names: string[]): Promise<CollectionRow[]> {
  if (names.length === 0) return Promise.resolve([]);
  return db<CollectionRow[]>`
    select ${db.unsafe(COLLECTION_COLUMNS)}, null as sort_value from public.storefront_collections c
    where c.names && ${names}::text[] order by c.position`;
}

export function assetsByIds(db: Db, ids: string[]): Promise<AssetRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db<AssetRow[]>`
    select id, path, file_name, content_type, width, height, title, description, content_hash
    from public.content_assets where published and id = any(${ids}::text[])`;
}

/** The storefront record (shop texts, currency, shipping countries, policies): the first published one. */
export async function storefrontRecord(db: Db): Promise<RecordRow | undefined> {
  const [row] = await db<RecordRow[]>`
    select id, model_id, path, fields, created_at, updated_at from public.content_entries
    where stage = 'published' and model_id = 'storefront' order by path limit 1`;
  return row;
}
