// Store API bench: products(first: 250) with variants and collections, and a cart's life (cartCreate,
// three cartLinesAdd, a cart read), through HTTP, each against the floor of the same statements run
// directly. The catalog is generated in the bench's own database (the demo has six products): goods
// with sizes, books with print and download formats, and collections naming them.
import type { Sql } from "../shared/db.ts";
import { createKey } from "../shared/keys.ts";
import { randomBase62 } from "../shared/ids.ts";
import { settle } from "./fixtures.ts";

type Measure = (label: string, run: () => Promise<unknown>) => Promise<number>;

export const PRODUCTS = 1000;
const COLLECTIONS = 40;

const PAGE = `query Page($after: String) { products(first: 250, after: $after) {
  edges { cursor node { id handle title productType vendor availableForSale
    priceRange { minVariantPrice { amount currencyCode } maxVariantPrice { amount currencyCode } }
    featuredImage { url width height }
    options { name values }
    variants(first: 50) { nodes { id title sku availableForSale price { amount currencyCode } compareAtPrice { amount }
      selectedOptions { name value } } }
    collections(first: 10) { nodes { id handle title } } } }
  pageInfo { hasNextPage endCursor } } }`;

const CART = `id totalQuantity cost { totalAmount { amount currencyCode } }
  lines(first: 50) { nodes { id quantity merchandise { ... on ProductVariant { id title price { amount } } } } }`;

export async function generateCatalog(sql: Sql): Promise<void> {
  const [{ image }] = await sql<
    { image: string }[]
  >`select id as image from public.content_assets order by id limit 1`;
  const link = (id: string) => ({ sys: { type: "Link", linkType: "Asset", id } });
  // four in five are goods with four sizes, one in five a book with unlock, two print and two download formats
  await sql`
    insert into public.content_entries (stage, id, model_id, path, fields, created_at, updated_at)
    select stage, 'product.bench-' || i, 'product', 'records/products/bench-' || lpad(i::text, 5, '0') || '.md',
      jsonb_build_object(
        'title', jsonb_build_object('en-US', 'Bench good ' || i),
        'summary', jsonb_build_object('en-US', 'A generated good, number ' || i),
        'sku', jsonb_build_object('en-US', 'BG-' || i),
        'price', jsonb_build_object('en-US', 5 + (i % 40) + 0.5),
        'compare', jsonb_build_object('en-US', 50),
        'currency', jsonb_build_object('en-US', 'EUR'),
        'sizes', jsonb_build_object('en-US', jsonb_build_array('S', 'M', 'L', 'XL')),
        'images', jsonb_build_object('en-US', jsonb_build_array(${sql.json(link(image))}::jsonb)),
        'tags', jsonb_build_object('en-US', jsonb_build_array('bench', 'tag-' || (i % 10)))),
      timestamptz '2030-01-01' + make_interval(mins => i), timestamptz '2030-01-01' + make_interval(mins => i)
    from generate_series(1, ${PRODUCTS}) i, unnest(array['preview', 'published']) stage
    where i % 5 <> 0`;
  await sql`
    insert into public.content_entries (stage, id, model_id, path, fields, created_at, updated_at)
    select stage, 'book.bench-' || i, 'book', 'records/books/bench-' || lpad(i::text, 5, '0') || '.md',
      jsonb_build_object(
        'title', jsonb_build_object('en-US', 'Bench book ' || i),
        'author', jsonb_build_object('en-US', 'Author ' || (i % 7)),
        'cover', jsonb_build_object('en-US', ${sql.json(link(image))}::jsonb),
        'offers', jsonb_build_object('en-US', jsonb_build_object(
          'unlock', jsonb_build_object('sku', 'BB-' || i || '-R', 'price', 8),
          'print', jsonb_build_object('sku', 'BB-' || i || '-P', 'price', 25, 'formats', jsonb_build_array('softcover', 'hardcover')),
          'download', jsonb_build_object('sku', 'BB-' || i || '-D', 'price', 10, 'formats', jsonb_build_array('pdf', 'epub'))))),
      timestamptz '2030-01-01' + make_interval(mins => i), timestamptz '2030-01-01' + make_interval(mins => i)
    from generate_series(1, ${PRODUCTS}) i, unnest(array['preview', 'published']) stage
    where i % 5 = 0`;
  // each collection names 50 products, by handle or by sku; every product is in two collections
  await sql`
    insert into public.content_entries (stage, id, model_id, path, fields)
    select stage, 'collection.bench-' || c, 'collection', 'records/collections/bench-' || lpad(c::text, 3, '0') || '.md',
      jsonb_build_object('title', jsonb_build_object('en-US', 'Bench collection ' || c),
        'products', jsonb_build_object('en-US', (
          select jsonb_agg(case when i % 5 = 0 then 'bench-' || lpad(i::text, 5, '0') when i % 2 = 0 then 'BG-' || i
                                else 'bench-' || lpad(i::text, 5, '0') end order by i)
          from generate_series(1, ${PRODUCTS}) i where i % ${COLLECTIONS / 2} = c % ${COLLECTIONS / 2})))
    from generate_series(1, ${COLLECTIONS}) c, unnest(array['preview', 'published']) stage`;
  await settle(sql, ["public.content_entries", "public.storefront_products"]);
}

/**
 * `baseUrl` keeps catalog answers as production does; `builtUrl` is a host that keeps none
 * (ANSWER_CACHE_MB=0), whose figure is what building the page costs.
 */
export async function benchStorefront(
  sql: Sql,
  urls: { baseUrl: string; builtUrl: string },
  measure: Measure,
): Promise<Record<string, unknown>[]> {
  console.log(`bench: generating ${PRODUCTS} products and ${COLLECTIONS} collections`);
  const started = performance.now();
  await generateCatalog(sql);
  const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from public.storefront_products`;
  console.log(`  ${n} products in the catalog, generated in ${Math.round(performance.now() - started)} ms`);

  // a storefront key is per visitor address and key limited: rotate keys so the loop is never throttled
  const keys = await Promise.all(
    Array.from({ length: 40 }, (_, i) => createKey(sql, { name: `bench store ${i}`, kind: "storefront" })),
  );
  let turn = 0;
  const post = (query: string, variables: Record<string, unknown>, at: string) =>
    fetch(`${at}/api/2024-10/graphql.json`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-shopify-storefront-access-token": keys[turn++ % keys.length].key,
      },
      body: JSON.stringify({ query, variables }),
    });
  const gql = async (query: string, variables: Record<string, unknown> = {}, at = urls.builtUrl) => {
    const res = await post(query, variables, at);
    const body = await res.json();
    if (!res.ok || body.errors) throw new Error(`HTTP ${res.status}: ${JSON.stringify(body.errors ?? body)}`);
    return body.data;
  };

  const results: Record<string, unknown>[] = [];

  // 1. products(first: 250) with variants and collections
  const first = await gql(PAGE);
  const variants = first.products.edges.reduce(
    (sum: number, e: any) => sum + e.node.variants.nodes.length,
    0,
  );
  const memberships = first.products.edges.reduce(
    (sum: number, e: any) => sum + e.node.collections.nodes.length,
    0,
  );
  console.log(
    `bench: products(first: 250): ${first.products.edges.length} products, ${variants} variants, ${memberships} collection links`,
  );
  // timed as bytes, as the other parts' reads are: the client shares the server's thread, and parsing the
  // 486 KB answer (checked above) would be timed as the server's (about 2 ms a request)
  const pageBytes = async (at: string) => {
    const res = await post(PAGE, {}, at);
    if (!res.ok) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
    return await res.arrayBuffer();
  };
  const apiPage = await measure("api, answer built", () => pageBytes(urls.builtUrl));
  const keptPage = await measure("api, kept answer", () => pageBytes(urls.baseUrl));
  // the floor: the same statements the API runs for that page (catalog page, storefront record,
  // collections naming the page's products, the images), straight to the database
  const floorPage = await measure("sql floor", async () => {
    const page = await sql<{ names: string[]; fields: any }[]>`
      select c.entry_id, c.model_id, c.path, c.fields, c.created_at, c.updated_at, c.kind, c.handle, c.names, c.position
      from public.storefront_catalog c order by c.position asc, c.handle asc limit 251`;
    await sql`select id, model_id, path, fields from public.content_entries
              where stage = 'published' and model_id = 'storefront' order by path limit 1`;
    await sql`select c.entry_id, c.handle, c.names, c.fields, c.updated_at from public.storefront_collections c
              where c.names && ${[...new Set(page.flatMap((r) => r.names))]}::text[] order by c.position`;
    const images = [
      ...new Set(
        page.map((r) => (r.fields.images?.["en-US"]?.[0] ?? r.fields.cover?.["en-US"])?.sys?.id).filter(
          Boolean,
        ),
      ),
    ];
    await sql`select id, path, file_name, content_type, width, height, title, description, content_hash
              from public.content_assets where published and id = any(${images}::text[])`;
  });
  results.push({
    name: "storefront products(first: 250) with variants(first: 50) and collections(first: 10)",
    products: first.products.edges.length,
    variants,
    api_ms: apiPage,
    floor_ms: floorPage,
    ratio: apiPage / floorPage,
  }, {
    name: "storefront products(first: 250) with variants(first: 50) and collections(first: 10), kept answer",
    products: first.products.edges.length,
    variants,
    api_ms: keptPage,
    floor_ms: floorPage,
    ratio: keptPage / floorPage,
  });

  // 2. cartCreate + 3 cartLinesAdd + a cart read
  const merch = ["BG-1/m", "BG-2/l", "BB-5-P-HARDCOVER", "BG-3/s"].map((k) =>
    `gid://shopify/ProductVariant/${k}`
  );
  const apiCart = await measure("api", async () => {
    const created = await gql(
      `mutation($l: [CartLineInput!]) { cartCreate(input: { lines: $l }) { cart { ${CART} } userErrors { code } } }`,
      {
        l: [{ merchandiseId: merch[0], quantity: 1 }],
      },
    );
    const id = created.cartCreate.cart.id;
    for (const m of merch.slice(1)) {
      await gql(
        `mutation($id: ID!, $l: [CartLineInput!]!) { cartLinesAdd(cartId: $id, lines: $l) { cart { ${CART} } userErrors { code } } }`,
        {
          id,
          l: [{ merchandiseId: m, quantity: 2 }],
        },
      );
    }
    const read = await gql(`query($id: ID!) { cart(id: $id) { ${CART} } }`, { id });
    if (read.cart.lines.nodes.length !== 4) throw new Error("the cart lost a line");
  });
  // the floor: what those five requests need of the database: the variants' products by sku, the cart
  // written once and changed three times under its row lock, and read back with its products
  const floorCart = await measure("sql floor", async () => {
    const token = randomBase62(32);
    const skus = ["BG-1", "BG-2", "BB-5-P-HARDCOVER", "BG-3"];
    await sql`select entry_id, fields, names from public.storefront_catalog where names && ${[
      skus[0],
    ]}::text[]`;
    await sql`insert into public.storefront_carts (id, lines) values (${token}, ${
      sql.json([{ id: "a", sku: skus[0], variant: "m", quantity: 1, attributes: [] }])
    })`;
    const lines: unknown[] = [{ id: "a", sku: skus[0], variant: "m", quantity: 1, attributes: [] }];
    for (const sku of skus.slice(1)) {
      await sql`select entry_id, fields, names from public.storefront_catalog where names && ${[
        sku,
      ]}::text[]`;
      await sql.begin(async (tx) => {
        await tx`select lines from public.storefront_carts where id = ${token} for update`;
        await tx`select entry_id, fields, names from public.storefront_catalog where names && ${skus}::text[]`;
        lines.push({ id: sku, sku, variant: null, quantity: 2, attributes: [] });
        await tx`update public.storefront_carts set lines = ${
          tx.json(lines as never)
        }, updated_at = now() where id = ${token}`;
      });
      await sql`select entry_id, fields, names from public.storefront_catalog where names && ${skus}::text[]`;
    }
    await sql`select id, lines, buyer, attributes, note, created_at, updated_at from public.storefront_carts where id = ${token}`;
    await sql`select entry_id, fields, names from public.storefront_catalog where names && ${skus}::text[]`;
  });
  results.push({
    name: "storefront cartCreate + 3 cartLinesAdd + cart read (5 requests)",
    api_ms: apiCart,
    floor_ms: floorCart,
    ratio: apiCart / floorCart,
  });
  return results;
}
