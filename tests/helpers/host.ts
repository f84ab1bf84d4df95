// A running host for HTTP and client-library tests: the real server on a loopback port over the test
// database, started once per test file.
import { createContext, type FunctionContext } from "../../shared/context.ts";
import { readConfig, type RuntimeConfig } from "../../shared/config.ts";
import type { Sql } from "../../shared/db.ts";
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

/** A running host on a loopback port of its own. */
export interface ServedHost {
  baseUrl: string;
  ctx: FunctionContext;
  close(): Promise<void>;
}

/**
 * Every function served on a free loopback port over `sql`, configured from `settings` (environment
 * variables, as a deployment reads them) and then `overrides`; its port and function address its own.
 */
export function serveTestHost(
  sql: Sql,
  options: { settings?: Record<string, string>; overrides?: Partial<RuntimeConfig>; host?: string } = {},
): ServedHost {
  const port = freePort();
  const baseUrl = `http://${options.host ?? "localhost"}:${port}`;
  const config: RuntimeConfig = {
    ...readConfig(new Map(Object.entries(options.settings ?? {}))),
    databaseUrl: testDatabaseUrl(),
    ...options.overrides,
    // its own address always (another host's configuration may be the overrides); the public one may differ
    port,
    publicUrl: options.overrides?.publicUrl ?? baseUrl,
    functionsUrl: baseUrl,
  };
  const ctx = createContext(config, { sql });
  const controller = new AbortController();
  const server = serveHost(ctx, { port, hostname: "127.0.0.1", signal: controller.signal, onListen: () => {} });
  return {
    baseUrl,
    ctx,
    async close() {
      controller.abort();
      await server.finished;
    },
  };
}

async function start(): Promise<TestHost> {
  const { baseUrl, ctx, close } = serveTestHost(testSql(), {
    overrides: {
      allowPrivateWebhookTargets: true,
      // tests stand in for many callers by sending X-Forwarded-For, as the one trusted proxy in front would
      trustedProxies: 1,
    },
  });
  const [site] = await ctx.sql<{ slug: string; config: { api?: { space?: string } } }[]>`select slug, config from public.site_settings`;
  return {
    baseUrl,
    host: new URL(baseUrl).host,
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
    close,
  };
}
