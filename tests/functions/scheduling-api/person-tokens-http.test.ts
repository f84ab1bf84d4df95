// Person JWTs on the Scheduling API are verified by shared/people.ts (verifyPersonToken): the site's
// HS256 secret, and with JWKS_URL asymmetric tokens (Supabase's signing keys) against that key set.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { serveJwks } from "../../helpers/jwks.ts";
import { createSchedulingApp } from "../../../functions/scheduling-api/app.ts";
import { assertError, host, person } from "./support.ts";

async function me(app: ReturnType<typeof createSchedulingApp>, token: string) {
  const res = await app.request("http://scheduling.test/v2/me", {
    headers: { authorization: `Bearer ${token}` },
  });
  return { status: res.status, body: await res.json() };
}

test("with JWKS_URL a person's asymmetric JWT is admitted as that person; the HS256 tokens still are; without it the asymmetric one is 401", async () => {
  const jwks = await serveJwks();
  try {
    const member = await person("member");
    const withJwks = createSchedulingApp({ ...host.ctx, config: { ...host.ctx.config, jwksUrl: jwks.url } });
    const token = await jwks.sign({ sub: member.id, email: member.email });
    const asymmetric = await me(withJwks, token);
    assert.equal(asymmetric.status, 200, JSON.stringify(asymmetric.body));
    assert.equal(asymmetric.body.data.email, member.email);
    assert.equal((await me(withJwks, member.jwt)).body.data.email, member.email);
    assert.equal(jwks.fetches(), 1);

    const without = createSchedulingApp({ ...host.ctx, config: { ...host.ctx.config, jwksUrl: undefined } });
    assertError(await me(without, token), 401, "UNAUTHORIZED");
    assert.equal((await me(without, member.jwt)).status, 200);
  } finally {
    await jwks.close();
  }
});
