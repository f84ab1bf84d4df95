// site.yaml `analytics`: the project token the site's analytics clients send (PostHog's project API key)
// and the feature flags /api/events/flags/ answers. Parsed and checked once at import, stored normalised
// in site_settings.config, read by the analytics routes at request time.

/** A project token as PostHog accepts one: letters, digits, `_` and `-`, at most 200 characters. */
export const ANALYTICS_TOKEN = /^[A-Za-z0-9_-]{1,200}$/;
/** A flag key as PostHog accepts one. */
export const FLAG_KEY = /^[A-Za-z0-9_-]{1,400}$/;

export interface FlagVariant {
  key: string;
  /** Share of the flag's audience, in percent; the variants of a flag add up to 100. */
  rollout: number;
}

export interface FlagDefinition {
  key: string;
  /** `false` answers the flag off for everybody. */
  enabled: boolean;
  /** Percentage of distinct ids the flag is on for (0 to 100). */
  rollout: number;
  /** Multivariate flags: which variant a distinct id gets; empty for a plain on/off flag. */
  variants: FlagVariant[];
  /** JSON payload per answer: `true` for a plain flag, else the variant key. */
  payloads: Record<string, unknown>;
  description: string | null;
}

export interface AnalyticsConfig {
  /** null: the site takes no analytics (every token is refused). */
  token: string | null;
  flags: FlagDefinition[];
}

export const NO_ANALYTICS: AnalyticsConfig = { token: null, flags: [] };

const isMap = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Checks and normalises the `analytics` section. `fail` throws the caller's configuration error.
 *
 *   analytics:
 *     token: phc_demo_site
 *     flags:
 *       new-checkout: true                 # on for everybody
 *       beta-banner: { rollout: 25 }       # on for a quarter of distinct ids
 *       hero-copy:                         # multivariate, with a payload per variant
 *         variants: { control: 50, bold: 50 }
 *         payloads: { bold: { headline: "Now with more" } }
 */
export function parseAnalyticsConfig(value: unknown, fail: (why: string) => never): AnalyticsConfig {
  if (value === undefined || value === null) return NO_ANALYTICS;
  if (!isMap(value)) fail("analytics must be a mapping of token and flags");
  const section = value as Record<string, unknown>;
  for (const key of Object.keys(section)) {
    if (key !== "token" && key !== "flags") fail(`analytics: unknown setting ${key} (known: token, flags)`);
  }
  const token = section.token ?? null;
  if (token !== null && (typeof token !== "string" || !ANALYTICS_TOKEN.test(token))) {
    fail("analytics.token must be 1 to 200 letters, digits, _ or -");
  }
  const flagsRaw = section.flags ?? {};
  if (!isMap(flagsRaw)) fail("analytics.flags must map flag keys to true, false or a mapping");
  const flags = Object.entries(flagsRaw as Record<string, unknown>).map(([key, definition]) =>
    parseFlag(key, definition, (why) => fail(`analytics.flags.${key}: ${why}`))
  );
  return { token: token as string | null, flags };
}

function parseFlag(key: string, value: unknown, fail: (why: string) => never): FlagDefinition {
  if (!FLAG_KEY.test(key)) fail("a flag key is letters, digits, _ or -");
  if (typeof value === "boolean") {
    return { key, enabled: value, rollout: 100, variants: [], payloads: {}, description: null };
  }
  if (!isMap(value)) fail("must be true, false or a mapping of enabled, rollout, variants, payload(s), description");
  const known = ["enabled", "rollout", "variants", "payload", "payloads", "description"];
  for (const setting of Object.keys(value)) {
    if (!known.includes(setting)) fail(`unknown setting ${setting} (known: ${known.join(", ")})`);
  }
  const enabled = value.enabled ?? true;
  if (typeof enabled !== "boolean") fail("enabled must be true or false");
  const rollout = value.rollout ?? 100;
  if (!isPercent(rollout)) fail("rollout must be a percentage from 0 to 100");

  const variants: FlagVariant[] = [];
  if (value.variants !== undefined) {
    if (!isMap(value.variants) || !Object.keys(value.variants).length) {
      fail("variants must map variant keys to percentages");
    }
    for (const [variant, share] of Object.entries(value.variants as Record<string, unknown>)) {
      if (!FLAG_KEY.test(variant)) fail(`variant ${variant}: a variant key is letters, digits, _ or -`);
      if (!isPercent(share)) fail(`variant ${variant}: its share must be a percentage from 0 to 100`);
      variants.push({ key: variant, rollout: share as number });
    }
    const total = variants.reduce((sum, v) => sum + v.rollout, 0);
    if (Math.abs(total - 100) > 1e-9) fail(`the variants' shares add up to ${total}, not 100`);
  }

  if (value.payload !== undefined && value.payloads !== undefined) fail("give payload or payloads, not both");
  let payloads: Record<string, unknown> = {};
  if (value.payload !== undefined) {
    if (variants.length) fail("a multivariate flag takes payloads keyed by variant");
    payloads = { true: value.payload };
  } else if (value.payloads !== undefined) {
    if (!isMap(value.payloads)) fail("payloads must map answers (true, or a variant key) to JSON values");
    const answers = variants.length ? variants.map((v) => v.key) : ["true"];
    for (const answer of Object.keys(value.payloads)) {
      if (!answers.includes(answer)) fail(`payloads: ${answer} is not one of the flag's answers (${answers.join(", ")})`);
    }
    payloads = { ...value.payloads };
  }
  const description = value.description ?? null;
  if (description !== null && typeof description !== "string") fail("description must be text");
  return { key, enabled: enabled as boolean, rollout: rollout as number, variants, payloads, description: description as string | null };
}

function isPercent(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= 100;
}

/** The normalised section as stored in site_settings.config (tolerates a row written before it existed). */
export function analyticsConfigOf(config: Record<string, unknown> | null | undefined): AnalyticsConfig {
  const section = config?.analytics;
  if (!isMap(section)) return NO_ANALYTICS;
  return {
    token: typeof section.token === "string" ? section.token : null,
    flags: Array.isArray(section.flags) ? section.flags as FlagDefinition[] : [],
  };
}
