// /spaces/<space>/webhook_definitions (no environment segment, as the management client sends it).
import { type Context, Hono } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import type { ContentEnv } from "../access.ts";
import { collection } from "../envelope.ts";
import { parseAssetsQuery } from "../domain/entry-query.ts";
import {
  createDefinition,
  type DefinitionWriter,
  readStoredDefinition,
  removeDefinition,
  replaceDefinition,
  shapeDefinition,
} from "../domain/management-webhooks.ts";
import { parseVersionHeader } from "../domain/management-rules.ts";
import { modelsFor } from "../models.ts";
import { sendManagement } from "../respond.ts";
import { webhookDefinitions } from "../store/webhook-definitions.ts";
import { actorOf, fieldContext, jsonBody, requireManagementKey, requireWriter } from "./management.ts";
import { spaceOf } from "./delivery.ts";

type C = Context<ContentEnv>;

export function webhookDefinitionRoutes(ctx: FunctionContext) {
  const app = new Hono<ContentEnv>({ strict: false });
  const version = (c: C) => parseVersionHeader(c.req.header("x-contentful-version"));
  const writer = (c: C): DefinitionWriter => ({
    sql: ctx.sql,
    actor: actorOf(ctx, c),
    now: ctx.clock.now(),
    allowPrivate: ctx.config.allowPrivateWebhookTargets,
  });

  app.get("/webhook_definitions", async (c) => {
    requireManagementKey(c);
    // skip and limit as every list takes them (limit 1 to 1000, default 100)
    const page = parseAssetsQuery(new URL(c.req.url).searchParams, {
      locales: fieldContext(c).locales,
      models: await modelsFor(ctx.sql, c.get("site")),
    });
    const { rows, total } = await webhookDefinitions(ctx.sql, page);
    return sendManagement(collection(rows.map((r) => shapeDefinition(r, spaceOf(c))), { total, skip: page.skip, limit: page.limit }));
  });
  app.post("/webhook_definitions", async (c) => {
    requireWriter(c);
    const row = await createDefinition(writer(c), await jsonBody(c));
    return sendManagement(shapeDefinition(row, spaceOf(c)), 201);
  });
  app.get("/webhook_definitions/:id", async (c) => {
    requireManagementKey(c);
    return sendManagement(shapeDefinition(await readStoredDefinition(ctx.sql, c.req.param("id")), spaceOf(c)));
  });
  app.put("/webhook_definitions/:id", async (c) => {
    requireWriter(c);
    const body = await jsonBody(c);
    const row = await replaceDefinition(writer(c), c.req.param("id"), version(c), body);
    return sendManagement(shapeDefinition(row, spaceOf(c)));
  });
  app.delete("/webhook_definitions/:id", async (c) => {
    requireWriter(c);
    await removeDefinition(ctx.sql, c.req.param("id"), version(c));
    return new Response(null, { status: 204 });
  });
  return app;
}
