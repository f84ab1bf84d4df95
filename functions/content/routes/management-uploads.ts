// Uploads: POST raw bytes at /spaces/<space>/uploads (and under /environments/master, where the
// management client sends them), GET and DELETE one; and POST /sweep-uploads for the daily sweep.
import { type Context, Hono } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { presentsServiceKey } from "../../../shared/service-key.ts";
import type { ContentEnv } from "../access.ts";
import { ContentError } from "../envelope.ts";
import { readCapped } from "../domain/management-assets.ts";
import { createUpload, readUpload, removeUpload, shapeUpload, sweep } from "../domain/management-uploads.ts";
import { sendManagement } from "../respond.ts";
import { actorOf, requireManagementKey, requireWriter } from "./management.ts";
import { spaceOf } from "./delivery.ts";

export function uploadRoutes(ctx: FunctionContext) {
  const app = new Hono<ContentEnv>({ strict: false });
  app.post("/uploads", async (c) => {
    requireWriter(c);
    const bytes = await readCapped(c.req.raw.body);
    const row = await createUpload(ctx.sql, ctx.storage, actorOf(ctx, c), {
      bytes,
      contentType: c.req.header("content-type") || "application/octet-stream",
      now: ctx.clock.now(),
    });
    return sendManagement(shapeUpload(row, spaceOf(c)), 201);
  });
  app.get("/uploads/:id", async (c) => {
    requireManagementKey(c);
    return sendManagement(shapeUpload(await readUpload(ctx.sql, c.req.param("id"), ctx.clock.now()), spaceOf(c)));
  });
  app.delete("/uploads/:id", async (c) => {
    requireWriter(c);
    await removeUpload(ctx.sql, ctx.storage, c.req.param("id"), ctx.clock.now());
    return new Response(null, { status: 204 });
  });
  return app;
}

// the service key moved to shared/ (the scheduling sweep takes it too); kept importable from here
export { serviceKey } from "../../../shared/service-key.ts";

/** POST /sweep-uploads[?older_than_ms=N]: service key only; answers what was removed. */
export function sweepHandler(ctx: FunctionContext) {
  return async (c: Context) => {
    if (!(await presentsServiceKey(ctx, c.req.raw))) {
      throw new ContentError("AccessTokenInvalid", "The sweep needs the service key.");
    }
    const raw = new URL(c.req.url).searchParams.get("older_than_ms");
    if (raw !== null && !/^\d{1,15}$/.test(raw)) {
      throw new ContentError("BadQuery", "older_than_ms must be a whole number of milliseconds");
    }
    const removed = await sweep(ctx.sql, ctx.storage, {
      now: ctx.clock.now(),
      olderThanMs: raw === null ? undefined : Number(raw),
    });
    return c.json(removed, 200);
  };
}
