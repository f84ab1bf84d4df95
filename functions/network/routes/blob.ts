// GET /blob/<member id>/<cid>: a blob behind an address signed for one hour (blobs.ts blobUrl).
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { signedBlob } from "../blobs.ts";
import { XrpcError } from "../xrpc/errors.ts";

export function blobRoute(ctx: FunctionContext) {
  return async (c: Context) => {
    const found = await signedBlob(ctx, c.req.param("person") ?? "", c.req.param("cid") ?? "", new URL(c.req.url).searchParams, ctx.clock.now());
    if (!found) throw new XrpcError(404, "BlobNotFound", "No such blob, or its address has expired.");
    return new Response(found.bytes as BodyInit, {
      headers: {
        "content-type": found.contentType,
        "content-length": String(found.size),
        "cache-control": "private, max-age=3600",
        "x-content-type-options": "nosniff",
        "content-security-policy": "default-src 'none'; sandbox",
      },
    });
  };
}
