// deno task db:migrate — applies pending migrations to DATABASE_URL (or the dev host's embedded socket).
// Several may run at once (deploys, instances starting): each migration is applied once (shared/migrate.ts).
import { connect } from "../shared/db.ts";
import { migrate } from "../shared/migrate.ts";
import { databaseUrlOrExit, runCli } from "./cli.ts";

await runCli(async () => {
  const sql = connect(await databaseUrlOrExit(), { max: 1 });
  try {
    const applied = await migrate(sql, { onApply: (m) => console.log(`applying ${m.version}_${m.name}`) });
    console.log(applied.length ? `applied ${applied.length} migration(s)` : "database is up to date");
  } finally {
    await sql.end({ timeout: 1 });
  }
});
