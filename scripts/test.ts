// deno task test [-- <deno test arguments>]
//
// Prepares a fresh database (in-memory PGlite, or a new database on TEST_DATABASE_URL's server),
// applies the migrations, imports the demo site, then runs the whole suite against it and ends with
// one line "N passed, N failed".
import { connect } from "../shared/db.ts";
import { startEmbeddedPostgres } from "../shared/embedded.ts";
import { migrate } from "../shared/migrate.ts";
import { importSite } from "../shared/site/import.ts";
import { readConfig } from "../shared/config.ts";
import { loadSiteCommunity } from "../functions/network/demo.ts";
import { CHROMIUM_PATH } from "../tests/helpers/browser.ts";
import { runCli } from "./cli.ts";

const DEMO_SITE = new URL("../demo-site", import.meta.url).pathname;

async function freshServerDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `sitewire_test_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  const admin = connect(serverUrl, { max: 1 });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
      await admin.end();
    },
  };
}

async function runDenoTest(args: string[], databaseUrl: string) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["test", "-A", ...args],
    cwd: new URL("..", import.meta.url).pathname,
    env: { DATABASE_URL: databaseUrl, SITEWIRE_TEST: "1", DEMO_SITE_DIR: DEMO_SITE, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  let tail = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    await Deno.stdout.write(chunk);
    tail = (tail + decoder.decode(chunk, { stream: true })).slice(-4000);
  }
  const summary = tail.match(/(\d+) passed(?: \(\d+ steps?\))? \| (\d+) failed/g)?.pop();
  const numbers = (summary?.match(/\d+/g) ?? []).map(Number);
  const status = await child.status;
  return {
    code: status.code,
    passed: numbers[0] ?? 0,
    failed: numbers[numbers.length - 1] ?? (status.success ? 0 : 1),
  };
}

const BROWSER_TESTS = "tests/browser";
const SERIAL_TEST = /\.serial\.test\.ts$/;
const TEST_FILE = /[._]test\.(ts|js|mjs)$/;

/** The test files a named path stands for: itself, or every test file under a folder (sorted). */
async function testFilesUnder(path: string): Promise<string[]> {
  const root = new URL("..", import.meta.url).pathname;
  const relative = path.replace(/^\.\//, "").replace(/\/$/, "");
  const info = await Deno.stat(`${root}${relative}`).catch(() => undefined);
  if (!info?.isDirectory) return [relative];
  const found: string[] = [];
  for await (const entry of Deno.readDir(`${root}${relative}`)) {
    const child = `${relative}/${entry.name}`;
    if (entry.isDirectory) found.push(...await testFilesUnder(child));
    else if (TEST_FILE.test(entry.name)) found.push(child);
  }
  return found.sort();
}

/** Whether the browser tests can run here: Chromium at CHROMIUM_PATH. */
function browserPresent(): Promise<boolean> {
  return Deno.stat(CHROMIUM_PATH).then(() => true, () => false);
}

/** One line for each tool a group of tests needs that this machine lacks (those tests then fail for it). */
async function missingTools(): Promise<string[]> {
  const missing: string[] = [];
  let git = false;
  try {
    git = (await new Deno.Command("git", { args: ["--version"], stdout: "null", stderr: "null" }).output())
      .success;
  } catch {
    // not on PATH
  }
  if (!git) {
    missing.push(
      "git is missing: the site import tests (git mode reads revisions from history) will fail; install git",
    );
  }
  return missing;
}

await runCli(async () => {
  const started = performance.now();
  for (const line of await missingTools()) console.log(`note: ${line}`);
  // without a browser the browser tests are left out, saying so, unless the run must have them (CI)
  const skipBrowser = !(await browserPresent());
  if (skipBrowser && Deno.env.get("SITEWIRE_REQUIRE_BROWSER")) {
    throw new Error(`${CHROMIUM_PATH} is missing and SITEWIRE_REQUIRE_BROWSER is set: install chromium`);
  }
  if (skipBrowser) {
    console.log(
      `note: ${CHROMIUM_PATH} is missing: the browser tests (${BROWSER_TESTS}) are skipped; install Debian's ` +
        `chromium (apt-get install -y chromium) or set CHROMIUM_PATH to a Chromium or Chrome to run them`,
    );
  }
  const serverUrl = Deno.env.get("TEST_DATABASE_URL");
  const embedded = serverUrl ? undefined : await startEmbeddedPostgres();
  const server = serverUrl ? await freshServerDatabase(serverUrl) : undefined;
  const url = server?.url ?? embedded!.url;
  console.log(
    `test database: ${
      serverUrl ? `fresh database on ${new URL(serverUrl).host}` : "embedded PGlite (in memory)"
    }`,
  );
  let code = 1;
  try {
    const sql = connect(url, { max: 1 });
    const applied = await migrate(sql);
    const counts = await importSite(sql, { dir: DEMO_SITE });
    await loadSiteCommunity(sql, DEMO_SITE, readConfig(new Map<string, string>()));
    await sql.end();
    console.log(
      `migrations: ${applied.length}; demo site: ${counts.entries.total} entries (${counts.entries.published} published), ` +
        `${counts.assets.total} assets, ${counts.models.total} models; ready in ${
          Math.round(performance.now() - started)
        } ms`,
    );

    // *.serial.test.ts files change site-wide settings (module switches, api.public) or drain a whole
    // queue: they run after the parallel batch, on their own, so they never pull the ground from under
    // another test. They live beside their function's other tests.
    const browserTest = (a: string) => a.replace(/^\.\//, "").startsWith(BROWSER_TESTS);
    const flags = Deno.args.filter((a) => a.startsWith("-"));
    const named = Deno.args.filter((a) => !a.startsWith("-"));
    const files = (await Promise.all((named.length ? named : ["tests/"]).map(testFilesUnder))).flat()
      .filter((f) => !(skipBrowser && browserTest(f)));
    const serial = files.filter((f) => SERIAL_TEST.test(f));
    const parallel = files.filter((f) => !SERIAL_TEST.test(f));
    const batches = [
      ...(parallel.length ? [["--parallel", ...flags, ...parallel]] : []),
      ...(serial.length ? [[...flags, ...serial]] : []),
    ];
    let passed = 0, failed = 0;
    code = 0;
    for (const batch of batches) {
      const result = await runDenoTest(batch, url);
      passed += result.passed;
      failed += result.failed;
      if (result.code !== 0) code = result.code;
    }
    console.log(
      `\n${passed} passed, ${failed} failed${skipBrowser ? ` (${BROWSER_TESTS} skipped: no browser)` : ""}`,
    );
  } finally {
    await server?.drop();
    await embedded?.stop();
  }
  Deno.exit(code);
});
