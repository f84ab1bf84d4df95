// Vendure 3 (@vendure/core) beside the site's Store API: the same catalog (read back from the site's own
// Storefront API, so every product, variant, price and collection membership is the one the site serves),
// imported with Vendure's importer on a fresh PostgreSQL database, and the store read asked of both.
import { freePort, freshPeerDatabase, installNodePackages, PEERS_DIR, startNodeScript } from "./node.ts";

export const VENDURE_PACKAGES = ["@vendure/core@3.7.3", "pg@8.23.1"];

/**
 * Products per store read on both sides: a collection grid's worth. At 100 (Vendure's own page limit) one
 * Vendure read alone took 3 s on the bench machine and none completed under 16 connections in 10 s.
 */
export const STORE_PAGE = 20;

export interface CatalogProduct {
  handle: string;
  title: string;
  options: { name: string; values: string[] }[];
  variants: { sku: string; price: number; selectedOptions: { name: string; value: string }[] }[];
  collections: { handle: string; title: string }[];
}

const CATALOG_PAGE =
  `query Catalog($after: String) { products(first: 250, after: $after, sortKey: CREATED_AT) {
  edges { node { handle title options { name values }
    variants(first: 50) { nodes { sku price { amount } selectedOptions { name value } } }
    collections(first: 50) { nodes { handle title } } } }
  pageInfo { hasNextPage endCursor } } }`;

/** The site's catalog as its Storefront API serves it, every page. */
export async function readSiteCatalog(
  query: (query: string, variables: Record<string, unknown>) => Promise<any>,
): Promise<CatalogProduct[]> {
  const products: CatalogProduct[] = [];
  let after: string | null = null;
  do {
    const data: any = await query(CATALOG_PAGE, { after });
    for (const { node } of data.products.edges) {
      products.push({
        handle: node.handle,
        title: node.title,
        options: node.options,
        variants: node.variants.nodes.map((v: any) => ({
          sku: v.sku,
          price: Number(v.price.amount),
          selectedOptions: v.selectedOptions,
        })),
        collections: node.collections.nodes,
      });
    }
    after = data.products.pageInfo.hasNextPage ? data.products.pageInfo.endCursor : null;
  } while (after);
  return products;
}

function csvCell(value: string | number): string {
  const text = String(value);
  return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

// Vendure's importer: one row per variant, the product's columns on its first row only; option groups and
// facets are "|"-separated, a facet written "facet:value"
const COLUMNS = [
  "name",
  "slug",
  "description",
  "assets",
  "facets",
  "optionGroups",
  "optionValues",
  "sku",
  "price",
  "taxCategory",
  "stockOnHand",
  "trackInventory",
  "variantAssets",
  "variantFacets",
];

/** The catalog as Vendure's product CSV and its initial data (one collection per site collection). */
export function vendureCatalog(
  products: CatalogProduct[],
): { csv: string; initial: unknown; collectionVariants: number } {
  const lines = [COLUMNS.join(",")];
  const collections = new Map<string, string>();
  let collectionVariants = 0;
  for (const product of products) {
    // a product whose only variant has no options (Shopify's "Default Title") has no option group
    const groups = product.options.filter((o) => !(o.name === "Title" && o.values.length === 1));
    product.variants.forEach((variant, i) => {
      // Vendure wants a value of every group on every variant; a variant the site gives fewer options
      // (the demo's notebook: cloth and foil only on the premium one) gets "none" for the rest
      const values = groups.map((g) =>
        variant.selectedOptions.find((o) => o.name === g.name)?.value ?? "none"
      );
      const first = i === 0;
      lines.push(
        [
          first ? product.title : "",
          first ? product.handle : "",
          "",
          "",
          first ? product.collections.map((c) => `collection:${c.handle}`).join("|") : "",
          first ? groups.map((g) => g.name).join("|") : "",
          values.join("|"),
          variant.sku,
          variant.price.toFixed(2),
          "standard",
          "100",
          "false",
          "",
          "",
        ].map(csvCell).join(","),
      );
    });
    for (const c of product.collections) collections.set(c.handle, c.title);
    collectionVariants += product.collections.length * product.variants.length;
  }
  const initial = {
    defaultLanguage: "en",
    defaultZone: "Europe",
    roles: [],
    taxRates: [{ name: "Standard Tax", percentage: 0 }],
    shippingMethods: [{ name: "Standard Shipping", price: 500 }],
    paymentMethods: [],
    countries: [{ name: "Germany", code: "DE", zone: "Europe" }],
    collections: [...collections].map(([handle, title]) => ({
      name: title,
      slug: handle,
      filters: [{
        code: "facet-value-filter",
        args: { facetValueNames: [`collection:${handle}`], containsAny: false },
      }],
    })),
  };
  return { csv: lines.join("\n") + "\n", initial, collectionVariants };
}

/** Vendure's Shop API read of one page of products, asking for what the site's store read answers. */
export const VENDURE_PRODUCTS = `{ products(options: { take: ${STORE_PAGE}, sort: { createdAt: ASC } }) {
  items { id slug name
    featuredAsset { preview width height }
    optionGroups { name options { name } }
    variants { id name sku price priceWithTax currencyCode stockLevel options { code name } }
    collections { id slug name } }
  totalItems } }`;

export interface RunningVendure {
  shop: string;
  products: number;
  stop(): Promise<void>;
}

/**
 * Vendure on a fresh database holding the catalog. The import takes minutes (Vendure's importer writes a
 * product at a time), so the first run keeps its imported database as a template named by the catalog's
 * hash, and later runs start from a fresh copy of it (CREATE DATABASE ... TEMPLATE).
 */
export async function startVendure(
  products: CatalogProduct[],
  say: (line: string) => void,
): Promise<RunningVendure> {
  const install = await installNodePackages(
    `${PEERS_DIR}vendure/`,
    VENDURE_PACKAGES,
    (l) => say(`vendure: ${l}`),
  );
  const { csv, initial, collectionVariants } = vendureCatalog(products);
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(JSON.stringify([VENDURE_PACKAGES, csv, initial])),
  );
  const template = `sitewire_vendure_catalog_${
    [...new Uint8Array(digest).slice(0, 6)].map((b) => b.toString(16).padStart(2, "0")).join("")
  }`;
  const database = await freshPeerDatabase("sitewire_vendure", template);
  try {
    await Deno.writeTextFile(`${install.dir}catalog.csv`, csv);
    await Deno.writeTextFile(`${install.dir}initial.json`, JSON.stringify(initial));
    say(
      database.copied
        ? `vendure: starting on a fresh copy of the catalog imported before (${template})`
        : `vendure: starting on a fresh database and importing ${products.length} products (first run only; minutes)`,
    );
    const child = await startNodeScript(install, new URL("./vendure-server.mjs", import.meta.url), {
      VENDURE_DB_URL: database.url,
      VENDURE_PORT: String(freePort()),
      VENDURE_IMPORT: database.copied ? "no" : "yes",
      VENDURE_CATALOG: `${install.dir}catalog.csv`,
      VENDURE_INITIAL: `${install.dir}initial.json`,
      VENDURE_COLLECTION_VARIANTS: String(collectionVariants),
      NODE_ENV: "production",
    }, { readyWithinMs: 1_800_000, progress: (line) => say(line) });
    const ready = child.ready as { shop: string; products: number; ready_ms: number };
    say(
      `vendure: ${ready.products} products served at ${ready.shop}, ready in ${
        Math.round(ready.ready_ms / 1000)
      } s`,
    );
    return {
      shop: ready.shop,
      products: ready.products,
      async stop() {
        await child.stop();
        if (!database.copied) {
          await database.keepAs(template).catch((e) => say(`vendure: template not kept: ${e.message}`));
        }
        await database.drop();
      },
    };
  } catch (error) {
    await database.drop();
    throw error;
  }
}
