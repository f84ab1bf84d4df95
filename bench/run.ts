// deno task bench — hot reads against the floor of the same SQL run directly, in one run, as ratios.
// Writes bench/results.json (BENCH_RESULTS names another file). BENCH_DATABASE_URL runs it on a server
// instead of the embedded PGlite; BENCH_ITERATIONS=1 makes a quick smoke run; BENCH_ONLY picks parts.
import { readConfig } from "../shared/config.ts";
import { createContext } from "../shared/context.ts";
import { connect } from "../shared/db.ts";
import { freePort, startEmbeddedPostgres } from "../shared/embedded.ts";
import { createKey } from "../shared/keys.ts";
import { migrate } from "../shared/migrate.ts";
import { importSite } from "../shared/site/import.ts";
import { serveHost } from "../web/host.ts";
import { runCli } from "../scripts/cli.ts";
import { loadModels } from "../functions/content/store/entries.ts";
import type { ContentModel } from "../functions/content/domain/content-types.ts";
import { typeNameOf } from "../functions/content/graphql/names.ts";
import { benchScheduling } from "./scheduling.ts";
import { benchForms } from "./forms.ts";
import { benchStorefront } from "./storefront.ts";
import { benchSupport } from "./support.ts";
import { benchNetwork } from "./network.ts";
import { benchFederation } from "./federation.ts";
import { benchLoad } from "./load.ts";
import { benchDevHost } from "./devhost.ts";
import { benchScale } from "./scale.ts";
import { databaseFacts, machineFacts, memoryFacts } from "./machine.ts";
import { benchSize, ITERATIONS, QUICK } from "./size.ts";
import { benchImages } from "./images.ts";
import { benchWebhooks } from "./webhooks.ts";
import { benchPeers } from "./peers/mod.ts";
import { median } from "./stats.ts";
import { mergedResults, type ResultEntry } from "./results.ts";

// BENCH_ONLY=network,forms runs only those parts (content, scheduling, forms, storefront, network, federation,
// support, images, webhooks, load, devhost, peers, scale)
const ONLY = Deno.env.get("BENCH_ONLY")?.split(",").map((part) => part.trim()).filter(Boolean);
const wants = (part: string) => !ONLY?.length || ONLY.includes(part);
// a read of under a millisecond: 60 samples left its median (and the ratio to its floor) to a few
// scheduler hiccups, so it takes more, as many on each side
const ONE_ENTRY_ITERATIONS = benchSize("BENCH_ONE_ENTRY_ITERATIONS", 1000, ITERATIONS);
const RESULTS = Deno.env.get("BENCH_RESULTS") ?? new URL("./results.json", import.meta.url).pathname;

/** The reference PDS's createRecord rate at 16 writers, measured by the network part of this same run. */
function referenceCreateRate(network: Record<string, unknown> | undefined): number | undefined {
  const reference = network?.reference as { create_per_second_c16?: number } | undefined;
  return reference?.create_per_second_c16;
}

async function measure(label: string, run: () => Promise<unknown>, iterations = ITERATIONS): Promise<number> {
  // warm-up, half as many runs as are timed: a server's hot path is compiled code, and five runs left the
  // slot computation and the store's resolvers half-compiled (slots measured 20 ms at 60 runs after five,
  // 10 ms at 600)
  for (let i = 0; i < Math.min(iterations, Math.max(5, Math.ceil(iterations / 2))); i++) await run();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    await run();
    samples.push(performance.now() - t0);
    if ((i + 1) % Math.max(1, Math.floor(iterations / 4)) === 0) {
      await Deno.stdout.write(new TextEncoder().encode(`\r  ${label}: ${i + 1}/${iterations}`));
    }
  }
  const m = median(samples);
  console.log(`\r  ${label}: median ${m.toFixed(2)} ms over ${iterations}`);
  return m;
}

/**
 * Reads compared as ratios, timed in turn: `block` samples of the first, then as many of the next, and
 * round again, so that a change of the machine's load while they are timed falls on all of them alike.
 * Each one's median.
 */
async function measureInTurn(
  labels: string[],
  runs: (() => Promise<unknown>)[],
  iterations = ITERATIONS,
  block = 1,
): Promise<number[]> {
  for (let i = 0; i < Math.min(iterations, Math.max(5, Math.ceil(iterations / 2))); i++) {
    for (const run of runs) await run();
  }
  const samples: number[][] = runs.map(() => []);
  for (let done = 0; done < iterations; done += block) {
    for (const [side, run] of runs.entries()) {
      for (let i = done; i < Math.min(iterations, done + block); i++) {
        const t0 = performance.now();
        await run();
        samples[side].push(performance.now() - t0);
      }
    }
    await Deno.stdout.write(
      new TextEncoder().encode(`\r  ${labels.join(" and ")} in turn: ${Math.min(iterations, done + block)}/${iterations}`),
    );
  }
  const medians = samples.map(median);
  console.log(`\r  ${labels.map((label, i) => `${label}: median ${medians[i].toFixed(2)} ms`).join(", ")}, over ${iterations} each in turn`);
  return medians;
}

/**
 * A GraphQL selection asking what REST's include answers: every field of the type, and `depth` levels of
 * the entries and assets its fields and rich text link to, each with every field of its own type. Link
 * lists take limit 4 (the demo's longest holds 3), which keeps the query under the complexity limit.
 */
function graphqlSelection(models: Map<string, ContentModel>, id: string, depth: number): string {
  const asset = "sys { id } title description fileName contentType size url width height";
  const parts = ["sys { id }"];
  for (const field of models.get(id)!.fields) {
    const items = field.type === "Array" ? field.items : undefined;
    const linkType = field.type === "Link" ? field.linkType : items?.type === "Link" ? items.linkType : undefined;
    const name = items ? `${field.id}Collection(limit: 4) { items {` : `${field.id} {`;
    const close = items ? "} }" : "}";
    if (field.type === "RichText") {
      parts.push(depth > 0 ? `${field.id} { json links { assets { block { ${asset} } } } }` : `${field.id} { json }`);
    } else if (linkType === "Asset") {
      if (depth > 0) parts.push(`${name} ${asset} ${close}`);
    } else if (linkType === "Entry") {
      if (depth === 0) continue;
      const validations = (items ?? field).validations as { linkContentType?: string[] }[];
      const allowed = validations.find((v) => v.linkContentType)?.linkContentType ?? [...models.keys()];
      const fragments = allowed.filter((t) => models.has(t))
        .map((t) => `... on ${typeNameOf(t)} { ${graphqlSelection(models, t, depth - 1)} }`);
      parts.push(`${name} __typename ${fragments.join(" ")} ${close}`);
    } else parts.push(field.id);
  }
  return parts.join(" ");
}

/** The GraphQL answer reaches the entries and assets REST includes (the bench compares like with like). */
// deno-lint-ignore no-explicit-any
function sameLinks(graphql: any, rest: any) {
  if (graphql.errors?.some((e: any) => e.extensions?.contentful?.code !== "UNRESOLVABLE_LINK")) {
    throw new Error(`graphql: ${JSON.stringify(graphql.errors)}`);
  }
  const page = new Set(rest.items.map((e: any) => e.sys.id));
  const reached = { Entry: new Set<string>(), Asset: new Set<string>() };
  // every entity below a page item (assets are the ones with a fileName)
  const walk = (value: unknown, top: boolean) => {
    if (Array.isArray(value)) return value.forEach((v) => walk(v, false));
    if (!value || typeof value !== "object") return;
    const node = value as Record<string, any>;
    if (node.sys?.id && !top) reached[node.fileName !== undefined ? "Asset" : "Entry"].add(node.sys.id);
    for (const [key, child] of Object.entries(node)) if (key !== "sys" && key !== "json") walk(child, false);
  };
  const [collection] = Object.values(graphql.data) as { items: unknown[] }[];
  for (const item of collection.items) walk(item, true);
  const graphqlEntries = [...reached.Entry].filter((id) => !page.has(id)).sort();
  const restEntries = (rest.includes?.Entry ?? []).map((e: any) => e.sys.id).sort();
  const restAssets = (rest.includes?.Asset ?? []).map((e: any) => e.sys.id).sort();
  if (JSON.stringify(graphqlEntries) !== JSON.stringify(restEntries) || JSON.stringify([...reached.Asset].sort()) !== JSON.stringify(restAssets)) {
    throw new Error("graphql and REST reach different entries or assets: the bench would compare unlike reads");
  }
}

await runCli(async () => {
  const serverUrl = Deno.env.get("BENCH_DATABASE_URL");
  console.log(`bench: preparing ${serverUrl ? "a fresh database on the server" : "an embedded PGlite database"}`);
  let dropDatabase: (() => Promise<void>) | undefined;
  let url: string;
  const embedded = serverUrl ? undefined : await startEmbeddedPostgres();
  if (serverUrl) {
    const name = `sitewire_bench_${Date.now()}`;
    const admin = connect(serverUrl, { max: 1 });
    await admin.unsafe(`create database ${name}`);
    const u = new URL(serverUrl);
    u.pathname = `/${name}`;
    url = u.toString();
    dropDatabase = async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    };
  } else url = embedded!.url;

  const sql = connect(url, { max: 4 });
  await migrate(sql);
  await importSite(sql, { dir: new URL("../demo-site", import.meta.url).pathname });
  // the per-second limit (78 per key) would throttle a tight loop: rotate over enough keys that no
  // key sees more than a few requests a second, instead of resetting counters inside the timings
  const keys = await Promise.all(Array.from({ length: 40 }, (_, i) => createKey(sql, { name: `bench ${i}`, kind: "delivery" })));
  let turn = 0;
  const port = freePort();
  const baseUrl = `http://localhost:${port}`;
  const ctx = createContext({ ...readConfig(new Map()), databaseUrl: url, port, publicUrl: baseUrl, functionsUrl: baseUrl }, { sql });
  const controller = new AbortController();
  const server = serveHost(ctx, { port, signal: controller.signal, onListen: () => {} });
  // a second host that keeps no answers (ANSWER_CACHE_MB=0): what building a delivery answer costs, which
  // the list and GraphQL figures compare; the first host serves repeated reads as production does
  const builtPort = freePort();
  const builtServer = serveHost({ ...ctx, config: { ...ctx.config, answerCacheBytes: 0 } }, {
    port: builtPort,
    signal: controller.signal,
    onListen: () => {},
  });
  const [{ slug, config }] = await sql<{ slug: string; config: { api?: { space?: string } } }[]>`select slug, config from public.site_settings`;
  const env = `${baseUrl}/api/content/spaces/${config?.api?.space ?? slug}/environments/master`;
  const builtEnv = env.replace(baseUrl, `http://localhost:${builtPort}`);
  const httpGet = async (path: string, at = builtEnv) => {
    const headers = { authorization: `Bearer ${keys[turn++ % keys.length].key}` };
    const res = await fetch(`${at}${path}`, { headers });
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
    return await res.arrayBuffer();
  };

  const results: Record<string, unknown>[] = [];
  if (wants("content")) {
    const [articleType] = await sql<{ model_id: string; n: number }[]>`
      select model_id, count(*)::int as n from public.content_entries where stage = 'published'
      group by model_id order by count(*) desc limit 1`;
    const type = articleType.model_id;

    console.log(`bench: GET entries?content_type=${type}&include=2&limit=100`);
    const apiList = await measure("api", () => httpGet(`/entries?content_type=${type}&include=2&limit=100`));
    // the floor: the same rows by direct SQL (page, then two levels of linked entries and assets)
    const floorList = await measure("sql floor", async () => {
      const page = await sql<{ links: string[]; asset_links: string[] }[]>`
        select id, model_id, access, fields, revision, created_at, updated_at, links, asset_links, count(*) over () as total
        from public.content_entries where stage = 'published' and model_id = ${type}
        order by created_at desc, id limit 100`;
      let links = [...new Set(page.flatMap((r) => r.links))];
      let assets = [...new Set(page.flatMap((r) => r.asset_links))];
      for (let level = 0; level < 2 && (links.length || assets.length); level++) {
        const [entries] = await Promise.all([
          sql<{ links: string[]; asset_links: string[] }[]>`select id, model_id, access, fields, revision, created_at, updated_at, links, asset_links
            from public.content_entries where stage = 'published' and id = any(${links}::text[])`,
          sql`select * from public.content_assets where published and id = any(${assets}::text[])`,
        ]);
        links = [...new Set(entries.flatMap((r) => r.links))];
        assets = [...new Set(entries.flatMap((r) => r.asset_links))];
      }
    });
    results.push({ name: "delivery entries (content_type, include=2, limit=100)", api_ms: apiList, floor_ms: floorList, ratio: apiList / floorList });
    const keptList = await measure("api, kept answer", () => httpGet(`/entries?content_type=${type}&include=2&limit=100`, env));
    results.push({ name: "delivery entries (content_type, include=2, limit=100), kept answer", api_ms: keptList, floor_ms: floorList, ratio: keptList / floorList });

    // ---- GraphQL: the same page and the same two levels of links, as a ratio to the REST read above ----
    const models = new Map((await loadModels(sql)).map((m) => [m.id, m]));
    const graphqlAddress = `http://localhost:${builtPort}/api/content/content/v1/spaces/${config?.api?.space ?? slug}/environments/master`;
    const query = `{ ${typeNameOf(type).charAt(0).toLowerCase()}${typeNameOf(type).slice(1)}Collection(limit: 100) { items { ${
      graphqlSelection(models, type, 2)
    } } } }`;
    const httpGraphql = async () => {
      const res = await fetch(graphqlAddress, {
        method: "POST",
        headers: { authorization: `Bearer ${keys[turn++ % keys.length].key}`, "content-type": "application/json" },
        body: JSON.stringify({ query }),
      });
      if (!res.ok) throw new Error(`graphql: HTTP ${res.status} ${await res.text()}`);
      // read as REST's answers are (httpGet): the client shares the server's thread, so parsing a 200 KB
      // answer only on this side would time the client's JSON.parse as GraphQL's cost
      return await res.arrayBuffer();
    };
    const decoded = async (answer: Promise<ArrayBuffer>) => JSON.parse(new TextDecoder().decode(await answer));
    sameLinks(await decoded(httpGraphql()), await decoded(httpGet(`/entries?content_type=${type}&include=2&limit=100`)));
    console.log(`bench: GraphQL ${type} collection, limit 100, links two levels deep`);
    // timed in turn with the same REST read: the ratio is what the goal is about, and blocks of samples
    // minutes apart compared the machine's load as much as the two reads
    const [graphqlList, restInTurn] = await measureInTurn(
      ["graphql", "rest"],
      [httpGraphql, () => httpGet(`/entries?content_type=${type}&include=2&limit=100`)],
    );
    results.push({
      name: "graphql collection (limit 100, links two levels deep) vs REST entries include=2",
      graphql_ms: graphqlList,
      rest_ms: restInTurn,
      ratio: graphqlList / restInTurn,
      timed: "in turn, one sample of each",
    });

    const [{ id }] = await sql<{ id: string }[]>`select id from public.content_entries where stage = 'published' and model_id = ${type} order by id limit 1`;
    console.log(`bench: GET entries/${id}`);
    // in turn by blocks of 100, not sample by sample: a floor this small, timed right after each HTTP
    // request, measured slower (0.29 against 0.24 ms on PGlite), which would flatter the ratio. Beside
    // them, what this machine allows any HTTP answer that needs the database: a bare handler on the same
    // runtime that runs the floor's statement through the same pool and answers the API's own bytes and
    // headers, so the figures show how much of the ratio is the HTTP round trip and a database round trip
    // inside a request
    const floorSql = () =>
      sql`select id, model_id, access, fields, revision, created_at, updated_at from public.content_entries
          where stage = 'published' and id = ${id}`;
    const sample = await fetch(`${env}/entries/${id}`, { headers: { authorization: `Bearer ${keys[0].key}` } });
    const sampleBody = await sample.arrayBuffer();
    const sampleHeaders = [...sample.headers].filter(([name]) => name !== "date" && name !== "content-length");
    const bare = Deno.serve({ port: 0, hostname: "127.0.0.1", signal: controller.signal, onListen: () => {} }, async () => {
      await floorSql();
      return new Response(sampleBody, { headers: sampleHeaders });
    });
    const bareUrl = `http://127.0.0.1:${bare.addr.port}/`;
    const [apiOne, floorOne, bareOne] = await measureInTurn(["api", "sql floor", "bare http + floor"], [
      () => httpGet(`/entries/${id}`, env),
      floorSql,
      async () => await (await fetch(bareUrl)).arrayBuffer(),
    ], ONE_ENTRY_ITERATIONS, 100);
    const builtOne = await measure("api, answer built", () => httpGet(`/entries/${id}`), ONE_ENTRY_ITERATIONS);
    results.push({
      name: "delivery entries/<id>",
      api_ms: apiOne,
      floor_ms: floorOne,
      ratio: apiOne / floorOne,
      bare_http_floor_ms: bareOne,
      bare_http_floor_ratio: bareOne / floorOne,
      note:
        "bare_http_floor: a handler that runs the floor's statement and answers the API's own bytes and headers, over HTTP on the same runtime and pool",
    });
    results.push({ name: "delivery entries/<id>, answer built (cache off)", api_ms: builtOne, floor_ms: floorOne, ratio: builtOne / floorOne });

    const [image] = await sql<{ id: string; content_hash: string; file_name: string }[]>`
      select id, content_hash, file_name from public.content_assets where content_type = 'image/jpeg' order by size desc limit 1`;
    if (image) {
      const path = `${baseUrl}/api/media/${config?.api?.space ?? slug}/${image.id}/${image.content_hash}/${image.file_name}`;
      console.log(`bench: image transform ${image.file_name} → w=300 webp, cold versus cached`);
      let width = 300;
      const cold = await measure("cold", async () => {
        const res = await fetch(`${path}?w=${width++}&fm=webp`); // a new width each time: never cached
        if (res.headers.get("x-image-cache") !== "miss") throw new Error("expected a cache miss");
        await res.arrayBuffer();
      }, Math.max(Math.min(10, ITERATIONS), Math.floor(ITERATIONS / 4)));
      const cached = await measure("cached", async () => {
        const res = await fetch(`${path}?w=300&fm=webp`);
        await res.arrayBuffer();
      });
      results.push({ name: "image transform cold vs cached (jpeg → w=300 webp)", cold_ms: cold, cached_ms: cached, ratio: cold / cached });
    }
  }

  if (wants("scheduling")) {
    results.push(await benchScheduling(sql, { baseUrl, builtUrl: `http://localhost:${builtPort}` }, measure));
  }
  if (wants("forms")) results.push(await benchForms(sql, baseUrl, measure));
  if (wants("storefront")) results.push(...await benchStorefront(sql, { baseUrl, builtUrl: `http://localhost:${builtPort}` }, measure));
  const network = wants("network") ? await benchNetwork(sql, baseUrl) : undefined;
  if (network) results.push(network);
  if (wants("federation")) results.push(await benchFederation(url, referenceCreateRate(network)));
  if (wants("support")) results.push(...await benchSupport(url));
  if (wants("images")) results.push(await benchImages(sql, ctx.storage, baseUrl));
  if (wants("webhooks")) results.push(await benchWebhooks(sql, url));
  if (wants("load")) results.push(...await benchLoad(sql, url, serverUrl ? "postgresql server" : "embedded pglite"));
  // a second `task dev` process with its own database: left out of the quick run unless named
  if (wants("devhost") && (!QUICK || ONLY?.includes("devhost"))) results.push(...await benchDevHost());
  if (wants("peers")) results.push(...await benchPeers(sql, url)); // it adds articles and a catalog
  // last: it grows the space, a form and the bookings to their largest step
  if (wants("scale")) results.push(...await benchScale(sql, url, serverUrl ? "postgresql server" : "embedded pglite", measure));

  const database = serverUrl ? "postgresql server" : "embedded pglite";
  // the process after the bench, its database still open (embedded, the database and every row the bench
  // generated are in this process). Not the goal's figure: the embedded default's resident size is the
  // devhost part's, `task dev` in a process of its own on its on-disk database
  const memory = await memoryFacts();
  console.log(`bench: resident size after the bench ${memory.rss_mb} MB, peak ${memory.rss_peak_mb} MB`);
  results.push({
    name: `memory (${database}): resident size of the bench process after the run and at its peak`,
    database,
    parts: ONLY?.length ? ONLY : "all",
    ...memory,
  });
  // a partial run (BENCH_ONLY) merges into the results file (mergedResults); its own entries carry their
  // time and database
  const previous = ONLY?.length
    ? await Deno.readTextFile(RESULTS).then(JSON.parse, () => undefined) as
      | { generated_at: string; database: string; databases?: Record<string, unknown>; results: ResultEntry[] }
      | undefined
    : undefined;
  const stamped = (previous ? results.map((r) => ({ ...r, generated_at: new Date().toISOString(), database })) : results) as
    ResultEntry[];
  const report = {
    generated_at: previous?.generated_at ?? new Date().toISOString(),
    database: previous?.database ?? database,
    iterations: ITERATIONS,
    deno: Deno.version.deno,
    machine: await machineFacts(),
    databases: { ...previous?.databases, [database]: await databaseFacts(sql, database) },
    results: mergedResults(previous, stamped, database),
  };
  await Deno.writeTextFile(RESULTS, JSON.stringify(report, null, 2) + "\n");
  console.log(JSON.stringify(report, null, 2));
  controller.abort();
  await server.finished;
  await builtServer.finished;
  await sql.end();
  await dropDatabase?.();
  await embedded?.stop();
});
