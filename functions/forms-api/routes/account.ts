// /me and /workspaces: the key's "user" and the one workspace (the site).
import { Hono } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import type { FormsEnv } from "../access.ts";
import { listBody, notFound } from "../envelope.ts";
import { intArg } from "../domain/arguments.ts";
import { addresses, workspace } from "../domain/forms.ts";
import { listForms } from "../store/forms.ts";
import { localeOf } from "./forms.ts";

export function accountRoutes(ctx: FunctionContext) {
  const app = new Hono<FormsEnv>({ strict: false });
  const at = addresses(ctx.config.publicUrl);

  app.get("/me", (c) => {
    const site = c.get("site");
    const caller = c.get("caller");
    return c.json({
      alias: caller.keyName,
      email: `forms@${site.domain}`,
      language: site.locales.find((l) => l.default)?.code.split("-")[0] ?? "en",
      user_id: caller.keyId,
    });
  });

  const theWorkspace = async (siteName: string, locale: string) => {
    const { total } = await listForms(ctx.sql, locale, { offset: 0, limit: 0 });
    return workspace(siteName, total, at);
  };

  app.get("/workspaces", async (c) => {
    const params = new URL(c.req.url).searchParams;
    const page = intArg(params, "page", [1, 1_000_000], 1);
    const pageSize = intArg(params, "page_size", [1, 200], 10);
    const site = c.get("site");
    const search = params.get("search")?.trim().toLowerCase();
    const matches = !search || site.name.toLowerCase().includes(search) || "default".includes(search);
    const items = matches && page === 1 ? [await theWorkspace(site.name, localeOf(c))] : [];
    return c.json(listBody(items, matches ? 1 : 0, pageSize));
  });

  app.get("/workspaces/:id", async (c) => {
    if (c.req.param("id") !== "default") throw notFound(`No workspace ${c.req.param("id")}.`);
    return c.json(await theWorkspace(c.get("site").name, localeOf(c)));
  });

  return app;
}
