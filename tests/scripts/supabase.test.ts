// What the Supabase CLI reads: supabase/migrations must be the migrations, so `supabase db push` applies them.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";

const root = new URL("../../", import.meta.url).pathname;

test("supabase/migrations is a symbolic link in git to ../migrations, listing every migration", async () => {
  const out = await new Deno.Command("git", { args: ["ls-files", "-s", "supabase/migrations"], cwd: root })
    .output();
  const [mode] = new TextDecoder().decode(out.stdout).trim().split(/\s+/);
  assert.equal(mode, "120000", "stored as a symbolic link, not a file holding a path");
  assert.equal(await Deno.readLink(`${root}supabase/migrations`), "../migrations");
  const names = async (dir: string) => {
    const list: string[] = [];
    for await (const entry of Deno.readDir(dir)) if (entry.name.endsWith(".sql")) list.push(entry.name);
    return list.sort();
  };
  const through = await names(`${root}supabase/migrations`);
  assert.ok(through.length > 0);
  assert.deepEqual(through, await names(`${root}migrations`));
});
