// The admission of one API request in a single database round trip: the key (looked up by hash, its
// last_used_at touched at most once a minute), the rate-limit counters, the answer versions (what a
// cached answer must have been built at, migrations/20261126001550_answer_versions.sql) and the site
// settings, these only when their version moved since this process last read them.
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
  /**
   * Each answer scope's version as this request's snapshot saw it: every change committed before the
   * request began is counted in it, so an answer built at this version (or later) is fresh.
   */
  versions: Record<string, number>;
}

/**
 * The site settings last read through each pool, with the `site` version they were read at: the
 * admission statement sends them again only once that version moved (a trigger bumps it on any change).
 */
const knownSites = new WeakMap<Db, { version: number; site: SiteSettings }>();

/** The minute this process last asked rate_limit_hit to try its sweep. */
let sweptMinute = -1;

/**
 * Each key's last_used_at (ms) as this process's admissions last read or wrote it, by key hash. A key
 * touched less than a minute ago gets an admission statement with no update of api_keys in it: the
 * update's mere presence (the table and its indexes opened for writing) cost about a quarter of the
 * statement in PGlite even when it changed no row. The statement's own condition still decides when
 * the update is sent, so another instance's touch is respected; at worst a key is touched by each
 * instance once a minute, as before.
 */
const lastTouched = new Map<string, number>();
/** A bound on the map above: past it the map starts over (the cost is one update per key). */
const LAST_TOUCHED_KEPT = 10_000;
const TOUCH_EVERY_MS = 60_000;

/**
 * What the admission statement answers, as one JSON array (one column parsed once: a column each cost
 * the driver more than the statement's own work on a server): the key's id, name, kind, gated and
 * revoked; its last_used_at in ms as the statement's snapshot saw it (before its own touch); the answer
 * versions; the site settings when their version moved; and each window as [seconds, hits, start ms].
 */
type AdmissionRow = [
  id: string | null,
  name: string | null,
  kind: KeyKind | null,
  gated: boolean | null,
  revoked: boolean | null,
  lastUsedMs: number | null,
  versions: Record<string, number> | null,
  site: SiteSettings | null,
  windows: [number, number, number][] | null,
];

/**
 * The admission statement, one text for each of its four forms: with or without the key's touch, and
 * counting with or without the minute's sweep. Fixed texts sent with their parameters rather than the
 * driver's composed fragments: composing them was a fifth of the driver's work for every request of
 * every API, and no caller's text ever enters them.
 *   $1 the key's hash (null: no key presented)   $2 the bucket counted
 *   $3 the caller's address bucket, counted instead when $1 matches no key (null: count $2 regardless)
 *   $4 the windows' seconds   $5 now   $6 the site version this process already holds (null: none)
 * The counters and the key's touch need no wait for the disk at commit (synchronous_commit off for this
 * transaction only): a crash may lose the last fraction of a second of counts, never corrupt them, and
 * on a server the flush was the larger part of the statement's time.
 */
function admissionText(touch: boolean, sweep: boolean): string {
  const touched = touch
    ? `update public.api_keys set last_used_at = $5
        where id = (select id from k where not revoked
                      and (last_used_at is null or last_used_at < $5::timestamptz - interval '60 seconds'))`
    : "select";
  return `
    with k as (
      select id, name, kind, gated, revoked_at is not null as revoked, last_used_at
      from public.api_keys where hash = $1::text
    ), touched as (${touched}), counted as (
      select * from public.${sweep ? "rate_limit_hit" : "rate_limit_count"}(
        case when $3::text is not null and not exists (select 1 from k) then $3::text else $2::text end, $4::int[], $5::timestamptz)
    ), unflushed as (
      select set_config('synchronous_commit', 'off', true)
    ), v as (
      select json_object_agg(scope, version) as versions, max(version) filter (where scope = 'site') as site
      from public.answer_versions
    )
    select json_build_array(
      k.id, k.name, k.kind, k.gated, k.revoked,
      (extract(epoch from k.last_used_at) * 1000)::float8,
      (select versions from v),
      (select row_to_json(s) from (
         select name, slug, domain, mode, modules, locales, config, updated_at from public.site_settings) s
       where (select site from v) is distinct from $6::bigint),
      (select json_agg(json_build_array(window_seconds, hits, extract(epoch from window_start) * 1000)) from counted)
    ) as admission
    from (select) one cross join unflushed left join k on true`;
}
const ADMISSION_TEXTS = [false, true].map((touch) => [false, true].map((sweep) => admissionText(touch, sweep)));

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
  // sent as an array literal in text: a JS array needs the pool to have read Postgres's array types
  // first, which a fresh pool's first statements can race (postgres.js then sends "3600,1")
  const seconds = `{${input.windows.map((w) => Math.trunc(w.seconds)).join(",")}}`;
  // rate_limit_hit also tries the minute's sweep: a process asks it to once a minute, and only counts
  // otherwise (the sweep's own row would be one more write on every request)
  const minute = Math.floor(input.now.getTime() / 60_000);
  const sweep = minute !== sweptMinute;
  sweptMinute = minute;
  const known = knownSites.get(db);
  const nowMs = input.now.getTime();
  const touchedAt = hash === null ? undefined : lastTouched.get(hash);
  const touchDue = hash !== null && (touchedAt === undefined || nowMs - touchedAt >= TOUCH_EVERY_MS);
  const [{ admission }] = await db.unsafe<{ admission: AdmissionRow }[]>(
    ADMISSION_TEXTS[touchDue ? 1 : 0][sweep ? 1 : 0],
    [
      hash,
      tokenBucket,
      input.unknownTokensBy === "address" && hash ? addressBucket : null,
      seconds,
      input.now,
      known?.version ?? null,
    ],
    { prepare: true },
  );
  const [id, name, kind, gated, revoked, lastUsedMs, read, readSite, counted] = admission;
  const versions = read ?? {};
  let site = readSite;
  if (site) knownSites.set(db, { version: versions.site, site });
  else if (known && known.version === versions.site) site = known.site;
  const windows = limits.map((w) => {
    const window = counted?.find(([seconds]) => seconds === w.seconds);
    const count = window?.[1] ?? 0;
    const start = window ? Number(window[2]) : nowMs;
    const resetIn = Math.max(1, Math.ceil((start + w.seconds * 1000 - nowMs) / 1000));
    return { ...w, hits: count, remaining: Math.max(0, w.limit - count), resetIn };
  });
  if (hash !== null && id && !revoked) rememberTouch(hash, lastUsedMs, touchDue, nowMs);
  const key = id ? { id, name: name!, kind: kind!, gated: gated!, revoked: revoked! } : null;
  return {
    key,
    unknownKey: Boolean(input.token) && !key,
    site,
    windows,
    exceeded: windows.find((w) => w.hits > w.limit),
    versions,
  };
}

/** What the admission just read or wrote of a key's last_used_at, for lastTouched. */
function rememberTouch(hash: string, lastUsedMs: number | null, touchSent: boolean, nowMs: number) {
  const touched = touchSent && (lastUsedMs === null || lastUsedMs < nowMs - TOUCH_EVERY_MS);
  if (lastTouched.size >= LAST_TOUCHED_KEPT && !lastTouched.has(hash)) lastTouched.clear();
  lastTouched.set(hash, touched ? nowMs : lastUsedMs ?? nowMs);
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
