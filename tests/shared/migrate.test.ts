// Migrations: applied in order, once each, even when several migrators run at once (deploys, instances
// starting together). On the real server two connections truly race; PGlite takes them in turns.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import { emptyDatabase } from "../helpers/db.ts";
import { connect, type Sql } from "../../shared/db.ts";
import { migrate } from "../../shared/migrate.ts";

async function migrationsDir(files: Record<string, string>): Promise<URL> {
  const dir = await Deno.makeTempDir({ prefix: "sitewire-migrations-" });
  for (const [name, sql] of Object.entries(files)) await Deno.writeTextFile(`${dir}/${name}`, sql);
  return new URL(`file://${dir}/`);
}

test("migrators running at once apply each migration exactly once, in order", async () => {
  const db = await emptyDatabase("sitewire_migrate");
  const dir = await migrationsDir({
    "20990101000001_counter.sql":
      "create table public.applied (n integer not null, at timestamptz default clock_timestamp());",
    // slow enough that the other migrator arrives while it runs
    "20990101000002_first.sql": "insert into public.applied (n) values (2); select pg_sleep(0.3);",
    "20990101000003_second.sql": "insert into public.applied (n) values (3);",
  });
  const pools: Sql[] = [connect(db.url, { max: 1 }), connect(db.url, { max: 1 })];
  try {
    const runs = await Promise.all(pools.map((sql) => migrate(sql, { dir })));
    const versions = runs.flat().map((m) => m.version).sort();
    assert.deepEqual(
      versions,
      ["20990101000001", "20990101000002", "20990101000003"],
      "each applied by one of them",
    );
    const rows = await pools[0]<{ n: number }[]>`select n from public.applied order by at`;
    assert.deepEqual(rows.map((r) => r.n), [2, 3], "each ran once, in order");
    const recorded = await pools[0]<
      { version: string }[]
    >`select version from public.schema_migrations order by version`;
    assert.equal(recorded.length, 3);
    assert.deepEqual(await migrate(pools[1], { dir }), [], "a later run finds nothing to do");
  } finally {
    await Promise.all(pools.map((sql) => sql.end({ timeout: 1 })));
    await db.drop();
    await Deno.remove(dir, { recursive: true });
  }
});
