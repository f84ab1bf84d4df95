// The scheduling function deploys alone: its app, built as functions/scheduling-api/index.ts builds it
// (no host, no other function), answers the scheduling API at its own address.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { atFunctionAddress, deployedContext, freshKey } from "../../helpers/deployed.ts";
import { createSchedulingApp } from "../../../functions/scheduling-api/app.ts";

test("scheduling-api alone: GET /v2/me with a scheduling key answers the site's first host", async () => {
  const ctx = deployedContext();
  const call = atFunctionAddress("scheduling-api", createSchedulingApp(ctx));
  const res = await call("/v2/me", { headers: { authorization: `Bearer ${await freshKey(ctx, "scheduling")}` } });
  assert.equal(res.status, 200, await res.clone().text());
  const body = await res.json();
  assert.equal(body.status, "success");
  assert.equal(body.data.username, "ada");
  const refused = await call("/v2/me");
  assert.equal(refused.status, 401);
});
