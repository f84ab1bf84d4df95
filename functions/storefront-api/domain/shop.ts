// The shop: the site's name and the storefront record's currency, shipping countries, tagline and
// policies. Also the locale chain a request reads localized fields in (@inContext(language:), else Accept-Language).
import { defaultLocale, localeChain, type SiteSettings } from "../../../shared/site.ts";
import type { Db } from "../../../shared/db.ts";
import { storefrontRecord } from "../store/catalog.ts";
import { fieldValue, type RecordRow } from "./catalog.ts";

export interface ShopInfo {
  name: string;
  description: string | null;
  currency: string;
  shipsTo: string[];
  /** policy key (returns, shipping, privacy, terms) -> text */
  policies: Record<string, string>;
}

export const DEFAULT_CURRENCY = "USD";

/** The shop as the site's storefront record says now (one read). */
export async function shopOf(db: Db, site: SiteSettings): Promise<ShopInfo> {
  return shopInfo(site, await storefrontRecord(db));
}

export function shopInfo(site: SiteSettings, storefront: RecordRow | undefined): ShopInfo {
  const locales = localeChain(site, defaultLocale(site).code);
  const read = (id: string) => (storefront ? fieldValue(storefront, id, locales) : undefined);
  const currency = typeof read("currency") === "string" && /^[A-Za-z]{3}$/.test(read("currency") as string)
    ? (read("currency") as string).toUpperCase()
    : DEFAULT_CURRENCY;
  const shipsTo = Array.isArray(read("shipsTo"))
    ? (read("shipsTo") as unknown[]).filter((c): c is string => typeof c === "string" && /^[A-Z]{2}$/.test(c))
    : [];
  const policies: Record<string, string> = {};
  const raw = read("policies");
  if (raw && typeof raw === "object" && !Array.isArray(raw)) {
    for (const [k, v] of Object.entries(raw)) if (typeof v === "string") policies[k] = v;
  }
  const tagline = read("tagline");
  return {
    name: site.name,
    description: typeof tagline === "string" ? tagline : null,
    currency,
    shipsTo,
    policies,
  };
}

/** Shop policies by the Storefront API's field, from the storefront record's policy keys. */
export const POLICY_FIELDS: Record<string, { key: string; title: string; handle: string }> = {
  refundPolicy: { key: "returns", title: "Refund policy", handle: "refund-policy" },
  shippingPolicy: { key: "shipping", title: "Shipping policy", handle: "shipping-policy" },
  privacyPolicy: { key: "privacy", title: "Privacy policy", handle: "privacy-policy" },
  termsOfService: { key: "terms", title: "Terms of service", handle: "terms-of-service" },
};

/**
 * The locale chain for a request: the site locale whose language matches @inContext(language:) (DE ->
 * de-DE; PT_BR -> pt-BR), else the default locale; then its fallbacks.
 */
export function requestLocales(site: SiteSettings, language?: string | null): string[] {
  const fallback = defaultLocale(site).code;
  if (!language) return localeChain(site, fallback);
  const wanted = language.toLowerCase().replace("_", "-");
  const match = site.locales.find((l) => l.code.toLowerCase() === wanted) ??
    site.locales.find((l) => l.code.toLowerCase().split("-")[0] === wanted.split("-")[0]);
  return localeChain(site, match?.code ?? fallback);
}

/**
 * The language of an Accept-Language header the site has a locale for, by the header's preference
 * (shopify-buy sends its `language` option there, `*` when none is set); undefined when none matches.
 * @inContext(language:) wins over it.
 */
export function acceptedLanguage(site: SiteSettings, header: string | null | undefined): string | undefined {
  const tags = (header ?? "").split(",").map((part, index) => {
    const [tag, ...params] = part.trim().split(";");
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    return { tag: tag.trim().toLowerCase(), q: q === undefined ? 1 : Number(q), index };
  }).filter((t) => t.tag && t.tag !== "*" && t.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  const has = (tag: string) =>
    site.locales.some((l) => {
      const code = l.code.toLowerCase();
      return code === tag || code.split("-")[0] === tag.split("-")[0];
    });
  return tags.find((t) => has(t.tag))?.tag;
}

/** The LanguageCode of a locale code (de-DE -> DE, pt-BR -> PT_BR when that is a code, else PT). */
export function languageCode(locale: string, known: readonly string[]): string {
  const full = locale.toUpperCase().replace("-", "_");
  if (known.includes(full)) return full;
  const base = full.split("_")[0];
  return known.includes(base) ? base : "EN";
}
