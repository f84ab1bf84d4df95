// Pure pixel operations on RGBA bitmaps (straight, not premultiplied, alpha): orientation, resampling,
// cropping, padding, rounded corners, flattening. No codecs here, so every step is testable on its own.
import type { Rgb } from "./params.ts";

export interface Bitmap {
  width: number;
  height: number;
  /** width * height * 4 bytes, RGBA, rows top to bottom. */
  data: Uint8Array;
}

export interface Rgba extends Rgb {
  a: number;
}

export function createBitmap(width: number, height: number, fill?: Rgba): Bitmap {
  const data = new Uint8Array(width * height * 4);
  if (fill && (fill.r | fill.g | fill.b | fill.a) !== 0) {
    const color = new Uint32Array(data.buffer);
    color.fill(packRgba(fill));
  }
  return { width, height, data };
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
function packRgba({ r, g, b, a }: Rgba): number {
  return LITTLE_ENDIAN ? (a << 24 | b << 16 | g << 8 | r) >>> 0 : (r << 24 | g << 16 | b << 8 | a) >>> 0;
}

/** Applies an EXIF orientation (1..8) so the bitmap is upright as viewers show it. */
export function orient(src: Bitmap, orientation: number): Bitmap {
  if (orientation <= 1 || orientation > 8) return src;
  const { width: w, height: h } = src;
  const swap = orientation >= 5;
  const ow = swap ? h : w;
  const oh = swap ? w : h;
  const s = new Uint32Array(src.data.buffer, src.data.byteOffset, w * h);
  const out = new Uint32Array(ow * oh);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let dx: number, dy: number;
      switch (orientation) {
        case 2:
          dx = w - 1 - x;
          dy = y;
          break; // mirror horizontally
        case 3:
          dx = w - 1 - x;
          dy = h - 1 - y;
          break; // rotate 180
        case 4:
          dx = x;
          dy = h - 1 - y;
          break; // mirror vertically
        case 5:
          dx = y;
          dy = x;
          break; // transpose
        case 6:
          dx = h - 1 - y;
          dy = x;
          break; // rotate 90 clockwise
        case 7:
          dx = h - 1 - y;
          dy = w - 1 - x;
          break; // transverse
        default:
          dx = y;
          dy = w - 1 - x;
          break; // 8: rotate 90 counter-clockwise
      }
      out[dy * ow + dx] = s[y * w + x];
    }
  }
  return { width: ow, height: oh, data: new Uint8Array(out.buffer) };
}

/** Copies an integer rectangle (clamped to the bitmap). */
export function crop(src: Bitmap, x: number, y: number, width: number, height: number): Bitmap {
  x = Math.max(0, Math.min(src.width - 1, Math.floor(x)));
  y = Math.max(0, Math.min(src.height - 1, Math.floor(y)));
  width = Math.max(1, Math.min(src.width - x, Math.floor(width)));
  height = Math.max(1, Math.min(src.height - y, Math.floor(height)));
  if (x === 0 && y === 0 && width === src.width && height === src.height) return src;
  const out = new Uint8Array(width * height * 4);
  for (let row = 0; row < height; row++) {
    const from = ((y + row) * src.width + x) * 4;
    out.set(src.data.subarray(from, from + width * 4), row * width * 4);
  }
  return { width, height, data: out };
}

// Keys' cubic convolution kernel (a = -0.5, "Catmull-Rom"), support 2.
function cubic(t: number): number {
  t = Math.abs(t);
  if (t < 1) return (1.5 * t - 2.5) * t * t + 1;
  if (t < 2) return ((-0.5 * t + 2.5) * t - 4) * t + 2;
  return 0;
}

interface Taps {
  start: Int32Array;
  count: Int32Array;
  weights: Float32Array;
  stride: number;
}

/** Filter taps mapping `regionSize` source pixels starting at `regionStart` onto `dstSize` pixels. */
function taps(srcSize: number, regionStart: number, regionSize: number, dstSize: number): Taps {
  const scale = regionSize / dstSize;
  const stretch = Math.max(1, scale); // widen the kernel when shrinking, so every source pixel counts
  const support = 2 * stretch;
  const stride = Math.ceil(support) * 2 + 1;
  const start = new Int32Array(dstSize);
  const count = new Int32Array(dstSize);
  const weights = new Float32Array(dstSize * stride);
  for (let i = 0; i < dstSize; i++) {
    const center = regionStart + (i + 0.5) * scale; // continuous coordinate; pixel j covers [j, j + 1)
    const lo = Math.max(0, Math.floor(center - support));
    const hi = Math.min(srcSize - 1, Math.ceil(center + support), lo + stride - 1);
    let sum = 0;
    let n = 0;
    for (let j = lo; j <= hi; j++) {
      const w = cubic((j + 0.5 - center) / stretch);
      weights[i * stride + n++] = w;
      sum += w;
    }
    if (sum !== 0) { for (let k = 0; k < n; k++) weights[i * stride + k] /= sum; }
    start[i] = lo;
    count[i] = n;
  }
  return { start, count, weights, stride };
}

/**
 * Resamples the region (fractional bounds allowed) of `src` onto a `width`×`height` bitmap with a
 * separable bicubic filter, in premultiplied alpha so transparent pixels never bleed their colour.
 * Memory stays small: horizontally filtered source rows are made on demand and kept only while the
 * vertical filter still needs them.
 */
export function resample(
  src: Bitmap,
  region: { x: number; y: number; width: number; height: number },
  width: number,
  height: number,
): Bitmap {
  if (
    width === region.width && height === region.height && Number.isInteger(region.x) &&
    Number.isInteger(region.y) && Number.isInteger(region.width) && Number.isInteger(region.height)
  ) {
    return crop(src, region.x, region.y, width, height);
  }
  // A large reduction first averages k×k blocks (one cheap pass), so the bicubic filter that follows has
  // few taps: 6000×4000 to 400 wide costs about a tenth of filtering the whole way.
  const kx = Math.floor(region.width / width / 2);
  const ky = Math.floor(region.height / height / 2);
  if (kx >= 2 || ky >= 2) {
    const fx = Math.max(1, kx);
    const fy = Math.max(1, ky);
    const small = shrinkBox(src, fx, fy);
    const scaled = {
      x: region.x / fx,
      y: region.y / fy,
      width: region.width / fx,
      height: region.height / fy,
    };
    return resample(small, scaled, width, height);
  }
  const hx = taps(src.width, region.x, region.width, width);
  const vy = taps(src.height, region.y, region.height, height);
  const s = src.data;
  const sw = src.width;
  const rowLength = width * 4;

  // A horizontally filtered source row: per output column, sum(w·r·a), sum(w·g·a), sum(w·b·a), sum(w·a).
  const cache = new Map<number, Float32Array>();
  const spare: Float32Array[] = [];
  const cacheLimit = Math.max(vy.stride, 8);
  const hStart = hx.start;
  const hCount = hx.count;
  const hWeights = hx.weights;
  const hStride = hx.stride;
  const row = (j: number): Float32Array => {
    const hit = cache.get(j);
    if (hit) return hit;
    const out = spare.pop() ?? new Float32Array(rowLength);
    const base = j * sw * 4;
    for (let x = 0, o = 0; x < width; x++, o += 4) {
      let r = 0, g = 0, b = 0, a = 0;
      let p = base + hStart[x] * 4;
      const end = x * hStride + hCount[x];
      for (let k = x * hStride; k < end; k++, p += 4) {
        const wa = hWeights[k] * s[p + 3];
        r += s[p] * wa;
        g += s[p + 1] * wa;
        b += s[p + 2] * wa;
        a += wa;
      }
      out[o] = r;
      out[o + 1] = g;
      out[o + 2] = b;
      out[o + 3] = a;
    }
    if (cache.size < cacheLimit) cache.set(j, out);
    return out;
  };

  const out = new Uint8Array(width * height * 4);
  const acc = new Float32Array(rowLength);
  for (let y = 0; y < height; y++) {
    const first = vy.start[y];
    const n = vy.count[y];
    // Rows above this window are never needed again.
    for (const key of cache.keys()) {
      if (key < first) {
        spare.push(cache.get(key)!);
        cache.delete(key);
      }
    }
    acc.fill(0);
    for (let k = 0; k < n; k++) {
      const w = vy.weights[y * vy.stride + k];
      const line = row(first + k);
      for (let i = 0; i < rowLength; i++) acc[i] += w * line[i];
      if (!cache.has(first + k) && spare.length < 4) spare.push(line);
    }
    const o = y * rowLength;
    for (let i = 0; i < rowLength; i += 4) {
      const a = acc[i + 3];
      if (a <= 0.5) continue; // fully transparent: leave 0,0,0,0
      out[o + i] = clampByte(acc[i] / a);
      out[o + i + 1] = clampByte(acc[i + 1] / a);
      out[o + i + 2] = clampByte(acc[i + 2] / a);
      out[o + i + 3] = clampByte(a);
    }
  }
  return { width, height, data: out };
}

/** Averages kx×ky blocks (premultiplied, so transparent pixels carry no colour); edge blocks may be partial. */
export function shrinkBox(src: Bitmap, kx: number, ky: number): Bitmap {
  const { width: w, height: h, data: s } = src;
  const ow = Math.ceil(w / kx);
  const oh = Math.ceil(h / ky);
  const out = new Uint8Array(ow * oh * 4);
  const acc = new Float64Array(ow * 4);
  const count = new Float64Array(ow);
  for (let oy = 0; oy < oh; oy++) {
    acc.fill(0);
    count.fill(0);
    const y1 = Math.min(h, (oy + 1) * ky);
    for (let y = oy * ky; y < y1; y++) {
      let p = y * w * 4;
      for (let x = 0; x < w; x++, p += 4) {
        const o = ((x / kx) | 0) * 4;
        const a = s[p + 3];
        acc[o] += s[p] * a;
        acc[o + 1] += s[p + 1] * a;
        acc[o + 2] += s[p + 2] * a;
        acc[o + 3] += a;
        count[o >> 2]++;
      }
    }
    const row = oy * ow * 4;
    for (let ox = 0; ox < ow; ox++) {
      const o = ox * 4;
      const a = acc[o + 3];
      if (a === 0) continue;
      out[row + o] = clampByte(acc[o] / a);
      out[row + o + 1] = clampByte(acc[o + 1] / a);
      out[row + o + 2] = clampByte(acc[o + 2] / a);
      out[row + o + 3] = clampByte(a / count[ox]);
    }
  }
  return { width: ow, height: oh, data: out };
}

function clampByte(v: number): number {
  return v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v);
}

/** Draws `src` over `dst` at (x, y) with source-over compositing (in place on dst). */
export function compositeOver(dst: Bitmap, src: Bitmap, x: number, y: number): Bitmap {
  const d = dst.data;
  const s = src.data;
  for (let row = 0; row < src.height; row++) {
    const dy = y + row;
    if (dy < 0 || dy >= dst.height) continue;
    for (let col = 0; col < src.width; col++) {
      const dx = x + col;
      if (dx < 0 || dx >= dst.width) continue;
      const sp = (row * src.width + col) * 4;
      const dp = (dy * dst.width + dx) * 4;
      const sa = s[sp + 3];
      if (sa === 255) {
        d[dp] = s[sp];
        d[dp + 1] = s[sp + 1];
        d[dp + 2] = s[sp + 2];
        d[dp + 3] = 255;
      } else if (sa !== 0) {
        const da = d[dp + 3];
        const outA = sa + da * (255 - sa) / 255;
        for (let c = 0; c < 3; c++) {
          d[dp + c] = clampByte((s[sp + c] * sa + d[dp + c] * da * (255 - sa) / 255) / outA);
        }
        d[dp + 3] = clampByte(outA);
      }
    }
  }
  return dst;
}

/** Makes every pixel opaque by drawing the bitmap over a solid colour (in place). */
export function flatten(bmp: Bitmap, color: Rgb): Bitmap {
  const d = bmp.data;
  for (let p = 0; p < d.length; p += 4) {
    const a = d[p + 3];
    if (a === 255) continue;
    d[p] = clampByte((d[p] * a + color.r * (255 - a)) / 255);
    d[p + 1] = clampByte((d[p + 1] * a + color.g * (255 - a)) / 255);
    d[p + 2] = clampByte((d[p + 2] * a + color.b * (255 - a)) / 255);
    d[p + 3] = 255;
  }
  return bmp;
}

/** True when some pixel is not fully opaque. */
export function hasTransparency(bmp: Bitmap): boolean {
  const d = bmp.data;
  for (let p = 3; p < d.length; p += 4) if (d[p] !== 255) return true;
  return false;
}

function scaleAlpha(d: Uint8Array, p: number, coverage: number): void {
  if (coverage >= 1) return;
  d[p + 3] = coverage <= 0 ? 0 : Math.round(d[p + 3] * coverage);
}

/**
 * Rounds the corners (in place) by making what lies outside transparent, with one pixel of antialiasing.
 * A radius larger than half the shorter side is clamped; "max" cuts the inscribed ellipse (a circle for a
 * square image).
 */
export function roundCorners(bmp: Bitmap, radius: number | "max"): Bitmap {
  const { width: w, height: h, data: d } = bmp;
  if (radius === "max") {
    const a = w / 2;
    const b = h / 2;
    for (let y = 0; y < h; y++) {
      const py = y + 0.5 - b;
      for (let x = 0; x < w; x++) {
        const px = x + 0.5 - a;
        const f = (px * px) / (a * a) + (py * py) / (b * b);
        if (f < 0.81 && Math.min(a, b) >= 10) continue; // well inside
        const g = Math.sqrt(f);
        const grad = Math.hypot(px / (a * a), py / (b * b)) / (g || 1);
        const distance = grad > 0 ? (g - 1) / grad : -Math.min(a, b);
        scaleAlpha(d, (y * w + x) * 4, 0.5 - distance);
      }
    }
    return bmp;
  }
  const r = Math.min(radius, w / 2, h / 2);
  if (r <= 0) return bmp;
  const span = Math.ceil(r);
  for (let y = 0; y < span; y++) {
    for (let x = 0; x < span; x++) {
      const dx = r - (x + 0.5);
      const dy = r - (y + 0.5);
      if (dx <= 0 || dy <= 0) continue;
      const coverage = r - Math.hypot(dx, dy) + 0.5;
      if (coverage >= 1) continue;
      scaleAlpha(d, (y * w + x) * 4, coverage);
      scaleAlpha(d, (y * w + (w - 1 - x)) * 4, coverage);
      scaleAlpha(d, ((h - 1 - y) * w + x) * 4, coverage);
      scaleAlpha(d, ((h - 1 - y) * w + (w - 1 - x)) * 4, coverage);
    }
  }
  return bmp;
}
