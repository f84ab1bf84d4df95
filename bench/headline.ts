// The README's headline tables from a results file: `deno run -A bench/headline.ts [bench/results.json]`
// prints them as Markdown (the concurrency phase at each connection count and database, the scale
// ladders, the resident size, and where it was measured), so the README shows what a run measured.
interface Level {
  connections: number;
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
}
interface Result {
  name: string;
  database?: string;
  levels?: Level[];
  steps?: {
    size: number;
    ms?: number;
    rss_growth_mb?: number;
    heap_live_before_mb?: number;
    heap_peak_mb?: number;
    heap_live_after_mb?: number;
    heap_live_peak_mb?: number;
  }[];
  ratio?: number;
  goal_ratio?: number;
  rss_mb?: number;
  rss_peak_mb?: number;
  db_connections_peak?: number;
  db_active_peak?: number;
  pool_max?: number;
}
interface Report {
  generated_at: string;
  machine?: { cores: number; processor?: string; deno: string };
  databases?: Record<string, { postgres: string; pglite?: string }>;
  results: Result[];
}

const file = Deno.args[0] ?? new URL("./results.json", import.meta.url).pathname;
const report = JSON.parse(await Deno.readTextFile(file)) as Report;
const out: string[] = [];
const fixed = (n: number, digits = 0) => n.toFixed(digits);

const machine = report.machine;
const databases = Object.entries(report.databases ?? {})
  .map(([name, v]) => `${name} (PostgreSQL ${v.postgres}${v.pglite ? `, PGlite ${v.pglite}` : ""})`);
out.push(
  `Measured ${report.generated_at.slice(0, 10)} on ${machine?.cores ?? "?"} cores` +
    `${machine?.processor ? ` (${machine.processor})` : ""}, Deno ${machine?.deno ?? "?"}; ${databases.join(", ")}.`,
  "",
);

// ---- under load ----
const load = report.results.filter((r) => r.name.startsWith("load (") && r.levels?.length);
const dbs = [...new Set(load.map((r) => r.database!))];
const paths = [...new Set(load.map((r) => r.name.replace(/^load \([^)]*\): /, "")))];
const counts = [...new Set(load.flatMap((r) => r.levels!.map((l) => l.connections)))].sort((a, b) => a - b);
if (load.length) {
  out.push("Under load (autocannon over HTTP): requests a second, p50 / p99 in ms", "");
  const columns = dbs.flatMap((db) => counts.map((c) => `${db}, ${c} conn.`));
  out.push(`| path | ${columns.join(" | ")} |`, `|---|${columns.map(() => "---:").join("|")}|`);
  for (const path of paths) {
    const cells = dbs.flatMap((db) => {
      const result = load.find((r) => r.database === db && r.name.endsWith(`: ${path}`));
      return counts.map((c) => {
        const l = result?.levels?.find((x) => x.connections === c);
        return l ? `${fixed(l.requests_per_second)} · ${l.p50_ms} / ${l.p99_ms}` : "—";
      });
    });
    out.push(`| ${path} | ${cells.join(" | ")} |`);
  }
  for (const host of report.results.filter((r) => r.name.endsWith("the host under load"))) {
    if (host.db_connections_peak !== undefined) {
      const busy = host.db_active_peak !== undefined ? `, at most ${host.db_active_peak} of them busy at once` : "";
      out.push(
        "",
        `${host.database}: at most ${host.db_connections_peak} client connections open to the bench's database under ` +
          `load${busy} (the load host's pool holds up to ${host.pool_max}; the bench's own pool is among them).`,
      );
    }
  }
  out.push("");
}

// ---- scale ----
const scale = report.results.filter((r) => r.name.startsWith("scale (") && r.ratio !== undefined);
if (scale.length) {
  out.push("Scale: a page's cost (sequential median, ms) at each size of the table behind it", "");
  out.push("| database | path | sizes → ms | largest / smallest (goal) |", "|---|---|---|---:|");
  for (const r of scale) {
    const [, db, path] = r.name.match(/^scale \(([^)]*)\): (.*)$/)!;
    const steps = r.steps!.map((s) => `${s.size.toLocaleString("en-US")} → ${fixed(s.ms!, 1)}`).join(", ");
    out.push(`| ${db} | ${path} | ${steps} | ${fixed(r.ratio!, 2)}× (≤ ${r.goal_ratio}×) |`);
  }
  const walks = report.results.filter((r) => r.name.includes("initial sync walked whole"));
  for (const w of walks) {
    const steps = w.steps!;
    out.push(
      "",
      steps.every((s) => s.heap_live_peak_mb !== undefined)
        ? `${w.database}: a whole initial sync, the host's live JS heap (after a full collection) before the walk → at most along it ` +
          `(every 100 pages) → after it, and in use with garbage at its peak: ${
            steps.map((s) =>
              `${s.heap_live_before_mb} → ${s.heap_live_peak_mb} → ${s.heap_live_after_mb} MB (peak ${s.heap_peak_mb} MB) at ${
                s.size.toLocaleString("en-US")
              } entries`
            ).join(", ")
          }.`
        : `${w.database}: a whole initial sync grew the host process by ${
          steps.map((s) => `${s.rss_growth_mb} MB at ${s.size.toLocaleString("en-US")} entries`).join(", ")
        }.`,
    );
  }
  out.push("");
}

// ---- memory ----
for (const m of report.results.filter((r) => r.name.startsWith("memory ("))) {
  out.push(`${m.database}: the bench process's resident size after the run ${m.rss_mb} MB, at its peak ${m.rss_peak_mb} MB.`);
}

const dev = report.results.find((r) => r.name.startsWith("embedded default (task dev): resident size")) as
  | (Result & Record<string, number>)
  | undefined;
if (dev) {
  out.push(
    `the embedded default (\`task dev\` in its own process, PGlite on disk): resident when ready ${dev.rss_ready_mb} MB, ` +
      `with the bench's data generated ${dev.rss_data_generated_mb} MB, after the load ${dev.rss_after_mb} MB, at its peak ` +
      `${dev.rss_peak_mb} MB (goal ≤ ${dev.goal_rss_mb} MB).`,
  );
}

console.log(out.join("\n"));
