// GET /media/:space/:asset/:hash/:file — the images door. Originals as stored; transforms cached in
// storage under the asset's content hash and the canonical parameters, so each is computed once:
// identical requests arriving together share one computation, a process computes a few at a time (the
// rest wait their turn), one address has one computed at a time, each is bounded in the pixels it makes
// (images/params.ts MAX_OUTPUT_PIXELS), and each address may start only so many computations (the cache answers it
// without limit). Each cached transform is listed (store.ts), so the transforms of a file no asset has
// any more are removed, a few after every transform computed.
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { admit, type RateWindow } from "../../../shared/gate.ts";
import { clientAddress } from "../../../shared/http.ts";
import { sha256Hex } from "../../../shared/ids.ts";
import { moduleOn, readSiteSettings, spaceId } from "../../../shared/site.ts";
import { presentsServiceKey } from "../../../shared/service-key.ts";
import { badQuery, ContentError, notFound } from "../envelope.ts";
import {
  hasImageTransform,
  imageCacheKey,
  ImageError,
  type ImageParams,
  parseImageParams,
  transformImage,
  type TransformResult,
} from "../images/mod.ts";
import { matchesEtag } from "../respond.ts";
import { assetByStorage, type AssetRow } from "../store/entries.ts";
import { forgetImageVariant, orphanedImageVariants, rememberImageVariant } from "../store/images.ts";

export const IMAGE_CACHE_CONTROL = "public, max-age=31536000, immutable";
export const IMAGE_CACHE_BUCKET = "image-cache";
export const MEDIA_BUCKET = "media";

/**
 * Transforms one address may have computed (cached answers do not count): a large gallery's worth in a
 * minute, a site's in an hour.
 */
export const IMAGE_TRANSFORM_LIMITS: RateWindow[] = [
  { seconds: 3600, limit: 3000 },
  { seconds: 60, limit: 300 },
];

/** Transforms one process computes at once; each takes a core for a fraction of a second. */
export const IMAGE_TRANSFORMS_AT_ONCE = 2;

/** Transforms one address has computed at once in a process; its others wait behind them. */
export const IMAGE_TRANSFORMS_PER_ADDRESS = 1;

/** Cached transforms of gone files removed after each transform computed. */
const SWEEP_BATCH = 50;

export interface MediaOptions {
  /** per-address limits on transforms computed (tests use small ones) */
  transformLimits?: RateWindow[];
  /** the transform itself (tests count its calls) */
  transform?: (bytes: Uint8Array, params: ImageParams) => Promise<TransformResult>;
  /** transforms computed at once (IMAGE_TRANSFORMS_AT_ONCE) */
  atOnce?: number;
}

export function mediaHandler(ctx: FunctionContext, options: MediaOptions = {}) {
  const limits = options.transformLimits ?? IMAGE_TRANSFORM_LIMITS;
  const transform = options.transform ?? transformImage;
  // transforms being computed in this process, by cache key: an identical request joins instead of repeating it
  const computing = new Map<string, Promise<TransformResult>>();
  const turns = takingTurns(options.atOnce ?? IMAGE_TRANSFORMS_AT_ONCE);
  const ownTurn = turnsPerKey(IMAGE_TRANSFORMS_PER_ADDRESS);

  const compute = async (
    c: Context,
    asset: AssetRow,
    params: ImageParams,
    variant: string,
    cacheKey: string,
  ) => {
    const admission = await admit(ctx.sql, {
      api: "images",
      clientAddress: clientAddress(c),
      windows: limits,
      scale: ctx.config.rateLimitScale,
      now: ctx.clock.now(),
    });
    if (admission.exceeded) {
      const wait = String(admission.exceeded.resetIn);
      throw new ContentError(
        "RateLimitExceeded",
        "Too many images transformed from this address; cached ones are still served.",
        undefined,
        {
          "Retry-After": wait,
        },
      );
    }
    // one computation at a time per address, so a client asking for many keeps at most one of the
    // process's turns and everyone else is still served
    const result = await ownTurn(clientAddress(c), () => turns(async () => {
      const original = await ctx.storage.get(MEDIA_BUCKET, asset.storage_key);
      if (!original) throw notFound("Asset", asset.id);
      try {
        return await transform(original.bytes, params);
      } catch (error) {
        if (error instanceof ImageError) throw new ContentError(error.errorId, error.message, error.details);
        throw error;
      }
    }));
    await ctx.storage.put(IMAGE_CACHE_BUCKET, cacheKey, result.bytes, result.contentType);
    await rememberImageVariant(ctx.sql, asset.content_hash, variant);
    sweepImageCache(ctx, SWEEP_BATCH).catch((error) => console.error("image cache sweep:", error));
    return result;
  };

  return async (c: Context) => {
    const site = await readSiteSettings(ctx.sql);
    if (!site || !moduleOn(site, "api") || c.req.param("space") !== spaceId(site)) {
      throw notFound("Space", c.req.param("space"));
    }
    const parsed = parseImageParams(new URL(c.req.url).searchParams);
    if (!parsed.ok) throw badQuery(parsed.message, parsed.details);
    const asset = await assetByStorage(ctx.sql, c.req.param("asset") ?? "");
    if (!asset || asset.content_hash !== c.req.param("hash")) throw notFound("Asset", c.req.param("asset"));

    const transformed = hasImageTransform(parsed.params) && asset.content_type.startsWith("image/");
    const variant = transformed ? imageCacheKey(parsed.params) : "original";
    const etag = `"${asset.content_hash}-${(await sha256Hex(variant)).slice(0, 16)}"`;
    const headers = {
      "Cache-Control": IMAGE_CACHE_CONTROL,
      "ETag": etag,
      ...contentGuard(asset.content_type),
    };
    if (matchesEtag(c.req.header("if-none-match"), etag)) return new Response(null, { status: 304, headers });

    if (!transformed) {
      const original = await ctx.storage.get(MEDIA_BUCKET, asset.storage_key);
      if (!original) throw notFound("Asset", asset.id);
      return new Response(original.bytes as BodyInit, {
        headers: { ...headers, "Content-Type": asset.content_type },
      });
    }
    const cacheKey = `${asset.content_hash}/${variant}`;
    const cached = await ctx.storage.get(IMAGE_CACHE_BUCKET, cacheKey);
    if (cached) {
      return new Response(cached.bytes as BodyInit, {
        headers: { ...headers, "Content-Type": cached.contentType, "X-Image-Cache": "hit" },
      });
    }
    let work = computing.get(cacheKey);
    if (!work) {
      work = compute(c, asset, parsed.params, variant, cacheKey).finally(() => computing.delete(cacheKey));
      computing.set(cacheKey, work);
    }
    const result = await work;
    return new Response(result.bytes as BodyInit, {
      headers: { ...headers, "Content-Type": result.contentType, "X-Image-Cache": "miss" },
    });
  };
}

/**
 * The library is served from the site's own origin: a file a browser would run as a page (HTML, SVG, XML)
 * is sandboxed, so an uploaded one cannot act as the site (read its storage, call its APIs as the visitor).
 * Pictures, sound, video, PDF and plain text are left as they are; no type is ever sniffed.
 */
function contentGuard(contentType: string): Record<string, string> {
  const inert = /^(image\/(?!svg)|audio\/|video\/|application\/pdf$|text\/plain\b)/i.test(contentType);
  return inert
    ? { "X-Content-Type-Options": "nosniff" }
    : { "X-Content-Type-Options": "nosniff", "Content-Security-Policy": "sandbox" };
}

/** Runs the tasks given to it at most `atOnce` at a time, the others in the order they came. */
function takingTurns(atOnce: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= atOnce) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await task();
    } finally {
      // the turn passes straight to the next in line, or is given back
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

/** takingTurns for each key apart (a client's address), forgotten once a key has nothing running. */
function turnsPerKey(atOnce: number) {
  const lines = new Map<string, { turns: ReturnType<typeof takingTurns>; users: number }>();
  return async <T>(key: string, task: () => Promise<T>): Promise<T> => {
    let line = lines.get(key);
    if (!line) lines.set(key, line = { turns: takingTurns(atOnce), users: 0 });
    line.users++;
    try {
      return await line.turns(task);
    } finally {
      if (--line.users === 0) lines.delete(key);
    }
  };
}

/**
 * Removes up to `limit` cached transforms of files no asset has any more, from storage and from the
 * list; answers how many went. The object goes first: a row left behind is found again next time.
 */
export async function sweepImageCache(
  ctx: Pick<FunctionContext, "sql" | "storage">,
  limit = 500,
): Promise<number> {
  const orphans = await orphanedImageVariants(ctx.sql, limit);
  for (const { contentHash, variant } of orphans) {
    await ctx.storage.delete(IMAGE_CACHE_BUCKET, `${contentHash}/${variant}`);
    await forgetImageVariant(ctx.sql, contentHash, variant);
  }
  return orphans.length;
}

/** The most cached transforms one sweep call removes, so a call stays within a function's time limit. */
const SWEEP_CALL_LIMIT = 500;

/** POST /sweep-image-cache: service key only (pg_cron's daily call); answers how many went. */
export function sweepImageCacheHandler(ctx: FunctionContext) {
  return async (c: Context) => {
    if (!(await presentsServiceKey(ctx, c.req.raw))) {
      throw new ContentError("AccessTokenInvalid", "The sweep needs the service key.");
    }
    return c.json({ removed: await sweepImageCache(ctx, SWEEP_CALL_LIMIT) }, 200);
  };
}
