// A running host for HTTP and client-library tests: the real server on a loopback port over the test
// database, started once per test file.
import { createContext, type FunctionContext } from "../../shared/context.ts";
import { readConfig } from "../../shared/config.ts";
import { createKey, type KeyKind, revokeKey } from "../../shared/keys.ts";
import { freePort } from "../../shared/embedded.ts";
import { serveHost } from "../../web/host.ts";
import { testDatabaseUrl, testSql } from "./db.ts";

export interface TestHost {
  baseUrl: string;
  host: string;
  ctx: FunctionContext;
  space: string;
  /** a fresh key of that kind, made for this file (so rate limits and revocations stay local) */
  key(kind: KeyKind, options?: { gated?: boolean }): Promise<string>;
  revokedKey(kind: KeyKind): Promise<string>;
  close(): Promise<void>;
}

let running: Promise<TestHost> | undefined;

export function testHost(): Promise<TestHost> {
  running ??= start();
  return running;
}

async function start(): Promise<TestHost> {
  const port = freePort();
  const baseUrl = `http://localhost:${port}`;
  const config = {
    ...readConfig(new Map<string, string>()),
    databaseUrl: testDatabaseUrl(),
    port,
    publicUrl: baseUrl,
    functionsUrl: baseUrl,
    allowPrivateWebhookTargets: true,
    // tests stand in for many callers by sending X-Forwarded-For, as the one trusted proxy in front would
    trustedProxies: 1,
  };
  const ctx = createContext(config, { sql: testSql() });
  const controller = new AbortController();
  const server = serveHost(ctx, { port, hostname: "127.0.0.1", signal: controller.signal, onListen: () => {} });
  const [site] = await ctx.sql<{ slug: string; config: { api?: { space?: string } } }[]>`select slug, config from public.site_settings`;
  return {
    baseUrl,
    host: `localhost:${port}`,
    ctx,
    space: site.config?.api?.space ?? site.slug,
    async key(kind, options = {}) {
      return (await createKey(ctx.sql, { name: `test ${kind}`, kind, gated: options.gated })).key;
    },
    async revokedKey(kind) {
      const { key, id } = await createKey(ctx.sql, { name: `revoked ${kind}`, kind });
      await revokeKey(ctx.sql, id);
      return key;
    },
    async close() {
      controller.abort();
      await server.finished;
    },
  };
}
