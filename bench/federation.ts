// Bench: the federation. Commits per second through projection and the firehose to a consumer that
// verifies every commit (signature, the diff inverted to prevData), and commit → frame delivered p50/p95
// to 50 concurrent subscribers. The site runs its own host with the federation open and a did:plc
// directory from npm (@did-plc/server in memory) on loopback.
import { Database, PlcServer } from "@did-plc/server";
import { connect, type Sql } from "../shared/db.ts";
import { createContext } from "../shared/context.ts";
import { readConfig } from "../shared/config.ts";
import { freePort } from "../shared/embedded.ts";
import { ensurePerson, mintPersonJwt } from "../shared/people.ts";
import { serveHost } from "../web/host.ts";
import { hashAppPassword } from "../functions/network/sessions.ts";
import { insertAppPassword } from "../functions/network/store/sessions.ts";
import type { FederationFigures, FederationPlan } from "./federation-client.ts";
import { callWorker } from "../shared/worker-call.ts";
import { benchSize } from "./size.ts";
import { percentile } from "./stats.ts";

const SUBSCRIBERS = benchSize("BENCH_FEDERATION_SUBSCRIBERS", 50, 5);
// about five seconds: 200 commits (about one) moved by a third from run to run with a pause or two
const COMMITS = benchSize("BENCH_FEDERATION_COMMITS", 1000, 16);
// untimed, before the timed run (as the reference is timed after its seeding and its one-writer run)
const WARMUP_COMMITS = benchSize("BENCH_FEDERATION_WARMUP_COMMITS", 100, 0);
const CONCURRENCY = 8;
const PACED_COMMITS = benchSize("BENCH_FEDERATION_PACED_COMMITS", 150, 10);
const PACED_RATE = Number(Deno.env.get("BENCH_FEDERATION_PACED_RATE") ?? 50);

/**
 * `databaseUrl`: the bench's database, which the site's host here reaches with a pool of its own at the
 * deployed default size (the bench's shared pool holds 4, and eight writers' transactions queued for it);
 * `referenceCreatePerSecond`: the reference PDS's createRecord rate from this run's network part, if it ran.
 */
export async function benchFederation(databaseUrl: string, referenceCreatePerSecond?: number): Promise<Record<string, unknown>> {
  const sql = connect(databaseUrl);
  try {
    return await federationRun(sql, referenceCreatePerSecond);
  } finally {
    await sql.end();
  }
}

async function federationRun(sql: Sql, referenceCreatePerSecond?: number): Promise<Record<string, unknown>> {
  console.log(`bench: federation, ${WARMUP_COMMITS} untimed then ${COMMITS} timed commits (concurrency ${CONCURRENCY}) to a verifying consumer and ${SUBSCRIBERS} subscribers`);
  const plcPort = freePort();
  const plc = PlcServer.create({ db: Database.mock(), port: plcPort });
  await plc.start();
  const port = freePort();
  const baseUrl = `http://localhost:${port}`;
  const config = {
    ...readConfig(new Map<string, string>()),
    port,
    publicUrl: baseUrl,
    functionsUrl: baseUrl,
    networkPlcUrl: `http://localhost:${plcPort}`,
    networkKeySecret: "bench deployment secret",
  };
  const ctx = createContext(config, { sql });
  const controller = new AbortController();
  const server = serveHost(ctx, { port, hostname: "127.0.0.1", signal: controller.signal, onListen: () => {} });
  const [before] = await sql<{ config: any }[]>`select config from public.site_settings`;
  await sql`update public.site_settings set config = jsonb_set(config, '{network}', coalesce(config->'network', '{}') ||
    ${sql.json({ federation: "open", apps: true })})`;
  try {
    // one member a writer: a site's commits come from many members at once, and one member's writes queue
    // on their repository's lock, which would measure that queue rather than the stream
    const writers = await Promise.all(Array.from({ length: CONCURRENCY }, async (_, i) => {
      const password = `bnch-pass-word-abc${"abcdefghijklmnopqrstuvwxyz234567"[i % 32]}`; // app passwords are unique
      const name = `benchfed${i}${Date.now().toString(36)}`;
      const person = await ensurePerson(sql, `${name}@bench.invalid`);
      await sql`update public.profiles set username = ${name} where id = ${person.id}`;
      await insertAppPassword(sql, { personId: person.id, name: "bench", hash: await hashAppPassword(password), privileged: false, now: new Date() });
      const jwt = await mintPersonJwt(await ctx.secrets.get("jwt"), { id: person.id, email: `${name}@bench.invalid`, role: "member" });
      const joined = await (await fetch(`${baseUrl}/network/join`, { method: "POST", headers: { authorization: `Bearer ${jwt}` } })).json();
      const didKey = (await (await fetch(`${config.networkPlcUrl}/${joined.did}/data`)).json()).verificationMethods.atproto;
      return { did: joined.did as string, didKey: didKey as string, handle: joined.handle as string, password };
    }));

    const plan: FederationPlan = {
      baseUrl,
      writers,
      commits: COMMITS,
      warmupCommits: WARMUP_COMMITS,
      subscribers: SUBSCRIBERS,
      patienceMs: 120_000,
      pacedCommits: PACED_COMMITS,
      pacedRate: PACED_RATE,
    };
    const outcome = await callWorker<FederationFigures>(new URL("./federation-client.ts", import.meta.url), plan);
    if (!outcome.ok) throw new Error(`federation bench: ${outcome.error}`);
    const { writtenMs, totalMs, delivered, pacedDelivered } = outcome;
    const result = {
      name: "federation: commits through projection and the firehose to a verifying consumer",
      commits: COMMITS,
      warmup_commits: WARMUP_COMMITS,
      concurrency: CONCURRENCY,
      writers: `${CONCURRENCY} joined members, one writer each`,
      subscribers: SUBSCRIBERS,
      clients: "the writers, the verifying consumer and the subscribers run in a worker thread of their own",
      host_pool: "the deployed default (10 connections), a pool of its own",
      commits_per_second_written: COMMITS / (writtenMs / 1000),
      commits_per_second_verified: COMMITS / (totalMs / 1000),
      frame_delivery_p50_ms: percentile(delivered, 50),
      frame_delivery_p95_ms: percentile(delivered, 95),
      frames_delivered: delivered.length,
      reference_create_per_second_c16: referenceCreatePerSecond ?? null,
      ratio_to_reference_create: referenceCreatePerSecond ? COMMITS / (totalMs / 1000) / referenceCreatePerSecond : null,
      paced_commits_per_second: PACED_RATE,
      paced_commits: PACED_COMMITS,
      paced_frame_delivery_p50_ms: percentile(pacedDelivered, 50),
      paced_frame_delivery_p95_ms: percentile(pacedDelivered, 95),
      paced_frames_delivered: pacedDelivered.length,
      goal: "frame delivery p95 ≤ 50 ms (from the write being sent, at the paced rate; at full speed it is mostly the writes queued ahead); throughput ≥ 2× the reference PDS's createRecord at 16 writers, measured in the same run (ratio_to_reference_create)",
    };
    const ms = (n: number | undefined) => `${Number(n).toFixed(1)} ms`;
    console.log(
      `  ${result.commits_per_second_verified.toFixed(1)} commits/s verified; frame p50 ${ms(result.frame_delivery_p50_ms)}, p95 ${ms(result.frame_delivery_p95_ms)}; ` +
        `at ${PACED_RATE}/s p50 ${ms(result.paced_frame_delivery_p50_ms)}, p95 ${ms(result.paced_frame_delivery_p95_ms)}`,
    );
    return result;
  } finally {
    await sql`update public.site_settings set config = ${sql.json(before.config)}`;
    controller.abort();
    await server.finished;
    await plc.destroy();
  }
}
