// deno task token <email> [--role admin|support|member] — prints a person JWT (creating the person if absent).
import { parseArgs } from "node:util";
import { connect } from "../shared/db.ts";
import { ensurePerson, mintPersonJwt, type Role, ROLES } from "../shared/people.ts";
import { databaseSecrets } from "../shared/secrets.ts";
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
  const sql = connect(await databaseUrlOrExit(), { max: 1 });
  try {
    const person = await ensurePerson(sql, email, values.role as Role | undefined);
    const secret = await databaseSecrets(sql, { jwt: Deno.env.get("JWT_SECRET") }).get("jwt");
    console.log(`${person.email} (${person.role}, ${person.id}):`);
    console.log(await mintPersonJwt(secret, person));
  } finally {
    await sql.end();
  }
});
