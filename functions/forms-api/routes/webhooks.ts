// /forms/:id/webhooks: subscriptions per form and tag. PUT makes (201) or updates (200); the secret is
// stored and never returned.
import { Hono } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import type { FormsEnv } from "../access.ts";
import { readBody } from "../request.ts";
import { invalid, notFound } from "../envelope.ts";
import { TAG_PATTERN, webhookInput, webhookRecord } from "../domain/webhooks.ts";
import { deleteWebhook, listWebhooks, upsertWebhook, webhookByTag } from "../store/webhooks.ts";
import { loadForm } from "./forms.ts";

export function webhookRoutes(ctx: FunctionContext) {
  const app = new Hono<FormsEnv>({ strict: false });

  const tagOf = (tag: string) => {
    if (!TAG_PATTERN.test(tag)) throw invalid("tag is 1 to 64 letters, digits, _, . or -", "tag", "path");
    return tag;
  };

  app.get("/", async (c) => {
    const id = c.req.param("id")!;
    await loadForm(ctx, c, id);
    return c.json({ items: (await listWebhooks(ctx.sql, id)).map(webhookRecord) });
  });

  app.get("/:tag", async (c) => {
    const id = c.req.param("id")!;
    const tag = tagOf(c.req.param("tag"));
    await loadForm(ctx, c, id);
    const row = await webhookByTag(ctx.sql, id, tag);
    if (!row) throw notFound(`No webhook ${tag} on form ${id}.`);
    return c.json(webhookRecord(row));
  });

  app.put("/:tag", async (c) => {
    const id = c.req.param("id")!;
    const tag = tagOf(c.req.param("tag"));
    const body = await readBody(c.req.raw);
    await loadForm(ctx, c, id);
    const existing = await webhookByTag(ctx.sql, id, tag);
    const input = webhookInput(body ?? {}, !existing, ctx.config.allowPrivateWebhookTargets);
    const { row, created } = await upsertWebhook(ctx.sql, { form: id, tag, ...input, now: ctx.clock.now() });
    return c.json(webhookRecord(row), created ? 201 : 200);
  });

  app.delete("/:tag", async (c) => {
    const id = c.req.param("id")!;
    const tag = tagOf(c.req.param("tag"));
    await loadForm(ctx, c, id);
    if (!await deleteWebhook(ctx.sql, id, tag)) throw notFound(`No webhook ${tag} on form ${id}.`);
    return c.body(null, 204);
  });

  return app;
}
