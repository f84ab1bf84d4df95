// deno task key <kind> [--gated] [--name N] [--by EMAIL] — prints a new API key as its last line. --by names
// the person who makes it (created if absent): a management key's writes name them as createdBy/updatedBy.
import { parseArgs } from "node:util";
import { connect } from "../shared/db.ts";
import { createKey, isKeyKind, KEY_KINDS } from "../shared/keys.ts";
import { ensurePerson } from "../shared/people.ts";
import { databaseUrlOrExit, fail, runCli } from "./cli.ts";

await runCli(async () => {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: { gated: { type: "boolean", default: false }, name: { type: "string" }, by: { type: "string" } },
    allowPositionals: true,
  });
  const kind = positionals[0];
  if (!kind || !isKeyKind(kind)) {
    fail(`usage: deno task key <${KEY_KINDS.join("|")}> [--gated] [--name N] [--by EMAIL]`);
  }
  const sql = connect(await databaseUrlOrExit(), { max: 1 });
  try {
    const createdBy = values.by ? (await ensurePerson(sql, values.by)).id : null;
    const { key } = await createKey(sql, { name: values.name ?? `${kind} key`, kind, gated: values.gated, createdBy });
    console.log(`created a ${values.gated ? "gated " : ""}${kind} key (only its hash is stored; keep it now):`);
    console.log(key);
  } finally {
    await sql.end();
  }
});
