// Asset.url(transform: ImageTransformOptions) → the images door's query parameters (Contentful's mapping):
// width w, height h, quality q, cornerRadius r (-1 is r=max), resizeStrategy fit (FIT is the door's
// default, so no fit), resizeFocus f, backgroundColor bg, format fm (JPG_PROGRESSIVE and PNG8 add fl).
// The door's own parser checks the result, so a URL this builds is one the door accepts.
import { parseImageParams } from "../images/params.ts";
import { pathError } from "./envelope.ts";

export interface ImageTransform {
  width?: number | null;
  height?: number | null;
  quality?: number | null;
  cornerRadius?: number | null;
  resizeStrategy?: string | null;
  resizeFocus?: string | null;
  backgroundColor?: string | null;
  format?: string | null;
}

const FORMATS: Record<string, [string, string?]> = {
  JPG: ["jpg"],
  JPG_PROGRESSIVE: ["jpg", "progressive"],
  PNG: ["png"],
  PNG8: ["png", "png8"],
  WEBP: ["webp"],
  AVIF: ["avif"],
};

export function transformQuery(transform: ImageTransform): URLSearchParams {
  const query = new URLSearchParams();
  const set = (name: string, value: unknown) => {
    if (value !== undefined && value !== null) query.set(name, String(value));
  };
  set("w", transform.width);
  set("h", transform.height);
  set("q", transform.quality);
  if (transform.cornerRadius !== undefined && transform.cornerRadius !== null) {
    set("r", transform.cornerRadius === -1 ? "max" : transform.cornerRadius);
  }
  if (transform.resizeStrategy && transform.resizeStrategy !== "FIT") {
    set("fit", transform.resizeStrategy.toLowerCase());
  }
  if (transform.resizeFocus) set("f", transform.resizeFocus.toLowerCase());
  if (transform.backgroundColor) set("bg", transform.backgroundColor.replace(/^#/, "rgb:"));
  if (transform.format) {
    const [fm, fl] = FORMATS[transform.format] ?? [transform.format.toLowerCase()];
    set("fm", fm);
    set("fl", fl);
  }
  const parsed = parseImageParams(query);
  if (!parsed.ok) throw pathError("INVALID_QUERY", `Invalid transform: ${parsed.message}`, parsed.details);
  return query;
}

/**
 * The asset's absolute address (GraphQL answers absolute URLs where REST answers protocol-relative ones),
 * with the transform as the door's parameters. A picture kept at its own address elsewhere takes none.
 */
export function assetAddress(url: string, scheme: string, transform?: ImageTransform | null): string {
  const query = transform ? transformQuery(transform).toString() : ""; // checked even where it cannot apply
  if (!url.startsWith("//")) return url;
  return `${scheme}${url}${query ? `?${query}` : ""}`;
}
