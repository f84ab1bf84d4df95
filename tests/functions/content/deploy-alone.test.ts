// The content function deploys alone: its app, built as functions/content/index.ts builds it (no host, no
// other function), answers delivery at its own address.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { atFunctionAddress, deployedContext, freshKey } from "../../helpers/deployed.ts";
import { createContentApp } from "../../../functions/content/app.ts";

test("content alone: GET /spaces/<space>/entries with a delivery key answers the site's entries", async () => {
  const ctx = deployedContext();
  const call = atFunctionAddress("content", createContentApp(ctx), { byEntryPath: true });
  const [site] = await ctx.sql<{ slug: string; config: { api?: { space?: string } } }[]>`
    select slug, config from public.site_settings`;
  const space = site.config?.api?.space ?? site.slug;
  const key = await freshKey(ctx, "delivery");
  const res = await call(`/spaces/${space}/environments/master/entries?limit=1`, {
    headers: { authorization: `Bearer ${key}` },
  });
  assert.equal(res.status, 200, await res.clone().text());
  const body = await res.json();
  assert.equal(body.sys.type, "Array");
  assert.ok(body.total > 0);
  assert.equal(body.items.length, 1);
  const refused = await call(`/spaces/${space}/environments/master/entries?limit=1`, {
    headers: { authorization: "Bearer not-a-key" },
  });
  assert.equal(refused.status, 401);
  assert.equal((await refused.json()).sys.id, "AccessTokenInvalid");
});
