// The CLI tasks as a user runs them: the last line is the key or JWT; errors are one clear line.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import { testDatabaseUrl, testSql } from "../helpers/db.ts";
import { hashKey } from "../../shared/keys.ts";
import { verifyPersonJwt } from "../../shared/people.ts";
import { databaseSecrets } from "../../shared/secrets.ts";

const root = new URL("../../", import.meta.url).pathname;

async function run(
  script: string,
  args: string[],
  env: Record<string, string> = { DATABASE_URL: testDatabaseUrl() },
) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", script.includes("/") ? script : `scripts/${script}`, ...args],
    cwd: root,
    // a data directory of its own: no dev host's dev.json stands in for a missing DATABASE_URL
    env: { DATA_DIR: "/nonexistent/sitewire-test", ...env, NO_COLOR: "1" },
    clearEnv: true,
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout).trim(),
    stderr: new TextDecoder().decode(out.stderr).trim(),
  };
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

test("deno task key --by names the person who makes the key (created if absent)", async () => {
  const email = `maker.${Date.now()}@example.org`;
  const { code, stdout } = await run("key.ts", ["management", "--by", email]);
  assert.equal(code, 0);
  const key = stdout.split("\n").pop()!;
  const [row] = await testSql()<{ email: string }[]>`
    select u.email from public.api_keys k join auth.users u on u.id = k.created_by where k.hash = ${await hashKey(key)}`;
  assert.equal(row?.email, email);
});

test("deno task token prints a JWT for the person, creating them with the role", async () => {
  const email = `cli.${Date.now()}@example.org`;
  const { code, stdout } = await run("token.ts", [email, "--role", "support"], {
    DATABASE_URL: testDatabaseUrl(),
  });
  assert.equal(code, 0);
  const jwt = stdout.split("\n").pop()!;
  const secret = await databaseSecrets(testSql()).get("jwt");
  const claims = await verifyPersonJwt(jwt, { secret });
  assert.equal(claims?.email, email);
  const [profile] = await testSql()<
    { role: string }[]
  >`select role from public.profiles where email = ${email}`;
  assert.equal(profile.role, "support");
});

test("CLI mistakes are one clear line, never a stack trace", async () => {
  for (
    const [script, args, env] of [
      ["key.ts", ["bogus"], undefined],
      ["token.ts", ["not-an-email"], undefined],
      ["token.ts", ["a@b.c", "--role", "king"], undefined],
      ["key.ts", ["delivery"], { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" }],
      ["key.ts", ["delivery"], {}],
      ["migrate.ts", [], { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" }],
      ["migrate.ts", [], {}],
      ["site-import.ts", ["--bogus"], undefined],
      ["site-import.ts", ["a", "b"], undefined],
      ["site-import.ts", ["--mode", "paper"], undefined],
      ["site-import.ts", ["/nonexistent/site"], undefined],
      ["site-import.ts", [], { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" }],
      ["site-import.ts", [], { DATABASE_URL: testDatabaseUrl(), SITE_MODE: "paper" }],
      ["token.ts", ["a@b.c"], { DATABASE_URL: testDatabaseUrl(), PORT: "http" }],
    ] as [string, string[], Record<string, string> | undefined][]
  ) {
    const { code, stderr } = await run(script, args, env);
    assert.equal(code, 1, `${script} ${args.join(" ")}`);
    assert.equal(stderr.split("\n").length, 1, stderr);
    assert.match(stderr, /^error: /);
  }
});

test("deno task token signs with SUPABASE_JWT_SECRET when that is the secret set, as the host verifies", async () => {
  const secret = `supabase-secret-${crypto.randomUUID()}`;
  const email = `cli.supabase.${Date.now()}@example.org`;
  const { code, stdout } = await run("token.ts", [email], {
    DATABASE_URL: testDatabaseUrl(),
    SUPABASE_JWT_SECRET: secret,
  });
  assert.equal(code, 0);
  const jwt = stdout.split("\n").pop()!;
  assert.equal((await verifyPersonJwt(jwt, { secret }))?.email, email);
  assert.equal(
    await verifyPersonJwt(jwt, { secret: await databaseSecrets(testSql()).get("jwt") }),
    undefined,
  );
  // JWT_SECRET wins where both are set, as in readConfig
  const both = await run("token.ts", [email], {
    DATABASE_URL: testDatabaseUrl(),
    SUPABASE_JWT_SECRET: secret,
    JWT_SECRET: "first",
  });
  assert.ok(await verifyPersonJwt(both.stdout.split("\n").pop()!, { secret: "first" }));
});

test("deno task db:migrate reports an up-to-date database", async () => {
  const { code, stdout } = await run("migrate.ts", []);
  assert.equal(code, 0);
  assert.equal(stdout.split("\n").pop(), "database is up to date");
});

test("the test runner says up front, in one line, when git is missing", async () => {
  // a PATH holding deno only
  const bin = await Deno.makeTempDir();
  await Deno.symlink(Deno.execPath(), `${bin}/deno`);
  try {
    const { stdout } = await run("scripts/test.ts", ["tests/shared/input-text.test.ts"], { PATH: bin });
    const lines = stdout.split("\n");
    assert.match(lines[0], /^note: git is missing: .* will fail; install git$/);
    assert.ok(!lines.slice(1).some((l) => l.startsWith("note: git")), "said once");
  } finally {
    await Deno.remove(bin, { recursive: true });
  }
});

test("without a browser the test runner skips the browser tests, saying so, unless the run requires them", async () => {
  const env = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", CHROMIUM_PATH: "/nonexistent/chromium" };
  const args = ["tests/shared/input-text.test.ts", "tests/browser/api-reference.test.ts"];
  const skipped = await run("scripts/test.ts", args, env);
  assert.equal(skipped.code, 0, skipped.stdout + skipped.stderr);
  const lines = skipped.stdout.split("\n");
  assert.ok(
    lines.some((l) =>
      /^note: \/nonexistent\/chromium is missing: the browser tests \(tests\/browser\) are skipped/.test(l)
    ),
    skipped.stdout,
  );
  assert.doesNotMatch(skipped.stdout, /api-reference/, "the browser test file is not run");
  assert.match(lines.at(-1)!, /^\d+ passed, 0 failed \(tests\/browser skipped: no browser\)$/);

  const required = await run("scripts/test.ts", args, { ...env, SITEWIRE_REQUIRE_BROWSER: "1" });
  assert.equal(required.code, 1);
  assert.equal(
    required.stderr,
    "error: /nonexistent/chromium is missing and SITEWIRE_REQUIRE_BROWSER is set: install chromium",
  );
});

test("deno task bench runs end to end in its quick mode and writes its results where told", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const { code, stderr } = await run("bench/run.ts", [], {
      BENCH_ITERATIONS: "1",
      BENCH_RESULTS: `${dir}/results.json`,
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    });
    assert.equal(code, 0, stderr);
    const report = JSON.parse(await Deno.readTextFile(`${dir}/results.json`));
    assert.equal(report.iterations, 1);
    const names = report.results.map((r: { name: string }) => r.name);
    for (
      const name of [
        "delivery entries (content_type, include=2, limit=100)",
        "delivery entries/<id>",
        "image transform cold vs cached (jpeg → w=300 webp)",
      ]
    ) {
      assert.ok(names.includes(name), name);
    }
    // every part ran: the measured-against-a-floor parts carry a ratio; the protocol, federation and desk
    // parts carry their own figures (the quick run starts no reference peer, so no ratio to one)
    for (const result of report.results.filter((r: { ratio?: number }) => "ratio" in r)) {
      assert.ok(Number.isFinite(result.ratio) && result.ratio > 0, result.name);
    }
    assert.ok(names.some((name: string) => name.startsWith("network ")), "the network part");
    const network = report.results.find((r: { name: string }) => r.name.startsWith("network "));
    assert.ok(network.sitewire.create_per_second_c1 > 0 && network.sitewire.timeline_p95_ms > 0);
    const federation = report.results.find((r: { name: string }) => r.name.startsWith("federation"));
    assert.equal(federation.frames_delivered, federation.commits * federation.subscribers);
    assert.ok(names.some((name: string) => name.startsWith("support: ")), "the desk part");
    // the concurrency phase: every path loaded, its figures from real answers
    const load = report.results.filter((r: { name: string }) => r.name.startsWith("load (embedded pglite): "));
    assert.ok(load.length >= 12, `every hot path under load: ${load.map((r: { name: string }) => r.name)}`);
    for (const result of load.filter((r: { levels?: unknown }) => r.levels)) {
      assert.ok(result.levels.length >= 1, result.name);
      for (const level of result.levels) {
        assert.ok(level.requests > 0 && level.requests_per_second > 0, result.name);
        assert.equal(level.non_2xx + level.errors, 0, result.name);
      }
    }
    // the scale steps (the smallest of each ladder) and the machine they ran on
    assert.ok(names.includes("scale (embedded pglite): sync, a delta of 10 changed entries"));
    const walk = report.results.find((r: { name: string }) => r.name.includes("initial sync walked whole"));
    for (const step of walk.steps) {
      assert.ok(step.heap_live_before_mb > 0 && step.heap_peak_mb >= step.heap_live_before_mb, JSON.stringify(step));
      assert.ok(step.heap_live_after_mb > 0 && step.heap_live_peak_mb >= step.heap_live_after_mb, JSON.stringify(step));
      assert.ok(step.rss_peak_mb > 0, JSON.stringify(step));
    }
    assert.ok(names.some((n: string) => n.startsWith("memory (embedded pglite): ")));
    assert.equal(report.machine.cores, navigator.hardwareConcurrency);
    assert.ok(report.databases["embedded pglite"].postgres);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
