// Runtime configuration, read once from the environment, typed, and passed in to every function.
import { type PaymentConfig, readPaymentConfig } from "./payments/config.ts";

export interface RuntimeConfig {
  /** Postgres URL; absent means "start the embedded PGlite" (dev host and tests only). */
  databaseUrl?: string;
  port: number;
  /** The site's public origin ({base_url}); defaults to the local host. */
  publicUrl: string;
  /** The functions' own origin ({function_url}); locally the same host serves /functions/v1/<name>. */
  functionsUrl: string;
  siteDir: string;
  siteModeOverride?: "git" | "cloud";
  /** HS256 secret for person JWTs (Supabase's JWT secret when deployed). */
  jwtSecret?: string;
  /** JWKS address for person JWTs signed with asymmetric keys (newer Supabase projects). */
  jwksUrl?: string;
  supabaseUrl?: string;
  supabaseServiceRoleKey?: string;
  /**
   * Whether webhook targets may be loopback, private or link-local addresses: the one reading of
   * ALLOW_PRIVATE_WEBHOOK_TARGETS, which every API's create and update check and the dispatcher use.
   * Unset, development (`task dev`) allows them and a deployment refuses them.
   */
  allowPrivateWebhookTargets: boolean;
  /** the payment provider: Stripe when its secrets are set, else the local provider */
  payments?: PaymentConfig;
  /** Signs deliveries to a form document's own webhook (X-Form-Signature); generated when unset. */
  formsWebhookSecret?: string;
  /**
   * How many proxies in front append the caller's address to X-Forwarded-For and are trusted to
   * (TRUST_PROXY); 0, the default, keys per-address limits on the socket's peer and ignores the header.
   */
  trustedProxies: number;
  /**
   * The protocol server's handle domain (NETWORK_HANDLE_DOMAIN): members' handles are
   * `<name>.<domain>`. Unset: the configuration's network.handleDomain, else the site's domain.
   */
  networkHandleDomain?: string;
  /** The did:plc directory joined members are registered at (NETWORK_PLC_URL; default the public one). */
  networkPlcUrl: string;
  /** The relay asked to crawl (NETWORK_RELAY_URL); unset: the configuration's network.relay. */
  networkRelayUrl?: string;
  /**
   * The deployment secret members' signing keys are encrypted with at rest (NETWORK_KEY_SECRET, else
   * JWT_SECRET): never in the database, so a copy of the database alone cannot sign as a member.
   */
  networkKeySecret?: string;
  /**
   * How many bytes may wait unsent on one subscriber's event stream socket before the subscriber is cut
   * off as ConsumerTooSlow (NETWORK_FIREHOSE_BUFFER; default 8 MiB).
   */
  networkFirehoseBufferBytes: number;
  /**
   * How far back a subscriber's cursor is served from (NETWORK_FIREHOSE_BACKFILL_HOURS; default 24, the
   * reference server's PDS_REPO_BACKFILL_LIMIT_MS): an older cursor is told OutdatedCursor and replayed
   * from the first event inside the window.
   */
  networkFirehoseBackfillMs: number;
  /**
   * How many bytes of hot read answers each function keeps in memory (ANSWER_CACHE_MB, default 32;
   * 0 switches the keeping off): shared/answer-cache.ts.
   */
  answerCacheBytes: number;
  /**
   * What every API's rate-limit windows are multiplied by (RATE_LIMIT_SCALE, default 1): the bench sets
   * it so a load generator measures the code rather than the 429s. Set only where it is meant; the
   * headers then state the scaled limits, which are the ones enforced.
   */
  rateLimitScale: number;
}

export interface ReadOptions {
  /** `task dev` and the other local tasks: defaults suited to a developer's own machine */
  development?: boolean;
}

export function readConfig(
  env: { get(name: string): string | undefined } = Deno.env,
  options: ReadOptions = {},
): RuntimeConfig {
  const port = Number(env.get("PORT") ?? 8000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be a port number`);
  const publicUrl = trimSlash(env.get("PUBLIC_URL") ?? `http://localhost:${port}`);
  const mode = env.get("SITE_MODE");
  if (mode && mode !== "git" && mode !== "cloud") throw new ConfigError(`SITE_MODE must be git or cloud`);
  const allow = env.get("ALLOW_PRIVATE_WEBHOOK_TARGETS");
  const trust = (env.get("TRUST_PROXY") ?? "").trim().toLowerCase();
  const trustedProxies = trust === "" || trust === "false" ? 0 : trust === "true" ? 1 : Number(trust);
  if (!Number.isInteger(trustedProxies) || trustedProxies < 0 || trustedProxies > 10) {
    throw new ConfigError(`TRUST_PROXY must be true, false or the number of trusted proxies (0 to 10)`);
  }
  const firehoseBuffer = Number(env.get("NETWORK_FIREHOSE_BUFFER")?.trim() || 8 * 1024 * 1024);
  if (!Number.isInteger(firehoseBuffer) || firehoseBuffer < 1024) {
    throw new ConfigError(`NETWORK_FIREHOSE_BUFFER must be a number of bytes (at least 1024)`);
  }
  const backfillHours = Number(env.get("NETWORK_FIREHOSE_BACKFILL_HOURS")?.trim() || 24);
  if (!Number.isFinite(backfillHours) || backfillHours <= 0) {
    throw new ConfigError(`NETWORK_FIREHOSE_BACKFILL_HOURS must be a number of hours above 0 (default 24)`);
  }
  const cacheMb = Number(env.get("ANSWER_CACHE_MB")?.trim() || 32);
  if (!Number.isFinite(cacheMb) || cacheMb < 0) throw new ConfigError(`ANSWER_CACHE_MB must be a number of megabytes`);
  const scaleText = env.get("RATE_LIMIT_SCALE")?.trim();
  const rateLimitScale = scaleText ? Number(scaleText) : 1;
  if (!Number.isFinite(rateLimitScale) || rateLimitScale <= 0 || rateLimitScale > 1_000_000) {
    throw new ConfigError(`RATE_LIMIT_SCALE must be a number above 0 and at most 1000000 (default 1)`);
  }
  return {
    databaseUrl: env.get("DATABASE_URL") ?? env.get("SUPABASE_DB_URL") ?? undefined,
    port,
    publicUrl,
    functionsUrl: trimSlash(env.get("FUNCTIONS_URL") ?? publicUrl),
    siteDir: env.get("SITE_DIR") ?? new URL("../demo-site", import.meta.url).pathname,
    siteModeOverride: mode as "git" | "cloud" | undefined,
    jwtSecret: env.get("JWT_SECRET") ?? env.get("SUPABASE_JWT_SECRET") ?? undefined,
    jwksUrl: env.get("JWKS_URL") ?? undefined,
    supabaseUrl: env.get("SUPABASE_URL") ?? undefined,
    supabaseServiceRoleKey: env.get("SUPABASE_SERVICE_ROLE_KEY") ?? undefined,
    allowPrivateWebhookTargets: allow === undefined || allow.trim() === ""
      ? options.development === true
      : ["1", "true"].includes(allow.trim().toLowerCase()),
    payments: readPaymentConfig(env),
    formsWebhookSecret: env.get("FORMS_WEBHOOK_SECRET") ?? undefined,
    trustedProxies,
    networkHandleDomain: env.get("NETWORK_HANDLE_DOMAIN")?.trim().toLowerCase().replace(/^\./, "") || undefined,
    networkPlcUrl: trimSlash(env.get("NETWORK_PLC_URL")?.trim() || "https://plc.directory"),
    networkRelayUrl: env.get("NETWORK_RELAY_URL")?.trim() ? trimSlash(env.get("NETWORK_RELAY_URL")!.trim()) : undefined,
    networkKeySecret: env.get("NETWORK_KEY_SECRET") || env.get("JWT_SECRET") || env.get("SUPABASE_JWT_SECRET") ||
      undefined,
    networkFirehoseBufferBytes: firehoseBuffer,
    networkFirehoseBackfillMs: Math.round(backfillHours * 3_600_000),
    answerCacheBytes: Math.round(cacheMb * 1024 * 1024),
    rateLimitScale,
  };
}

export class ConfigError extends Error {}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}
