// /insights/:id/summary
import { Hono } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import type { FormsEnv } from "../access.ts";
import { insightsSummary } from "../domain/insights.ts";
import { formStatistics } from "../store/insights.ts";
import { loadForm } from "./forms.ts";

export function insightRoutes(ctx: FunctionContext) {
  const app = new Hono<FormsEnv>({ strict: false });
  app.get("/:id/summary", async (c) => {
    const id = c.req.param("id");
    const { doc } = await loadForm(ctx, c, id);
    return c.json(insightsSummary(doc.core, await formStatistics(ctx.sql, id)));
  });
  return app;
}
