// The CLI tasks as a user runs them: the last line is the key or JWT; errors are one clear line.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import { testDatabaseUrl, testSql } from "../helpers/db.ts";
import { hashKey } from "../../shared/keys.ts";
import { verifyPersonJwt } from "../../shared/people.ts";
import { databaseSecrets } from "../../shared/secrets.ts";

const root = new URL("../../", import.meta.url).pathname;

async function run(script: string, args: string[], env: Record<string, string> = { DATABASE_URL: testDatabaseUrl() }) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `scripts/${script}`, ...args],
    cwd: root,
    env: { ...env, NO_COLOR: "1" },
    clearEnv: true,
  }).output();
  return { code: out.code, stdout: new TextDecoder().decode(out.stdout).trim(), stderr: new TextDecoder().decode(out.stderr).trim() };
}

test("deno task key prints a new key as its last line and stores only its hash", async () => {
  const { code, stdout } = await run("key.ts", ["preview", "--gated", "--name", "cli test"]);
  assert.equal(code, 0);
  const key = stdout.split("\n").pop()!;
  assert.match(key, /^pk_preview_[0-9A-Za-z]{32}$/);
  const [row] = await testSql()<{ kind: string; gated: boolean; name: string }[]>`
    select kind, gated, name from public.api_keys where hash = ${await hashKey(key)}`;
  assert.deepEqual({ ...row }, { kind: "preview", gated: true, name: "cli test" });
  const [leak] = await testSql()`select 1 from public.api_keys where hash = ${key} or prefix = ${key}`;
  assert.equal(leak, undefined, "the key itself is never stored");
});

test("deno task token prints a JWT for the person, creating them with the role", async () => {
  const email = `cli.${Date.now()}@example.org`;
  const { code, stdout } = await run("token.ts", [email, "--role", "support"], { DATABASE_URL: testDatabaseUrl() });
  assert.equal(code, 0);
  const jwt = stdout.split("\n").pop()!;
  const secret = await databaseSecrets(testSql()).get("jwt");
  const claims = await verifyPersonJwt(jwt, { secret });
  assert.equal(claims?.email, email);
  const [profile] = await testSql()<{ role: string }[]>`select role from public.profiles where email = ${email}`;
  assert.equal(profile.role, "support");
});

test("CLI mistakes are one clear line, never a stack trace", async () => {
  for (const [script, args, env] of [
    ["key.ts", ["bogus"], undefined],
    ["token.ts", ["not-an-email"], undefined],
    ["token.ts", ["a@b.c", "--role", "king"], undefined],
    ["key.ts", ["delivery"], { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" }],
  ] as [string, string[], Record<string, string> | undefined][]) {
    const { code, stderr } = await run(script, args, env);
    assert.equal(code, 1, `${script} ${args.join(" ")}`);
    assert.equal(stderr.split("\n").length, 1, stderr);
    assert.match(stderr, /^error: /);
  }
});
