// GET /reference (public /api): the API reference page, and /reference/scalar.js, its renderer. Shown
// while the api module is on; otherwise both are NotFound like the rest of the content API.
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { sha256Hex } from "../../../shared/ids.ts";
import { moduleOn, readSiteSettings } from "../../../shared/site.ts";
import { apiReferencePage, rendererBundle } from "../pages/api-reference.ts";
import { notFound } from "../envelope.ts";
import { matchesEtag } from "../respond.ts";

/** Where the page is, and where it loads its renderer from, on the site's public origin. */
export const REFERENCE_PATH = "/api";
export const RENDERER_PATH = "/api/reference/scalar.js";

async function requireApiModule(ctx: FunctionContext) {
  const site = await readSiteSettings(ctx.sql);
  if (!site || !moduleOn(site, "api")) throw notFound();
  return site;
}

export function referencePageHandler(ctx: FunctionContext) {
  return async (c: Context) => {
    const site = await requireApiModule(ctx);
    const origin = ctx.config.publicUrl;
    const html = apiReferencePage({
      title: `${site.name} API reference`,
      documentUrl: `${origin}/openapi.json`,
      scriptUrl: `${origin}${RENDERER_PATH}`,
    });
    return c.html(html, 200, { "Cache-Control": "public, max-age=60" });
  };
}

export function rendererHandler(ctx: FunctionContext) {
  return async (c: Context) => {
    await requireApiModule(ctx);
    const { version, script } = await rendererBundle();
    const etag = `"${(await sha256Hex(`scalar-api-reference@${version}`)).slice(0, 32)}"`;
    const headers = {
      "Content-Type": "application/javascript; charset=utf-8",
      "Cache-Control": "public, max-age=3600",
      "ETag": etag,
    };
    if (matchesEtag(c.req.header("if-none-match"), etag)) return new Response(null, { status: 304, headers });
    return new Response(script as BodyInit, { status: 200, headers });
  };
}
