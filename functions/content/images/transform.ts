// The images door's transform: source bytes + parameters -> output bytes, as Contentful's Images API does it.
//
// Geometry (W×H is the upright source, w×h the request; one of w, h alone keeps the aspect ratio):
//   (no fit)  fit within w×h keeping the aspect ratio (upscales too: the box is the size asked for)
//   pad       as (no fit), then centred on a w×h canvas of bg (default: transparent, white for jpg)
//   fill      scale to cover w×h, then cut w×h at the focus f
//   thumb     as fill (no face detection: face and faces act as center)
//   scale     stretch to exactly w×h
//   crop      cut min(w,W)×min(h,H) at the focus f from the source, without scaling
// Then r rounds the corners (max: the inscribed ellipse); what lies outside is transparent, or bg when bg
// is given, or white for a jpg. A jpg never carries alpha: transparency is flattened onto bg or white.
// Output format: fm, else the source's own (a GIF stays a GIF, first frame only). A JPEG's EXIF orientation
// is applied before anything else, since the output carries no EXIF.
import { assertDecodable, type DecodeLimits, ImageError } from "./errors.ts";
import {
  type Focus,
  hasImageTransform,
  type ImageParams,
  MAX_OUTPUT_PIXELS,
  normalizeImageParams,
  type OutputFormat,
} from "./params.ts";
import {
  CONTENT_TYPES,
  type SniffedFormat,
  sniffImage,
} from "../../../shared/images/sniff.ts";
import { compositeOver, createBitmap, flatten, orient, resample, roundCorners } from "./raster.ts";
import { decodeImage, encodeImage } from "./codecs.ts";

export interface TransformResult {
  bytes: Uint8Array;
  /** Matches the bytes: image/jpeg, image/png, image/webp, image/gif (or the sniffed type of an original). */
  contentType: string;
  /** False when no parameter asked for a change and the original bytes came back untouched. */
  transformed: boolean;
  /** Output size; absent for an original that is not a recognised image. */
  width?: number;
  height?: number;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface GeometryPlan {
  /** Part of the source to use (fractional for fill, integer for crop). */
  region: Rect;
  /** Size the region is resampled to. */
  size: { width: number; height: number };
  /** Output size; larger than `size` only for pad. */
  canvas: { width: number; height: number };
  /** Where the resampled region sits on the canvas. */
  offset: { x: number; y: number };
}

function alignment(focus: Focus | undefined): { x: number; y: number } {
  const f = focus ?? "center";
  return {
    x: f.endsWith("left") ? 0 : f.endsWith("right") ? 1 : 0.5,
    y: f.startsWith("top") ? 0 : f.startsWith("bottom") ? 1 : 0.5,
  };
}

/** Where every output pixel comes from, for a W×H upright source. Pure; used by transformImage. */
export function planGeometry(W: number, H: number, params: ImageParams): GeometryPlan {
  const p = normalizeImageParams(params);
  const w = p.width;
  const h = p.height;
  const full: Rect = { x: 0, y: 0, width: W, height: H };
  const plain = (width: number, height: number, region = full): GeometryPlan => ({
    region,
    size: { width, height },
    canvas: { width, height },
    offset: { x: 0, y: 0 },
  });
  if (w === undefined && h === undefined) return plain(W, H);

  // Within the box, aspect kept (the default, pad's inner image, and fill/thumb/scale with one side).
  let fw: number, fh: number;
  if (w !== undefined && h !== undefined) {
    const s = Math.min(w / W, h / H);
    fw = Math.min(w, Math.max(1, Math.round(W * s)));
    fh = Math.min(h, Math.max(1, Math.round(H * s)));
  } else if (w !== undefined) {
    fw = w;
    fh = Math.max(1, Math.round(H * w / W));
  } else {
    fh = h!;
    fw = Math.max(1, Math.round(W * h! / H));
  }
  const align = alignment(p.focus);

  switch (p.fit) {
    case "pad": {
      if (w === undefined || h === undefined) return plain(fw, fh);
      return {
        region: full,
        size: { width: fw, height: fh },
        canvas: { width: w, height: h },
        offset: { x: Math.floor((w - fw) / 2), y: Math.floor((h - fh) / 2) },
      };
    }
    case "scale":
      return plain(w ?? fw, h ?? fh);
    case "fill":
    case "thumb": {
      if (w === undefined || h === undefined) return plain(fw, fh);
      const s = Math.max(w / W, h / H);
      const rw = Math.min(W, w / s);
      const rh = Math.min(H, h / s);
      return plain(w, h, { x: (W - rw) * align.x, y: (H - rh) * align.y, width: rw, height: rh });
    }
    case "crop": {
      const cw = Math.min(w ?? W, W);
      const ch = Math.min(h ?? H, H);
      const region = {
        x: Math.round((W - cw) * align.x),
        y: Math.round((H - ch) * align.y),
        width: cw,
        height: ch,
      };
      return plain(cw, ch, region);
    }
    default:
      return plain(fw, fh);
  }
}

/** The format answered when fm is absent: the source's own. */
export function defaultOutputFormat(source: SniffedFormat): OutputFormat {
  return source === "jpeg" ? "jpg" : source;
}

const WHITE = { r: 255, g: 255, b: 255 };

/**
 * Transforms an image. With no transform parameter the original bytes come back untouched (any file,
 * image or not). Otherwise the source is sniffed and size-checked (against `limits`, default
 * MAX_INPUT_PIXELS and MAX_INPUT_DIMENSION) before decoding.
 * The output may be at most MAX_OUTPUT_PIXELS, checked before decoding.
 * Throws ImageError: too_large, unsupported_format, undecodable (ValidationFailed 422), codec_unavailable.
 */
export async function transformImage(
  bytes: Uint8Array,
  params: ImageParams,
  limits?: DecodeLimits,
): Promise<TransformResult> {
  const p = normalizeImageParams(params);
  const info = sniffImage(bytes);
  if (!hasImageTransform(p)) {
    return {
      bytes,
      contentType: info ? CONTENT_TYPES[info.format] : "application/octet-stream",
      transformed: false,
      ...(info ? { width: info.width, height: info.height } : {}),
    };
  }
  if (!info) {
    throw new ImageError(
      "unsupported_format",
      "This file is not a PNG, JPEG, GIF or WebP image, so it cannot be transformed; request it without parameters.",
    );
  }
  if (info.animated) {
    throw new ImageError(
      "unsupported_format",
      "Animated WebP images cannot be transformed; request it without parameters.",
      { format: "webp", animated: true },
    );
  }
  assertDecodable(info, limits);

  // Plan on the upright size the header gives; a JPEG may then decode at a reduced scale that still
  // covers the output, and the plan's source region is scaled to what was decoded.
  const turned = info.orientation >= 5;
  const uprightWidth = turned ? info.height : info.width;
  const uprightHeight = turned ? info.width : info.height;
  const plan = planGeometry(uprightWidth, uprightHeight, p);
  const made = plan.canvas.width * plan.canvas.height;
  if (made > MAX_OUTPUT_PIXELS) {
    throw new ImageError(
      "too_large",
      `This transform would make a ${plan.canvas.width}×${plan.canvas.height} image; at most ${MAX_OUTPUT_PIXELS} pixels (3840×2160) are made at once: ask for a smaller w or h.`,
      { width: plan.canvas.width, height: plan.canvas.height, maxPixels: MAX_OUTPUT_PIXELS },
    );
  }
  const need = Math.max(plan.size.width / plan.region.width, plan.size.height / plan.region.height);
  const atLeast = info.format === "jpeg" && need <= 0.5
    ? { width: Math.ceil(info.width * need), height: Math.ceil(info.height * need) }
    : undefined;
  const source = orient(await decodeImage(bytes, info.format, atLeast), info.orientation);
  if (source.width !== uprightWidth || source.height !== uprightHeight) {
    const fx = source.width / uprightWidth;
    const fy = source.height / uprightHeight;
    const r = plan.region;
    plan.region = { x: r.x * fx, y: r.y * fy, width: r.width * fx, height: r.height * fy };
  }
  const format = p.format ?? defaultOutputFormat(info.format);

  let image = resample(source, plan.region, plan.size.width, plan.size.height);
  if (plan.canvas.width !== plan.size.width || plan.canvas.height !== plan.size.height) {
    const fill = p.background ?? (format === "jpg" ? WHITE : null);
    const canvas = createBitmap(
      plan.canvas.width,
      plan.canvas.height,
      fill ? { ...fill, a: 255 } : undefined,
    );
    image = compositeOver(canvas, image, plan.offset.x, plan.offset.y);
  }
  if (p.radius !== undefined) {
    roundCorners(image, p.radius);
  }
  if (p.background) flatten(image, p.background);
  else if (format === "jpg") flatten(image, WHITE);

  const out = await encodeImage(image, format, p.quality);
  return {
    bytes: out,
    contentType: CONTENT_TYPES[format],
    transformed: true,
    width: image.width,
    height: image.height,
  };
}
