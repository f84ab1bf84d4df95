// Applies migrations/<digits>_<name>.sql in order, once each, recording them in schema_migrations.
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

export async function migrate(
  sql: Sql,
  options: { dir?: URL; onApply?: (m: Migration) => void } = {},
): Promise<Migration[]> {
  await sql`create table if not exists public.schema_migrations (
    version text primary key, name text not null, applied_at timestamptz not null default now())`;
  await sql`alter table public.schema_migrations enable row level security`;
  const done = new Set((await sql<{ version: string }[]>`select version from public.schema_migrations`)
    .map((r) => r.version));
  const applied: Migration[] = [];
  for (const migration of await readMigrations(options.dir)) {
    if (done.has(migration.version)) continue;
    options.onApply?.(migration);
    await sql.begin(async (tx) => {
      await tx.unsafe(migration.sql);
      await tx`insert into public.schema_migrations (version, name) values (${migration.version}, ${migration.name})`;
    });
    applied.push(migration);
  }
  return applied;
}
