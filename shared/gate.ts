// The admission of one API request in a single database round trip: the key (looked up by hash, its
// last_used_at touched at most once a minute), the site settings, and the rate-limit counters.
import type { Db } from "./db.ts";
import { bearerToken } from "./http.ts";
import { hashKey, type KeyKind } from "./keys.ts";
import type { SiteSettings } from "./site.ts";

export interface RateWindow {
  seconds: number;
  limit: number;
}

export interface WindowCount extends RateWindow {
  hits: number;
  remaining: number;
  /** Seconds until this window starts over. */
  resetIn: number;
}

export interface Admission {
  /** null when no key was presented or no key has that hash */
  key: { id: string; name: string; kind: KeyKind; gated: boolean; revoked: boolean } | null;
  /** the presented token did not match any key */
  unknownKey: boolean;
  site: SiteSettings | null;
  windows: WindowCount[];
  /** the first window over its limit, if any */
  exceeded?: WindowCount;
}

export async function admit(
  db: Db,
  input: {
    api: string;
    token?: string;
    clientAddress: string;
    windows: RateWindow[];
    now: Date;
    /**
     * Where a token matching no key is counted: under that token (the default: an API whose callers
     * may present other credentials, such as person JWTs, limits each of them), or under the caller's
     * address, as if no token had been sent (an API that takes only keys: made-up tokens then share
     * the address's budget instead of each getting a fresh one).
     */
    unknownTokensBy?: "token" | "address";
    /** the deployment's RATE_LIMIT_SCALE (config.rateLimitScale): every window's limit times this */
    scale?: number;
  },
): Promise<Admission> {
  const limits = scaledWindows(input.windows, input.scale ?? 1);
  const hash = input.token ? await hashKey(input.token) : null;
  const addressBucket = `${input.api}:ip:${input.clientAddress}`;
  const tokenBucket = hash ? `${input.api}:key:${hash.slice(0, 24)}` : addressBucket;
  const bucket = input.unknownTokensBy === "address" && hash
    ? db`(case when exists (select 1 from k) then ${tokenBucket} else ${addressBucket} end)`
    : db`${tokenBucket}`;
  const seconds = input.windows.map((w) => w.seconds);
  const [row] = await db`
    with k as (
      select id, name, kind, gated, revoked_at is not null as revoked from public.api_keys where hash = ${hash}
    ), touched as (
      update public.api_keys set last_used_at = ${input.now}
      where hash = ${hash} and revoked_at is null
        and (last_used_at is null or last_used_at < ${input.now}::timestamptz - interval '60 seconds')
      returning id
    ), counted as (
      select * from public.rate_limit_hit(${bucket}::text, ${seconds}::int[], ${input.now})
    )
    select (select row_to_json(k) from k) as key,
           (select row_to_json(s) from (
              select name, slug, domain, mode, modules, locales, config, updated_at from public.site_settings) s) as site,
           (select json_agg(counted) from counted) as hits,
           (select count(*) from touched) as touched`;
  const hits = (row.hits ?? []) as { window_seconds: number; hits: number; window_start: string }[];
  const windows = limits.map((w) => {
    const h = hits.find((x) => x.window_seconds === w.seconds);
    const count = h?.hits ?? 0;
    const start = h ? new Date(h.window_start).getTime() : input.now.getTime();
    const resetIn = Math.max(1, Math.ceil((start + w.seconds * 1000 - input.now.getTime()) / 1000));
    return { ...w, hits: count, remaining: Math.max(0, w.limit - count), resetIn };
  });
  return {
    key: (row.key as Admission["key"]) ?? null,
    unknownKey: Boolean(input.token) && !row.key,
    site: (row.site as SiteSettings) ?? null,
    windows,
    exceeded: windows.find((w) => w.hits > w.limit),
  };
}

/**
 * The windows a deployment enforces: each limit times the configured scale, at least one request. The
 * answers' headers are built from these, so they state what is enforced.
 */
export function scaledWindows(windows: RateWindow[], scale: number): RateWindow[] {
  if (scale === 1) return windows;
  return windows.map((w) => ({ seconds: w.seconds, limit: Math.max(1, Math.round(w.limit * scale)) }));
}

/**
 * The window that will refuse first: the one exceeded, else the one with the fewest requests left (of
 * two with as many left, the one that stays empty longer).
 */
export function tightestWindow(windows: WindowCount[], exceeded?: WindowCount): WindowCount {
  return exceeded ??
    windows.reduce((a, b) =>
      b.remaining < a.remaining || (b.remaining === a.remaining && b.resetIn > a.resetIn) ? b : a
    );
}

/** A window's name in the IETF fields: "second", "minute", "hour", "day", else its seconds. */
function policyName(seconds: number): string {
  return { 1: "second", 60: "minute", 3600: "hour", 86400: "day" }[seconds] ?? `${seconds}s`;
}

/**
 * The IETF rate-limit fields (draft-ietf-httpapi-ratelimit-headers) naming every window:
 * `RateLimit-Policy: "minute";q=6000;w=60, "second";q=300;w=1` and
 * `RateLimit: "minute";r=5990;t=42, "second";r=299;t=1`.
 */
export function ietfRateLimitFields(windows: WindowCount[]): Record<string, string> {
  return {
    "RateLimit-Policy": windows.map((w) => `"${policyName(w.seconds)}";q=${w.limit};w=${w.seconds}`).join(", "),
    "RateLimit": windows.map((w) => `"${policyName(w.seconds)}";r=${w.remaining};t=${w.resetIn}`).join(", "),
  };
}

/**
 * The rate-limit headers of an API that speaks X-RateLimit-*: Limit, Remaining and Reset all of one
 * window, the one that will refuse first (tightestWindow); the IETF fields beside them naming every
 * window; Retry-After once a window is exceeded.
 */
export function rateLimitHeaders(windows: WindowCount[], exceeded?: WindowCount): Record<string, string> {
  const tightest = tightestWindow(windows, exceeded);
  return {
    "X-RateLimit-Limit": String(tightest.limit),
    "X-RateLimit-Remaining": String(tightest.remaining),
    "X-RateLimit-Reset": String(tightest.resetIn),
    ...ietfRateLimitFields(windows),
    ...(exceeded ? { "Retry-After": String(exceeded.resetIn) } : {}),
  };
}

/** What each API's CORS exposes so a browser may read the headers above. */
export const RATE_LIMIT_HEADER_NAMES = [
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "RateLimit-Policy",
  "RateLimit",
  "Retry-After",
];

/** The presented key: `Authorization: Bearer <key>` or `?access_token=<key>`. */
export function presentedToken(request: Request): string | undefined {
  const bearer = bearerToken(request);
  if (bearer) return bearer;
  return new URL(request.url).searchParams.get("access_token") ?? undefined;
}
