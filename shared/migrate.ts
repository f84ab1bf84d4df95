// Applies migrations/<digits>_<name>.sql in order, once each, recording them in schema_migrations; any
// number of migrators may run at once (an advisory lock keeps each migration to one of them).
import type { Sql } from "./db.ts";

export const MIGRATIONS_DIR = new URL("../migrations/", import.meta.url);

export interface Migration {
  version: string;
  name: string;
  sql: string;
}

export async function readMigrations(dir: URL = MIGRATIONS_DIR): Promise<Migration[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isFile && /^\d+_[\w-]+\.sql$/.test(entry.name)) files.push(entry.name);
  }
  files.sort();
  return await Promise.all(files.map(async (file) => {
    const [, version, name] = file.match(/^(\d+)_([\w-]+)\.sql$/)!;
    return { version, name, sql: await Deno.readTextFile(new URL(file, dir)) };
  }));
}

/** The advisory lock migrators take: one applies a migration while any other waits, then finds it applied. */
const MIGRATION_LOCK = 7_316_001;

export async function migrate(
  sql: Sql,
  options: { dir?: URL; onApply?: (m: Migration) => void } = {},
): Promise<Migration[]> {
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`create table if not exists public.schema_migrations (
      version text primary key, name text not null, applied_at timestamptz not null default now())`;
    await tx`alter table public.schema_migrations enable row level security`;
  });
  const done = new Set((await sql<{ version: string }[]>`select version from public.schema_migrations`)
    .map((r) => r.version));
  const applied: Migration[] = [];
  for (const migration of await readMigrations(options.dir)) {
    if (done.has(migration.version)) continue;
    // under the lock, look again: another migrator may have applied it since the list was read
    const fresh = await sql.begin(async (tx) => {
      await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
      const [row] = await tx`select 1 from public.schema_migrations where version = ${migration.version}`;
      if (row) return false;
      options.onApply?.(migration);
      await tx.unsafe(migration.sql);
      await tx`insert into public.schema_migrations (version, name) values (${migration.version}, ${migration.name})`;
      return true;
    });
    if (fresh) applied.push(migration);
  }
  return applied;
}
