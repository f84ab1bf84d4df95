// A function's pages read browser scripts and styles (under web/, or shared/ for code the server runs
// too) at run time, so a Supabase deploy must ship them: every file a functions/<fn>/pages/ module lists
// in STATIC_FILES exists and is listed under that function's static_files in supabase/config.toml.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";

const root = new URL("../../", import.meta.url);
const toml = await Deno.readTextFile(new URL("supabase/config.toml", root));

function listedFor(fn: string): string[] {
  const section = toml.split(new RegExp(`^\\[functions\\.${fn}\\]$`, "m"))[1]?.split(/^\[/m)[0] ?? "";
  const list = /^static_files\s*=\s*\[(.*)\]$/m.exec(section)?.[1] ?? "";
  return [...list.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
}

const pageModules: { fn: string; module: string }[] = [];
for await (const fn of Deno.readDir(new URL("functions/", root))) {
  if (!fn.isDirectory) continue;
  const pages = new URL(`functions/${fn.name}/pages/`, root);
  const entries = await Array.fromAsync(Deno.readDir(pages)).catch(() => []);
  for (const entry of entries) {
    if (entry.isFile && entry.name.endsWith(".ts")) pageModules.push({ fn: fn.name, module: `functions/${fn.name}/pages/${entry.name}` });
  }
}

test("there are page modules to check", () => {
  assert.ok(pageModules.length >= 4, pageModules.map((p) => p.module).join(", "));
});

for (const { fn, module } of pageModules) {
  test(`${module}: every file it reads ships with ${fn}`, async () => {
    const { STATIC_FILES = [] } = await import(new URL(module, root).href) as { STATIC_FILES?: string[] };
    const listed = listedFor(fn);
    for (const file of STATIC_FILES) {
      assert.ok(await Deno.stat(new URL(file, root)).then((s) => s.isFile, () => false), `${file} exists`);
      assert.ok(listed.includes(`../${file}`), `${file} is in [functions.${fn}] static_files`);
      assert.ok(!file.startsWith("functions/"), `${file}: a page's static file is browser code, under web/ or shared/`);
    }
  });
}
