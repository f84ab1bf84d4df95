// Pass-through (spec: Store API addresses): a client pointed at the store's address reaches the other
// APIs there. The paths go whole to their function: /api/desk/api/v1/... to support-api,
// /api/content/spaces/... and /api/content/content/v1/... to content, /api/forms/forms, /api/me,
// /api/workspaces and /api/insights to forms-api. A function not deployed answers 404 in its own style.
import type { Context } from "hono";
import type { StoreEnv } from "../access.ts";
import { clientAddress } from "../../../shared/http.ts";
import { targetNotFound } from "../envelope.ts";

/**
 * Forwards a request (its path is the public one, as the client sent it) to the function `fn` that the
 * site's rewrite table names for it; undefined when that function is not deployed.
 */
export type Forward = (fn: string, request: Request) => Promise<Response | undefined>;

export const PASS_THROUGH: { prefix: string; fn: string; style: "support" | "forms" | "content" }[] = [
  { prefix: "/api/desk/api/v1/", fn: "support-api", style: "support" },
  { prefix: "/api/content/spaces/", fn: "content", style: "content" },
  { prefix: "/api/content/content/v1/", fn: "content", style: "content" },
  { prefix: "/api/forms/forms", fn: "forms-api", style: "forms" },
  { prefix: "/api/me", fn: "forms-api", style: "forms" },
  { prefix: "/api/workspaces", fn: "forms-api", style: "forms" },
  { prefix: "/api/insights", fn: "forms-api", style: "forms" },
];

export function passThroughTarget(path: string) {
  return PASS_THROUGH.find((p) =>
    p.prefix.endsWith("/") ? path.startsWith(p.prefix) : path === p.prefix || path.startsWith(`${p.prefix}/`)
  );
}

/**
 * The forward of a function deployed on its own (index.ts): the request goes, body streamed and
 * redirects left to the client, to the same path on the site's public address, where the host in front
 * applies the rewrite table (web/rewrites.ts) and so reaches the function that serves it.
 */
export function forwardOverHttp(publicUrl: string, send: typeof fetch = fetch): Forward {
  return (_fn, request) => {
    const url = new URL(request.url);
    return send(`${publicUrl}${url.pathname}${url.search}`, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: "manual",
    });
  };
}

export function passThroughHandler(forward: Forward) {
  return async (c: Context<StoreEnv>) => {
    const url = new URL(c.req.url);
    const target = passThroughTarget(url.pathname)!;
    // the target counts its rate limits by the caller's address, which it cannot see past this hop: this
    // hop appends the address it decided on, so whatever the client wrote into the header stays to its left
    const request = new Request(c.req.raw);
    const forwarded = request.headers.get("x-forwarded-for");
    request.headers.set("x-forwarded-for", forwarded ? `${forwarded}, ${clientAddress(c)}` : clientAddress(c));
    const answer = await forward(target.fn, request);
    return answer ?? targetNotFound(target.style, c.get("requestId"));
  };
}
