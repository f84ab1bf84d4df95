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
  /** the database of the full run that wrote the file (an entry without its own was measured on it) */
  database?: string;
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

// ---- the performance issue's goals, each as measured on each database that measured it ----
// deno-lint-ignore no-explicit-any
type Entry = Result & Record<string, any>;
interface Goal {
  goal: string;
  /** the entries this goal reads: one per database that measured it */
  entries: (r: Entry) => boolean;
  measured: (r: Entry) => string;
  met: (r: Entry) => boolean;
  target: string;
}
const x = (n: number, digits = 2) => `${n.toFixed(digits)}×`;
const ms = (n: number) => `${n < 10 ? n.toFixed(2) : n.toFixed(1)} ms`;
const named = (prefix: string) => (r: Entry) => r.name === prefix || r.name.startsWith(`${prefix} `);
const GOALS: Goal[] = [
  {
    goal: "one entry vs its primary-key SQL floor (kept answer)",
    entries: (r) => r.name === "delivery entries/<id>",
    measured: (r) =>
      `${x(r.ratio!)} (${ms(r.api_ms)} vs ${ms(r.floor_ms)})` +
      (r.bare_http_floor_ratio ? `; a bare handler (the floor's statement, then the same answer): ${x(r.bare_http_floor_ratio)}` : ""),
    met: (r) => r.ratio! <= 3,
    target: "≤ 3×",
  },
  {
    goal: "GraphQL collection vs REST, the same data, answers built",
    entries: named("graphql collection (limit 100, links two levels deep) vs REST"),
    measured: (r) => `${x(r.ratio!)} (${ms(r.graphql_ms)} vs ${ms(r.rest_ms)})`,
    met: (r) => r.ratio! <= 1.2,
    target: "≤ 1.2×",
  },
  {
    goal: "storefront products(first: 250), 1,000 products × 5 variants, vs SQL floor",
    entries: (r) => r.name === "storefront products(first: 250) with variants(first: 50) and collections(first: 10)",
    measured: (r) => `built ${x(r.ratio!)} (${ms(r.api_ms)} vs ${ms(r.floor_ms)})`,
    met: (r) => r.ratio! <= 2,
    target: "≤ 2×",
  },
  {
    goal: "slots, 31 days, 3-host round robin, 500 bookings, vs SQL floor",
    entries: named("scheduling slots (31-day range, 3-host round robin, 500 bookings)"),
    measured: (r) => `kept ${x(r.ratio!)} (${ms(r.api_ms)}), data read each time ${x(r.ratio_built)} (${ms(r.api_built_ms)}) vs ${ms(r.floor_ms)}`,
    met: (r) => r.ratio! <= 2 && r.ratio_built <= 2,
    target: "≤ 2×",
  },
  {
    goal: "content list and one entry at 16 connections vs Directus",
    entries: named("peers: content list"),
    measured: (r) =>
      `list ${x(r.content_list.throughput_ratio, 1)} req/s, p99 ${x(r.content_list.p99_ratio)}; ` +
      `one entry ${x(r.one_entry.throughput_ratio, 1)} req/s, p99 ${x(r.one_entry.p99_ratio)}`,
    met: (r) =>
      r.content_list.throughput_ratio >= 5 && r.content_list.p99_ratio < 1 &&
      r.one_entry.throughput_ratio >= 5 && r.one_entry.p99_ratio < 1,
    target: "≥ 5×, lower p99",
  },
  {
    goal: "store products at 16 connections vs Vendure",
    entries: named("peers: store products"),
    measured: (r) => `${x(r.store_products.throughput_ratio, 1)} req/s, p99 ${x(r.store_products.p99_ratio)}`,
    met: (r) => r.store_products.throughput_ratio >= 10 && r.store_products.p99_ratio < 1,
    target: "≥ 10×, lower p99",
  },
  {
    goal: "12 MP JPEG → 800 wide WebP: cold vs sharp; cached vs cold",
    entries: named("images: 12 MP JPEG"),
    measured: (r) =>
      `${x(r.ratios.door_cold_vs_sharp)} (${ms(r.sitewire.door_cold_ms)} vs ${ms(r.sharp.ms)}); cached ${
        x(r.ratios.cold_vs_cached, 0)
      } faster`,
    met: (r) => r.ratios.door_cold_vs_sharp <= 3 && r.ratios.cold_vs_cached >= 50,
    target: "≤ 3×; ≥ 50×",
  },
  {
    goal: "webhooks: commit → delivered p95; four dispatchers",
    entries: named("webhooks:"),
    measured: (r) =>
      `p95 ${ms(r.latency_p95_ms)}; ${r.deliveries_per_second.toFixed(0)} a second, ${r.lost} lost, ${r.doubled} doubled`,
    met: (r) => r.latency_p95_ms <= 50 && r.lost === 0 && r.doubled === 0,
    target: "≤ 50 ms; none lost or doubled",
  },
  {
    goal: "protocol createRecord c1 / c16 and getTimeline, getAuthorFeed p95 vs the reference PDS and app view",
    entries: named("network (AT Protocol) vs reference"),
    measured: (r) =>
      `${x(r.ratios.create_throughput_c1, 1)} / ${x(r.ratios.create_throughput_c16, 1)}; ` +
      `${x(r.ratios.timeline_p95)} / ${x(r.ratios.author_feed_p95)}`,
    met: (r) =>
      r.ratios.create_throughput_c1 >= 2 && r.ratios.create_throughput_c16 >= 2 &&
      r.ratios.timeline_p95 <= 0.5 && r.ratios.author_feed_p95 <= 0.5,
    target: "≥ 2×; ≤ 0.5×",
  },
  {
    goal: "federation: commits to a verifying consumer vs the reference's createRecord at 16 writers; frame p95 at 50 a second",
    entries: named("federation:"),
    measured: (r) =>
      `${x(r.ratio_to_reference_create)} (${r.commits_per_second_verified.toFixed(0)} vs ${
        r.reference_create_per_second_c16.toFixed(0)
      } a second); p95 ${ms(r.paced_frame_delivery_p95_ms)}`,
    met: (r) => r.ratio_to_reference_create >= 2 && r.paced_frame_delivery_p95_ms <= 50,
    target: "≥ 2×; ≤ 50 ms",
  },
  {
    goal: "the embedded default (`task dev`) resident size after the load",
    entries: named("embedded default (task dev): resident size"),
    measured: (r) => `${r.rss_after_mb} MB (ready ${r.rss_ready_mb}, peak ${r.rss_peak_mb})`,
    met: (r) => r.rss_after_mb <= r.goal_rss_mb,
    target: "≤ 300 MB",
  },
  {
    goal: "support: an agent's line committed → shown in the widget, p95",
    entries: named("support: agent line"),
    measured: (r) => `${r.p95_ms} ms`,
    met: (r) => r.p95_ms <= r.goal_p95_ms,
    target: "≤ 100 ms",
  },
];
const goalRows = GOALS.flatMap((g) =>
  report.results.filter((r) => g.entries(r as Entry))
    .sort((a, b) => (a.database ?? "").localeCompare(b.database ?? ""))
    .map((r) => {
    const entry = r as Entry;
    const met = g.met(entry);
    return `| ${g.goal} | ${entry.database ?? report.database ?? "—"} | ${g.measured(entry)} | ${g.target} | ${met ? "met" : "**not met**"} |`;
  })
);
if (goalRows.length) {
  out.push("The performance goals as `bench/results.json` holds them (each entry carries the time it was measured; the scale ladders have their own table below)", "");
  out.push("| goal | database | measured | target | |", "|---|---|---|---|---|", ...goalRows, "");
}

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
