// Directus for the peers bench, run under Node 22 by bench/peers/directus.ts from the folder its package
// was installed in: `directus bootstrap` (schema and the first administrator, whose static token the bench
// uses) on the fresh PostgreSQL database the environment names, then `directus start` on loopback; once
// /server/ping answers it prints one JSON line with the address. Lines before it are progress. It stops
// Directus when its standard input closes.
import { spawn, spawnSync } from "node:child_process";

const protocol = (line) => process.stdout.write(line + "\n");
const cli = new URL("./node_modules/directus/cli.js", import.meta.url).pathname;
const started = Date.now();

const bootstrap = spawnSync(process.execPath, [cli, "bootstrap"], {
  env: process.env,
  stdio: ["ignore", "ignore", "pipe"],
});
if (bootstrap.status !== 0) {
  const lines = String(bootstrap.stderr).trim().split("\n").filter((l) => l.trim() && !/^\s+at /.test(l));
  throw new Error(
    `directus bootstrap failed: ${
      (lines.findLast((l) => /error/i.test(l)) ?? lines.at(-1) ?? "").slice(0, 300)
    }`,
  );
}
protocol(`progress directus bootstrapped in ${Date.now() - started} ms; starting`);

const server = spawn(process.execPath, [cli, "start"], {
  env: process.env,
  stdio: ["ignore", "ignore", "inherit"],
});
let exited = false;
server.on("exit", (code) => {
  exited = true;
  if (!stopping) {
    console.error(`directus start exited with ${code}`);
    process.exit(1);
  }
});

let stopping = false;
function stop() {
  if (stopping) return;
  stopping = true;
  if (exited) process.exit(0);
  server.once("exit", () => process.exit(0));
  server.kill("SIGTERM");
  setTimeout(() => server.kill("SIGKILL"), 10_000).unref();
}
process.on("SIGTERM", stop);
process.stdin.on("end", stop);
process.stdin.on("close", stop);
process.stdin.resume();

const url = `http://127.0.0.1:${process.env.PORT}`;
for (;;) {
  try {
    const res = await fetch(`${url}/server/ping`);
    if (res.ok) break;
  } catch { /* not listening yet */ }
  await new Promise((resolve) => setTimeout(resolve, 250));
}
protocol(JSON.stringify({ url, ready_ms: Date.now() - started }));
