// The local host: one HTTP server that serves every function at its own address (/functions/v1/<name>)
// and at the site's public paths through the rewrite table.
import type { FunctionContext } from "../shared/context.ts";
import { callerEnv, type CallerEnv, functionRootUrl, handToApp } from "../shared/http.ts";
import { createContentApp } from "../functions/content/app.ts";
import { createSchedulingApp } from "../functions/scheduling-api/app.ts";
import { createFormsApp } from "../functions/forms-api/app.ts";
import { localCheckoutFor } from "../shared/payments/mod.ts";
import { createStorefrontApp } from "../functions/storefront-api/app.ts";
import { createSupportApp } from "../functions/support-api/app.ts";
import { createNetworkApp } from "../functions/network/app.ts";
import { REWRITES, rewrite } from "./rewrites.ts";

export type Fetcher = (request: Request, env: CallerEnv) => Response | Promise<Response>;

/**
 * The functions whose apps route by the path the entry hands them (shared/http.ts entryPath) and read
 * only the query of the caller's address: they get the caller's own GET or HEAD, not a copy.
 */
const ROUTED_BY_ENTRY_PATH = new Set(["content"]);

export function createFunctions(ctx: FunctionContext): Record<string, Fetcher> {
  const content = createContentApp(ctx);
  const scheduling = createSchedulingApp(ctx);
  const forms = createFormsApp(ctx);
  const support = createSupportApp(ctx);
  const network = createNetworkApp(ctx);
  // the local payment provider's checkout pages (absent when the site takes payments through Stripe)
  const payments = localCheckoutFor(ctx);
  // the store's pass-through routes reach the other functions in this process, through the rewrite table
  const registry: Record<string, Fetcher> = {};
  const storefront = createStorefrontApp(ctx, { forward: (fn, request) => forwardTo(registry, fn, request) });
  return Object.assign(registry, {
    "storefront-api": (request: Request, env: CallerEnv) => storefront.fetch(request, env),
    content: (request, env) => content.fetch(request, env),
    "scheduling-api": (request, env) => scheduling.fetch(request, env),
    "forms-api": (request, env) => forms.fetch(request, env),
    "support-api": (request, env) => support.fetch(request, env),
    network: (request, env) => network.fetch(request, env),
    ...(payments ? { payments: (request: Request, env: CallerEnv) => payments.fetch(request, env) } : {}),
  } as Record<string, Fetcher>);
}

/** A public path handed to the function the rewrite table names for it, if that is `fn` and it runs here. */
async function forwardTo(functions: Record<string, Fetcher>, fn: string, request: Request): Promise<Response | undefined> {
  const url = new URL(request.url);
  const target = rewrite(url.pathname, REWRITES);
  if (!target || target.fn !== fn || !functions[fn]) return undefined;
  url.pathname = target.path;
  return await handToApp(functions[fn], request, url, {}, { byEntryPath: ROUTED_BY_ENTRY_PATH.has(fn) });
}

export function createHostHandler(ctx: FunctionContext): Fetcher {
  const functions = createFunctions(ctx);
  return async (request, env) => {
    const url = new URL(request.url);
    const own = url.pathname.match(/^\/functions\/v1\/([^/]+)(?:\/|$)/);
    if (own && functions[own[1]]) {
      const byEntryPath = ROUTED_BY_ENTRY_PATH.has(own[1]);
      return await handToApp(functions[own[1]], request, functionRootUrl(own[1], request.url), env, { byEntryPath });
    }
    const target = rewrite(url.pathname, REWRITES);
    if (target && functions[target.fn]) {
      // the address as text: the path is the table's, already in URL form, and setting pathname on the
      // URL would parse it all again only for the Request to parse it once more
      const byEntryPath = ROUTED_BY_ENTRY_PATH.has(target.fn);
      return await handToApp(functions[target.fn], request, `${url.origin}${target.path}${url.search}`, env, { byEntryPath });
    }
    return new Response(JSON.stringify({ error: "not found", path: url.pathname }), {
      status: 404,
      headers: { "content-type": "application/json", "access-control-allow-origin": "*" },
    });
  };
}

export function serveHost(
  ctx: FunctionContext,
  options: {
    port: number;
    hostname?: string;
    signal?: AbortSignal;
    onListen?: (addr: Deno.NetAddr) => void;
    /** Told when each request begins and when its handler returns (task dev's idle reclaimer). */
    activity?: { enter(): void; leave(): void };
  },
): Deno.HttpServer<Deno.NetAddr> {
  const handler = createHostHandler(ctx);
  const activity = options.activity;
  return Deno.serve(
    { port: options.port, hostname: options.hostname ?? "127.0.0.1", signal: options.signal, onListen: options.onListen },
    activity
      ? async (request, info) => {
        activity.enter();
        try {
          return await handler(request, callerEnv(request, info, ctx.config));
        } finally {
          activity.leave();
        }
      }
      : (request, info) => handler(request, callerEnv(request, info, ctx.config)),
  );
}
