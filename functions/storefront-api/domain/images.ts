// Image addresses on the site's images door (/api/media/<space>/<asset>/<hash>/<file>), and the
// Storefront API's transform arguments mapped to the door's parameters.
import type { AssetRow } from "../store/catalog.ts";
import { flatText } from "../../../shared/flat-text.ts";

export interface ImageTransform {
  maxWidth?: number | null;
  maxHeight?: number | null;
  crop?: string | null;
  scale?: number | null;
  preferredContentType?: string | null;
}

const FOCUS: Record<string, string> = {
  CENTER: "center",
  TOP: "top",
  BOTTOM: "bottom",
  LEFT: "left",
  RIGHT: "right",
};
const FORMAT: Record<string, string> = { PNG: "png", JPG: "jpg", WEBP: "webp" };
/** the images door accepts 1 to 4000 */
const MAX_SIDE = 4000;

export function imageUrl(
  asset: AssetRow,
  origin: string,
  space: string,
  transform?: ImageTransform | null,
): string {
  // a picture a record names by its address elsewhere keeps that address
  if (/^https?:\/\//.test(asset.path)) return asset.path;
  // flat (shared/flat-text.ts): a page of products holds an address for each
  const base = flatText(
    origin,
    "/api/media/",
    encodeURIComponent(space),
    "/",
    asset.id,
    "/",
    asset.content_hash,
    "/",
    encodeURIComponent(asset.file_name),
  );
  if (!transform) return base;
  const scale = Math.min(3, Math.max(1, Math.floor(transform.scale ?? 1)));
  const side = (n?: number | null) => (n && n > 0 ? String(Math.min(MAX_SIDE, n * scale)) : undefined);
  const params = new URLSearchParams();
  const w = side(transform.maxWidth);
  const h = side(transform.maxHeight);
  if (w) params.set("w", w);
  if (h) params.set("h", h);
  if (transform.crop && w && h) {
    params.set("fit", "fill");
    if (FOCUS[transform.crop]) params.set("f", FOCUS[transform.crop]);
  }
  const fm = transform.preferredContentType ? FORMAT[transform.preferredContentType] : undefined;
  if (fm) params.set("fm", fm);
  const query = params.toString();
  return query ? flatText(base, "?", query) : base;
}
