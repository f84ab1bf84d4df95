// Each function deploys alone: the import graph of every functions/<fn>/index.ts stays inside its own
// folder and shared/ (npm packages aside), and nothing under shared/ reaches a function or web/. The graph
// is the one Deno itself builds (`deno info --json`), so type imports and re-exports count and a function
// added later (a new folder with an index.ts) is covered without naming it here.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";

const root = new URL("../../", import.meta.url);
const rootPath = decodeURIComponent(root.pathname);

/** The project-relative paths of every local module the entry's graph reaches (the entry included). */
async function localGraph(entry: string): Promise<string[]> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--config", `${rootPath}deno.json`, entry],
    cwd: rootPath,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, `deno info ${entry}: ${new TextDecoder().decode(out.stderr)}`);
  const graph = JSON.parse(new TextDecoder().decode(out.stdout)) as { modules: { specifier: string }[] };
  return graph.modules
    .map((m) => m.specifier)
    .filter((s) => s.startsWith("file://"))
    .map((s) => decodeURIComponent(new URL(s).pathname))
    .filter((p) => p.startsWith(rootPath))
    .map((p) => p.slice(rootPath.length));
}

async function functionNames(): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(new URL("functions/", root))) {
    if (!entry.isDirectory) continue;
    const hasIndex = await Deno.stat(new URL(`functions/${entry.name}/index.ts`, root)).then(() => true, () => false);
    if (hasIndex) names.push(entry.name);
  }
  return names.sort();
}

async function sharedModules(dir = "shared/"): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(new URL(dir, root))) {
    const path = `${dir}${entry.name}`;
    if (entry.isDirectory) files.push(...await sharedModules(`${path}/`));
    else if (/\.(ts|js|mjs)$/.test(entry.name)) files.push(path);
  }
  return files;
}

/** A module a function may bundle: its own folder and shared/ only. */
export function outsideFunction(fn: string, path: string): boolean {
  return !path.startsWith(`functions/${fn}/`) && !path.startsWith("shared/");
}

/** A module shared/ may reach: shared/ only. */
export function outsideShared(path: string): boolean {
  return !path.startsWith("shared/");
}

test("the rules catch what they are meant to catch", () => {
  assert.equal(outsideFunction("forms-api", "functions/content/domain/shape.ts"), true);
  assert.equal(outsideFunction("forms-api", "web/pages/form/runner.js"), true);
  assert.equal(outsideFunction("forms-api", "functions/forms-api-extra/x.ts"), true);
  assert.equal(outsideFunction("forms-api", "functions/forms-api/app.ts"), false);
  assert.equal(outsideFunction("forms-api", "shared/db.ts"), false);
  assert.equal(outsideShared("functions/content/webhook-adapter.ts"), true);
  assert.equal(outsideShared("web/host.ts"), true);
});

const names = await functionNames();

test("there are functions to check", () => {
  assert.ok(names.length >= 4, `functions found: ${names.join(", ")}`);
});

for (const fn of names) {
  test(`functions/${fn}/index.ts bundles only its own folder and shared/`, async () => {
    const reached = await localGraph(`functions/${fn}/index.ts`);
    assert.ok(reached.includes(`functions/${fn}/index.ts`));
    assert.deepEqual(reached.filter((p) => outsideFunction(fn, p)), []);
  });
}

test("shared/ imports no function and nothing under web/", async () => {
  // one graph for all of shared/: a temporary module that imports every file under it
  const files = await sharedModules();
  assert.ok(files.length > 0);
  const entry = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    await Deno.writeTextFile(
      entry,
      files.map((f) => `import ${JSON.stringify(new URL(f, root).href)};`).join("\n"),
    );
    const reached = await localGraph(entry);
    for (const file of files) assert.ok(reached.includes(file), `${file} is in the graph`);
    assert.deepEqual(reached.filter(outsideShared), []);
  } finally {
    await Deno.remove(entry);
  }
});
