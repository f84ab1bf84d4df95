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
 * The site settings last read through each pool, with the `site` version they were read at: they are
 * read again only once that version moved (a trigger bumps it on any change), by a statement of their
 * own, so the admission statement of every other request leaves the settings table alone.
 */
const knownSites = new WeakMap<Db, { version: number; site: SiteSettings }>();

/** The minute this process last asked rate_limit_sweep_due to try its sweep. */
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
 * versions; and the bucket's count in each window, in the order the windows were sent.
 */
type AdmissionRow = [
  id: string | null,
  name: string | null,
  kind: KeyKind | null,
  gated: boolean | null,
  revoked: boolean | null,
  lastUsedMs: number | null,
  versions: Record<string, number> | null,
  hits: number[],
];

/**
 * The admission statement: fixed texts sent with their parameters rather than the driver's composed
 * fragments (composing them was a fifth of the driver's work for every request of every API), one for
 * each number of windows and each of its forms: with or without the key's touch, and with or without
 * the minute's sweep. No caller's text ever enters them.
 *   $1 the key's hash (null: no key presented)   $2 the bucket counted
 *   $3 the caller's address bucket, counted instead when $1 matches no key (null: count $2 regardless)
 *   $4 the windows' seconds   $5 now   $6 now in whole seconds since the epoch
 *   $7 the second by which every window that now falls in has ended   $8 a count of 1 in every window
 * The count is the bucket's one row (migrations/20261126008000_rate_limit_buckets.sql): a window's count
 * carries on while the row's last count fell in the same window as now, else starts over at 1; a row
 * counted under other windows starts over in all of them. The counters and the key's touch need no wait
 * for the disk at commit (synchronous_commit off for this transaction only): a crash may lose the last
 * fraction of a second of counts, never corrupt them, and on a server the flush was the larger part of
 * the statement's time.
 */
function admissionText(windowCount: number, touch: boolean, sweep: boolean): string {
  const touched = touch
    ? `update public.api_keys set last_used_at = $5
        where id = (select id from k where not revoked
                      and (last_used_at is null or last_used_at < $5::timestamptz - interval '60 seconds'))`
    : "select";
  const bucket = "case when $3::text is not null and not exists (select 1 from k) then $3::text else $2::text end";
  return `
    with k as (
      select id, name, kind, gated, revoked_at is not null as revoked, last_used_at
      from public.api_keys where hash = $1::text
    ), touched as (${touched}), counted as (
      ${countingText(windowCount, { bucket, windows: "$4", ones: "$8", second: "$6", expires: "$7" })}
    ), unflushed as (
      select set_config('synchronous_commit', 'off', true), ${
    sweep ? "public.rate_limit_sweep_due($5::timestamptz)" : "$5::timestamptz"
  }
    )
    select json_build_array(
      k.id, k.name, k.kind, k.gated, k.revoked,
      (extract(epoch from k.last_used_at) * 1000)::float8,
      (select json_object_agg(scope, version) from public.answer_versions),
      (select hits from counted)
    ) as admission
    from (select) one cross join unflushed left join k on true`;
}
/**
 * Counting one hit of a bucket in each of its windows, as the upsert of the bucket's one row, answering
 * the row's counts (`returning b.hits`). The parts are the statement's own expressions or parameters:
 * the bucket's name, the windows' seconds, a 1 for each window, now in whole seconds since the epoch,
 * and the second by which every window now falls in has ended (countsNow works these out).
 */
function countingText(
  windowCount: number,
  part: { bucket: string; windows: string; ones: string; second: string; expires: string },
): string {
  const counts = Array.from({ length: windowCount }, (_, i) =>
    `case when b.counted_at / excluded.windows[${i + 1}] = excluded.counted_at / excluded.windows[${i + 1}]
       then b.hits[${i + 1}] + 1 else 1 end`).join(", ");
  return `insert into public.rate_limit_buckets as b (bucket, windows, hits, counted_at, expires_at)
      select ${part.bucket}, ${part.windows}::int[], ${part.ones}::int[], ${part.second}::bigint, ${part.expires}::bigint
      on conflict (bucket) do update set
        hits = case when b.windows = excluded.windows then array[${counts}] else excluded.hits end,
        windows = excluded.windows, counted_at = excluded.counted_at, expires_at = excluded.expires_at
      returning b.hits`;
}

/**
 * What counting at `now` in windows of these lengths sends and how its answer is read: the windows and
 * their 1s as array literals (text: a JS array needs the pool to have read Postgres's array types first,
 * which a fresh pool's first statements can race, and postgres.js then sends "3600,1"), now's second,
 * the second every window has ended by, and each window's seconds until it starts over.
 */
function countsNow(lengths: number[], now: Date) {
  const nowMs = now.getTime();
  const second = Math.floor(nowMs / 1000);
  const seconds = lengths.map((w) => Math.max(1, Math.trunc(w)));
  const ends = seconds.map((w) => (Math.floor(second / w) + 1) * w);
  return {
    seconds,
    second,
    windows: `{${seconds.join(",")}}`,
    ones: `{${seconds.map(() => 1).join(",")}}`,
    expires: Math.max(...ends),
    resetIn: ends.map((end) => Math.max(1, Math.ceil((end * 1000 - nowMs) / 1000))),
  };
}

/** A count of one bucket in one window, and the seconds until that window starts over. */
export interface BucketCount {
  seconds: number;
  hits: number;
  resetIn: number;
}

/**
 * Counts one hit of `bucket` in windows of these lengths (seconds) outside an admission: the desk's
 * guards, wrong passwords. Same row, same rules as the admission's count.
 */
export async function countHits(db: Db, bucket: string, lengths: number[], now: Date): Promise<BucketCount[]> {
  const at = countsNow(lengths, now);
  const text = countingText(at.seconds.length, { bucket: "$1::text", windows: "$2", ones: "$3", second: "$4", expires: "$5" });
  const [row] = await db.unsafe<{ hits: number[] }[]>(
    `with counted as (${text}) select hits from counted`,
    [bucket, at.windows, at.ones, at.second, at.expires],
    { prepare: true },
  );
  return at.seconds.map((seconds, i) => ({ seconds, hits: row.hits[i], resetIn: at.resetIn[i] }));
}

/** The bucket's counts in windows of these lengths as of `now`, without counting (0 in a window not begun). */
export async function peekHits(db: Db, bucket: string, lengths: number[], now: Date): Promise<BucketCount[]> {
  const at = countsNow(lengths, now);
  const [row] = await db<{ windows: number[]; hits: number[]; counted_at: number }[]>`
    select windows, hits, counted_at from public.rate_limit_buckets where bucket = ${bucket}`;
  const same = row && row.windows.length === at.seconds.length && row.windows.every((w, i) => w === at.seconds[i]);
  return at.seconds.map((seconds, i) => ({
    seconds,
    hits: same && Math.floor(row.counted_at / seconds) === Math.floor(at.second / seconds) ? row.hits[i] : 0,
    resetIn: at.resetIn[i],
  }));
}

const admissionTexts = new Map<string, string>();
function admissionStatement(windowCount: number, touch: boolean, sweep: boolean): string {
  const form = `${windowCount} ${touch} ${sweep}`;
  let text = admissionTexts.get(form);
  if (!text) admissionTexts.set(form, text = admissionText(windowCount, touch, sweep));
  return text;
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
  const nowMs = input.now.getTime();
  const at = countsNow(input.windows.map((w) => w.seconds), input.now);
  // rate_limit_sweep_due also tries the minute's sweep: a process asks it to once a minute, and only
  // counts otherwise (the sweep's own row would be one more write on every request)
  const minute = Math.floor(nowMs / 60_000);
  const sweep = minute !== sweptMinute;
  sweptMinute = minute;
  const touchedAt = hash === null ? undefined : lastTouched.get(hash);
  const touchDue = hash !== null && (touchedAt === undefined || nowMs - touchedAt >= TOUCH_EVERY_MS);
  const [{ admission }] = await db.unsafe<{ admission: AdmissionRow }[]>(
    admissionStatement(at.seconds.length, touchDue, sweep),
    [
      hash,
      tokenBucket,
      input.unknownTokensBy === "address" && hash ? addressBucket : null,
      at.windows,
      input.now,
      at.second,
      at.expires,
      at.ones,
    ],
    { prepare: true },
  );
  const [id, name, kind, gated, revoked, lastUsedMs, read, hits] = admission;
  const versions = read ?? {};
  const site = await siteAt(db, versions.site);
  const windows = limits.map((w, i) => {
    const count = hits[i];
    return { ...w, hits: count, remaining: Math.max(0, w.limit - count), resetIn: at.resetIn[i] };
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

/**
 * The site settings as of the `site` version the admission saw, read again only when that version
 * moved since this process last read them (null while the site has not been imported). As JSON, not
 * through readSiteSettings: the driver would hand updated_at over as a Date, whose text (the scheduling
 * catalogue's stamp) drops the milliseconds that tell two changes within a second apart.
 */
async function siteAt(db: Db, version: number | undefined): Promise<SiteSettings | null> {
  const known = knownSites.get(db);
  if (known && known.version === version) return known.site;
  const [row] = await db<{ site: SiteSettings; version: number }[]>`
    select row_to_json(s) as site, (select version from public.answer_versions where scope = 'site') as version
    from (select name, slug, domain, mode, modules, locales, config, updated_at from public.site_settings) s`;
  if (!row) return null;
  // a bigint: a pool without shared/db.ts's parser hands it over as text
  knownSites.set(db, { version: Number(row.version), site: row.site });
  return row.site;
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
