// What a results file says about where it was measured, and how large the bench process grew: the
// machine (cores, processor, runtime versions), the database (server version, or PGlite's package and
// the Postgres it embeds), and the process's resident size now and at its peak.
import type { Sql } from "../shared/db.ts";

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

async function processorName(): Promise<string | undefined> {
  const text = await Deno.readTextFile("/proc/cpuinfo").catch(() => "");
  return text.match(/^model name\s*:\s*(.+)$/m)?.[1]?.trim();
}

export async function machineFacts(): Promise<Record<string, unknown>> {
  return {
    cores: navigator.hardwareConcurrency,
    processor: await processorName(),
    os: `${Deno.build.os} ${Deno.build.arch}`,
    deno: Deno.version.deno,
    v8: Deno.version.v8,
    typescript: Deno.version.typescript,
  };
}

/** The database's own report of its version; embedded, the PGlite package pinned in deno.json too. */
export async function databaseFacts(sql: Sql, database: string): Promise<Record<string, unknown>> {
  const [{ server_version }] = await sql<{ server_version: string }[]>`show server_version`;
  if (database !== "embedded pglite") return { postgres: server_version };
  const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  const pglite = String(config.imports?.["@electric-sql/pglite"] ?? "").replace(/^npm:@electric-sql\/pglite@/, "");
  return { pglite, postgres: server_version };
}

/**
 * This process's resident size now and its peak so far (the kernel's high-water mark, VmHWM, where
 * /proc has it; else the present size). Embedded, the process holds the database too.
 */
export async function memoryFacts(): Promise<{ rss_mb: number; rss_peak_mb: number; heap_used_mb: number }> {
  const usage = Deno.memoryUsage();
  const status = await Deno.readTextFile("/proc/self/status").catch(() => "");
  const hwm = status.match(/^VmHWM:\s*(\d+)\s*kB$/m);
  return {
    rss_mb: mb(usage.rss),
    rss_peak_mb: hwm ? Math.round(Number(hwm[1]) / 1024) : mb(usage.rss),
    heap_used_mb: mb(usage.heapUsed),
  };
}
