// What a response records about its visitor: platform and browser from the user agent, hidden fields
// from the page address (query and hash, without the embed SDK's own parameters).

/** desktop, phone, tablet or other (the insights' platforms). */
export function platformOf(userAgent: string): "desktop" | "phone" | "tablet" | "other" {
  const ua = userAgent.toLowerCase();
  if (!ua) return "other";
  if (/ipad|tablet|kindle|silk|playbook|(android(?!.*mobile))/.test(ua)) return "tablet";
  if (/mobi|iphone|ipod|android.*mobile|windows phone|blackberry|opera mini/.test(ua)) return "phone";
  if (/windows nt|macintosh|mac os x|x11|linux|cros/.test(ua)) return "desktop";
  return "other";
}

/** Typeform's two browser kinds: touch screens and the rest. */
export function browserOf(platform: string): "touch" | "default" {
  return platform === "phone" || platform === "tablet" ? "touch" : "default";
}

// parameters the embed SDK and the page's own switches add: never hidden fields
const RESERVED =
  /^(typeform-|embed-|tf-|__)|^(disable-tracking|disable-auto-focus|enable-sandbox|share-ga-instance|force-touch|add-placeholder-ws|access_token)$/;

/**
 * Hidden fields: the page address's query parameters and hash pairs (`#name=value&...`, where the
 * embed SDK puts them), without the SDK's own parameters. When the form declares hidden fields only
 * those are kept. Values are cut at 1000 characters (NUL characters dropped), at most 50 fields.
 */
export function hiddenFields(
  query: URLSearchParams,
  hash: string,
  declared?: string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  const take = (name: string, value: string) => {
    if (!name || RESERVED.test(name) || name.length > 64 || name.includes("\0")) return;
    if (declared && !declared.includes(name)) return;
    if (Object.keys(out).length >= 50 && !(name in out)) return;
    // a NUL cannot be stored (Postgres' text): the rest of the value is kept
    out[name] = value.replaceAll("\0", "").slice(0, 1000);
  };
  for (const [name, value] of query) take(name, value);
  for (const [name, value] of new URLSearchParams(hash.replace(/^#/, ""))) {
    if (value !== "") take(name, value);
  }
  return out;
}
