// The site's settings as the functions see them (one row, written by the site import).
import { MODULES, type ModuleName, type SiteLocale } from "./site/config.ts";

export type { ModuleName, SiteLocale };

export interface SiteSettings {
  name: string;
  slug: string;
  domain: string;
  mode: "git" | "cloud";
  modules: Record<string, boolean>;
  locales: SiteLocale[];
  // deno-lint-ignore no-explicit-any
  config: Record<string, any>;
  /** changes whenever the site is imported or its settings change; keys per-process caches */
  updated_at?: string;
}

/** A module is on only when the settings say so: the import spells out every switch (missing = off). */
export function moduleOn(site: SiteSettings, module: ModuleName): boolean {
  return site.modules?.[module] === true;
}

/** The content space id: configuration api.space, else the site's slug. */
export function spaceId(site: SiteSettings): string {
  return String(site.config?.api?.space ?? site.slug);
}

/** Delivery without a key is allowed unless the configuration says api.public: false. */
export function deliveryIsPublic(site: SiteSettings): boolean {
  return site.config?.api?.public !== false;
}

export function defaultLocale(site: SiteSettings): SiteLocale {
  return site.locales.find((l) => l.default) ?? site.locales[0] ??
    { code: "en-US", name: "English (United States)", default: true, fallbackCode: null, optional: false };
}

/** The chain of locales a value is looked up in: the locale, its fallbacks, then the default. */
export function localeChain(site: SiteSettings, code: string): string[] {
  const chain: string[] = [];
  let current: string | null | undefined = code;
  while (current && !chain.includes(current)) {
    chain.push(current);
    current = site.locales.find((l) => l.code === current)?.fallbackCode;
  }
  const fallback = defaultLocale(site).code;
  if (!chain.includes(fallback)) chain.push(fallback);
  return chain;
}

/** Every module switch spelled out. */
export function moduleSwitches(site: SiteSettings): Record<ModuleName, boolean> {
  return Object.fromEntries(MODULES.map((m) => [m, moduleOn(site, m)])) as Record<ModuleName, boolean>;
}

/** The settings row for routes that need no key (the OpenAPI document, the images door). */
export async function readSiteSettings(db: import("./db.ts").Db): Promise<SiteSettings | undefined> {
  const [row] = await db<SiteSettings[]>`
    select name, slug, domain, mode, modules, locales, config, updated_at from public.site_settings`;
  return row;
}
