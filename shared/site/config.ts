// site.yaml: the site's configuration file, parsed and checked into a typed SiteConfig.
import { parse as parseYaml } from "yaml";
import { webhookUrlProblem } from "../webhooks/url-guard.ts";
import { type AnalyticsConfig, parseAnalyticsConfig } from "./analytics-config.ts";

export const MODULES = ["api", "forms", "sessions", "store", "support", "network"] as const;
export type ModuleName = typeof MODULES[number];
export type SiteMode = "git" | "cloud";

export interface SiteLocale {
  code: string;
  name: string;
  default: boolean;
  fallbackCode: string | null;
  optional: boolean;
}

export interface SiteConfig {
  name: string;
  slug: string;
  domain: string;
  mode: SiteMode;
  modules: Record<ModuleName, boolean>;
  locales: SiteLocale[];
  defaultLocale: string;
  api: { public: boolean; space: string };
  network: Record<string, unknown>;
  /** Declared webhook subscriptions (source `file`), kept as written; each API reads its own. */
  webhooks: Record<string, unknown>[];
  /** Analytics token and feature flags (see analytics-config.ts). */
  analytics: AnalyticsConfig;
  /**
   * Cloud mode: whether publishes, unpublishes and deletes are pushed to this directory (default true;
   * migration 080 reads `repository.push` from the stored configuration).
   */
  repository: { push: boolean };
  /** The whole parsed file, with `api` and `analytics` normalised (what site_settings.config holds). */
  raw: Record<string, unknown>;
}

export class SiteConfigError extends Error {}

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;
const LOCALE_CODE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

export const DEFAULT_LOCALE: SiteLocale = {
  code: "en-US",
  name: "English (United States)",
  default: true,
  fallbackCode: null,
  optional: false,
};

export function parseSiteConfig(text: string, file = "site.yaml"): SiteConfig {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (error) {
    throw new SiteConfigError(`${file}: not valid YAML: ${firstLine(error)}`);
  }
  if (!isMap(doc)) throw new SiteConfigError(`${file}: must be a mapping of settings`);
  const fail = (why: string): never => {
    throw new SiteConfigError(`${file}: ${why}`);
  };

  const name = doc.name;
  if (typeof name !== "string" || !name.trim()) fail("name is required");
  const slug = doc.slug;
  if (typeof slug !== "string" || !SLUG.test(slug)) fail("slug is required: lowercase letters, digits and -");
  const domain = doc.domain ?? "localhost";
  if (typeof domain !== "string" || !domain.trim() || /[\/\s]/.test(domain)) {
    fail("domain must be a host name");
  }
  const mode = doc.mode ?? "git";
  if (mode !== "git" && mode !== "cloud") fail("mode must be git or cloud");

  const modules = Object.fromEntries(MODULES.map((m) => [m, m === "api"])) as Record<ModuleName, boolean>;
  if (doc.modules !== undefined && doc.modules !== null) {
    if (!isMap(doc.modules)) fail("modules must map module names to true or false");
    for (const [key, value] of Object.entries(doc.modules as Record<string, unknown>)) {
      if (!(MODULES as readonly string[]).includes(key)) {
        fail(`modules: unknown module ${key} (known: ${MODULES.join(", ")})`);
      }
      if (typeof value !== "boolean") fail(`modules.${key} must be true or false`);
      modules[key as ModuleName] = value as boolean;
    }
  }

  const locales = parseLocales(doc.locales, fail);
  const defaultLocale = locales.find((l) => l.default)!.code;

  const apiRaw = doc.api ?? {};
  if (!isMap(apiRaw)) fail("api must be a mapping");
  const api = apiRaw as Record<string, unknown>;
  if (api.public !== undefined && typeof api.public !== "boolean") fail("api.public must be true or false");
  if (
    api.space !== undefined && api.space !== null && (typeof api.space !== "string" || !SLUG.test(api.space))
  ) {
    fail("api.space must be lowercase letters, digits and -");
  }
  const apiConfig = {
    ...api,
    public: (api.public as boolean | undefined) ?? true,
    space: (api.space as string) || slug as string,
  };

  const network = doc.network ?? {};
  if (!isMap(network)) fail("network must be a mapping");
  const webhooks = doc.webhooks ?? [];
  if (!Array.isArray(webhooks)) fail("webhooks must be a list");
  (webhooks as unknown[]).forEach((hook, i) => {
    if (!isMap(hook)) fail(`webhooks[${i}] must be a mapping`);
    if (typeof (hook as Record<string, unknown>).url !== "string") fail(`webhooks[${i}].url is required`);
    if ((hook as Record<string, unknown>).api === "forms") {
      checkFormsWebhook(hook as Record<string, unknown>, i, fail);
    }
  });

  const analytics = parseAnalyticsConfig(doc.analytics, fail);

  const repository = doc.repository ?? {};
  if (!isMap(repository)) fail("repository must be a mapping such as { push: false }");
  const push = (repository as Record<string, unknown>).push ?? true;
  if (typeof push !== "boolean") fail("repository.push must be true or false");

  return {
    name: (name as string).trim(),
    slug: slug as string,
    domain: (domain as string).trim(),
    mode: mode as SiteMode,
    modules,
    locales,
    defaultLocale,
    api: { public: apiConfig.public, space: apiConfig.space },
    network: network as Record<string, unknown>,
    webhooks: webhooks as Record<string, unknown>[],
    analytics,
    repository: { push: push as boolean },
    raw: { ...doc, api: apiConfig, analytics },
  };
}

/** The forms API's tag rule, which declared forms subscriptions follow too. */
export const FORM_WEBHOOK_TAG = /^[a-zA-Z0-9_.-]{1,64}$/;

/**
 * A declared forms subscription as the forms API would take it (the database trigger that turns it
 * into a subscription trusts these checks): the form's slug, an http(s) url, a tag, enabled true or
 * false.
 */
function checkFormsWebhook(hook: Record<string, unknown>, i: number, fail: (why: string) => never) {
  const entry = `webhooks[${i}] (api: forms, form: ${String(hook.form ?? "?")}, tag: ${
    String(hook.tag ?? "site")
  })`;
  if (hook.form != null && (typeof hook.form !== "string" || !hook.form)) {
    fail(`${entry}: form must name the form (its slug)`);
  }
  const problem = webhookUrlProblem(hook.url as string);
  if (problem) fail(`${entry}: ${problem}`);
  if (hook.tag != null && (typeof hook.tag !== "string" || !FORM_WEBHOOK_TAG.test(hook.tag))) {
    fail(`${entry}: tag is 1 to 64 letters, digits, _, . or -`);
  }
  if (hook.enabled != null && typeof hook.enabled !== "boolean") {
    fail(`${entry}: enabled must be true or false`);
  }
  if (hook.secret != null && typeof hook.secret !== "string") {
    fail(`${entry}: secret must be text`);
  }
}

function parseLocales(value: unknown, fail: (why: string) => never): SiteLocale[] {
  if (value === undefined || value === null) return [{ ...DEFAULT_LOCALE }];
  if (!Array.isArray(value) || !value.length) {
    fail("locales must be a list of { code, name, default?, fallback? }");
  }
  const locales: SiteLocale[] = [];
  for (const [i, item] of (value as unknown[]).entries()) {
    const where = `locales[${i}]`;
    const entry = typeof item === "string" ? { code: item } : item;
    if (!isMap(entry)) fail(`${where} must be a mapping`);
    const e = entry as Record<string, unknown>;
    if (typeof e.code !== "string" || !LOCALE_CODE.test(e.code)) {
      fail(`${where}.code must be a locale code such as en-US`);
    }
    if (locales.some((l) => l.code === e.code)) fail(`${where}: locale ${e.code} is listed twice`);
    const fallback = e.fallbackCode ?? e.fallback ?? null;
    if (fallback !== null && typeof fallback !== "string") fail(`${where}.fallback must be a locale code`);
    if (e.default !== undefined && typeof e.default !== "boolean") {
      fail(`${where}.default must be true or false`);
    }
    if (e.optional !== undefined && typeof e.optional !== "boolean") {
      fail(`${where}.optional must be true or false`);
    }
    locales.push({
      code: e.code as string,
      name: typeof e.name === "string" && e.name ? e.name : e.code as string,
      default: e.default === true,
      fallbackCode: fallback as string | null,
      optional: e.optional as boolean | undefined ?? false,
    });
  }
  const defaults = locales.filter((l) => l.default);
  if (defaults.length > 1) {
    fail(`locales: only one locale may be the default (${defaults.map((l) => l.code).join(", ")})`);
  }
  if (!defaults.length) locales[0].default = true;
  for (const locale of locales) {
    if (locale.default) {
      if (locale.fallbackCode) fail(`locales: the default locale ${locale.code} cannot have a fallback`);
      locale.optional = false;
      continue;
    }
    if (locale.fallbackCode && !locales.some((l) => l.code === locale.fallbackCode)) {
      fail(`locales: ${locale.code} falls back to ${locale.fallbackCode}, which is not a locale of the site`);
    }
  }
  // a fallback chain must end
  for (const locale of locales) {
    const seen = new Set<string>();
    let at: SiteLocale | undefined = locale;
    while (at?.fallbackCode) {
      if (seen.has(at.code)) fail(`locales: the fallbacks of ${locale.code} go round in a circle`);
      seen.add(at.code);
      at = locales.find((l) => l.code === at!.fallbackCode);
    }
  }
  return locales;
}

export function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0].trim();
}
