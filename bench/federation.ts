// Bench: the federation. Commits per second through projection and the firehose to a consumer that
// verifies every commit (signature, the diff inverted to prevData), and commit → frame delivered p50/p95
// to 50 concurrent subscribers. The site runs its own host with the federation open and a did:plc
// directory from npm (@did-plc/server in memory) on loopback.
import { AtpAgent } from "@atproto/api";
import { Database, PlcServer } from "@did-plc/server";
import type { Sql } from "../shared/db.ts";
import { createContext } from "../shared/context.ts";
import { readConfig } from "../shared/config.ts";
import { freePort } from "../shared/embedded.ts";
import { ensurePerson, mintPersonJwt } from "../shared/people.ts";
import { serveHost } from "../web/host.ts";
import { readFrame } from "../functions/network/federation/events.ts";
import { hashAppPassword } from "../functions/network/sessions.ts";
import { insertAppPassword } from "../functions/network/store/sessions.ts";
import { verifyCommitEvent } from "../tests/helpers/firehose.ts";
import { benchSize } from "./size.ts";
import { percentile } from "./stats.ts";

const SUBSCRIBERS = benchSize("BENCH_FEDERATION_SUBSCRIBERS", 50, 5);
const COMMITS = benchSize("BENCH_FEDERATION_COMMITS", 200, 16);
const CONCURRENCY = 8;

export async function benchFederation(sql: Sql): Promise<Record<string, unknown>> {
  console.log(`bench: federation, ${COMMITS} commits (concurrency ${CONCURRENCY}) to a verifying consumer and ${SUBSCRIBERS} subscribers`);
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
  const sockets: WebSocket[] = [];
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
      const agent = new AtpAgent({ service: baseUrl });
      await agent.login({ identifier: joined.handle, password });
      return { did: joined.did as string, didKey: didKey as string, agent };
    }));
    const keyOf = new Map(writers.map((w) => [w.did, w.didKey]));

    const started = new Map<string, number>(); // rkey → when its write was sent
    const delivered: number[] = [];
    let verified = 0;
    let verifying = Promise.resolve();
    let allVerified!: () => void;
    const done = new Promise<void>((resolve) => (allVerified = resolve));
    const ws = `${baseUrl.replace("http", "ws")}/xrpc/com.atproto.sync.subscribeRepos`;
    const open = (onFrame: (frame: ReturnType<typeof readFrame>) => void) =>
      new Promise<void>((resolve) => {
        const socket = new WebSocket(ws);
        socket.binaryType = "arraybuffer";
        socket.onopen = () => resolve();
        socket.onmessage = (e) => onFrame(readFrame(new Uint8Array(e.data as ArrayBuffer)));
        sockets.push(socket);
      });
    await open((frame) => {
      if (frame.header.t !== "#commit") return;
      verifying = verifying.then(async () => {
        const didKey = keyOf.get(frame.body.repo as string);
        if (!didKey) return; // another member's commit (the demo's): not one of the bench's
        await verifyCommitEvent(frame.body, didKey);
        // every bench commit counts once verified; a member's other commits (a late genesis) are verified too
        const path = (frame.body.ops as { path: string }[])[0]?.path ?? "";
        if (started.has(path) && ++verified === COMMITS) allVerified();
      });
    });
    for (let i = 0; i < SUBSCRIBERS; i++) {
      await open((frame) => {
        if (frame.header.t !== "#commit") return;
        const path = (frame.body.ops as { path: string }[])[0]?.path ?? "";
        const t0 = started.get(path);
        if (t0 !== undefined) delivered.push(performance.now() - t0);
      });
    }
    await new Promise((r) => setTimeout(r, 300)); // every subscriber is live

    const t0 = performance.now();
    let next = 0;
    await Promise.all(writers.map(async ({ did, agent }) => {
      while (next < COMMITS) {
        next++;
        const rkey = `3${crypto.randomUUID().replace(/[^a-z2-7]/g, "").padEnd(12, "a").slice(0, 12)}`;
        started.set(`app.bsky.feed.post/${rkey}`, performance.now());
        await agent.com.atproto.repo.createRecord({
          repo: did,
          collection: "app.bsky.feed.post",
          rkey,
          record: { $type: "app.bsky.feed.post", text: `bench ${next}`, createdAt: new Date().toISOString() },
        });
      }
    }));
    const written = performance.now() - t0;
    let patience: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      done,
      new Promise((_, reject) => (patience = setTimeout(() => reject(new Error("consumer fell behind")), 120_000))),
    ]).finally(() => clearTimeout(patience)); // a pending timer would hold the process open for its whole span
    const total = performance.now() - t0;
    const result = {
      name: "federation: commits through projection and the firehose to a verifying consumer",
      commits: COMMITS,
      concurrency: CONCURRENCY,
      writers: `${CONCURRENCY} joined members, one writer each`,
      subscribers: SUBSCRIBERS,
      commits_per_second_written: COMMITS / (written / 1000),
      commits_per_second_verified: COMMITS / (total / 1000),
      frame_delivery_p50_ms: percentile(delivered, 50),
      frame_delivery_p95_ms: percentile(delivered, 95),
      frames_delivered: delivered.length,
      goal: "frame delivery p95 ≤ 50 ms (measured from the write being sent); throughput ≥ 2× the reference PDS's createRecord (see the network entry)",
    };
    console.log(`  ${result.commits_per_second_verified.toFixed(1)} commits/s verified; frame p50 ${result.frame_delivery_p50_ms.toFixed(1)} ms, p95 ${result.frame_delivery_p95_ms.toFixed(1)} ms`);
    return result;
  } finally {
    for (const socket of sockets) socket.close();
    await sql`update public.site_settings set config = ${sql.json(before.config)}`;
    controller.abort();
    await server.finished;
    await plc.destroy();
  }
}
