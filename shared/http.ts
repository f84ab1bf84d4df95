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

/** The caller's address for per-address rate limits (the host sets x-forwarded-for). */
export function clientAddress(c: Context): string {
  const forwarded = c.req.header("x-forwarded-for")?.split(",")[0]?.trim();
  if (forwarded) return forwarded;
  // deno-lint-ignore no-explicit-any
  const info = (c.env as any)?.remoteAddr as Deno.NetAddr | undefined;
  return info?.hostname ?? "unknown";
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
