// Draining the projection queue: what the admin or SQL changed of a joined member's public rows becomes
// commits. Any number of instances share the queue (SKIP LOCKED, one member per transaction); a worker
// loop wakes on NOTIFY network_project, and POST /internal/project drains it on demand.
import type { FunctionContext } from "../../../shared/context.ts";
import { createWorkerLoop, type WorkerLoop } from "../../../shared/worker-loop.ts";
import { claimQueued } from "../store/repo.ts";
import { networkSite } from "../xrpc/dispatch.ts";
import type { NetworkSite } from "../xrpc/method.ts";
import { firehoseOf } from "./hub.ts";
import { requestCrawl } from "./relay.ts";
import { type Head, project, resetRepository } from "./project.ts";
import { federationOf } from "./settings.ts";

/** Projects queued members until the queue is empty; answers how many members it projected. */
export async function drainProjections(ctx: FunctionContext, site: NetworkSite, max = 1000): Promise<number> {
  let done = 0;
  while (done < max) {
    const claimed = await ctx.sql.begin(async (tx) => {
      const queued = await claimQueued(tx);
      if (queued) await project(ctx.config, tx, site, queued.personId, queued.paths, ctx.clock.now());
      return queued;
    });
    if (!claimed) break;
    done++;
    firehoseOf(ctx).poke();
  }
  return done;
}

/** Makes one member's whole repository agree with the tables. */
export async function projectAll(ctx: FunctionContext, site: NetworkSite, personId: string): Promise<Head | undefined> {
  const head = await ctx.sql.begin((tx) => project(ctx.config, tx, site, personId, undefined, ctx.clock.now()));
  firehoseOf(ctx).poke();
  return head;
}

/** Rebuilds one member's repository from the tables in a single commit, announced with #sync. */
export async function resetOne(ctx: FunctionContext, personId: string): Promise<Head | undefined> {
  const head = await ctx.sql.begin((tx) => resetRepository(ctx.config, tx, personId, ctx.clock.now()));
  firehoseOf(ctx).poke();
  return head;
}

/** The long-running projector of a deployment or the dev host. */
export function projectorLoop(ctx: FunctionContext, options: { listen?: false } = {}): WorkerLoop {
  return createWorkerLoop({
    sql: ctx.sql,
    channel: "network_project",
    listen: options.listen,
    pollIntervalMs: 30_000,
    onError: (error) => console.error("network projector:", error),
    async pass() {
      const site = await networkSite(ctx);
      if (!site || !federationOf(ctx.config, site).open) return false;
      return (await drainProjections(ctx, site, 50)) === 50;
    },
  });
}

/** The daily requestCrawl (pg_cron may call POST /internal/crawl instead where deployed). */
export const CRAWL_AT_UTC = { hour: 5, minute: 10 };

export async function crawlDaily(ctx: FunctionContext): Promise<void> {
  const site = await networkSite(ctx);
  if (!site) return;
  const federation = federationOf(ctx.config, site);
  if (federation.open && federation.relayUrl) await requestCrawl(ctx, federation.relayUrl);
}
