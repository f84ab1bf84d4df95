// Load runs for the side-by-side comparisons: autocannon under Node 22 in a process of its own (load.mjs),
// the same connections and duration for both sides, run in alternation so a busy moment of the shared
// machine falls on both.
import { installNodePackages, type NodeInstall, PEERS_DIR, runNodeScript } from "./node.ts";

export const LOAD_PACKAGES = ["autocannon@9.0.0"];

export interface LoadJob {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** a credential rotated per request (the site's keys are rate limited each, as a vendor's are) */
  keys?: { header: string; prefix?: string; values: string[] };
  connections: number;
  seconds: number;
}

export interface LoadFigures {
  requests_per_second: number;
  requests: number;
  p50_ms: number;
  p99_ms: number;
  non_2xx: number;
  errors: number;
  timeouts: number;
}

let installing: Promise<NodeInstall> | undefined;

export async function runLoad(job: LoadJob, say: (line: string) => void): Promise<LoadFigures> {
  const install = await (installing ??= installNodePackages(
    `${PEERS_DIR}load/`,
    LOAD_PACKAGES,
    (l) => say(`autocannon: ${l}`),
  ));
  return await runNodeScript<LoadFigures>(
    install,
    new URL("./load.mjs", import.meta.url),
    {},
    JSON.stringify(job),
  );
}

export interface SideBySide {
  sitewire: LoadFigures;
  peer: LoadFigures;
  /** sitewire's 2xx answers a second over the peer's */
  throughput_ratio: number;
  /** sitewire's p99 over the peer's (below 1: lower) */
  p99_ratio: number;
}

function mean(runs: LoadFigures[]): LoadFigures {
  const avg = (pick: (f: LoadFigures) => number) => runs.reduce((sum, f) => sum + pick(f), 0) / runs.length;
  const sum = (pick: (f: LoadFigures) => number) => runs.reduce((total, f) => total + pick(f), 0);
  return {
    requests_per_second: avg((f) => f.requests_per_second),
    requests: sum((f) => f.requests),
    p50_ms: avg((f) => f.p50_ms),
    p99_ms: Math.max(...runs.map((f) => f.p99_ms)),
    non_2xx: sum((f) => f.non_2xx),
    errors: sum((f) => f.errors),
    timeouts: sum((f) => f.timeouts),
  };
}

/**
 * Both sides under the same load: a short warm-up each, then `rounds` alternating runs; req/s and p50 are
 * the rounds' mean, p99 the worst round's. A side answering anything but 2xx is reported, never hidden.
 */
export async function sideBySide(
  label: string,
  site: LoadJob,
  peer: LoadJob,
  rounds: number,
  say: (line: string) => void,
): Promise<SideBySide> {
  await runLoad({ ...site, seconds: Math.min(2, site.seconds) }, say);
  await runLoad({ ...peer, seconds: Math.min(2, peer.seconds) }, say);
  const siteRuns: LoadFigures[] = [];
  const peerRuns: LoadFigures[] = [];
  const line = (side: string, f: LoadFigures) =>
    `${label}: ${side} ${f.requests_per_second.toFixed(1)} req/s, p50 ${f.p50_ms} ms, p99 ${f.p99_ms} ms` +
    (f.non_2xx || f.errors ? ` (${f.non_2xx} non-2xx, ${f.errors} errors)` : "");
  for (let round = 0; round < rounds; round++) {
    siteRuns.push(await runLoad(site, say));
    say(line("sitewire", siteRuns.at(-1)!));
    peerRuns.push(await runLoad(peer, say));
    say(line("peer", peerRuns.at(-1)!));
  }
  const sitewire = mean(siteRuns);
  const other = mean(peerRuns);
  for (const [side, figures] of [["sitewire", sitewire], ["peer", other]] as const) {
    if (!figures.requests) {
      say(`${label}: ${side} completed no request within ${site.seconds} s (each took longer)`);
    }
  }
  // only answers count: a refusal (a 429, a 503 of a peer's pressure limiter) is fast and would flatter
  const answeredPerSecond = (f: LoadFigures) => f.requests ? f.requests_per_second * (f.requests - f.non_2xx) / f.requests : 0;
  return {
    sitewire,
    peer: other,
    throughput_ratio: answeredPerSecond(sitewire) / answeredPerSecond(other),
    p99_ratio: sitewire.p99_ms / other.p99_ms,
  };
}
