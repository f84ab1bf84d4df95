// deno task token <email> [--role admin|support|member] — prints a person JWT (creating the person if absent).
// Signed with the secret the host verifies with: JWT_SECRET or SUPABASE_JWT_SECRET (readConfig), else the
// one the site keeps in the database.
import { parseArgs } from "node:util";
import { readConfig } from "../shared/config.ts";
import { createContext } from "../shared/context.ts";
import { connect } from "../shared/db.ts";
import { ensurePerson, mintPersonJwt, type Role, ROLES } from "../shared/people.ts";
import { databaseUrlOrExit, fail, runCli } from "./cli.ts";

await runCli(async () => {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: { role: { type: "string" } },
    allowPositionals: true,
  });
  const email = positionals[0];
  if (!email || !email.includes("@")) fail("usage: deno task token <email> [--role admin|support|member]");
  if (values.role && !ROLES.includes(values.role as Role)) fail(`--role must be one of ${ROLES.join(", ")}`);
  const config = readConfig();
  const databaseUrl = await databaseUrlOrExit();
  const sql = connect(databaseUrl, { max: 1 });
  try {
    // the host's own context: its secrets resolve the JWT secret exactly as the host does
    const ctx = createContext({ ...config, databaseUrl }, { sql });
    const person = await ensurePerson(sql, email, values.role as Role | undefined);
    console.log(`${person.email} (${person.role}, ${person.id}):`);
    console.log(await mintPersonJwt(await ctx.secrets.get("jwt"), person));
  } finally {
    await sql.end();
  }
});
