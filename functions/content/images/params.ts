// Query parameters of the images door (Contentful Images API): parsing, normalisation and the cache key.
//
// Accepted (Contentful's names and ranges):
//   w, h   integers 1..4000
//   fit    pad | fill | scale | crop | thumb   (absent: fit within the w×h box, aspect kept)
//   f      center | top | right | left | bottom | top_right | top_left | bottom_right | bottom_left
//          | face | faces                      (face and faces act as center: no face detection)
//   fm     jpg | png | webp | gif | avif        (avif is answered as webp: no AVIF encoder here)
//   q      integer 1..100                      (lossy encoders only: jpg, webp)
//   r      integer >= 0, or max                (max: a full circle / ellipse)
//   bg     rgb:rrggbb                          (exactly six hex digits, either case)
//   fl     anything: accepted and ignored (progressive, png8)
// Decisions:
// - Values are case-sensitive as Contentful documents them (`fit=PAD`, `fm=JPG` are BadQuery); only the hex
//   digits of bg may be either case.
// - `fm=jpeg` and `fm=tiff` are BadQuery: Contentful documents `jpg` (tiff it accepts, but no TIFF encoder
//   exists here). A Contentful client never sends `jpeg`, so accepting it would only hide typos.
// - `bg=rgb:fff` (three digits) is BadQuery: Contentful's docs and its GraphQL HexColor use six.
// - A repeated parameter takes its first value; unknown parameters (access_token, cache busters) are ignored.
// - An empty value (`w=`) is malformed, hence BadQuery.

export const MAX_DIMENSION = 4000;
/**
 * The most pixels one transform may make (a 4K UHD frame, 3840×2160). Work grows with the output:
 * a 4000×4000 answer took five seconds of a core, so one client could keep every transform slot busy.
 */
export const MAX_OUTPUT_PIXELS = 3840 * 2160;

import { FITS, type Fit, FOCI, FORMATS } from "../../../shared/openapi/enums/content.ts";

export type { Fit };
export type Focus =
  | "center"
  | "top"
  | "right"
  | "left"
  | "bottom"
  | "top_right"
  | "top_left"
  | "bottom_right"
  | "bottom_left";
export type OutputFormat = "jpg" | "png" | "webp" | "gif";

export interface Rgb {
  r: number;
  g: number;
  b: number;
}

/** Normalised parameters. Absent fields mean "not asked for". */
export interface ImageParams {
  width?: number;
  height?: number;
  fit?: Fit;
  focus?: Focus;
  format?: OutputFormat;
  quality?: number;
  /** Corner radius in output pixels, or "max" for a full ellipse. 0 is dropped. */
  radius?: number | "max";
  background?: Rgb;
}

export interface BadImageQuery {
  ok: false;
  /** The message for a BadQuery answer; names the parameter. */
  message: string;
  /** details for the BadQuery body: which parameter, what was sent, what is allowed. */
  details: { parameter: string; value: string; allowed: string };
}

export type ParsedImageParams = { ok: true; params: ImageParams } | BadImageQuery;

function bad(parameter: string, value: string, allowed: string): BadImageQuery {
  return {
    ok: false,
    message: `The image parameter "${parameter}" has an invalid value "${value}": allowed ${allowed}.`,
    details: { parameter, value, allowed },
  };
}

function integerIn(value: string, min: number, max: number): number | null {
  if (!/^[0-9]{1,9}$/.test(value)) return null;
  const n = Number(value);
  return n >= min && n <= max ? n : null;
}

/** Parses the images door's query. Never throws. */
export function parseImageParams(query: URLSearchParams): ParsedImageParams {
  const params: ImageParams = {};

  for (const [name, key] of [["w", "width"], ["h", "height"]] as const) {
    const raw = query.get(name);
    if (raw === null) continue;
    const n = integerIn(raw, 1, MAX_DIMENSION);
    if (n === null) return bad(name, raw, `an integer from 1 to ${MAX_DIMENSION}`);
    params[key] = n;
  }

  const fit = query.get("fit");
  if (fit !== null) {
    if (!(FITS as readonly string[]).includes(fit)) return bad("fit", fit, FITS.join(", "));
    params.fit = fit as Fit;
  }

  const focus = query.get("f");
  if (focus !== null) {
    if (!FOCI.includes(focus)) return bad("f", focus, FOCI.join(", "));
    params.focus = focus === "face" || focus === "faces" ? "center" : focus as Focus;
  }

  const format = query.get("fm");
  if (format !== null) {
    if (!FORMATS.includes(format)) return bad("fm", format, FORMATS.join(", "));
    params.format = format === "avif" ? "webp" : format as OutputFormat;
  }

  const quality = query.get("q");
  if (quality !== null) {
    const n = integerIn(quality, 1, 100);
    if (n === null) return bad("q", quality, "an integer from 1 to 100");
    params.quality = n;
  }

  const radius = query.get("r");
  if (radius !== null) {
    if (radius === "max") params.radius = "max";
    else {
      const n = integerIn(radius, 0, 999_999_999);
      if (n === null) return bad("r", radius, "an integer from 0, or max");
      if (n > 0) params.radius = n;
    }
  }

  const bg = query.get("bg");
  if (bg !== null) {
    const m = /^rgb:([0-9a-fA-F]{6})$/.exec(bg);
    if (!m) return bad("bg", bg, "rgb:rrggbb with six hex digits");
    const hex = parseInt(m[1], 16);
    params.background = { r: hex >> 16 & 0xff, g: hex >> 8 & 0xff, b: hex & 0xff };
  }

  return { ok: true, params: normalizeImageParams(params) };
}

/**
 * Drops what cannot change the output, so equal outputs share one cache key:
 * - fit without w or h does nothing (there is no box);
 * - f only steers fill, thumb and crop;
 * - bg only shows through pad, rounded corners, or transparency flattened into fm=jpg (a jpg source has none);
 * - q only reaches lossy encoders, which depend on the source format when fm is absent, so q is kept then.
 * The transform reads only normalised parameters, so the key and the pixels never disagree.
 */
export function normalizeImageParams(params: ImageParams): ImageParams {
  const out: ImageParams = {};
  if (params.width !== undefined) out.width = params.width;
  if (params.height !== undefined) out.height = params.height;
  const box = out.width !== undefined || out.height !== undefined;
  if (box && params.fit !== undefined) out.fit = params.fit;
  const focused = out.fit === "fill" || out.fit === "thumb" || out.fit === "crop";
  if (focused && params.focus !== undefined && params.focus !== "center") out.focus = params.focus;
  if (params.format !== undefined) out.format = params.format;
  if (
    params.quality !== undefined &&
    (out.format === undefined || out.format === "jpg" || out.format === "webp")
  ) {
    out.quality = params.quality;
  }
  if (params.radius !== undefined && params.radius !== 0) out.radius = params.radius;
  const backed = out.fit === "pad" || out.radius !== undefined || out.format === "jpg";
  if (backed && params.background !== undefined) out.background = { ...params.background };
  return out;
}

/** True when the parameters ask for any change at all; false means "serve the original bytes". */
export function hasImageTransform(params: ImageParams): boolean {
  const p = normalizeImageParams(params);
  return p.width !== undefined || p.height !== undefined || p.format !== undefined ||
    p.quality !== undefined || p.radius !== undefined;
}

/** Bump when the transform's output changes for the same parameters, so cached results are not reused. */
export const IMAGE_TRANSFORM_VERSION = 1;

function hex2(n: number): string {
  return n.toString(16).padStart(2, "0");
}

/**
 * A canonical key of the normalised parameters, in a fixed order, made only of [a-z0-9.-] (safe as a
 * storage object name segment). `?w=100&h=50` and `?h=50&w=100&fl=progressive` give the same key.
 * Example: `v1.w100.h50.fit-fill.f-top.fm-webp.q80.r-max.bg-ff0000`; no transform gives `v1.original`.
 */
export function imageCacheKey(params: ImageParams): string {
  const p = normalizeImageParams(params);
  const parts = [`v${IMAGE_TRANSFORM_VERSION}`];
  if (p.width !== undefined) parts.push(`w${p.width}`);
  if (p.height !== undefined) parts.push(`h${p.height}`);
  if (p.fit !== undefined) parts.push(`fit-${p.fit}`);
  if (p.focus !== undefined) parts.push(`f-${p.focus.replace("_", "-")}`);
  if (p.format !== undefined) parts.push(`fm-${p.format}`);
  if (p.quality !== undefined) parts.push(`q${p.quality}`);
  if (p.radius !== undefined) parts.push(p.radius === "max" ? "r-max" : `r${p.radius}`);
  if (p.background !== undefined) {
    parts.push(`bg-${hex2(p.background.r)}${hex2(p.background.g)}${hex2(p.background.b)}`);
  }
  if (parts.length === 1) parts.push("original");
  return parts.join(".");
}
