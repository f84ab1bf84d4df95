// Tests reach the database the runner (scripts/test.ts) prepared: migrated, demo site imported.
import { connect, type Sql } from "../../shared/db.ts";
import { startEmbeddedPostgres } from "../../shared/embedded.ts";
import { migrate } from "../../shared/migrate.ts";

export function testDatabaseUrl(): string {
  const url = Deno.env.get("DATABASE_URL");
  if (!url) throw new Error("DATABASE_URL is not set: run the suite with `deno task test`");
  return url;
}

let shared: Sql | undefined;

/** One pool per test file; tests should not end it (the runner's process exit does). */
export function testSql(): Sql {
  shared ??= connect(testDatabaseUrl(), { max: 4 });
  return shared;
}

/**
 * A database of this test file's own: an in-memory PGlite, migrated, empty (no site imported), for
 * tests that replace the site's content or stand in for extensions the shared database must not see.
 */
export async function privateDatabase(): Promise<Sql> {
  const pg = await startEmbeddedPostgres();
  const sql = connect(pg.url, { max: 2 });
  await migrate(sql);
  globalThis.addEventListener("unload", () => {
    sql.end({ timeout: 0 }).catch(() => {});
  });
  return sql;
}
