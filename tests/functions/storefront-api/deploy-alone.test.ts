// The storefront function deploys alone: its app, built as functions/storefront-api/index.ts builds it
// (no host, no other function; pass-through routes over HTTP), answers GraphQL at its own address.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { atFunctionAddress, deployedContext, freshKey } from "../../helpers/deployed.ts";
import { createStorefrontApp } from "../../../functions/storefront-api/app.ts";
import { forwardOverHttp } from "../../../functions/storefront-api/routes/pass-through.ts";

test("storefront-api alone: POST /api/<version>/graphql.json with a storefront key answers the shop", async () => {
  const ctx = deployedContext();
  const call = atFunctionAddress(
    "storefront-api",
    createStorefrontApp(ctx, { forward: forwardOverHttp(ctx.config.publicUrl) }),
  );
  const res = await call("/api/2025-01/graphql.json", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-shopify-storefront-access-token": await freshKey(ctx, "storefront"),
    },
    body: JSON.stringify({ query: "{ shop { name } }" }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal((await res.json()).data.shop.name, "Sitewire Demo");
});
