// HTTP pieces every function shares: open CORS, request ids, the client's address, function addresses.
import type { Context, MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { randomHex } from "./ids.ts";

/** Open CORS. Authorization must be listed by name: the Fetch spec does not let `*` cover it. */
export function openCors(options: { allowHeaders?: string[]; exposeHeaders?: string[] } = {}): MiddlewareHandler {
  return cors({
    origin: "*",
    allowMethods: ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"],
    allowHeaders: ["Authorization", "Content-Type", ...(options.allowHeaders ?? [])],
    exposeHeaders: options.exposeHeaders ?? [],
    maxAge: 86400,
  });
}

export type RequestIdVariables = { requestId: string };

/** Sets c.var.requestId and echoes it in the given header (each API names it its own way). */
export function requestId(header: string): MiddlewareHandler<{ Variables: RequestIdVariables }> {
  return async (c, next) => {
    const id = randomHex(16);
    c.set("requestId", id);
    await next();
    c.res.headers.set(header, id);
  };
}

/** The token of an `Authorization: Bearer <token>` header (any case, spaces around it), or undefined. */
export function bearerToken(request: Request): string | undefined {
  return request.headers.get("authorization")?.match(/^\s*Bearer\s+(\S+)\s*$/i)?.[1];
}

/** What a server entry tells an app about the caller of one request (the app's `c.env`). */
export interface CallerEnv {
  /** the socket's peer */
  remoteAddr?: Deno.NetAddr;
  /** the caller's address as the entry decided it (callerAddress) */
  clientAddress?: string;
  /** Upgrades the caller's original request to a WebSocket (a copied Request cannot be upgraded). */
  upgradeWebSocket?: () => { socket: WebSocket; response: Response };
}

/**
 * The caller's address for per-address rate limits: the socket's peer, unless the deployment sits behind
 * proxies it trusts (TRUST_PROXY, the number of them). Each proxy appends the address it was reached from
 * to X-Forwarded-For, so the entry `trustedProxies` from the right is the one the outermost trusted proxy
 * saw; whatever a client wrote into the header itself stands to the left of it and counts for nothing.
 */
export function callerAddress(
  request: Request,
  remoteAddr: Deno.NetAddr | undefined,
  trustedProxies: number,
): string {
  const socket = remoteAddr?.hostname ?? "unknown";
  if (trustedProxies < 1) return socket;
  const hops = (request.headers.get("x-forwarded-for") ?? "").split(",").map((a) => a.trim()).filter(Boolean);
  return hops[hops.length - trustedProxies] ?? hops[0] ?? socket;
}

/** The env a server entry hands an app for one request. */
export function callerEnv(
  request: Request,
  info: { remoteAddr?: Deno.NetAddr },
  config: { trustedProxies: number },
): CallerEnv {
  return {
    remoteAddr: info.remoteAddr,
    clientAddress: callerAddress(request, info.remoteAddr, config.trustedProxies),
    upgradeWebSocket: () => Deno.upgradeWebSocket(request),
  };
}

/**
 * The caller's address, as the server entry decided it (callerEnv), or the socket's peer. An app called
 * in-process, not through a server entry (one function handing a request to another, tests), takes the
 * right-most X-Forwarded-For entry: the one the handing hop appended.
 */
export function clientAddress(c: Context): string {
  const env = c.env as CallerEnv | undefined;
  if (env?.clientAddress) return env.clientAddress;
  if (env?.remoteAddr) return env.remoteAddr.hostname;
  return callerAddress(c.req.raw, undefined, 1);
}

/**
 * A function is reached at its own address (`/functions/v1/<name>/...`, or `/<name>/...` as Supabase's
 * edge runtime passes it) and, through the host's rewrites, at public paths. This strips the function
 * prefix so each app's routes are written once, relative to the function root.
 */
export function stripFunctionPrefix(name: string, request: Request): Request {
  const url = new URL(request.url);
  for (const prefix of [`/functions/v1/${name}`, `/${name}`]) {
    if (url.pathname === prefix || url.pathname.startsWith(`${prefix}/`)) {
      url.pathname = url.pathname.slice(prefix.length) || "/";
      return new Request(url, request);
    }
  }
  return request;
}

/** Reads a JSON body; undefined when the body is empty, a SyntaxError when it is not JSON. */
export async function readJsonBody(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text.trim() === "") return undefined;
  return JSON.parse(text);
}

/**
 * Reads a body that must be a JSON object ({} when empty). A body that is not JSON, or JSON but not an
 * object, is refused with the error `refuse` builds from the message, in the API's own envelope.
 */
export async function readJsonObject(
  request: Request,
  refuse: (message: string) => Error,
): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    body = await readJsonBody(request);
  } catch {
    throw refuse("The body is not valid JSON.");
  }
  if (body === undefined) return {};
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw refuse("The body must be a JSON object.");
  }
  return body as Record<string, unknown>;
}

/**
 * A stream's bytes, or undefined as soon as they pass `limit`: the rest is never read, so a client cannot
 * make a function hold more than it allows (uploads, fetched files, compressed request bodies).
 */
export async function readUpTo(
  stream: ReadableStream<Uint8Array> | null,
  limit: number,
): Promise<Uint8Array | undefined> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (stream) {
    const reader = stream.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        size += value.byteLength;
        if (size > limit) {
          await reader.cancel().catch(() => {});
          return undefined;
        }
        chunks.push(value);
      }
    } finally {
      reader.releaseLock();
    }
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
