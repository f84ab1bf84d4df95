// Images bench: a camera-sized JPEG (12 megapixels, generated here: no download) resized to 800 wide WebP.
// The site's image door cold (through HTTP: read the original from storage, transform, store, answer) and
// cached, the site's transform alone in this process, and sharp (libvips, npm) doing the same resize in a
// Node 22 process of its own, all in the same run. Goals (issue 15): cold within 3× of sharp, cached ≥ 50×
// faster than cold. sharp is a reference peer: installed on first use, never in a quick run.
import { Image } from "imagescript";
import type { Sql } from "../shared/db.ts";
import type { Storage } from "../shared/storage.ts";
import { sha256Hex } from "../shared/ids.ts";
import { DEFAULT_QUALITY, imageCacheKey, transformImage } from "../functions/content/images/mod.ts";
import { IMAGE_CACHE_BUCKET, MEDIA_BUCKET } from "../functions/content/routes/media.ts";
import { forgetImageVariant } from "../functions/content/store/images.ts";
import { benchSize, referenceWanted } from "./size.ts";
import { installNodePackages, PEERS_DIR, runNodeScript } from "./peers/node.ts";
import { median } from "./stats.ts";

export const SHARP_PACKAGES = ["sharp@0.35.5"];
const MEGAPIXELS = benchSize("BENCH_IMAGE_MEGAPIXELS", 12, 1);
const COLD_RUNS = benchSize("BENCH_IMAGE_COLD_RUNS", 12, 2);
const CACHED_RUNS = benchSize("BENCH_IMAGE_CACHED_RUNS", 60, 3);
const WIDTH = 800;

const say = (line: string) => console.log(`  images: ${line}`);

/**
 * A photograph's worth of detail at 4:3: smooth light across the frame, shapes, and sensor-like noise, so
 * the JPEG is as large and as hard to code as a camera's (a flat image would flatter every codec).
 */
async function cameraJpeg(megapixels: number): Promise<{ bytes: Uint8Array; width: number; height: number }> {
  const width = Math.round(Math.sqrt(megapixels * 1e6 * 4 / 3));
  const height = Math.round(width * 3 / 4);
  const image = new Image(width, height);
  const px = image.bitmap;
  let seed = 0x2545f491;
  for (let y = 0, o = 0; y < height; y++) {
    const fy = y / height;
    for (let x = 0; x < width; x++, o += 4) {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      const noise = (seed & 31) - 16;
      const fx = x / width;
      const shape = 60 * Math.sin(fx * 19 + Math.sin(fy * 7) * 3) * Math.cos(fy * 13);
      px[o] = 40 + 170 * fx + shape + noise;
      px[o + 1] = 60 + 140 * fy - shape / 2 + noise;
      px[o + 2] = 120 + 90 * Math.sin(fx * 5 + fy * 4) + noise;
      px[o + 3] = 255;
    }
  }
  return { bytes: await image.encodeJPEG(90), width, height };
}

export async function benchImages(
  sql: Sql,
  storage: Storage,
  baseUrl: string,
): Promise<Record<string, unknown>> {
  console.log(
    `bench: images, a ${MEGAPIXELS}-megapixel JPEG → ${WIDTH} wide WebP, the site's door vs sharp (libvips)`,
  );
  const started = performance.now();
  const photo = await cameraJpeg(MEGAPIXELS);
  say(
    `generated ${photo.width}×${photo.height}, ${(photo.bytes.length / 1e6).toFixed(1)} MB, in ${
      Math.round(performance.now() - started)
    } ms`,
  );

  // the photo as an asset of the site, its bytes where the door reads originals
  const hash = await sha256Hex(photo.bytes);
  const id = "bench-camera-photo";
  const fileName = "camera-photo.jpg";
  const storageKey = `media/bench/${hash}/${fileName}`;
  await storage.put(MEDIA_BUCKET, storageKey, photo.bytes, "image/jpeg");
  await sql`
    insert into public.content_assets (id, path, file_name, content_type, size, width, height, title, content_hash, storage_key)
    values (${id}, ${storageKey}, ${fileName}, 'image/jpeg', ${photo.bytes.length}, ${photo.width}, ${photo.height},
            ${sql.json({ "en-US": "Bench camera photo" })}, ${hash}, ${storageKey})
    on conflict (id) do update set path = excluded.path, size = excluded.size, width = excluded.width,
      height = excluded.height, content_hash = excluded.content_hash, storage_key = excluded.storage_key`;
  const [{ slug, config }] = await sql<
    { slug: string; config: { api?: { space?: string } } }[]
  >`select slug, config from public.site_settings`;
  const url = `${baseUrl}/api/media/${
    config?.api?.space ?? slug
  }/${id}/${hash}/${fileName}?w=${WIDTH}&fm=webp`;
  const variant = imageCacheKey({ width: WIDTH, format: "webp" });
  const forget = async () => {
    await storage.delete(IMAGE_CACHE_BUCKET, `${hash}/${variant}`);
    await forgetImageVariant(sql, hash, variant);
  };

  const door = async (expect: "miss" | "hit") => {
    const t0 = performance.now();
    const res = await fetch(url);
    const body = new Uint8Array(await res.arrayBuffer());
    const ms = performance.now() - t0;
    if (!res.ok) {
      throw new Error(`image door: HTTP ${res.status} ${new TextDecoder().decode(body).slice(0, 200)}`);
    }
    if ((res.headers.get("x-image-cache") ?? "miss") !== expect) {
      throw new Error(`image door: expected a cache ${expect}`);
    }
    return { ms, bytes: body.length };
  };

  // cold: the cached transform removed before each request, so each computes it again
  const cold: number[] = [];
  let outputBytes = 0;
  await forget();
  await door("miss"); // warm-up: codecs loaded
  for (let i = 0; i < COLD_RUNS; i++) {
    await forget();
    const run = await door("miss");
    cold.push(run.ms);
    outputBytes = run.bytes;
  }
  say(`door cold: median ${median(cold).toFixed(1)} ms over ${COLD_RUNS} (${outputBytes} bytes out)`);
  const cached: number[] = [];
  for (let i = 0; i < CACHED_RUNS; i++) cached.push((await door("hit")).ms);
  say(`door cached: median ${median(cached).toFixed(2)} ms over ${CACHED_RUNS}`);

  // the transform alone, in this process: what sharp's figure compares with most directly
  const alone: number[] = [];
  for (let i = 0; i < COLD_RUNS; i++) {
    const t0 = performance.now();
    await transformImage(photo.bytes, { width: WIDTH, format: "webp" });
    alone.push(performance.now() - t0);
  }
  say(`transform alone: median ${median(alone).toFixed(1)} ms over ${COLD_RUNS}`);

  const site = {
    door_cold_ms: median(cold),
    door_cached_ms: median(cached),
    transform_ms: median(alone),
    output_bytes: outputBytes,
    cold_vs_cached: median(cold) / median(cached),
  };
  const base = {
    name:
      `images: ${MEGAPIXELS} MP JPEG → ${WIDTH} wide WebP (q ${DEFAULT_QUALITY}), door cold and cached vs sharp`,
    input: { width: photo.width, height: photo.height, bytes: photo.bytes.length },
    runs: { cold: COLD_RUNS, cached: CACHED_RUNS },
    sitewire: site,
    goal: "door cold ≤ 3× sharp; cached ≥ 50× faster than cold",
  };
  if (!referenceWanted()) {
    return { ...base, sharp: null, note: "sharp skipped (BENCH_REFERENCE=off, or a quick run)" };
  }
  try {
    const install = await installNodePackages(
      `${PEERS_DIR}sharp/`,
      SHARP_PACKAGES,
      (l) => say(`sharp: ${l}`),
    );
    const input = await Deno.makeTempFile({ suffix: ".jpg" });
    await Deno.writeFile(input, photo.bytes);
    try {
      const figures = await runNodeScript<{ samples: number[]; bytes: number; threads: number }>(
        install,
        new URL("./peers/sharp.mjs", import.meta.url),
        {
          SHARP_INPUT: input,
          SHARP_WIDTH: String(WIDTH),
          SHARP_QUALITY: String(DEFAULT_QUALITY),
          SHARP_RUNS: String(COLD_RUNS),
        },
      );
      const sharpMs = median(figures.samples);
      say(
        `sharp: median ${
          sharpMs.toFixed(1)
        } ms over ${COLD_RUNS} (${figures.bytes} bytes out, ${figures.threads} libvips threads)`,
      );
      return {
        ...base,
        sharp: {
          ms: sharpMs,
          output_bytes: figures.bytes,
          threads: figures.threads,
          package: SHARP_PACKAGES[0],
        },
        ratios: {
          door_cold_vs_sharp: site.door_cold_ms / sharpMs,
          transform_vs_sharp: site.transform_ms / sharpMs,
          cold_vs_cached: site.cold_vs_cached,
        },
      };
    } finally {
      await Deno.remove(input).catch(() => {});
    }
  } catch (error) {
    const note = `sharp not measured: ${
      (error instanceof Error ? error.message : String(error)).split("\n")[0]
    }`;
    say(note);
    return { ...base, sharp: null, note };
  }
}
