// deno task key <kind> [--gated] [--name N] [--by <email>] — prints a new API key as its last line. --by names
// the key's maker (a person who exists): the support desk admits a support key whose maker is on the desk.
import { parseArgs } from "node:util";
import { connect } from "../shared/db.ts";
import { createKey, isKeyKind, KEY_KINDS } from "../shared/keys.ts";
import { databaseUrlOrExit, fail, runCli } from "./cli.ts";

await runCli(async () => {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: { gated: { type: "boolean", default: false }, name: { type: "string" }, by: { type: "string" } },
    allowPositionals: true,
  });
  const kind = positionals[0];
  if (!kind || !isKeyKind(kind)) fail(`usage: deno task key <${KEY_KINDS.join("|")}> [--gated] [--name N] [--by <email>]`);
  const sql = connect(await databaseUrlOrExit(), { max: 1 });
  try {
    let createdBy: string | null = null;
    if (values.by) {
      const [person] = await sql<{ id: string }[]>`
        select id from public.profiles where email = ${values.by.trim().toLowerCase()}`;
      if (!person) fail(`no person with the address ${values.by} (deno task token <email> makes one)`);
      createdBy = person.id;
    }
    const { key } = await createKey(sql, { name: values.name ?? `${kind} key`, kind, gated: values.gated, createdBy });
    console.log(`created a ${values.gated ? "gated " : ""}${kind} key (only its hash is stored; keep it now):`);
    console.log(key);
  } finally {
    await sql.end();
  }
});
