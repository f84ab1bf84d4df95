// What one GraphQL request resolves with: the site, the caller's key, the locale chain, and batch
// loaders so that a page of products costs a fixed number of queries however many products, images,
// collections or cart lines it holds (no N+1).
import DataLoader from "dataloader";
import type { Clock } from "../../../shared/clock.ts";
import type { Sql } from "../../../shared/db.ts";
import type { FunctionContext } from "../../../shared/context.ts";
import { defaultLocale, localeChain, type SiteSettings, spaceId } from "../../../shared/site.ts";
import {
  type CatalogContext,
  type Product,
  productFromRecord,
  type Variant,
  variantByKey,
} from "../domain/catalog.ts";
import { splitVariantKey } from "../domain/ids.ts";
import type { PageArgs, Window } from "../domain/paging.ts";
import { type ShopInfo, shopOf } from "../domain/shop.ts";
import * as cartStore from "../store/carts.ts";
import * as catalogStore from "../store/catalog.ts";
import type { AssetRow, CatalogRow, CollectionRow, ProductSort } from "../store/catalog.ts";
import type { CartRow } from "../store/carts.ts";
import { CollectionNode } from "./nodes.ts";

export interface StoreContext {
  sql: Sql;
  clock: Clock;
  site: SiteSettings;
  publicUrl: string;
  space: string;
  keyId: string | null;
  /** the locale chain of this request (@inContext(language:), else the default locale) */
  locales: string[];
  /** @inContext(country:) */
  country: string | null;
  shop(): Promise<ShopInfo>;
  catalog(): Promise<CatalogContext>;
  /** maps a catalog row to its product (once per row per request) */
  product(row: CatalogRow): Promise<Product>;
  /** maps catalog rows to their products, in their order (once per row per request) */
  products(rows: CatalogRow[]): Promise<Product[]>;
  loaders: Loaders;
}

export interface CollectionProductsKey {
  names: string[];
  sort: ProductSort;
  reverse: boolean;
  window: Window;
  args: PageArgs;
}

export interface Loaders {
  productByHandle: DataLoader<string, Product | null>;
  /** a product by any of its names (handle or sku): cart lines and variant ids go through this */
  productByName: DataLoader<string, Product | null>;
  collectionByHandle: DataLoader<string, CollectionRow | null>;
  /** each product's collections, as nodes: one node per collection row, shared by the page's products */
  collectionsOf: DataLoader<Product, CollectionNode[], string>;
  asset: DataLoader<string, AssetRow | null>;
  collectionProducts: DataLoader<CollectionProductsKey, CatalogRow[], string>;
  /** carts by token: aliased cart(id) reads of one request cost one query */
  cart: DataLoader<string, CartRow | null>;
}

export function createStoreContext(input: {
  sql: Sql;
  clock: Clock;
  site: SiteSettings;
  publicUrl: string;
  keyId: string | null;
  locales: string[];
  country: string | null;
}): StoreContext {
  const { sql, site } = input;
  let shop: Promise<ShopInfo> | undefined;
  let catalog: Promise<CatalogContext> | undefined;
  const products = new Map<string, Product>();
  const sortContext = sortContextOf(site);

  const ctx: StoreContext = {
    ...input,
    space: spaceId(site),
    shop: () => (shop ??= shopOf(sql, site)),
    catalog: () => (catalog ??= ctx.shop().then((s) => ({
      locales: input.locales,
      currency: s.currency,
      siteName: site.name,
    }))),
    product: (row) => ctx.products([row]).then((found) => found[0]),
    async products(rows) {
      const catalog = await ctx.catalog();
      return rows.map((row) => {
        let found = products.get(row.id);
        if (!found) {
          // every catalog row is a product (the view admits only those); a row the mapping still refuses
          // would be a mismatch between the SQL and the mapping, which the catalog tests rule out
          found = productFromRecord(row, catalog)!;
          products.set(row.id, found);
        }
        return found;
      });
    },
    loaders: {
      productByHandle: new DataLoader(async (handles) => {
        const rows = firstBy(await catalogStore.productsByHandles(sql, [...handles]), (r) => [r.handle]);
        const found = handles.map((h) => rows.get(h));
        const mapped = await ctx.products(found.filter((r) => r !== undefined));
        let next = 0;
        return found.map((row) => (row ? mapped[next++] : null));
      }),
      productByName: new DataLoader(async (names) => {
        const rows = firstBy(await catalogStore.productsByNames(sql, [...names]), (r) => r.names);
        const found = names.map((n) => rows.get(n));
        const mapped = await ctx.products(found.filter((r) => r !== undefined));
        let next = 0;
        return found.map((row) => (row ? mapped[next++] : null));
      }),
      collectionByHandle: new DataLoader(async (handles) => {
        const rows = firstBy(await catalogStore.collectionsByHandles(sql, [...handles]), (r) => [r.handle]);
        return handles.map((h) => rows.get(h) ?? null);
      }),
      collectionsOf: new DataLoader(async (list) => {
        const names = [...new Set(list.flatMap((p) => p.names))];
        const collections = (await catalogStore.collectionsNaming(sql, names)).map((row) =>
          new CollectionNode(row, ctx)
        );
        // collections (their places in the records' order) by the names they list, so each product finds
        // its own without scanning them all
        const byName = new Map<string, number[]>();
        collections.forEach((c, place) => {
          for (const n of c.row.names) {
            const places = byName.get(n);
            if (!places) byName.set(n, [place]);
            else if (places[places.length - 1] !== place) places.push(place);
          }
        });
        return list.map((p) => {
          const places = p.names.length === 1
            ? byName.get(p.names[0]) ?? []
            : [...new Set(p.names.flatMap((n) => byName.get(n) ?? []))].sort((a, b) => a - b);
          return places.map((place) => collections[place]); // in the records' order
        });
      }, { cacheKeyFn: (p) => p.handle }),
      asset: new DataLoader(async (ids) => {
        const rows = firstBy(await catalogStore.assetsByIds(sql, [...ids]), (r) => [r.id]);
        return ids.map((id) => rows.get(id) ?? null);
      }),
      // the products of every collection on a page, in one query (grouped by identical paging)
      collectionProducts: new DataLoader(async (keys) => {
        const groups = new Map<string, CollectionProductsKey[]>();
        for (const key of keys) {
          const shape = JSON.stringify([key.sort, key.reverse, key.window]);
          groups.set(shape, [...(groups.get(shape) ?? []), key]);
        }
        const answers = new Map<CollectionProductsKey, CatalogRow[]>();
        await Promise.all([...groups.values()].map(async (group) => {
          const rows = await catalogStore.collectionProductsPages(sql, {
            groups: group.map((k) => k.names),
            sort: group[0].sort,
            reverse: group[0].reverse,
            window: group[0].window,
            ctx: sortContext,
          });
          group.forEach((key, i) => answers.set(key, rows.filter((r) => r.group === i + 1)));
        }));
        return keys.map((k) => answers.get(k) ?? []);
      }, { cacheKeyFn: (k) => JSON.stringify([k.names, k.sort, k.reverse, k.window]) }),
      cart: new DataLoader(async (tokens) => {
        const rows = firstBy(await cartStore.readCarts(sql, [...tokens]), (r) => [r.id]);
        return tokens.map((t) => rows.get(t) ?? null);
      }),
    },
  };
  return ctx;
}

/** Rows by each of their keys; the first row (in the query's order) wins a key two rows share. */
function firstBy<R>(rows: R[], keys: (row: R) => string[]): Map<string, R> {
  const map = new Map<string, R>();
  for (const row of rows) for (const key of keys(row)) if (!map.has(key)) map.set(key, row);
  return map;
}

/** The sellable variant a key (`<sku>` or `<sku>/<tail>`) names, with its product. */
export async function variantOf(
  ctx: StoreContext,
  key: string,
): Promise<{ product: Product; variant: Variant } | undefined> {
  const { sku } = splitVariantKey(key);
  const product = await ctx.loaders.productByName.load(sku);
  const variant = product ? variantByKey(product, key) : undefined;
  return product && variant ? { product, variant } : undefined;
}

/** What catalog sorts need of the site: titles sort in the default locale; goods' vendor is the site. */
export const sortContextOf = (site: SiteSettings) => ({
  locale: defaultLocale(site).code,
  siteName: site.name,
});

/** The context of the store's routes without a key (handoff, checkout): the default locale, no key. */
export function publicStoreContext(
  fn: FunctionContext,
  site: SiteSettings,
  country: string | null = null,
): StoreContext {
  return createStoreContext({
    sql: fn.sql,
    clock: fn.clock,
    site,
    publicUrl: fn.config.publicUrl,
    keyId: null,
    locales: localeChain(site, defaultLocale(site).code),
    country,
  });
}
