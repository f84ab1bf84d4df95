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
let onServer: Promise<boolean> | undefined;

/**
 * Whether the suite runs on a PostgreSQL server rather than the embedded PGlite, which runs one
 * transaction at a time: tests whose transactions must truly overlap run only on a server.
 */
export function onRealServer(): Promise<boolean> {
  onServer ??= testSql()<{ version: string }[]>`select version()`
    .then(([{ version }]) => !/PGlite|emscripten|wasm/i.test(version));
  return onServer;
}

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

/**
 * An empty database of a test's own, not migrated: a new one on the server the suite runs on (dropped by
 * `drop`), or a new in-memory PGlite when the suite runs on PGlite. For tests that need transactions of
 * their own to truly overlap (the server), or a stream nobody else writes.
 */
export async function emptyDatabase(
  prefix: string,
): Promise<{ url: string; onServer: boolean; drop(): Promise<void> }> {
  if (!await onRealServer()) {
    const pg = await startEmbeddedPostgres();
    return { url: pg.url, onServer: false, drop: () => pg.stop() };
  }
  const name = `${prefix}_${Date.now()}_${Math.floor(Math.random() * 1e6)}`;
  await testSql().unsafe(`create database ${name}`);
  const url = new URL(testDatabaseUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    onServer: true,
    drop: async () => void await testSql().unsafe(`drop database if exists ${name} with (force)`),
  };
}
