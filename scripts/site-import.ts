// deno task site:import [dir] [--mode git|cloud]
// Loads a content directory (default: SITE_DIR, else the demo site) into DATABASE_URL (or the running
// dev host's embedded database), in one transaction.
import { readConfig } from "../shared/config.ts";
import { connect } from "../shared/db.ts";
import { importSite } from "../shared/site/import.ts";
import { loadSiteCommunity } from "../functions/network/demo.ts";
import { databaseUrlOrExit, fail, runCli } from "./cli.ts";

const USAGE = "usage: deno task site:import [dir] [--mode git|cloud]";

function parseArgs(args: string[]): { dir?: string; mode?: "git" | "cloud" } {
  let dir: string | undefined;
  let mode: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--help" || arg === "-h") {
      console.log(USAGE);
      Deno.exit(0);
    } else if (arg === "--mode") {
      mode = args[++i];
    } else if (arg.startsWith("--mode=")) {
      mode = arg.slice("--mode=".length);
    } else if (arg.startsWith("-")) {
      fail(`unknown option ${arg} (${USAGE})`);
    } else if (dir === undefined) {
      dir = arg;
    } else {
      fail(`one directory only (${USAGE})`);
    }
  }
  if (mode !== undefined && mode !== "git" && mode !== "cloud") fail(`--mode must be git or cloud (${USAGE})`);
  return { dir, mode: mode as "git" | "cloud" | undefined };
}

await runCli(async () => {
  const args = parseArgs(Deno.args);
  const config = readConfig();
  const dir = args.dir ?? config.siteDir;
  const sql = connect(await databaseUrlOrExit(), { max: 1 });
  try {
    console.log(`importing ${dir}`);
    const result = await importSite(sql, {
      dir,
      modeOverride: args.mode ?? config.siteModeOverride,
      onProgress: (message) => console.log(`  ${message}`),
    });
    for (const warning of result.warnings) console.warn(`warning: ${warning}`);
    const community = await loadSiteCommunity(sql, dir, config);
    if (community) console.log(`  ${community}`);
    console.log(
      `imported ${result.slug} (space ${result.space}, ${result.mode} mode) in ${result.ms} ms: ` +
        `${result.entries.total} entries (${result.entries.published} published), ${result.assets.total} assets, ` +
        `${result.models.total} models` +
        (result.warnings.length ? `, ${result.warnings.length} warning(s)` : ""),
    );
  } finally {
    await sql.end();
  }
});
