// The embedded default's resident size under the bench's load: `deno task dev` (scripts/dev.ts) in a
// process of its own, on an on-disk PGlite in a scratch DATA_DIR, as a developer runs it, loaded on every
// hot path by the load phase's own generator. Its resident size is read from /proc while the load runs,
// and after it (VmRSS, and VmHWM, the peak the kernel kept). The bench's own PGlite lives in memory and
// holds every row the bench generates, so the bench process's figure says nothing of this one.
import { connect } from "../shared/db.ts";
import { freePort } from "../shared/embedded.ts";
import { BENCH_RATE_LIMIT_SCALE } from "./host.ts";
import { runLoad, sampler } from "./load.ts";
import { QUICK } from "./size.ts";

const CONNECTIONS = (Deno.env.get("BENCH_DEVHOST_CONNECTIONS") ?? (QUICK ? "8" : "16"))
  .split(",").map((n) => Number(n.trim())).filter((n) => n > 0);
const SECONDS = Number(Deno.env.get("BENCH_DEVHOST_SECONDS") ?? (QUICK ? 0.3 : 3));
const READY_WITHIN_MS = 300_000;

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM), 0 once the process is gone. */
function statusBytes(pid: number, field: "VmRSS" | "VmHWM"): number {
  try {
    const line = Deno.readTextFileSync(`/proc/${pid}/status`).split("\n").find((l) => l.startsWith(`${field}:`));
    return line ? Number(line.split(/\s+/)[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * The command `deno task dev` runs (deno.json), as environment and arguments, so that what is measured is
 * the task itself with its memory settings, run directly so that its process is the one read from /proc.
 */
async function devTask(): Promise<{ env: Record<string, string>; args: string[] }> {
  const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  const words = String(config.tasks.dev).split(/\s+/);
  const env: Record<string, string> = {};
  while (/^[A-Z_]+=/.test(words[0])) {
    const [name, ...value] = words.shift()!.split("=");
    env[name] = value.join("=");
  }
  if (words.shift() !== "deno") throw new Error(`deno task dev does not run deno: ${config.tasks.dev}`);
  return { env, args: words };
}

export async function benchDevHost(): Promise<Record<string, unknown>[]> {
  const dir = await Deno.makeTempDir({ prefix: "sitewire-bench-dev-" });
  const port = freePort();
  const pgPort = freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  console.log(`bench: the embedded default, \`task dev\` on an on-disk PGlite in ${dir}, under load at ${CONNECTIONS.join(", ")} connection(s)`);
  const task = await devTask();
  const child = new Deno.Command(Deno.execPath(), {
    args: task.args,
    cwd: new URL("..", import.meta.url).pathname,
    env: {
      ...task.env,
      DATA_DIR: dir,
      PORT: String(port),
      PGPORT: String(pgPort),
      HOST: "127.0.0.1",
      RATE_LIMIT_SCALE: BENCH_RATE_LIMIT_SCALE,
    },
    stdin: "null",
    stdout: "null",
    stderr: "inherit",
  }).spawn();
  const sql = connect(`postgres://postgres@127.0.0.1:${pgPort}/postgres`, { max: 2 });
  try {
    const started = performance.now();
    let state: { space: string } | undefined;
    while (!state) {
      if (performance.now() - started > READY_WITHIN_MS) throw new Error("task dev did not come up in five minutes");
      await new Promise((r) => setTimeout(r, 500));
      const written = await Deno.readTextFile(`${dir}/dev.json`).catch(() => undefined);
      const answers = written && await fetch(`${baseUrl}/openapi.json`).then((r) => (r.body?.cancel(), r.ok), () => false);
      if (answers) state = JSON.parse(written);
    }
    const ready = { rss: statusBytes(child.pid, "VmRSS"), ms: Math.round(performance.now() - started) };
    console.log(`  task dev up in ${ready.ms} ms, resident ${mb(ready.rss)} MB`);

    const samples = sampler("", false, () => statusBytes(child.pid, "VmRSS"));
    let results: Record<string, unknown>[];
    let prepared: number;
    try {
      ({ results, rssPrepared: prepared } = await runLoad(sql, {
        baseUrl,
        space: state.space,
        // another process: its dropped requests get a moment to be answered before the next run
        idle: () => new Promise((r) => setTimeout(r, 300)),
      }, samples, {
        label: "embedded default (task dev)",
        database: "embedded pglite on disk",
        connections: CONNECTIONS,
        seconds: SECONDS,
      }));
    } finally {
      await samples.stop();
    }
    await new Promise((r) => setTimeout(r, 2000)); // what it keeps once the load is over
    const after = statusBytes(child.pid, "VmRSS");
    const peak = statusBytes(child.pid, "VmHWM");
    console.log(`  task dev resident with the bench's data generated ${mb(prepared)} MB, after the load ${mb(after)} MB, peak ${mb(peak)} MB`);
    results.push({
      name: "embedded default (task dev): resident size under the bench's load",
      database: "embedded pglite on disk",
      connections: CONNECTIONS,
      seconds_per_run: SECONDS,
      rss_ready_mb: mb(ready.rss),
      rss_data_generated_mb: mb(prepared),
      rss_after_mb: mb(after),
      rss_peak_mb: mb(peak),
      goal_rss_mb: 300,
      note: "scripts/dev.ts in its own process on a scratch DATA_DIR, every hot path of the load phase " +
        "(its generated responses, bookings and catalog included); VmRSS after, VmHWM the peak",
    });
    return results;
  } finally {
    await sql.end({ timeout: 1 }).catch(() => {});
    child.kill("SIGTERM");
    await child.status;
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}
