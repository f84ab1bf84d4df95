// The peers part of the bench: the site beside the software people would pick instead, in one run, under
// the same load (autocannon, 16 connections, the same duration, alternating runs):
//   content list with links (include=2, 100 articles) and one article: Directus 12
//   store read (a page of products with variants and collections, 1,000-product catalog): Vendure 3
// Goals (issue 15): content list and one entry ≥ 5× Directus's throughput, store ≥ 10× Vendure's, each
// with a lower p99. Peers install from npm on first use (minutes) and never in a quick run; a peer that
// cannot be installed or started is one clear line in the output and in the results, and the bench goes on.
import type { Sql } from "../../shared/db.ts";
import { startBenchHost } from "../host.ts";
import { createKey } from "../../shared/keys.ts";
import { benchSize, referenceWanted } from "../size.ts";
import { generateCatalog, PRODUCTS } from "../storefront.ts";
import { type DeliveryPage, DIRECTUS_LIST_FIELDS, DIRECTUS_PACKAGES, startDirectus } from "./directus.ts";
import { type LoadJob, sideBySide } from "./load.ts";
import { readSiteCatalog, startVendure, STORE_PAGE, VENDURE_PACKAGES, VENDURE_PRODUCTS } from "./vendure.ts";

const CONNECTIONS = 16;
const SECONDS = benchSize("BENCH_PEER_SECONDS", 10, 1);
const ROUNDS = benchSize("BENCH_PEER_ROUNDS", 2, 1);
/** Articles on the list page (the demo has about ten: the rest are copies of its richest article). */
const ARTICLES = 100;

/** BENCH_PEERS=directus,vendure picks the peers (default both). */
const PEERS = (Deno.env.get("BENCH_PEERS") ?? "directus,vendure").split(",").map((p) => p.trim());

const contentName = `peers: content list (include=2, ${ARTICLES}) and one entry vs ${DIRECTUS_PACKAGES[0]}`;
const storeName = `peers: store products (first ${STORE_PAGE}, variants, collections) vs ${
  VENDURE_PACKAGES[0]
}`;

const say = (line: string) => console.log(`  peers: ${line}`);
const reason = (error: unknown) => (error instanceof Error ? error.message : String(error)).split("\n")[0];

/** Copies of the article with the most links until `count` articles are published (ids article.peer-N). */
async function ensureArticles(sql: Sql, model: string, count: number): Promise<void> {
  await sql`
    insert into public.content_entries (stage, id, model_id, path, access, fields, links, asset_links, search_text, created_at, updated_at)
    select st.stage, s.model_id || '.peer-' || n, s.model_id, 'records/peer/' || s.model_id || '-' || n || '.md', 'guest',
      jsonb_set(s.fields, '{title}', jsonb_build_object('en-US', 'Peer copy ' || n || ' of ' || coalesce(s.fields #>> '{title,en-US}', s.id))),
      s.links, s.asset_links, s.search_text,
      timestamptz '2020-01-01' + make_interval(mins => n), timestamptz '2020-01-01' + make_interval(mins => n)
    from (select * from public.content_entries where stage = 'published' and model_id = ${model} and access = 'guest'
          order by cardinality(links) + cardinality(asset_links) desc, id limit 1) s
      cross join unnest(array['preview', 'published']) st(stage)
      cross join generate_series(1, greatest(0, ${count} - (select count(*)::int from public.content_entries
        where stage = 'published' and model_id = ${model}))) n
    on conflict do nothing`;
}

/**
 * The peers against the site on a host of the bench's own (bench/host.ts), whose rate limits are raised by
 * its configuration as in the load phase: the site's figures are then its answers, never its 429s.
 */
export async function benchPeers(sql: Sql, databaseUrl: string): Promise<Record<string, unknown>[]> {
  console.log(
    `bench: peers side by side (autocannon, ${CONNECTIONS} connections, ${SECONDS} s, ${ROUNDS} alternating rounds)`,
  );
  if (!referenceWanted()) {
    const note = "peers skipped (BENCH_REFERENCE=off, or a quick run)";
    say(note);
    return [{ name: contentName, note }, { name: storeName, note }];
  }
  const results: Record<string, unknown>[] = [];
  const job = (url: string, extra: Partial<LoadJob> = {}): LoadJob => ({
    url,
    connections: CONNECTIONS,
    seconds: SECONDS,
    ...extra,
  });

  const host = await startBenchHost(databaseUrl);
  try {
    if (PEERS.includes("directus")) results.push(await benchDirectus(sql, host.baseUrl, job));
    if (PEERS.includes("vendure")) results.push(await benchVendure(sql, host.baseUrl, job));
  } finally {
    await host.stop();
  }
  return results;
}

async function benchDirectus(
  sql: Sql,
  baseUrl: string,
  job: (url: string, extra?: Partial<LoadJob>) => LoadJob,
) {
  const [{ slug, config }] = await sql<
    { slug: string; config: { api?: { space?: string } } }[]
  >`select slug, config from public.site_settings`;
  const env = `${baseUrl}/api/content/spaces/${config?.api?.space ?? slug}/environments/master`;
  const deliveryKeys = (await Promise.all(
    Array.from({ length: 40 }, (_, i) => createKey(sql, { name: `bench peers ${i}`, kind: "delivery" })),
  )).map((k) => k.key);
  const [{ model }] = await sql<{ model: string }[]>`
    select id as model from public.content_models where id = 'article' or folder = 'articles' order by id = 'article' desc limit 1`;
  await ensureArticles(sql, model, ARTICLES);
  const listPath = `/entries?content_type=${model}&include=2&limit=${ARTICLES}`;
  const page =
    await (await fetch(`${env}${listPath}`, { headers: { authorization: `Bearer ${deliveryKeys[0]}` } }))
      .json() as DeliveryPage;
  const one = page.items[0].sys.id;
  const siteKeys = { header: "authorization", prefix: "Bearer ", values: deliveryKeys };
  try {
    const directus = await startDirectus(page, say);
    try {
      const auth = { authorization: `Bearer ${directus.token}` };
      const directusList =
        `${directus.url}/items/articles?filter[content_type][_eq]=${model}&sort=-created_at&limit=${ARTICLES}&fields=${DIRECTUS_LIST_FIELDS}`;
      // both answer the same page: the same articles, each with what it links to
      const answer = await (await fetch(directusList, { headers: auth })).text();
      const items = (JSON.parse(answer).data as unknown[]).length;
      if (items !== page.items.length) {
        throw new Error(`directus answers ${items} articles, the site ${page.items.length}`);
      }
      const sizes = {
        sitewire_bytes: JSON.stringify(page).length,
        directus_bytes: answer.length,
        articles: items,
      };
      say(
        `content list: ${items} articles; answers of ${sizes.sitewire_bytes} bytes (site) and ${sizes.directus_bytes} (directus)`,
      );
      const list = await sideBySide(
        "content list",
        job(`${env}${listPath}`, { keys: siteKeys }),
        job(directusList, { headers: auth }),
        ROUNDS,
        say,
      );
      const entry = await sideBySide(
        "one entry",
        job(`${env}/entries/${one}`, { keys: siteKeys }),
        job(`${directus.url}/items/articles/${one}`, { headers: auth }),
        ROUNDS,
        say,
      );
      return {
        name: contentName,
        connections: CONNECTIONS,
        seconds: SECONDS,
        rounds: ROUNDS,
        content_list: { ...list, ...sizes },
        one_entry: entry,
        goal: "throughput ratios ≥ 5, p99 ratios < 1",
      };
    } finally {
      await directus.stop();
    }
  } catch (error) {
    say(`directus not measured: ${reason(error)}`);
    return { name: contentName, note: `directus not measured: ${reason(error)}` };
  }
}

async function benchVendure(
  sql: Sql,
  baseUrl: string,
  job: (url: string, extra?: Partial<LoadJob>) => LoadJob,
) {
  const storeKeys = (await Promise.all(
    Array.from(
      { length: 40 },
      (_, i) => createKey(sql, { name: `bench peers store ${i}`, kind: "storefront" }),
    ),
  )).map((k) => k.key);
  const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from public.storefront_products`;
  if (n < PRODUCTS) {
    say(`generating the storefront bench's catalog (${PRODUCTS} products)`);
    await generateCatalog(sql);
  }
  const storeUrl = `${baseUrl}/api/2024-10/graphql.json`;
  let keyTurn = 0;
  const storeQuery = async (query: string, variables: Record<string, unknown>) => {
    const res = await fetch(storeUrl, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-shopify-storefront-access-token": storeKeys[keyTurn++ % storeKeys.length],
      },
      body: JSON.stringify({ query, variables }),
    });
    const body = await res.json();
    if (!res.ok || body.errors) {
      throw new Error(`site store: HTTP ${res.status} ${JSON.stringify(body.errors ?? body).slice(0, 300)}`);
    }
    return body.data;
  };
  try {
    const catalog = await readSiteCatalog(storeQuery);
    const vendure = await startVendure(catalog, say);
    try {
      const siteQuery = SITE_PRODUCTS;
      // both answer the same page, once each alone first: how long one read takes without load
      let t0 = performance.now();
      const sitePage = await storeQuery(siteQuery, {});
      const siteAlone = performance.now() - t0;
      t0 = performance.now();
      const res = await fetch(vendure.shop, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: VENDURE_PRODUCTS }),
      });
      const vendurePage = await res.json();
      const vendureAlone = performance.now() - t0;
      const vendureItems = vendurePage.data?.products?.items?.length;
      if (vendureItems !== sitePage.products.edges.length) {
        throw new Error(
          `vendure answers ${
            vendureItems ?? JSON.stringify(vendurePage.errors)
          } products, the site ${sitePage.products.edges.length}`,
        );
      }
      const alone = { sitewire_ms: siteAlone, vendure_ms: vendureAlone, products: vendureItems };
      say(
        `store products: ${vendureItems} products a page; one read alone ${siteAlone.toFixed(0)} ms (site), ${
          vendureAlone.toFixed(0)
        } ms (vendure)`,
      );
      const store = await sideBySide(
        "store products",
        job(storeUrl, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: siteQuery }),
          keys: { header: "x-shopify-storefront-access-token", values: storeKeys },
        }),
        job(vendure.shop, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ query: VENDURE_PRODUCTS }),
        }),
        ROUNDS,
        say,
      );
      return {
        name: storeName,
        catalog: {
          products: catalog.length,
          variants: catalog.reduce((sum, p) => sum + p.variants.length, 0),
          vendure_products: vendure.products,
        },
        connections: CONNECTIONS,
        seconds: SECONDS,
        rounds: ROUNDS,
        store_products: { ...store, alone },
        goal: "throughput ratio ≥ 10, p99 ratio < 1",
      };
    } finally {
      await vendure.stop();
    }
  } catch (error) {
    say(`vendure not measured: ${reason(error)}`);
    return { name: storeName, note: `vendure not measured: ${reason(error)}` };
  }
}

/** The site's store read matching VENDURE_PRODUCTS: a page of products with variants and collections. */
const SITE_PRODUCTS = `{ products(first: ${STORE_PAGE}, sortKey: CREATED_AT) {
  edges { node { id handle title
    featuredImage { url width height }
    options { name values }
    variants(first: 50) { nodes { id title sku price { amount currencyCode } availableForSale
      selectedOptions { name value } } }
    collections(first: 10) { nodes { id handle title } } } }
  pageInfo { hasNextPage endCursor } } }`;
