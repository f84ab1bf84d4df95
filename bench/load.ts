// Concurrency phase: every API's hot path under load over real HTTP, at 1, 16 and 64 connections, on the
// database this run uses (PGlite, or PostgreSQL with BENCH_DATABASE_URL): requests a second, p50 and
// p99 (autocannon, whole milliseconds), in a load generator process of its own (bench/load-client.ts)
// against a host with its rate limits raised by configuration (bench/host.ts). While it runs, the
// host process's resident size and, on PostgreSQL, the connections the host holds are sampled.
//
// BENCH_LOAD_CONNECTIONS (e.g. "1,16,64") and BENCH_LOAD_SECONDS (per path and connection count) override
// the defaults; a quick run (BENCH_ITERATIONS below 5) loads each path at one count for 0.3 s.
import type { Sql } from "../shared/db.ts";
import { connect } from "../shared/db.ts";
import { createKey } from "../shared/keys.ts";
import { ensurePerson } from "../shared/people.ts";
import { generatedBookings, growBookings, growResponses, publishBenchForm } from "./fixtures.ts";
import { BENCH_RATE_LIMIT_SCALE, startBenchHost } from "./host.ts";
import type { LevelFigures, LoadEvent, LoadPlan, LoadScenario } from "./load-client.ts";
import { siteMember } from "./network.ts";
import { generateCatalog, PRODUCTS } from "./storefront.ts";
import { benchSize, QUICK } from "./size.ts";

const CONNECTIONS = (Deno.env.get("BENCH_LOAD_CONNECTIONS") ?? (QUICK ? "8" : "1,16,64"))
  .split(",").map((n) => Number(n.trim())).filter((n) => n > 0);
const SECONDS = Number(Deno.env.get("BENCH_LOAD_SECONDS") ?? (QUICK ? 0.3 : 5));
const WARMUP_SECONDS = QUICK ? 0 : 1;
const RESPONSES = benchSize("BENCH_LOAD_RESPONSES", 10_000, 500);
const BOOKINGS = benchSize("BENCH_LOAD_BOOKINGS", 1_000, 100);
const POSTS = benchSize("BENCH_LOAD_POSTS", 40, 5);
const FORM = "load-survey";
const SLOTS_FROM = "2031-09-01", SLOTS_TO = "2031-10-01";

const STORE_PAGE = `{ products(first: 50) { edges { cursor node { id handle title availableForSale
  priceRange { minVariantPrice { amount currencyCode } } featuredImage { url width height }
  variants(first: 10) { nodes { id title sku price { amount currencyCode } selectedOptions { name value } } }
  collections(first: 5) { nodes { id handle title } } } } pageInfo { hasNextPage endCursor } } }`;
const CART = `id totalQuantity cost { totalAmount { amount currencyCode } }
  lines(first: 20) { nodes { id quantity merchandise { ... on ProductVariant { id title price { amount } } } } }`;
export const ARTICLES = `{ articleCollection(limit: 100) { total items { sys { id } title slug date summary author tags category
  cover { url width height } relatedCollection(limit: 4) { items { __typename ... on Article { sys { id } title slug } } } } } }`;

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

/** What the load runs against: a host on a port, the space it answers for, and when it is idle. */
export interface LoadTarget {
  baseUrl: string;
  space: string;
  /** resolves once no request is being answered (a load generator's dropped requests included) */
  idle(): Promise<void>;
}

/** The paths, their keys and the data they read, ready in the bench's database. */
async function prepare(sql: Sql, host: LoadTarget): Promise<LoadScenario[]> {
  const { space } = host;
  const json = { "content-type": "application/json" };
  const key = async (kind: Parameters<typeof createKey>[1]["kind"], createdBy?: string) =>
    (await createKey(sql, { name: `bench load ${kind}`, kind, createdBy })).key;

  // content: the demo's articles, one of them, its image
  const delivery = { authorization: `Bearer ${await key("delivery")}` };
  const env = `/api/content/spaces/${space}/environments/master`;
  const [article] = await sql<{ id: string }[]>`
    select id from public.content_entries where stage = 'published' and model_id = 'article' order by id limit 1`;
  const [image] = await sql<{ id: string; content_hash: string; file_name: string }[]>`
    select id, content_hash, file_name from public.content_assets where content_type = 'image/jpeg' order by size desc limit 1`;

  // forms, scheduling and the store: generated data of their own
  await publishBenchForm(sql, FORM, "Load survey");
  await growResponses(sql, FORM, RESPONSES);
  await growBookings(sql, Math.max(BOOKINGS, await generatedBookings(sql)));
  const [made] = await sql`select 1 from public.content_entries where id = 'product.bench-1' limit 1`;
  if (!made) {
    console.log(`  generating the store bench's catalog (${PRODUCTS} products)`);
    await generateCatalog(sql);
  }

  // support: an agent's key, and a contact's thread of a few lines
  const agent = await ensurePerson(sql, "bench-load-agent@desk.bench", "support");
  const agentKey = await key("support", agent.id);
  const client = `${host.baseUrl}/api/desk/public/api/v1/inboxes/${space}`;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${client}${path}`, { method: "POST", headers: json, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`support ${path}: HTTP ${res.status} ${await res.text()}`);
    return await res.json();
  };
  const contact = await post("/contacts", {});
  const thread = await post(`/contacts/${contact.source_id}/conversations`, {});
  await post(`/contacts/${contact.source_id}/conversations/${thread.id}/messages`, { content: "A question for the bench" });

  // the protocol server: a member who follows another, whose posts were written through the API, read
  // as a Bluesky app reads (signed in with an app password)
  const reader = await siteMember(sql, host.baseUrl, "loadreader");
  const author = await siteMember(sql, host.baseUrl, "loadauthor");
  await reader.follow(author.session!.did);
  for (let i = 0; i < POSTS; i++) await author.post({ text: `load post ${i}`, createdAt: new Date().toISOString() });
  const readerAuth = { authorization: `Bearer ${reader.session!.accessJwt}` };
  const other = author.session!.handle;

  const scheduling = { authorization: `Bearer ${await key("scheduling")}`, "cal-api-version": "2024-08-13" };
  const store = { ...json, "x-shopify-storefront-access-token": await key("storefront") };
  const forms = { authorization: `Bearer ${await key("forms")}` };
  const gql = (query: string, variables: Record<string, unknown> = {}) => JSON.stringify({ query, variables });
  const merch = (sku: string) => `gid://shopify/ProductVariant/${sku}`;
  return [
    {
      name: "delivery entries (content_type=article, include=2, limit=100)",
      requests: [{ path: `${env}/entries?content_type=article&include=2&limit=100`, headers: delivery }],
    },
    { name: "delivery entries/<id>", requests: [{ path: `${env}/entries/${article.id}`, headers: delivery }] },
    {
      name: "graphql articleCollection (limit 100, related one level deep)",
      graphql: true,
      requests: [{
        method: "POST",
        path: `/api/content/content/v1/spaces/${space}/environments/master`,
        headers: { ...delivery, ...json },
        body: gql(ARTICLES),
      }],
    },
    ...(image
      ? [{
        name: "image door, a cached variant (w=300 webp)",
        requests: [{ path: `/api/media/${space}/${image.id}/${image.content_hash}/${image.file_name}?w=300&fm=webp` }],
      }]
      : []),
    { name: "sync, the first page of an initial sync", requests: [{ path: `${env}/sync?initial=true`, headers: delivery }] },
    {
      name: `forms responses list (${RESPONSES} responses, page_size=25)`,
      requests: [{ path: `/api/forms/${FORM}/responses?page_size=25`, headers: forms }],
    },
    {
      name: "scheduling slots (team-call, 3-host round robin, 31 days)",
      requests: [{
        path: `/api/scheduling/v2/slots?eventTypeSlug=team-call&start=${SLOTS_FROM}&end=${SLOTS_TO}&timeZone=Europe/Berlin`,
        headers: scheduling,
      }],
    },
    {
      name: "scheduling bookings list (upcoming, take=100)",
      requests: [{ path: "/api/scheduling/v2/bookings?status=upcoming&take=100", headers: scheduling }],
    },
    {
      name: "storefront products(first: 50) with variants and collections",
      graphql: true,
      requests: [{ method: "POST", path: "/api/2024-10/graphql.json", headers: store, body: gql(STORE_PAGE) }],
    },
    {
      name: "storefront cart round (cartCreate, cartLinesAdd, cart read)",
      graphql: true,
      requests: [
        {
          method: "POST",
          path: "/api/2024-10/graphql.json",
          headers: store,
          body: gql(
            `mutation($l: [CartLineInput!]) { cartCreate(input: { lines: $l }) { cart { ${CART} } userErrors { code } } }`,
            { l: [{ merchandiseId: merch("BG-1/m"), quantity: 1 }] },
          ),
          capture: { as: "cart", from: ["data", "cartCreate", "cart", "id"] },
        },
        {
          method: "POST",
          path: "/api/2024-10/graphql.json",
          headers: store,
          body: gql(
            `mutation($id: ID!, $l: [CartLineInput!]!) { cartLinesAdd(cartId: $id, lines: $l) { cart { ${CART} } userErrors { code } } }`,
            { id: "{{cart}}", l: [{ merchandiseId: merch("BB-5-P-HARDCOVER"), quantity: 2 }] },
          ),
        },
        {
          method: "POST",
          path: "/api/2024-10/graphql.json",
          headers: store,
          body: gql(`query($id: ID!) { cart(id: $id) { ${CART} } }`, { id: "{{cart}}" }),
        },
      ],
    },
    {
      name: "support: an agent's conversation list",
      requests: [{ path: "/api/desk/api/v1/accounts/1/conversations", headers: { api_access_token: agentKey } }],
    },
    {
      name: "support: a contact's thread (client API messages)",
      requests: [{
        path: `/api/desk/public/api/v1/inboxes/${space}/contacts/${contact.source_id}/conversations/${thread.id}/messages`,
      }],
    },
    {
      name: "protocol: app.bsky.feed.getTimeline (limit 30)",
      requests: [{ path: "/xrpc/app.bsky.feed.getTimeline?limit=30", headers: readerAuth }],
    },
    {
      name: "protocol: app.bsky.feed.getAuthorFeed (limit 30)",
      requests: [{ path: `/xrpc/app.bsky.feed.getAuthorFeed?actor=${other}&limit=30`, headers: readerAuth }],
    },
    {
      name: "protocol: com.atproto.repo.listRecords posts (limit 50)",
      requests: [{
        path: `/xrpc/com.atproto.repo.listRecords?repo=${other}&collection=app.bsky.feed.post&limit=50`,
        headers: readerAuth,
      }],
    },
  ];
}

/**
 * Samples, every 100 ms: the host's resident size (`rss`: by default this process's, host and, embedded,
 * PGlite), and on a server the client connections to the bench's database, each against the run under way.
 */
export function sampler(url: string, server: boolean, rss: () => number = () => Deno.memoryUsage().rss) {
  const probe = server ? connect(url, { max: 1 }) : undefined;
  let current = "";
  let busy = false;
  const peaks = new Map<string, { rss: number; connections?: number; active?: number }>();
  let rssPeak = 0;
  const take = async () => {
    if (busy) return;
    busy = true;
    try {
      const resident = rss();
      rssPeak = Math.max(rssPeak, resident);
      const at = peaks.get(current) ?? { rss: 0 };
      at.rss = Math.max(at.rss, resident);
      if (probe) {
        // open connections (a pool keeps what it opened) and those running a statement at that moment
        const [{ n, active }] = await probe<{ n: number; active: number }[]>`
          select count(*)::int as n, (count(*) filter (where state <> 'idle'))::int as active from pg_stat_activity
          where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()`;
        at.connections = Math.max(at.connections ?? 0, n);
        at.active = Math.max(at.active ?? 0, active);
      }
      peaks.set(current, at);
    } finally {
      busy = false;
    }
  };
  const timer = setInterval(take, 100);
  return {
    at: (run: string) => (current = run),
    peak: (run: string) => peaks.get(run),
    connections: () => take().then(() => peaks.get(current)?.connections),
    /** the resident size now (as sampled) */
    rssNow: () => rss(),
    get rssPeak() {
      return rssPeak;
    },
    async stop() {
      clearInterval(timer);
      await probe?.end();
    },
  };
}

export async function benchLoad(sql: Sql, url: string, database: string): Promise<Record<string, unknown>[]> {
  const server = database !== "embedded pglite";
  console.log(`bench: load phase on ${database}: every hot path at ${CONNECTIONS.join(", ")} connection(s), ${SECONDS} s each`);
  const host = await startBenchHost(url);
  const samples = sampler(url, server);
  try {
    const { results, rssPeak, idleConnections, allLevels } = await runLoad(sql, host, samples, {
      label: `load (${database})`,
      database,
      connections: CONNECTIONS,
      seconds: SECONDS,
    });
    results.push({
      name: `load (${database}): the host under load`,
      database,
      rate_limit_scale: Number(BENCH_RATE_LIMIT_SCALE),
      connections: CONNECTIONS,
      seconds_per_run: SECONDS,
      rss_peak_mb: mb(rssPeak),
      pool_max: host.ctx.sql.options.max,
      ...(server
        ? {
          db_connections_idle: idleConnections,
          db_connections_peak: Math.max(0, ...allLevels.map((l) => l.db_connections_peak ?? 0)),
          db_active_peak: Math.max(0, ...allLevels.map((l) => l.db_active_peak ?? 0)),
          db_connections_note: "client backends on the bench's database (the load host's pool and the bench's own): " +
            "open, and running a statement when sampled (every 100 ms)",
        }
        : {}),
    });
    return results;
  } finally {
    await samples.stop();
    await host.stop();
  }
}

type Level = LevelFigures & { rss_peak_mb?: number; db_connections_peak?: number; db_active_peak?: number };

/**
 * Prepares the paths on `target` and loads each at the given connection counts from the load generator's
 * own process; answers an entry per path named `${label}: <path>`, with the sampler's peaks beside them.
 */
export async function runLoad(
  sql: Sql,
  target: LoadTarget,
  samples: ReturnType<typeof sampler>,
  options: { label: string; database: string; connections: number[]; seconds: number },
): Promise<
  { results: Record<string, unknown>[]; rssPeak: number; rssPrepared: number; idleConnections?: number; allLevels: Level[] }
> {
  const started = performance.now();
  const scenarios = await prepare(sql, target);
  console.log(`  ${scenarios.length} paths ready in ${Math.round(performance.now() - started)} ms`);
  samples.at("idle");
  const preparedRss = await samples.rssNow();
  const idleConnections = await samples.connections();
  const plan: LoadPlan = {
    origin: target.baseUrl,
    scenarios,
    connections: options.connections,
    seconds: options.seconds,
    warmupSeconds: WARMUP_SECONDS,
  };
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./load-client.ts", import.meta.url).pathname],
    cwd: new URL("..", import.meta.url).pathname,
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const writer = child.stdin.getWriter();
  const send = (line: string) => writer.write(new TextEncoder().encode(`${line}\n`));
  await send(JSON.stringify(plan));

  const figures = new Map<string, Level[]>();
  const failures: string[] = [];
  let buffered = "";
  for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    let newline;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (!line.startsWith("{")) continue;
      const event = JSON.parse(line) as LoadEvent;
      if (event.event === "ready") {
        // the previous run's dropped requests answered first
        await target.idle();
        await send("go");
      } else if (event.event === "start") {
        samples.at(`${event.scenario}@${event.connections}${event.warmup ? " warm-up" : ""}`);
        if (event.warmup) console.log(`  ${event.scenario}: warming up`);
      } else if (event.event === "done") {
        const f = event.figures;
        const peak = samples.peak(`${event.scenario}@${f.connections}`);
        const level = {
          ...f,
          rss_peak_mb: peak ? mb(peak.rss) : undefined,
          db_connections_peak: peak?.connections,
          db_active_peak: peak?.active,
        };
        figures.set(event.scenario, [...(figures.get(event.scenario) ?? []), level]);
        const bad = f.non_2xx + f.errors + f.timeouts;
        console.log(
          `  ${event.scenario} @ ${f.connections}: ${f.requests_per_second.toFixed(1)} req/s, p50 ${f.p50_ms} ms, ` +
            `p99 ${f.p99_ms} ms (${f.requests} requests${bad ? `, ${bad} failed: ${JSON.stringify(f.status_codes)}` : ""}` +
            `${
              level.db_connections_peak !== undefined
                ? `, ${level.db_connections_peak} database connections open, at most ${level.db_active_peak} busy`
                : ""
            })`,
        );
        if (bad) failures.push(`${event.scenario} @ ${f.connections}: ${bad} failed (${JSON.stringify(f.status_codes)})`);
      } else if (event.event === "finished") {
        await writer.close();
      } else if (event.event === "failed") {
        failures.push(`${event.scenario}: ${event.message}`);
        console.log(`  ${event.scenario}: FAILED ${event.message}`);
      }
    }
  }
  const status = await child.status;
  await writer.close().catch(() => {}); // already closed when the generator said it finished
  if (!status.success) failures.push(`the load generator exited with ${status.code}`);
  // a figure over errors or throttled answers would measure the wrong thing: the run fails instead
  if (failures.length) throw new Error(`load phase:\n  ${failures.join("\n  ")}`);

  const results: Record<string, unknown>[] = scenarios.map((s) => ({
    name: `${options.label}: ${s.name}`,
    database: options.database,
    levels: figures.get(s.name) ?? [],
  }));
  return { results, rssPeak: samples.rssPeak, rssPrepared: preparedRss, idleConnections, allLevels: [...figures.values()].flat() };
}
