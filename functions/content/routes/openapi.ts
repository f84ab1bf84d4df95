// GET /openapi.json and /content/v1/openapi.json: the OpenAPI 3.1 document, no key needed.
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { deliveryIsPublic, moduleSwitches, readSiteSettings, spaceId } from "../../../shared/site.ts";
import { ContentError } from "../envelope.ts";
import { modelsFor } from "../models.ts";
import { buildOpenApiDocument, SERVED_SECTIONS } from "../../../shared/openapi/document.ts";
import { shapeContentType } from "../domain/shape.ts";

export function openApiHandler(ctx: FunctionContext) {
  return async (c: Context) => {
    const site = await readSiteSettings(ctx.sql);
    if (!site) throw new ContentError("ServerError", "The site has not been imported yet.");
    const space = spaceId(site);
    const models = [...(await modelsFor(ctx.sql, site)).values()];
    const document = buildOpenApiDocument({
      site: { name: site.name, slug: site.slug },
      space,
      publicUrl: ctx.config.publicUrl,
      functionsUrl: ctx.config.functionsUrl,
      modules: moduleSwitches(site),
      contentTypes: models.map((m) => shapeContentType(m, space)),
      locales: site.locales,
      api: { public: deliveryIsPublic(site) },
    }, SERVED_SECTIONS);
    return c.json(document, 200, { "Cache-Control": "public, max-age=60" });
  };
}
