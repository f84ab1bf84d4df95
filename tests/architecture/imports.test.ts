// Each function deploys alone: the import graph of every functions/<fn>/index.ts stays inside its own
// folder and shared/ (npm packages aside), and nothing under shared/ reaches a function or web/. The graph
// is the one Deno itself builds (`deno info --json`), so type imports and re-exports count and a function
// added later (a new folder with an index.ts) is covered without naming it here. A function's own modules
// import each other without cycles (a cycle ties layers together: the domain must not need the wire).
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";

const root = new URL("../../", import.meta.url);
const rootPath = decodeURIComponent(root.pathname);

/** The local modules the entry's graph reaches (the entry included), project-relative, each with the local modules it imports. */
async function localGraph(entry: string): Promise<Map<string, Set<string>>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--config", `${rootPath}deno.json`, entry],
    cwd: rootPath,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, `deno info ${entry}: ${new TextDecoder().decode(out.stderr)}`);
  type Resolved = { specifier?: string };
  const graph = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: { specifier: string; dependencies?: { code?: Resolved; type?: Resolved }[] }[];
  };
  const local = (specifier: string | undefined) => {
    if (!specifier?.startsWith("file://")) return undefined;
    const path = decodeURIComponent(new URL(specifier).pathname);
    return path.startsWith(rootPath) ? path.slice(rootPath.length) : undefined;
  };
  const modules = new Map<string, Set<string>>();
  for (const module of graph.modules) {
    const path = local(module.specifier);
    if (!path) continue;
    const imports = new Set<string>();
    for (const dependency of module.dependencies ?? []) {
      for (const resolved of [dependency.code, dependency.type]) {
        const target = local(resolved?.specifier);
        if (target) imports.add(target);
      }
    }
    modules.set(path, imports);
  }
  return modules;
}

/** The import cycles of a graph (strongly connected groups of more than one module, or a module importing itself). */
export function cycles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>(), low = new Map<string, number>();
  const stack: string[] = [], onStack = new Set<string>(), found: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next), low.set(v, next), next++;
    stack.push(v), onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) visit(w), low.set(v, Math.min(low.get(v)!, low.get(w)!));
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w), group.push(w);
      if (w === v) break;
    }
    if (group.length > 1 || graph.get(v)?.has(v)) found.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
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
  const graph = (edges: Record<string, string[]>) => new Map(Object.entries(edges).map(([k, v]) => [k, new Set(v)]));
  assert.deepEqual(cycles(graph({ a: ["b"], b: ["c"], c: ["a"], d: ["a"] })), [["a", "b", "c"]]);
  assert.deepEqual(cycles(graph({ a: ["b"], b: [], c: ["a", "b"] })), []);
});

const names = await functionNames();

test("there are functions to check", () => {
  assert.ok(names.length >= 4, `functions found: ${names.join(", ")}`);
});

for (const fn of names) {
  let built: Promise<Map<string, Set<string>>> | undefined;
  const graph = () => built ??= localGraph(`functions/${fn}/index.ts`);
  test(`functions/${fn}/index.ts bundles only its own folder and shared/`, async () => {
    const reached = [...(await graph()).keys()];
    assert.ok(reached.includes(`functions/${fn}/index.ts`));
    assert.deepEqual(reached.filter((p) => outsideFunction(fn, p)), []);
  });
  test(`functions/${fn} has no import cycle`, async () => {
    assert.deepEqual(cycles(await graph()), []);
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
    const reached = [...(await localGraph(entry)).keys()];
    for (const file of files) assert.ok(reached.includes(file), `${file} is in the graph`);
    assert.deepEqual(reached.filter(outsideShared), []);
  } finally {
    await Deno.remove(entry);
  }
});
