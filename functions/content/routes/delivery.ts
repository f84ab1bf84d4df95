// Delivery and Preview reads: space, environment, locales, content types, entries, assets.
import { type Context, Hono, type MiddlewareHandler } from "hono";
import type { AnswerCache } from "../../../shared/answer-cache.ts";
import type { FunctionContext } from "../../../shared/context.ts";
import { localeChain } from "../../../shared/site.ts";
import { answerScope, type ContentEnv } from "../access.ts";
import { collection, ContentError, gitModeRefusal, notFound } from "../envelope.ts";
import { resolveIncludes } from "../domain/includes.ts";
import {
  parseAssetsQuery,
  parseEntriesQuery,
  parseLocale,
  parsePage,
  parseSelect,
  withheldBodies,
} from "../domain/entry-query.ts";
import { shapeAsset, shapeContentType, shapeEntry, shapeLocale, type ShapeContext } from "../domain/shape.ts";
import { modelsFor } from "../models.ts";
import { sendAnswer, sendJson } from "../respond.ts";
import { assetsByIds, entriesByIds, queryAssets, queryEntries } from "../store/entries.ts";

export function spaceOf(c: Context<ContentEnv>): string {
  return c.get("site").config?.api?.space ?? c.get("site").slug;
}

export async function shapeContext(
  ctx: FunctionContext,
  c: Context<ContentEnv>,
  locale: string,
): Promise<ShapeContext> {
  const site = c.get("site");
  return {
    site,
    space: spaceOf(c),
    mediaHost: new URL(ctx.config.publicUrl).host,
    models: await modelsFor(ctx.sql, site),
    locale,
    gated: c.get("access").gated,
  };
}

function siteLocales(c: Context<ContentEnv>): string[] {
  const locales = c.get("site").locales;
  const first = locales.find((l) => l.default) ?? locales[0];
  return [first.code, ...locales.filter((l) => l !== first).map((l) => l.code)];
}

/**
 * The request an answer is kept under: what the caller's key may read (stage, gated bodies; the
 * version of the stage is the cache's own) and the address with its query (space, environment, locale
 * and every other parameter), less a key presented in the query.
 */
function answerKey(c: Context<ContentEnv>): string {
  const access = c.get("access");
  const address = c.req.url;
  const queryAt = address.indexOf("?");
  let query = queryAt < 0 ? "" : address.slice(queryAt);
  // only a key in the query needs the query parsed (most callers send theirs in a header)
  if (query.includes("access_token")) {
    const url = new URL(address);
    url.searchParams.delete("access_token");
    query = url.search;
  }
  return `${access.gated ? "gated" : "open"} ${c.req.path}${query}`;
}

/**
 * Delivery and Preview answers change only when content does: a GET is answered from the answers kept
 * by an earlier identical request of the same version (shared/answer-cache.ts), else built and kept.
 */
function keptAnswers(answers: AnswerCache): MiddlewareHandler<ContentEnv> {
  return async (c, next) => {
    const access = c.get("access");
    const version = access.answerVersion;
    if (c.req.method !== "GET" || access.management || version === undefined) return await next();
    const scope = answerScope(access.stage);
    const key = answerKey(c);
    const kept = answers.get(scope, version, key);
    if (kept) {
      c.res = sendAnswer(c, kept);
      return;
    }
    await next();
    const built = c.get("answer");
    if (built && c.res.status < 400) answers.put(scope, version, key, built);
  };
}

/** Routes below /spaces/:space (with or without /environments/master), mounted by app.ts. */
export function deliveryRoutes(ctx: FunctionContext, answers: AnswerCache) {
  const app = new Hono<ContentEnv>({ strict: false });
  app.use("*", keptAnswers(answers));

  app.get("/", (c) => {
    const site = c.get("site");
    return sendJson(c, {
      sys: { type: "Space", id: spaceOf(c) },
      name: site.name,
      locales: site.locales.map((l) => ({ code: l.code, name: l.name, default: l.default, fallbackCode: l.fallbackCode })),
    });
  });

  app.get("/locales", (c) => {
    const page = parsePage(new URL(c.req.url).searchParams);
    const items = c.get("site").locales.map(shapeLocale);
    return sendJson(c, collection(items.slice(page.skip, page.skip + page.limit), { total: items.length, ...page }));
  });

  app.get("/content_types", async (c) => {
    const page = parsePage(new URL(c.req.url).searchParams);
    const models = [...(await modelsFor(ctx.sql, c.get("site"))).values()];
    const items = models.slice(page.skip, page.skip + page.limit).map((m) => shapeContentType(m, spaceOf(c)));
    return sendJson(c, collection(items, { total: models.length, ...page }));
  });

  app.get("/content_types/:id", async (c) => {
    const model = (await modelsFor(ctx.sql, c.get("site"))).get(c.req.param("id"));
    if (!model) throw notFound("ContentType", c.req.param("id"));
    return sendJson(c, shapeContentType(model, spaceOf(c)));
  });

  app.get("/entries", async (c) => {
    const site = c.get("site");
    const models = await modelsFor(ctx.sql, site);
    const query = parseEntriesQuery(new URL(c.req.url).searchParams, { locales: siteLocales(c), models });
    // a caller without gated access finds entries only by what it may read of them
    if (!c.get("access").gated) query.withheld = withheldBodies(models);
    const chain = localeChain(site, query.locale === "*" ? siteLocales(c)[0] : query.locale);
    const stage = c.get("access").stage;
    const { rows, total } = await queryEntries(ctx.sql, stage, query, chain);
    const shape = { ...(await shapeContext(ctx, c, query.locale)), select: query.select };
    const items = rows.map((row) => ({ row, shaped: shapeEntry(row, shape) }));
    const included = await resolveIncludes(ctx.sql, stage, items, query.include, { ...shape, select: undefined });
    return sendJson(
      c,
      collection(items.map((i) => i.shaped), { total, skip: query.skip, limit: query.limit }, {
        includes: { Entry: included.Entry, Asset: included.Asset },
        errors: included.errors,
      }),
    );
  });

  app.get("/entries/:id", async (c) => {
    const params = new URL(c.req.url).searchParams;
    const locale = parseLocale(params.get("locale"), siteLocales(c));
    const [row] = await entriesByIds(ctx.sql, c.get("access").stage, [c.req.param("id")]);
    if (!row) throw notFound("Entry", c.req.param("id"));
    const shape = { ...(await shapeContext(ctx, c, locale)), select: parseSelect(params.get("select")) };
    return sendJson(c, shapeEntry(row, shape));
  });

  app.get("/assets", async (c) => {
    const site = c.get("site");
    const query = parseAssetsQuery(new URL(c.req.url).searchParams, {
      locales: siteLocales(c),
      models: await modelsFor(ctx.sql, site),
    });
    const chain = localeChain(site, query.locale === "*" ? siteLocales(c)[0] : query.locale);
    const { rows, total } = await queryAssets(ctx.sql, query, chain);
    const shape = { ...(await shapeContext(ctx, c, query.locale)), select: query.select };
    return sendJson(c, collection(rows.map((r) => shapeAsset(r, shape)), { total, skip: query.skip, limit: query.limit }));
  });

  app.get("/assets/:id", async (c) => {
    const params = new URL(c.req.url).searchParams;
    const locale = parseLocale(params.get("locale"), siteLocales(c));
    const [row] = await assetsByIds(ctx.sql, [c.req.param("id")]);
    if (!row) throw notFound("Asset", c.req.param("id"));
    return sendJson(c, shapeAsset(row, { ...(await shapeContext(ctx, c, locale)), select: parseSelect(params.get("select")) }));
  });

  app.all("*", (c) => {
    if (!["GET", "HEAD"].includes(c.req.method)) {
      if (c.get("site").mode === "git") throw gitModeRefusal();
      throw new ContentError("BadRequest", `${c.req.method} is not accepted at this address.`);
    }
    throw notFound();
  });

  return app;
}
