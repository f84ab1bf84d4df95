// The Management API (cloud mode) on the delivery addresses: entries and assets, their management reads
// (GET with the management media type), and the 405s for content types and locales. Handlers parse,
// call the domain (domain/management-*.ts) and answer; every refusal is a ContentError.
import { type Context, Hono, type Next } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { readBodyText } from "../../../shared/http.ts";
import { jsonPathText, jsonProblem } from "../../../shared/input-text.ts";
import { defaultLocale } from "../../../shared/site.ts";
import type { ContentEnv } from "../access.ts";
import { collection, ContentError, gitModeRefusal, notFound } from "../envelope.ts";
import { parseAssetsQuery, parseEntriesQuery } from "../domain/entry-query.ts";
import {
  createAsset,
  deleteAsset,
  processAsset,
  publishAsset,
  putAsset,
  unpublishAsset,
} from "../domain/management-assets.ts";
import {
  createEntry,
  type EntryWriter,
  publishEntry,
  putEntry,
  removeEntry,
  unpublish,
} from "../domain/management-entries.ts";
import type { FieldContext } from "../domain/management-fields.ts";
import { parseVersionHeader, selectFrom, validationFailed } from "../domain/management-rules.ts";
import { modelsFor } from "../models.ts";
import { sendManagement } from "../respond.ts";
import {
  type ManagementActor,
  managementAsset,
  managementAssets,
  managementEntries,
  managementEntry,
} from "../store/management.ts";
import { queryAssets, queryEntries } from "../store/entries.ts";

type C = Context<ContentEnv>;

/** Every read of management things (uploads, definitions, management shapes) needs a management key. */
export function requireManagementKey(c: C): void {
  const { keyKind } = c.get("access");
  if (!keyKind) throw new ContentError("AccessTokenInvalid", "The management API needs a management key.");
  if (keyKind !== "management") {
    throw new ContentError(
      "AccessDenied",
      `A ${keyKind} key cannot use the management API; use a management key.`,
    );
  }
}

/** Writes: a management key first (so a stranger learns nothing), then the site must be in cloud mode. */
export function requireWriter(c: C): void {
  requireManagementKey(c);
  if (c.get("site").mode === "git") throw gitModeRefusal();
}

export function actorOf(ctx: FunctionContext, c: C): ManagementActor {
  return { keyId: c.get("access").keyId, mediaHost: new URL(ctx.config.publicUrl).host };
}

export function fieldContext(c: C): FieldContext {
  const site = c.get("site");
  const first = defaultLocale(site).code;
  return {
    defaultLocale: first,
    locales: [first, ...site.locales.map((l) => l.code).filter((l) => l !== first)],
  };
}

/**
 * The request's JSON body (either media type), undefined when empty. Not JSON, larger than
 * MAX_REQUEST_BODY_BYTES is PayloadTooLarge (413); nested too deep is BadQuery; text Postgres cannot hold (NUL, lone surrogates)
 * is ValidationFailed naming where it is. Never a 5xx.
 */
export async function jsonBody(c: C): Promise<unknown> {
  const text = await readBodyText(c.req.raw);
  if (text.trim() === "") return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ContentError("BadQuery", "The body is not valid JSON.");
  }
  const problem = jsonProblem(body);
  if (problem?.kind === "depth") throw new ContentError("BadQuery", `The body ${problem.why}.`);
  if (problem) {
    throw validationFailed([{
      name: "invalid",
      // the spec's paths stop at the field (['fields', <field>]); the details say exactly where
      path: problem.path.slice(0, 2),
      details: `${jsonPathText(problem.path) || "the body"} ${problem.why}`,
    }]);
  }
  return body;
}

const version = (c: C) => parseVersionHeader(c.req.header("x-contentful-version"));

/** Answers the management read, or leaves the request to the delivery routes. */
function managementRead(handler: (c: C) => Promise<Response>) {
  return (c: C, next: Next) => (c.get("access").management ? handler(c) : next());
}

export function managementRoutes(ctx: FunctionContext) {
  const app = new Hono<ContentEnv>({ strict: false });

  const entryWriter = async (c: C): Promise<EntryWriter> => ({
    sql: ctx.sql,
    actor: actorOf(ctx, c),
    now: ctx.clock.now(),
    models: await modelsFor(ctx.sql, c.get("site")),
    locales: fieldContext(c),
  });
  const assetWriter = (c: C) => ({
    sql: ctx.sql,
    storage: ctx.storage,
    actor: actorOf(ctx, c),
    now: ctx.clock.now(),
    locales: fieldContext(c),
    allowPrivate: ctx.config.allowPrivateWebhookTargets,
  });

  // ---- reads in the management shape: the delivery lists' arguments and SQL, drafts and pending files too ----
  app.get(
    "/entries",
    managementRead(async (c) => {
      const site = c.get("site");
      const models = await modelsFor(ctx.sql, site);
      const query = parseEntriesQuery(new URL(c.req.url).searchParams, {
        locales: fieldContext(c).locales,
        models,
      });
      const { rows, total } = await queryEntries(ctx.sql, "preview", query, [fieldContext(c).defaultLocale]);
      const items = await managementEntries(ctx.sql, rows.map((r) => r.id));
      return sendManagement(
        collection(items.map((e) => selectFrom(e, query.select)), {
          total,
          skip: query.skip,
          limit: query.limit,
        }),
      );
    }),
  );
  app.get(
    "/entries/:id",
    managementRead(async (c) => {
      const id = c.req.param("id") ?? "";
      const entry = await managementEntry(ctx.sql, id);
      if (!entry) throw notFound("Entry", id);
      return sendManagement(entry);
    }),
  );
  app.get(
    "/assets",
    managementRead(async (c) => {
      const query = parseAssetsQuery(new URL(c.req.url).searchParams, {
        locales: fieldContext(c).locales,
        models: await modelsFor(ctx.sql, c.get("site")),
      });
      const { rows, total } = await queryAssets(ctx.sql, query, [fieldContext(c).defaultLocale], "all");
      const items = await managementAssets(ctx.sql, rows.map((r) => r.id), actorOf(ctx, c).mediaHost);
      return sendManagement(
        collection(items.map((a) => selectFrom(a, query.select)), {
          total,
          skip: query.skip,
          limit: query.limit,
        }),
      );
    }),
  );
  app.get(
    "/assets/:id",
    managementRead(async (c) => {
      const id = c.req.param("id") ?? "";
      const asset = await managementAsset(ctx.sql, id, actorOf(ctx, c).mediaHost);
      if (!asset) throw notFound("Asset", id);
      return sendManagement(asset);
    }),
  );

  // ---- entries ----
  app.post("/entries", async (c) => {
    requireWriter(c);
    const body = await jsonBody(c);
    const { entry, status } = await createEntry(
      await entryWriter(c),
      c.req.header("x-contentful-content-type"),
      body,
    );
    return sendManagement(entry, status);
  });
  app.put("/entries/:id", async (c) => {
    requireWriter(c);
    const body = await jsonBody(c);
    const { entry, status } = await putEntry(await entryWriter(c), c.req.param("id"), {
      contentType: c.req.header("x-contentful-content-type"),
      version: version(c),
      body,
    });
    return sendManagement(entry, status);
  });
  app.put("/entries/:id/published", async (c) => {
    requireWriter(c);
    return sendManagement(await publishEntry(await entryWriter(c), c.req.param("id"), version(c)));
  });
  app.delete("/entries/:id/published", async (c) => {
    requireWriter(c);
    return sendManagement(await unpublish(await entryWriter(c), c.req.param("id"), version(c)));
  });
  app.delete("/entries/:id", async (c) => {
    requireWriter(c);
    await removeEntry(await entryWriter(c), c.req.param("id"), version(c));
    return new Response(null, { status: 204 });
  });

  // ---- assets ----
  app.post("/assets", async (c) => {
    requireWriter(c);
    const body = await jsonBody(c);
    return sendManagement(await createAsset(assetWriter(c), body), 201);
  });
  app.put("/assets/:id", async (c) => {
    requireWriter(c);
    const body = await jsonBody(c);
    const { asset, status } = await putAsset(assetWriter(c), c.req.param("id"), version(c), body);
    return sendManagement(asset, status);
  });
  app.put("/assets/:id/files/:locale/process", async (c) => {
    requireWriter(c);
    await processAsset(assetWriter(c), c.req.param("id"), c.req.param("locale"), version(c));
    return new Response(null, { status: 204 });
  });
  app.put("/assets/:id/published", async (c) => {
    requireWriter(c);
    return sendManagement(await publishAsset(assetWriter(c), c.req.param("id"), version(c)));
  });
  app.delete("/assets/:id/published", async (c) => {
    requireWriter(c);
    return await unpublishAsset(assetWriter(c), c.req.param("id"));
  });
  app.delete("/assets/:id", async (c) => {
    requireWriter(c);
    await deleteAsset(assetWriter(c), c.req.param("id"), version(c));
    return new Response(null, { status: 204 });
  });

  // ---- content types and locales come from the site, not from writes ----
  // in either mode: the reason is where they come from
  const fixed = (what: string) => (c: C) => {
    requireManagementKey(c);
    throw new ContentError("BadRequest", what);
  };
  const types = fixed(
    "Content types come from the site's models (models/ in its content directory), not from the API.",
  );
  const locales = fixed("Locales come from the site's configuration (site.yaml), not from the API.");
  for (const path of ["/content_types", "/content_types/:id", "/content_types/:id/published"]) {
    app.on(["POST", "PUT", "DELETE", "PATCH"], path, types);
  }
  for (const path of ["/locales", "/locales/:id"]) app.on(["POST", "PUT", "DELETE", "PATCH"], path, locales);

  // the client's archive and unarchive: entries and assets have no archived state here, so a script
  // hears why (and does not retry) instead of a bare "not accepted"
  for (const kind of ["entries", "assets"] as const) {
    app.on(["PUT", "DELETE"], `/${kind}/:id/archived`, (c) => {
      requireWriter(c);
      const thing = kind === "entries" ? "an entry" : "an asset";
      throw new ContentError(
        "BadRequest",
        `Archiving is not offered: unpublish ${thing} to take it off Delivery, or delete it.`,
      );
    });
  }

  return app;
}
