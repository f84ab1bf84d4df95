// Webhooks bench: a content change committed → its webhook delivered to a receiver on loopback, through
// the real path (the entry trigger writes the outbox row in the committing transaction, NOTIFY wakes the
// dispatcher of shared/webhooks/dispatcher.ts, which claims, signs through the content adapter, POSTs and
// records). Latency (p50, p95) one change at a time with one dispatcher; then throughput with four
// dispatcher instances, each with its own connection pool as separate processes would have, draining
// one committed burst, and a check that every delivery arrived exactly once and every outbox row says
// delivered after one attempt. Goal (issue 15): p95 ≤ 50 ms.
import { connect, type Sql } from "../shared/db.ts";
import { freePort } from "../shared/embedded.ts";
import { createDispatcher, type Dispatcher } from "../shared/webhooks/dispatcher.ts";
import { webhookAdapters } from "../functions/content/webhook-adapter.ts";
import { systemClock } from "../shared/clock.ts";
import { benchSize } from "./size.ts";
import { percentile } from "./stats.ts";

const SAMPLES = benchSize("BENCH_WEBHOOK_SAMPLES", 100, 5);
const BURST = benchSize("BENCH_WEBHOOK_BURST", 2000, 20);
const INSTANCES = 4;
const DEFINITION = "bench-webhooks";

const say = (line: string) => console.log(`  webhooks: ${line}`);

/** The loopback subscriber: when each entry's delivery arrived, and how many times. */
function receiver() {
  const arrivals = new Map<string, number[]>();
  const waiting = new Map<string, () => void>();
  let all: { count: number; resolve: () => void } | undefined;
  let distinct = 0;
  const controller = new AbortController();
  const port = freePort();
  const server = Deno.serve(
    { port, hostname: "127.0.0.1", signal: controller.signal, onListen: () => {} },
    async (req) => {
      const at = performance.now();
      const body = await req.json() as { sys?: { id?: string } };
      const id = body.sys?.id ?? "?";
      const times = arrivals.get(id) ?? [];
      if (!times.length) distinct++;
      times.push(at);
      arrivals.set(id, times);
      waiting.get(id)?.();
      if (all && distinct >= all.count) all.resolve();
      return new Response(null, { status: 204 });
    },
  );
  return {
    url: `http://127.0.0.1:${port}/hook`,
    arrivals,
    /** resolves with the arrival time of the first delivery about `id` */
    arrival(id: string, withinMs: number): Promise<number> {
      const seen = arrivals.get(id);
      if (seen?.length) return Promise.resolve(seen[0]);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no delivery about ${id} within ${withinMs} ms`)),
          withinMs,
        );
        waiting.set(id, () => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve(arrivals.get(id)![0]);
        });
      });
    },
    /** resolves once `count` distinct entries have been delivered in all (counting from the start) */
    distinct(count: number, withinMs: number): Promise<void> {
      if (distinct >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${distinct} of ${count} deliveries within ${withinMs} ms`)),
          withinMs,
        );
        all = {
          count,
          resolve: () => {
            clearTimeout(timer);
            all = undefined;
            resolve();
          },
        };
      });
    },
    async stop() {
      controller.abort();
      await server.finished;
    },
  };
}

export async function benchWebhooks(sql: Sql, databaseUrl: string): Promise<Record<string, unknown>> {
  console.log(
    `bench: webhooks, commit → delivered on loopback (${SAMPLES} one at a time), then ${BURST} with ${INSTANCES} dispatchers`,
  );
  const hook = receiver();
  const [{ model }] = await sql<
    { model: string }[]
  >`select id as model from public.content_models order by id limit 1`;
  // drafts to change: creating them is an Entry.create, which the definition below does not ask for
  const ids = Array.from({ length: SAMPLES + BURST }, (_, i) => `${model}.bench-hook-${i}`);
  await sql`
    insert into public.content_entries (stage, id, model_id, path, fields)
    select 'preview', id, ${model}, 'records/bench-hooks/' || id || '.md', jsonb_build_object('title', jsonb_build_object('en-US', id))
    from unnest(${ids}::text[]) id
    on conflict do nothing`;
  await sql`
    insert into public.content_webhook_definitions (id, name, url, topics)
    values (${DEFINITION}, 'bench receiver', ${hook.url}, array['Entry.save'])
    on conflict (id) do update set url = excluded.url, topics = excluded.topics, active = true`;
  const change = (idList: string[], round: string) =>
    sql`update public.content_entries set fields = jsonb_set(fields, '{title,en-US}', to_jsonb(${round}::text || id))
        where stage = 'preview' and id = any(${idList}::text[])`;

  const pools: Sql[] = [];
  const dispatchers: Dispatcher[] = [];
  const sent = new Map<Dispatcher, number>();
  const start = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const pool = connect(databaseUrl, { max: 4 });
      pools.push(pool);
      const counting: typeof fetch = (input, init) => {
        sent.set(dispatcher, (sent.get(dispatcher) ?? 0) + 1);
        return fetch(input, init);
      };
      const dispatcher: Dispatcher = createDispatcher({
        sql: pool,
        clock: systemClock,
        adapters: webhookAdapters({ sql: pool, clock: systemClock }),
        allowPrivate: true,
        fetch: counting,
        // the first delivery of a change is what is timed: retries are not part of it
        pollIntervalMs: 1000,
        targets: [hook.url],
      });
      dispatchers.push(dispatcher);
      sent.set(dispatcher, 0); // one that claims nothing still shows, as 0
      dispatcher.start();
      await dispatcher.ready;
    }
  };
  const stopAll = async () => {
    await Promise.all(dispatchers.splice(0).map((d) => d.stop()));
    await Promise.all(pools.splice(0).map((p) => p.end()));
  };

  try {
    // ---- latency: one change at a time, one dispatcher ----
    await start(1);
    const latencies: number[] = [];
    for (const id of ids.slice(0, SAMPLES)) {
      const arrived = hook.arrival(id, 10_000);
      await change([id], "latency ");
      const committed = performance.now();
      latencies.push((await arrived) - committed);
    }
    const p50 = percentile(latencies, 50);
    const p95 = percentile(latencies, 95);
    say(`commit → delivered: p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms over ${SAMPLES}`);
    await stopAll();
    sent.clear();

    // ---- throughput: one committed burst, four dispatchers ----
    await start(INSTANCES);
    const burst = ids.slice(SAMPLES);
    const done = hook.distinct(SAMPLES + BURST, 300_000);
    await change(burst, "burst ");
    const committed = performance.now();
    await done;
    const last = Math.max(...burst.map((id) => hook.arrivals.get(id)![0]));
    const perSecond = BURST / ((last - committed) / 1000);
    // anything doubled arrives late: give stragglers a moment before counting
    await new Promise((resolve) => setTimeout(resolve, 500));
    await stopAll();
    const delivered = burst.reduce((sum, id) => sum + (hook.arrivals.get(id)?.length ?? 0), 0);
    const missing = burst.filter((id) => !hook.arrivals.get(id)?.length).length;
    const doubled = burst.filter((id) => (hook.arrivals.get(id)?.length ?? 0) > 1).length;
    const [outbox] = await sql<{ rows: number; delivered: number; retried: number }[]>`
      select count(*)::int as rows, count(*) filter (where status = 'delivered')::int as delivered,
             count(*) filter (where attempts > 1)::int as retried
      from public.webhook_outbox where subscription_id = ${DEFINITION} and body::jsonb #>> '{sys,id}' = any(${burst}::text[])`;
    const shares = [...sent.values()];
    say(
      `${BURST} deliveries with ${INSTANCES} dispatchers: ${perSecond.toFixed(0)}/s; each sent ${
        shares.join(", ")
      }; ` +
        `${missing} missing, ${doubled} doubled; outbox ${outbox.delivered}/${outbox.rows} delivered, ${outbox.retried} retried`,
    );
    if (missing || doubled || outbox.rows !== BURST || outbox.delivered !== BURST) {
      throw new Error(
        `webhooks: ${missing} lost, ${doubled} doubled, outbox ${outbox.delivered}/${outbox.rows} of ${BURST} delivered`,
      );
    }
    return {
      name: `webhooks: commit → delivered (p50, p95) and ${INSTANCES} dispatchers' deliveries per second`,
      samples: SAMPLES,
      burst: BURST,
      latency_p50_ms: p50,
      latency_p95_ms: p95,
      deliveries_per_second: perSecond,
      per_dispatcher: shares,
      received: delivered,
      lost: missing,
      doubled,
      goal: "p95 ≤ 50 ms; nothing lost or doubled",
    };
  } finally {
    await stopAll();
    await hook.stop();
    await sql`delete from public.content_webhook_definitions where id = ${DEFINITION}`;
  }
}
