// HTTP pieces every function shares: open CORS, request ids, the client's address, function addresses.
import type { Context, MiddlewareHandler } from "hono";
import { getPathNoStrict } from "hono/utils/url";
import { concatBytes } from "./bytes.ts";
import { randomHex } from "./ids.ts";

/**
 * Open CORS. Authorization must be listed by name: the Fetch spec does not let `*` cover it.
 *
 * Written here rather than taken from hono/cors, which sets its headers on the context's response before
 * the handler runs: Hono then copies the handler's response and every header into a new one, on every
 * request of every API (measured: about a tenth of a kept delivery answer's time in the process). Here
 * the preflight is answered whole and every other answer gets its two headers once it exists, errors
 * included (they become the context's response before this runs on).
 */
export function openCors(options: { allowHeaders?: string[]; exposeHeaders?: string[] } = {}): MiddlewareHandler {
  const exposed = options.exposeHeaders?.length ? options.exposeHeaders.join(",") : undefined;
  const preflight: [string, string][] = [
    ["Access-Control-Allow-Origin", "*"],
    ...(exposed ? [["Access-Control-Expose-Headers", exposed] as [string, string]] : []),
    ["Access-Control-Max-Age", "86400"],
    ["Access-Control-Allow-Methods", "GET,HEAD,OPTIONS,POST,PUT,PATCH,DELETE"],
    ["Access-Control-Allow-Headers", ["Authorization", "Content-Type", ...(options.allowHeaders ?? [])].join(",")],
    ["Vary", "Access-Control-Request-Headers"],
  ];
  return async (c, next) => {
    if (c.req.method === "OPTIONS") return new Response(null, { status: 204, statusText: "No Content", headers: preflight });
    await next();
    // a WebSocket's 101 is the runtime's own answer: its headers are not ours to add to
    if (c.res.status === 101) return;
    // a route that named the allowed origin itself (analytics echoes the site's own) keeps it
    if (!c.res.headers.has("Access-Control-Allow-Origin")) setAnswerHeader(c, "Access-Control-Allow-Origin", "*");
    if (exposed) setAnswerHeader(c, "Access-Control-Expose-Headers", exposed);
  };
}

/**
 * Sets a header on the answer a handler made. An answer whose headers the runtime keeps immutable (a
 * fetched response handed on, a redirect) is copied first.
 */
export function setAnswerHeader(c: Context, name: string, value: string): void {
  try {
    c.res.headers.set(name, value);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    const copy = new Response(c.res.body, c.res);
    copy.headers.set(name, value);
    c.res = copy;
  }
}

export type RequestIdVariables = { requestId: string };

/** Sets c.var.requestId and echoes it in the given header (each API names it its own way). */
export function requestId(header: string): MiddlewareHandler<{ Variables: RequestIdVariables }> {
  return async (c, next) => {
    const id = randomHex(16);
    c.set("requestId", id);
    await next();
    setAnswerHeader(c, header, id);
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
  /** set when the entry could not hand the request on as it came: the app answers it in its own envelope */
  refusal?: EntryRefusal;
  /**
   * Upgrades the request to a WebSocket. Bound to the request the server entry received: Deno upgrades
   * only that object, and the host's rewrites and functionRootUrl hand apps a copy. Absent when an
   * app is called in-process (tests, one function handing a request to another).
   */
  upgradeWebSocket?: (options?: Deno.UpgradeWebSocketOptions) => { socket: WebSocket; response: Response };
  /**
   * The path the entry hands the request to (the function's own, after the rewrite), set when it hands
   * on the caller's own request instead of a copy at that address (handToApp's `byEntryPath`); an app
   * that takes this routes with `entryPath`.
   */
  path?: string;
}

/**
 * An app's getPath (Hono's option) when its entry may hand it the caller's own request: the path the
 * entry chose if it set one, else the request's own; a trailing slash ignored, as `strict: false` does.
 */
export function entryPath(request: Request, options?: { env?: unknown }): string {
  const path = (options?.env as CallerEnv | undefined)?.path;
  return getPathNoStrict(path === undefined ? request : { url: `http://entry${path}` } as Request);
}

/**
 * Why a server entry handed an app a stand-in request instead of the caller's: a method no fetch Request
 * can carry, or a failure of the entry itself. The app's `answerEntryRefusal` middleware turns it into
 * that API's error.
 */
export type EntryRefusal = { kind: "method"; method: string } | { kind: "failure"; error: unknown };

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
    upgradeWebSocket: (options) => Deno.upgradeWebSocket(request, options),
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
export function functionRootUrl(name: string, requestUrl: string): URL {
  const url = new URL(requestUrl);
  for (const prefix of [`/functions/v1/${name}`, `/${name}`]) {
    if (url.pathname === prefix || url.pathname.startsWith(`${prefix}/`)) {
      url.pathname = url.pathname.slice(prefix.length) || "/";
      break;
    }
  }
  return url;
}

/** Methods a server may receive but the Fetch spec forbids a Request to hold. */
const UNCARRIED_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);
/** The methods the Fetch spec writes in upper case whatever case they arrive in. */
const NORMALIZED_METHODS = new Set(["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"]);

/**
 * The caller's request at another address, or undefined when its method cannot be carried. GET and HEAD
 * (in any case) are rebuilt without a body: a server hands them an empty one, which a Request of those
 * methods may not have.
 */
export function requestAt(url: URL | string, request: Request): Request | undefined {
  const upper = request.method.toUpperCase();
  if (UNCARRIED_METHODS.has(upper)) return undefined;
  const method = NORMALIZED_METHODS.has(upper) ? upper : request.method;
  // the caller's abort signal is not carried: no app listens to it, and following it (a signal made for
  // each request, chained to the server's) was a third of the copy's cost
  if (method === "GET" || method === "HEAD") return new Request(url, { method, headers: request.headers });
  // the constructor writes the method as fetch normalizes it
  return new Request(url, request);
}

export type AppFetch = (request: Request, env: CallerEnv) => Response | Promise<Response>;

/**
 * How every server entry (the host, each function's deploy entry) hands a request to an app at `url`.
 * A method the rewrite cannot carry, or a failure here, still reaches the app, as a stand-in GET whose
 * env names the refusal, so the caller gets that API's 405 or 500 in its envelope instead of the
 * runtime's bare 500.
 */
export async function handToApp(
  app: AppFetch,
  request: Request,
  url: URL | string,
  env: CallerEnv,
  /**
   * The app routes with `entryPath` and reads only the query of the caller's address: a GET or HEAD
   * goes on as the caller's own request with the path in `env.path`. Copying a request to another
   * address (its headers, every member of its init) was the largest single cost of a kept delivery
   * answer after the database.
   */
  options: { byEntryPath?: boolean } = {},
): Promise<Response> {
  if (options.byEntryPath && (request.method === "GET" || request.method === "HEAD")) {
    return await app(request, { ...env, path: typeof url === "string" ? pathOfAddress(url) : url.pathname });
  }
  let refusal: EntryRefusal;
  try {
    const carried = requestAt(url, request);
    if (carried) return await app(carried, env);
    refusal = { kind: "method", method: request.method };
  } catch (error) {
    refusal = { kind: "failure", error };
  }
  try {
    return await app(new Request(url, { method: "GET", headers: request.headers }), { ...env, refusal });
  } catch (error) {
    console.error("entry: the app failed to answer a refused request:", error);
    return new Response(JSON.stringify({ error: "Internal server error." }), {
      status: 500,
      headers: { "content-type": "application/json", "access-control-allow-origin": "*" },
    });
  }
}

/** The path of an absolute address in URL form (what a URL's pathname holds), without parsing it again. */
function pathOfAddress(address: string): string {
  const start = address.indexOf("/", address.indexOf("//") + 2);
  if (start < 0) return "/";
  const end = address.indexOf("?", start);
  return address.slice(start, end < 0 ? undefined : end);
}

/** A failure of the server entry in front of an app: unknown to every envelope, so it leaves as its 500. */
export class EntryFailure extends Error {
  constructor(cause: unknown) {
    super("The server entry failed to hand the request on.", { cause });
  }
}

/**
 * Each app's first middleware after its request id: answers an entry's refusal (handToApp) with the
 * API's own 405 for a method it cannot carry, or its own 500 for the entry's failure.
 */
export function answerEntryRefusal(methodNotAllowed: (method: string) => Error): MiddlewareHandler {
  return async (c, next) => {
    const refusal = (c.env as CallerEnv | undefined)?.refusal;
    if (refusal?.kind === "method") throw methodNotAllowed(refusal.method);
    if (refusal?.kind === "failure") throw new EntryFailure(refusal.error);
    await next();
  };
}

/**
 * The most a request body may hold, in every API (Contentful's 1 MB). File uploads (content uploads,
 * form answer files) and analytics batches (PostHog's 20 MB) have bounds of their own.
 */
export const MAX_REQUEST_BODY_BYTES = 1024 * 1024;

/** A request body past its bound: each API's onError answers it as its own 413. */
export class RequestTooLarge extends Error {
  constructor(readonly limit = MAX_REQUEST_BODY_BYTES) {
    super(`The request body is larger than ${limit / 1024 / 1024} MB.`);
  }
}

/**
 * A body whose bytes are not UTF-8. Each API answers it as a bad request in its own envelope: decoding
 * leniently would store replacement characters in place of what the client sent, and a signed body
 * would no longer be the bytes that were signed.
 */
export class BodyNotUtf8 extends Error {
  constructor() {
    super("The request body is not valid UTF-8.");
  }
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** A request's body as text, read no further than `limit` bytes (RequestTooLarge beyond, BodyNotUtf8 if not UTF-8). */
export async function readBodyText(request: Request, limit = MAX_REQUEST_BODY_BYTES): Promise<string> {
  if (Number(request.headers.get("content-length") ?? 0) > limit) throw new RequestTooLarge(limit);
  const bytes = await readUpTo(request.body, limit);
  if (!bytes) throw new RequestTooLarge(limit);
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new BodyNotUtf8();
  }
}

/**
 * Reads a JSON body; undefined when the body is empty, a SyntaxError when it is not JSON,
 * RequestTooLarge past MAX_REQUEST_BODY_BYTES, BodyNotUtf8 when its bytes are not UTF-8.
 */
export async function readJsonBody(request: Request): Promise<unknown> {
  const text = await readBodyText(request);
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
  } catch (error) {
    if (error instanceof RequestTooLarge) throw error;
    throw refuse(error instanceof BodyNotUtf8 ? error.message : "The body is not valid JSON.");
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
  return concatBytes(chunks);
}
