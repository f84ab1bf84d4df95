// A host for the bench's load and scale phases: every function on a loopback port, configured as
// `task dev` configures one (its own pool of the default size) except for RATE_LIMIT_SCALE, so that a
// load generator measures the code rather than the 429s. The setting reaches the gate through the
// configuration, the one way production could set it too.
import { readConfig } from "../shared/config.ts";
import { createContext, type FunctionContext } from "../shared/context.ts";
import { connect } from "../shared/db.ts";
import { freePort } from "../shared/embedded.ts";
import { serveHost } from "../web/host.ts";

/** How far the bench raises every rate limit: 78 a second per content key becomes 78 000. */
export const BENCH_RATE_LIMIT_SCALE = Deno.env.get("BENCH_RATE_LIMIT_SCALE") ?? "1000";

export interface BenchHost {
  baseUrl: string;
  ctx: FunctionContext;
  /** the space the content API answers for */
  space: string;
  /** resolves once no request is being answered (a load generator's dropped requests included) */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export async function startBenchHost(databaseUrl: string): Promise<BenchHost> {
  const port = freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const config = {
    ...readConfig(new Map([["RATE_LIMIT_SCALE", BENCH_RATE_LIMIT_SCALE]])),
    databaseUrl,
    port,
    publicUrl: baseUrl,
    functionsUrl: baseUrl,
  };
  const sql = connect(databaseUrl);
  const ctx = createContext(config, { sql });
  const controller = new AbortController();
  // requests still being answered: a load generator stops by dropping its sockets, and the handlers of
  // the requests it dropped must finish before the pool closes under them
  let answering = 0;
  let waiting: (() => void)[] = [];
  const idle = () => answering === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve));
  const server = serveHost(ctx, {
    port,
    signal: controller.signal,
    onListen: () => {},
    activity: {
      enter: () => void answering++,
      leave: () => {
        if (--answering > 0) return;
        for (const resolve of waiting) resolve();
        waiting = [];
      },
    },
  });
  const [site] = await sql<{ slug: string; config: { api?: { space?: string } } }[]>`
    select slug, config from public.site_settings`;
  return {
    baseUrl,
    ctx,
    space: site.config?.api?.space ?? site.slug,
    idle,
    async stop() {
      controller.abort();
      await server.finished;
      await idle();
      await sql.end();
    },
  };
}
