// Feature flags and remote config from the site's configuration, answered in PostHog's shapes: /flags
// (`v=2`: flags with details; otherwise featureFlags and featureFlagPayloads), and the remote config
// posthog-js loads from /array/<token>/config(.js). Rollouts and variants hash the distinct id exactly
// as PostHog does, so a person keeps their answer and the SDKs' local expectations hold.
import type { AnalyticsConfig, FlagDefinition } from "../../../shared/site/analytics-config.ts";

export type FlagValue = boolean | string;

export interface FlagDetail {
  key: string;
  enabled: boolean;
  variant: string | null;
  reason: { code: string; condition_index: number | null; description: string };
  metadata: { id: number; version: number; description: string | null; payload: string | null };
}

/** PostHog's hash: the first 15 hex digits of SHA-1("<flag key>.<distinct id><salt>"), scaled to [0, 1]. */
export async function flagHash(flagKey: string, distinctId: string, salt = ""): Promise<number> {
  const digest = await crypto.subtle.digest("SHA-1", new TextEncoder().encode(`${flagKey}.${distinctId}${salt}`));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("").slice(0, 15);
  return Number(BigInt(`0x${hex}`)) / Number(0xfffffffffffffffn);
}

/** One flag for one distinct id. Flags from the configuration have a single version. */
export async function evaluateFlag(flag: FlagDefinition, index: number, distinctId: string): Promise<FlagDetail> {
  const metadata = { id: index + 1, version: 1, description: flag.description, payload: null as string | null };
  if (!flag.enabled) {
    return {
      key: flag.key,
      enabled: false,
      variant: null,
      reason: { code: "no_condition_match", condition_index: null, description: "No matching condition set" },
      metadata,
    };
  }
  if (flag.rollout < 100 && (await flagHash(flag.key, distinctId)) > flag.rollout / 100) {
    return {
      key: flag.key,
      enabled: false,
      variant: null,
      reason: { code: "out_of_rollout_bound", condition_index: 0, description: "Out of rollout bound" },
      metadata,
    };
  }
  const variant = flag.variants.length ? await pickVariant(flag, distinctId) : null;
  const answer = variant ?? "true";
  // PostHog keeps payloads as JSON text; its SDKs parse them
  if (answer in flag.payloads) metadata.payload = JSON.stringify(flag.payloads[answer]);
  return {
    key: flag.key,
    enabled: true,
    variant,
    reason: { code: "condition_match", condition_index: 0, description: "Matched condition set 1" },
    metadata,
  };
}

async function pickVariant(flag: FlagDefinition, distinctId: string): Promise<string> {
  const hash = await flagHash(flag.key, distinctId, "variant");
  let from = 0;
  for (const variant of flag.variants) {
    const to = from + variant.rollout / 100;
    if (hash >= from && hash < to) return variant.key;
    from = to;
  }
  return flag.variants[flag.variants.length - 1].key;
}

export interface FlagsRequest {
  distinctId: string;
  /** `v` query parameter: 2 or more answers the detailed shape. */
  version: number;
  /** `config=true` adds the remote config fields (as /flags does for posthog-js). */
  withConfig: boolean;
}

/** The /flags answer. */
export async function flagsResponse(
  analytics: AnalyticsConfig,
  request: FlagsRequest,
  requestId: string,
): Promise<Record<string, unknown>> {
  const details = await Promise.all(analytics.flags.map((flag, i) => evaluateFlag(flag, i, request.distinctId)));
  const config = request.withConfig ? remoteConfigFields(analytics) : {};
  if (request.version >= 2) {
    return {
      ...config,
      flags: Object.fromEntries(details.map((d) => [d.key, d])),
      errorsWhileComputingFlags: false,
      requestId,
    };
  }
  return {
    ...config,
    featureFlags: Object.fromEntries(details.map((d) => [d.key, (d.variant ?? d.enabled) as FlagValue])),
    featureFlagPayloads: Object.fromEntries(
      details.filter((d) => d.enabled && d.metadata.payload !== null).map((d) => [d.key, d.metadata.payload]),
    ),
    errorsWhileComputingFlags: false,
    requestId,
  };
}

/**
 * What the site's analytics offers a client. Everything PostHog can switch on that the site does not
 * record (session replay, heatmaps, surveys, dead clicks, exception capture) is off; events go to /e/.
 */
function remoteConfigFields(analytics: AnalyticsConfig) {
  return {
    supportedCompression: ["gzip", "gzip-js"],
    hasFeatureFlags: analytics.flags.length > 0,
    captureDeadClicks: false,
    capturePerformance: false,
    autocapture_opt_out: false,
    autocaptureExceptions: false,
    analytics: { endpoint: "/e/" },
    elementsChainAsString: true,
    sessionRecording: false,
    heatmaps: false,
    surveys: false,
    defaultIdentifiedOnly: true,
  };
}

/** GET /array/<token>/config: the remote config. */
export function remoteConfig(analytics: AnalyticsConfig, token: string) {
  return { token, ...remoteConfigFields(analytics), siteApps: [] as string[] };
}

/** GET /array/<token>/config.js: the same, as the script posthog-js loads before anything else. */
export function remoteConfigScript(analytics: AnalyticsConfig, token: string): string {
  const { siteApps: _siteApps, ...config } = remoteConfig(analytics, token);
  return [
    "(function() {",
    "  window._POSTHOG_REMOTE_CONFIG = window._POSTHOG_REMOTE_CONFIG || {};",
    `  window._POSTHOG_REMOTE_CONFIG[${JSON.stringify(token)}] = {`,
    `    config: ${JSON.stringify(config)},`,
    "    siteApps: []",
    "  };",
    "})();",
    "",
  ].join("\n");
}
