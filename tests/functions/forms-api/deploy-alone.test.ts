// The forms function deploys alone: its app, built as functions/forms-api/index.ts builds it (no host, no
// other function), answers the Forms API at its own address.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { atFunctionAddress, deployedContext, freshKey } from "../../helpers/deployed.ts";
import { createFormsApp } from "../../../functions/forms-api/app.ts";

test("forms-api alone: GET /me with a forms key answers the key's user", async () => {
  const ctx = deployedContext();
  const call = atFunctionAddress("forms-api", createFormsApp(ctx));
  const res = await call("/me", { headers: { authorization: `Bearer ${await freshKey(ctx, "forms")}` } });
  assert.equal(res.status, 200, await res.clone().text());
  assert.deepEqual(Object.keys(await res.json()).sort(), ["alias", "email", "language", "user_id"]);
  const refused = await call("/me");
  assert.equal(refused.status, 401);
  assert.equal((await refused.json()).code, "AUTHENTICATION_FAILED");
});
