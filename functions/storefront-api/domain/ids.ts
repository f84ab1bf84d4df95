// Global ids on the wire (`gid://shopify/<Type>/<id>`): products and collections by handle, variants by
// sku with an optional tail, carts by token. Clients treat them as opaque strings; we parse only our own.
import { flatText } from "../../../shared/flat-text.ts";

export const GID = "gid://shopify/";

export type GidType =
  | "Product"
  | "ProductVariant"
  | "Collection"
  | "Cart"
  | "CartLine"
  | "ProductImage"
  | "CollectionImage"
  | "ProductOption"
  | "ProductOptionValue"
  | "Shop"
  | "ShopPolicy"
  | "Market";

/** flat (shared/flat-text.ts): a page of products holds thousands of ids */
export function gid(type: GidType, id: string): string {
  return flatText(GID, type, "/", id);
}

/** The type and id of one of our gids, or undefined for anything else. */
export function parseGid(value: unknown): { type: string; id: string } | undefined {
  if (typeof value !== "string" || !value.startsWith(GID)) return undefined;
  const rest = value.slice(GID.length);
  const slash = rest.indexOf("/");
  if (slash <= 0 || slash === rest.length - 1) return undefined;
  return { type: rest.slice(0, slash), id: rest.slice(slash + 1) };
}

/** The id of a gid of that type (a cart id may carry Shopify's `?key=` suffix, which is dropped). */
export function idOf(value: unknown, type: GidType): string | undefined {
  const parsed = parseGid(value);
  if (!parsed || parsed.type !== type) return undefined;
  return type === "Cart" ? parsed.id.replace(/\?.*$/, "") : parsed.id;
}

/** A variant key (`<sku>` or `<sku>/<tail>`) split into its sku and tail. */
export function splitVariantKey(key: string): { sku: string; tail: string | null } {
  const slash = key.indexOf("/");
  return slash < 0 ? { sku: key, tail: null } : { sku: key.slice(0, slash), tail: key.slice(slash + 1) };
}
