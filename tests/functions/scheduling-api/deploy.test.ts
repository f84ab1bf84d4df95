// The pages' scripts are read from files at run time, so a Supabase deploy must ship them: every one is
// listed under the scheduling function's static_files in supabase/config.toml.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { PAGE_SCRIPTS } from "../../../web/pages/book/page.ts";

test("supabase/config.toml ships every script the booker and room pages read", async () => {
  const toml = await Deno.readTextFile(new URL("../../../supabase/config.toml", import.meta.url));
  const section = toml.split(/^\[functions\.scheduling-api\]$/m)[1]?.split(/^\[/m)[0] ?? "";
  const listed = /^static_files\s*=\s*\[(.*)\]$/m.exec(section)?.[1] ?? "";
  for (const file of PAGE_SCRIPTS) assert.ok(listed.includes(`"../web/pages/book/${file}"`), file);
});
