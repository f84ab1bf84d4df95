// Network bench: the site's protocol server side by side with the reference stack (@atproto/pds with the
// @atproto/bsky app view behind it, started here on loopback under Node 22), through the same client
// (AtpAgent) with the same N: createRecord throughput at concurrency 1 and 16, and getTimeline and
// getAuthorFeed latency (p50, p95). The reference packages are installed with npm into .data/reference-pds
// (git-ignored) on first use; BENCH_REFERENCE=off skips the reference side, BENCH_REFERENCE_DATABASE_URL
// names the PostgreSQL server its app view uses (default the machine's, postgres@127.0.0.1:5432).
import { AtpAgent } from "@atproto/api";
import type { Sql } from "../shared/db.ts";
import { freePort } from "../shared/embedded.ts";
import { ensurePerson } from "../shared/people.ts";
import { hashAppPassword } from "../functions/network/sessions.ts";
import { insertAppPassword } from "../functions/network/store/sessions.ts";
import { benchSize, referenceWanted } from "./size.ts";
import { freshPeerDatabase, installNodePackages, type NodeChild, type NodeInstall, startNodeScript } from "./peers/node.ts";
import { percentile } from "./stats.ts";

export const REFERENCE_DIR = new URL("../.data/reference-pds/", import.meta.url).pathname;
const REFERENCE_PACKAGES = ["@atproto/pds@0.5.35", "@atproto/bsky@0.0.280", "@atproto/dev-env@0.6.7", "@did-plc/server@0.0.1"];

/** Posts each followed author has before the reads are timed; writes timed at each concurrency. */
const SEED_POSTS = benchSize("BENCH_NETWORK_SEED", 40, 3);
// about five seconds for the reference at 16 writers: 96 writes (about one) moved its rate by a fifth from
// run to run
const WRITES = benchSize("BENCH_NETWORK_WRITES", 480, 8);
const READS = benchSize("BENCH_NETWORK_READS", 40, 4);
const AUTHORS = 3;
/** The page the reads ask for: full pages, so the seed must fill one (AUTHORS × SEED_POSTS ≥ PAGE). */
const PAGE = Math.min(50, AUTHORS * SEED_POSTS);

interface Side {
  name: string;
  writer: AtpAgent;
  reader: AtpAgent;
  authors: AtpAgent[];
  /** waits until every write so far can be read (the reference app view indexes from the firehose) */
  settle(): Promise<void>;
}

export interface SideFigures {
  create_per_second_c1: number;
  create_per_second_c16: number;
  timeline_p50_ms: number;
  timeline_p95_ms: number;
  author_feed_p50_ms: number;
  author_feed_p95_ms: number;
  timeline_items: number;
}

const say = (line: string) => console.log(`  network: ${line}`);

async function throughput(side: Side, concurrency: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < WRITES) {
      const i = next++;
      await side.writer.post({ text: `bench write ${concurrency}/${i}`, createdAt: new Date().toISOString() });
    }
  }));
  const perSecond = WRITES / ((performance.now() - started) / 1000);
  say(`${side.name}: createRecord at concurrency ${concurrency}: ${perSecond.toFixed(1)}/s over ${WRITES}`);
  return perSecond;
}

async function latency(side: Side, label: string, read: () => Promise<unknown>): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < 5; i++) await read();
  const samples: number[] = [];
  for (let i = 0; i < READS; i++) {
    const t0 = performance.now();
    await read();
    samples.push(performance.now() - t0);
  }
  const figures = { p50: percentile(samples, 50), p95: percentile(samples, 95) };
  say(`${side.name}: ${label}: p50 ${figures.p50.toFixed(2)} ms, p95 ${figures.p95.toFixed(2)} ms over ${READS}`);
  return figures;
}

async function measureSide(side: Side): Promise<SideFigures> {
  say(`${side.name}: seeding ${AUTHORS} authors × ${SEED_POSTS} posts, followed by the reader`);
  for (const author of side.authors) {
    await side.reader.follow(author.session!.did);
    for (let i = 0; i < SEED_POSTS; i++) {
      await author.post({ text: `seed ${i} by ${author.session!.handle}`, createdAt: new Date().toISOString() });
    }
  }
  const c1 = await throughput(side, 1);
  const c16 = await throughput(side, 16);
  await side.settle();
  const first = await side.reader.getTimeline({ limit: PAGE });
  if (first.data.feed.length < PAGE) throw new Error(`${side.name}: the timeline holds ${first.data.feed.length} items, not ${PAGE}`);
  const timeline = await latency(side, `getTimeline limit ${PAGE}`, () => side.reader.getTimeline({ limit: PAGE }));
  const actor = side.authors[0].session!.did;
  const feed = await latency(side, `getAuthorFeed limit ${PAGE}`, () => side.reader.getAuthorFeed({ actor, limit: PAGE }));
  return {
    create_per_second_c1: c1,
    create_per_second_c16: c16,
    timeline_p50_ms: timeline.p50,
    timeline_p95_ms: timeline.p95,
    author_feed_p50_ms: feed.p50,
    author_feed_p95_ms: feed.p95,
    timeline_items: first.data.feed.length,
  };
}

// ---- this site's side ----

export async function siteMember(sql: Sql, baseUrl: string, name: string): Promise<AtpAgent> {
  const username = `${name}${Date.now().toString(36)}`.slice(0, 30);
  const person = await ensurePerson(sql, `${username}@bench.invalid`);
  await sql`update public.profiles set username = ${username}, display_name = ${name} where id = ${person.id}`;
  const password = `bench-${crypto.randomUUID().slice(0, 8)}-pass-word`;
  await insertAppPassword(sql, { personId: person.id, name: "bench", hash: await hashAppPassword(password), privileged: false, now: new Date() });
  const [site] = await sql<{ domain: string; config: { network?: { handleDomain?: string } } }[]>`
    select domain, config from public.site_settings`;
  const domain = Deno.env.get("NETWORK_HANDLE_DOMAIN") ?? site.config?.network?.handleDomain ?? site.domain;
  const agent = new AtpAgent({ service: baseUrl });
  await agent.login({ identifier: `${username}.${domain}`, password });
  return agent;
}

async function siteSide(sql: Sql, baseUrl: string): Promise<Side> {
  return {
    name: "sitewire",
    writer: await siteMember(sql, baseUrl, "benchwriter"),
    reader: await siteMember(sql, baseUrl, "benchreader"),
    authors: await Promise.all(Array.from({ length: AUTHORS }, (_, i) => siteMember(sql, baseUrl, `benchauthor${i}`))),
    settle: () => Promise.resolve(), // written in the same database the reads use
  };
}

// ---- the reference stack ----

/** Node 22 and the reference packages, installed once; better-sqlite3 is built against Node 22's headers. */
function referenceInstall(): Promise<NodeInstall> {
  return installNodePackages(REFERENCE_DIR, REFERENCE_PACKAGES, say, async ({ env }) => {
    const rebuild = await new Deno.Command("npx", {
      args: ["--yes", "node-gyp", "rebuild", "--release", `--nodedir=${env.npm_config_nodedir}`],
      cwd: `${REFERENCE_DIR}node_modules/better-sqlite3`,
      env,
      stdout: "null",
      stderr: "inherit",
    }).spawn().status;
    if (!rebuild.success) throw new Error("better-sqlite3 could not be built for Node 22");
  });
}

/** Node 22's binary, with the reference packages installed beside it (scripts/interop.ts uses them too). */
export async function installReference(): Promise<string> {
  return (await referenceInstall()).node;
}

interface ReferenceStack {
  side: Side;
  stop(): Promise<void>;
}

async function startReference(): Promise<ReferenceStack> {
  const install = await referenceInstall();
  const database = await freshPeerDatabase("sitewire_refpds");
  const redisPort = freePort();
  const redis = new Deno.Command("redis-server", {
    args: ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    stdout: "null",
    stderr: "null",
  }).spawn();
  let child: NodeChild | undefined;
  const stop = async () => {
    await child?.stop();
    redis.kill("SIGTERM");
    await redis.status;
    await database.drop();
  };
  try {
    child = await startNodeScript(install, new URL("./reference-stack.mjs", import.meta.url), {
      DB_POSTGRES_URL: database.url,
      DB_POSTGRES_SCHEMA: "bench",
      REDIS_HOST: `127.0.0.1:${redisPort}`,
      LOG_ENABLED: "false",
      NODE_ENV: "production",
    });
    const { pds, control } = child.ready as { pds: string; control: string };
    say(`reference PDS at ${pds}`);
    const account = async (name: string) => {
      const agent = new AtpAgent({ service: pds });
      // the reference takes at most 18 characters before the domain
      const handle = `${name.slice(0, 10)}${Date.now().toString(36).slice(-6)}.test`;
      await agent.createAccount({ handle, email: `${name}@bench.invalid`, password: "bench-password" });
      // the same kind of credential the site's side uses: an app password
      const { data } = await agent.com.atproto.server.createAppPassword({ name: "bench" });
      const app = new AtpAgent({ service: pds });
      await app.login({ identifier: handle, password: data.password });
      return app;
    };
    const side: Side = {
      name: "reference",
      writer: await account("writer"),
      reader: await account("reader"),
      authors: await Promise.all(Array.from({ length: AUTHORS }, (_, i) => account(`author${i}`))),
      async settle() {
        const res = await fetch(`${control}/settle`, { method: "POST" });
        if (!res.ok) throw new Error(`the reference app view did not catch up: ${await res.text()}`);
        await res.arrayBuffer();
      },
    };
    return { side, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

export async function benchNetwork(sql: Sql, baseUrl: string): Promise<Record<string, unknown>> {
  console.log(`bench: network, same client (AtpAgent) and same N against the reference PDS + app view`);
  const site = await measureSide(await siteSide(sql, baseUrl));
  let reference: SideFigures | undefined;
  let referenceNote: string | undefined;
  if (referenceWanted()) {
    let stack: ReferenceStack | undefined;
    try {
      stack = await startReference();
      reference = await measureSide(stack.side);
    } catch (error) {
      referenceNote = `reference not measured: ${error instanceof Error ? error.message : String(error)}`;
      say(referenceNote);
    } finally {
      await stack?.stop();
    }
  } else referenceNote = "reference skipped (BENCH_REFERENCE=off, or a quick run)";
  return {
    name: "network (AT Protocol) vs reference PDS 0.5.35 + app view 0.0.280",
    n: { seed_posts_per_author: SEED_POSTS, authors_followed: AUTHORS, writes_per_concurrency: WRITES, reads: READS },
    sitewire: site,
    ...(reference
      ? {
        reference,
        ratios: {
          create_throughput_c1: site.create_per_second_c1 / reference.create_per_second_c1,
          create_throughput_c16: site.create_per_second_c16 / reference.create_per_second_c16,
          timeline_p50: site.timeline_p50_ms / reference.timeline_p50_ms,
          timeline_p95: site.timeline_p95_ms / reference.timeline_p95_ms,
          author_feed_p50: site.author_feed_p50_ms / reference.author_feed_p50_ms,
          author_feed_p95: site.author_feed_p95_ms / reference.author_feed_p95_ms,
        },
        goal: "throughput ratios ≥ 2, latency ratios ≤ 0.5",
      }
      : { reference: null, note: referenceNote }),
  };
}
