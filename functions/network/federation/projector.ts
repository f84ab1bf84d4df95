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

/**
 * Projects queued members until the queue is empty; answers how many members it projected and how many
 * failed. A member whose projection fails (a key sealed under another deployment secret, the directory
 * down) keeps their queued paths for the next drain and is passed over in this one, so one member never
 * holds up everybody else's commits.
 */
export async function drainProjections(
  ctx: FunctionContext,
  site: NetworkSite,
  max = 1000,
): Promise<{ projected: number; failed: number }> {
  let projected = 0;
  const failed: string[] = [];
  while (projected + failed.length < max) {
    let claimed: string | undefined;
    try {
      await ctx.sql.begin(async (tx) => {
        const queued = await claimQueued(tx, failed);
        claimed = queued?.personId;
        if (queued) await project(ctx.config, tx, site, queued.personId, queued.paths, ctx.clock.now());
      });
    } catch (error) {
      if (!claimed) throw error;
      console.error(`network projector: member ${claimed} not projected (kept queued):`, error);
      failed.push(claimed);
      continue;
    }
    if (!claimed) break;
    projected++;
    firehoseOf(ctx).poke();
  }
  return { projected, failed: failed.length };
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
      const { projected, failed } = await drainProjections(ctx, site, 50);
      return projected + failed === 50;
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
