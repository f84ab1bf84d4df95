// GET /media/:space/:asset/:hash/:file — the images door. Originals as stored; transforms cached in
// storage under the asset's content hash and the canonical parameters, so each is computed once.
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { sha256Hex } from "../../../shared/ids.ts";
import { moduleOn, readSiteSettings, spaceId } from "../../../shared/site.ts";
import { badQuery, ContentError, notFound } from "../envelope.ts";
import { hasImageTransform, ImageError, imageCacheKey, parseImageParams, transformImage } from "../images/mod.ts";
import { matchesEtag } from "../respond.ts";
import { assetByStorage } from "../store.ts";

export const IMAGE_CACHE_CONTROL = "public, max-age=31536000, immutable";
export const IMAGE_CACHE_BUCKET = "image-cache";
export const MEDIA_BUCKET = "media";

export function mediaHandler(ctx: FunctionContext) {
  return async (c: Context) => {
    const site = await readSiteSettings(ctx.sql);
    if (!site || !moduleOn(site, "api") || c.req.param("space") !== spaceId(site)) {
      throw notFound("Space", c.req.param("space"));
    }
    const parsed = parseImageParams(new URL(c.req.url).searchParams);
    if (!parsed.ok) throw badQuery(parsed.message, parsed.details);
    const asset = await assetByStorage(ctx.sql, c.req.param("asset") ?? "");
    if (!asset || asset.content_hash !== c.req.param("hash")) throw notFound("Asset", c.req.param("asset"));

    const transform = hasImageTransform(parsed.params) && asset.content_type.startsWith("image/");
    const variant = transform ? imageCacheKey(parsed.params) : "original";
    const etag = `"${asset.content_hash}-${(await sha256Hex(variant)).slice(0, 16)}"`;
    const headers = { "Cache-Control": IMAGE_CACHE_CONTROL, "ETag": etag };
    if (matchesEtag(c.req.header("if-none-match"), etag)) return new Response(null, { status: 304, headers });

    if (!transform) {
      const original = await ctx.storage.get(MEDIA_BUCKET, asset.storage_key);
      if (!original) throw notFound("Asset", asset.id);
      return new Response(original.bytes as BodyInit, { headers: { ...headers, "Content-Type": asset.content_type } });
    }
    const cacheKey = `${asset.content_hash}/${variant}`;
    const cached = await ctx.storage.get(IMAGE_CACHE_BUCKET, cacheKey);
    if (cached) {
      return new Response(cached.bytes as BodyInit, { headers: { ...headers, "Content-Type": cached.contentType, "X-Image-Cache": "hit" } });
    }
    const original = await ctx.storage.get(MEDIA_BUCKET, asset.storage_key);
    if (!original) throw notFound("Asset", asset.id);
    let result;
    try {
      result = await transformImage(original.bytes, parsed.params);
    } catch (error) {
      if (error instanceof ImageError) throw new ContentError(error.errorId, error.message, error.details);
      throw error;
    }
    await ctx.storage.put(IMAGE_CACHE_BUCKET, cacheKey, result.bytes, result.contentType);
    return new Response(result.bytes as BodyInit, {
      headers: { ...headers, "Content-Type": result.contentType, "X-Image-Cache": "miss" },
    });
  };
}
