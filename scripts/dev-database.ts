// The dev host's database made ready: migrations applied, the demo site imported when the database is
// empty (or again when its mode is not the one asked for), the demo community loaded into an empty one.
// scripts/dev.ts runs this in a process of its own first when it makes a new embedded database: the
// import's memory (PGlite's WebAssembly memory, which never shrinks, grew by some 16 MB for the demo
// site's; the importer's compiled code and garbage) is then given back when that process exits, and
// the host opens a database that is ready. `deno run -A scripts/dev-database.ts <pglite data dir>`.
import type { RuntimeConfig } from "../shared/config.ts";
import { readConfig } from "../shared/config.ts";
import { connect, type Sql } from "../shared/db.ts";
import { startEmbeddedPostgres } from "../shared/embedded.ts";
import { migrate } from "../shared/migrate.ts";
import { importSite } from "../shared/site/import.ts";
import { readSiteConfigFile } from "../shared/site/content-dir.ts";
import { loadSiteCommunity } from "../functions/network/demo.ts";
import { runCli } from "./cli.ts";
import { runProjectModule } from "../shared/project-process.ts";

export async function prepareDevDatabase(sql: Sql, config: RuntimeConfig): Promise<void> {
  const applied = await migrate(sql, { onApply: (m) => console.log(`migrating: ${m.version}_${m.name}`) });
  if (applied.length) console.log(`applied ${applied.length} migration(s)`);

  const [settings] = await sql<{ mode: string; slug: string }[]>`select mode, slug from public.site_settings`;
  // SITE_MODE, else the configuration's own: a database left in the other mode (an earlier SITE_MODE run)
  // is imported again
  const mode = config.siteModeOverride ?? (await readSiteConfigFile(config.siteDir)).mode;
  if (settings && settings.mode !== mode) {
    console.log(
      `the database holds the site in ${settings.mode} mode; ${
        config.siteModeOverride ? "SITE_MODE" : "its configuration"
      } says ${mode}: importing it again in ${mode} mode`,
    );
  }
  if (!settings || settings.mode !== mode) {
    console.log(`importing the site from ${config.siteDir} (${mode} mode)`);
    const counts = await importSite(sql, {
      dir: config.siteDir,
      modeOverride: config.siteModeOverride,
      onProgress: (message: string) => console.log(`  ${message}`),
    });
    for (const warning of counts.warnings) console.log(`  warning: ${warning}`);
    if (counts.warnings.length) console.log(`imported with ${counts.warnings.length} warning(s)`);
  }
  // the demo community, into a site whose community is still empty
  const community = await loadSiteCommunity(sql, config.siteDir, config);
  if (community) console.log(`  ${community}`);
}

/** Prepares a new embedded database in a process of its own (see above); throws when that fails. */
export async function prepareNewEmbeddedDatabase(pgliteDir: string): Promise<void> {
  const { code } = await runProjectModule(new URL(import.meta.url), [pgliteDir], {
    permissions: ["-A"],
    stdout: "inherit",
    stderr: "inherit",
  });
  if (code !== 0) throw new Error(`could not prepare the new database in ${pgliteDir} (exit code ${code})`);
}

if (import.meta.main) {
  await runCli(async () => {
    const [dir] = Deno.args;
    if (!dir) throw new Error("usage: dev-database.ts <pglite data dir>");
    const embedded = await startEmbeddedPostgres({ dataDir: dir });
    const sql = connect(embedded.url);
    try {
      await prepareDevDatabase(sql, readConfig(Deno.env, { development: true }));
    } finally {
      await sql.end({ timeout: 1 });
      await embedded.stop();
    }
  });
}
