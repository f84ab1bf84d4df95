// Site-wide switches for tests in *.serial.test.ts files (they change the one settings row, so they run alone):
// change the configuration and the module switches, run the body, put both back whatever happens.
import { testSql } from "./db.ts";

export async function withSettings(change: (config: any, modules: any) => void, body: () => Promise<void>) {
  const sql = testSql();
  const [before] = await sql<
    { config: any; modules: any }[]
  >`select config, modules from public.site_settings`;
  const config = structuredClone(before.config);
  const modules = structuredClone(before.modules);
  change(config, modules);
  await sql`update public.site_settings set config = ${sql.json(config)}, modules = ${
    sql.json(modules)
  }, updated_at = now()`;
  try {
    await body();
  } finally {
    await sql`update public.site_settings set config = ${sql.json(before.config)}, modules = ${
      sql.json(before.modules)
    }, updated_at = now()`;
  }
}
