// People and their JWTs: made idempotently, verified with jose, refused when forged or expired.
import assert from "node:assert/strict";
import * as jose from "jose";
import { test } from "../helpers/test.ts";
import { testSql } from "../helpers/db.ts";
import {
  ensurePerson,
  mintPersonJwt,
  personFromClaims,
  verifyPersonJwt,
  verifyPersonToken,
} from "../../shared/people.ts";
import { serveJwks } from "../helpers/jwks.ts";

const sql = testSql();
const secret = "a-test-secret-of-enough-length-for-hs256";

test("ensurePerson creates a person once and changes the role only when asked", async () => {
  const email = `Person.${Date.now()}@Example.org`;
  const first = await ensurePerson(sql, email);
  assert.equal(first.role, "member");
  assert.equal(first.email, email.toLowerCase());
  const again = await ensurePerson(sql, email.toLowerCase());
  assert.equal(again.id, first.id);
  assert.equal(again.role, "member");
  const promoted = await ensurePerson(sql, email, "support");
  assert.equal(promoted.id, first.id);
  assert.equal(promoted.role, "support");
});

test("a minted JWT verifies to the person, with Supabase's claims", async () => {
  const person = await ensurePerson(sql, `jwt.${Date.now()}@example.org`, "admin");
  const token = await mintPersonJwt(secret, person);
  const claims = await verifyPersonJwt(token, { secret });
  assert.ok(claims);
  assert.equal(claims.sub, person.id);
  assert.equal(claims.role, "authenticated");
  assert.equal(claims.email, person.email);
  assert.deepEqual(await personFromClaims(sql, claims), person);
});

test("a JWT with another secret, expired, altered or without a subject is refused", async () => {
  const person = await ensurePerson(sql, `bad.${Date.now()}@example.org`);
  assert.equal(await verifyPersonJwt(await mintPersonJwt("another-secret-entirely-for-this-test", person), { secret }), undefined);
  const expired = await new jose.SignJWT({ role: "authenticated" }).setProtectedHeader({ alg: "HS256" }).setSubject(person.id)
    .setIssuedAt(1_000_000).setExpirationTime(1_000_060).sign(new TextEncoder().encode(secret));
  assert.equal(await verifyPersonJwt(expired, { secret }), undefined);
  const token = await mintPersonJwt(secret, person);
  const [h, p, s] = token.split(".");
  assert.equal(await verifyPersonJwt(`${h}.${p}x.${s}`, { secret }), undefined);
  const noSubject = await new jose.SignJWT({ role: "authenticated" }).setProtectedHeader({ alg: "HS256" })
    .setExpirationTime("1h").sign(new TextEncoder().encode(secret));
  assert.equal(await verifyPersonJwt(noSubject, { secret }), undefined);
  assert.equal(await verifyPersonJwt("not-a-jwt", { secret }), undefined);
});

test("a JWT signed with an asymmetric key verifies against a JWKS", async () => {
  const { publicKey, privateKey } = await jose.generateKeyPair("ES256");
  const jwk = { ...(await jose.exportJWK(publicKey)), kid: "k1", alg: "ES256" };
  const jwks = jose.createLocalJWKSet({ keys: [jwk] });
  const token = await new jose.SignJWT({ role: "authenticated" }).setProtectedHeader({ alg: "ES256", kid: "k1" })
    .setSubject("00000000-0000-0000-0000-000000000001").setExpirationTime("1h").sign(privateKey);
  const claims = await verifyPersonJwt(token, { jwks: jwks as any });
  assert.equal(claims?.sub, "00000000-0000-0000-0000-000000000001");
});

test("verifyPersonToken: the site's HS256 secret, and with JWKS_URL asymmetric tokens against that set, fetched once and kept", async () => {
  const jwks = await serveJwks();
  try {
    const site = { config: { jwksUrl: jwks.url }, secrets: { get: () => Promise.resolve(secret) } };
    const person = await ensurePerson(sql, `jwks.${Date.now()}@example.org`);
    for (let i = 0; i < 3; i++) {
      const claims = await verifyPersonToken(site, await jwks.sign({ sub: person.id, email: person.email }));
      assert.equal(claims?.sub, person.id);
    }
    assert.equal(jwks.fetches(), 1, "the key set is fetched once per process");
    assert.equal((await verifyPersonToken(site, await mintPersonJwt(secret, person)))?.sub, person.id);
    assert.equal(await verifyPersonToken(site, await mintPersonJwt("another-secret-entirely-for-this-test", person)), undefined);
    // without JWKS_URL an asymmetric token is refused
    const plain = { config: {}, secrets: site.secrets };
    assert.equal(await verifyPersonToken(plain, await jwks.sign({ sub: person.id })), undefined);
  } finally {
    await jwks.close();
  }
});

test("the functions that read person JWTs (content, forms-api, scheduling-api, storefront-api) verify them through shared/people.ts only: none imports jose", async () => {
  const root = new URL("../../functions/", import.meta.url);
  const offenders: string[] = [];
  async function walk(dir: URL, path: string) {
    for await (const entry of Deno.readDir(dir)) {
      const child = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
      if (entry.isDirectory) await walk(child, `${path}${entry.name}/`);
      else if (/\.(ts|js)$/.test(entry.name)) {
        const text = await Deno.readTextFile(child);
        if (/from\s+["'](npm:)?jose(@[^"']*)?["']|import\(\s*["'](npm:)?jose/.test(text)) offenders.push(path + entry.name);
      }
    }
  }
  for (const fn of ["content", "forms-api", "scheduling-api", "storefront-api"]) {
    await walk(new URL(`${fn}/`, root), `functions/${fn}/`);
  }
  assert.deepEqual(offenders, []);
});
