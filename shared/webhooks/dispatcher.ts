// The one door for outbound webhook HTTP: claim due outbox rows, guard the address, sign through the
// owning API's adapter, POST the exact body with a timeout, record the outcome (on the outbox row and,
// through the adapter, on the subscription), retry with backoff. `start()` keeps a dispatcher running
// (LISTEN for immediate wake-ups plus a poll for retries); `deliverDue()` is one pass for a serverless
// trigger (pg_net calling a function's delivery route). Both use the same code.
import type { Sql } from "../db.ts";
import { type Clock, systemClock } from "../clock.ts";
import { checkOutboundUrl } from "./url-guard.ts";
import { claimDue, type DeliveryOutcome, type OutboxRow, recordOutcome } from "./outbox.ts";
import { createWorkerLoop, type WakeSource } from "../worker-loop.ts";

export const OUTBOX_CHANNEL = "webhook_outbox";

export interface WebhookAdapter {
  /**
   * Headers computed at send time (signatures from the subscription's secret, secret headers).
   * Answer null when the subscription no longer exists or is switched off: the row fails for good
   * without a request.
   */
  sign(row: OutboxRow): Promise<Record<string, string> | null>;
  /**
   * The bytes to send when part of them belongs to the moment of sending (a file address signed for an
   * hour from now, which a retry an hour later must sign again); sign() then signs these. Default: the
   * stored body as it is.
   */
  body?(row: OutboxRow): Promise<string>;
  /** Records the attempt on the subscription (last_at, last_error...). */
  record?(sql: Sql, row: OutboxRow, outcome: DeliveryOutcome): Promise<void>;
}

export type { WakeSource };

export interface DispatcherOptions {
  sql: Sql;
  /** One adapter per API name written in webhook_outbox.api; rows of other APIs are left alone. */
  adapters: Record<string, WebhookAdapter>;
  clock?: Clock;
  /** Allow loopback / private / link-local targets (development and tests). */
  allowPrivate?: boolean;
  fetch?: typeof fetch;
  /** Per-request timeout; default 10 000 ms. */
  timeoutMs?: number;
  /** Rows claimed (and sent concurrently) per pass; default 20. */
  batchSize?: number;
  /** Claim lease; default max(60 s, 3 × timeout). */
  leaseSeconds?: number;
  /** How often start() looks for due retries and missed notifications; default 2 000 ms. */
  pollIntervalMs?: number;
  /**
   * Where wake-ups come from; default LISTEN webhook_outbox on `sql` (postgres.js opens one extra
   * connection for it). `false` polls only. The embedded PGlite socket shares one backend between its
   * connections and hands a NOTIFY to the connection that committed it, so there the poll (or a wake
   * source the host passes here) does the work.
   */
  listen?: WakeSource | false;
  /** Claim only deliveries addressed under these URL prefixes (see ClaimOptions.targets). */
  targets?: string[];
  /** Name resolution for the URL guard (tests). */
  resolve?: (hostname: string) => Promise<string[]>;
  /** Errors of the loop itself (database down, adapter.record failing); default console.error. */
  onError?: (error: unknown) => void;
}

export interface RunCounts {
  /** Rows claimed in this pass. */
  claimed: number;
  /** Answered 2xx. */
  delivered: number;
  /** Failed this time and scheduled again with backoff. */
  retrying: number;
  /** Failed for good (attempts used up, refused target, subscription gone). */
  failed: number;
}

export interface Dispatcher {
  /** One pass: claim a batch of due rows and deliver them. */
  runOnce(): Promise<RunCounts>;
  /** Runs until stop(): wakes on NOTIFY webhook_outbox and every poll interval. Resolves once stopped. */
  start(): Promise<void>;
  /** Stops the loop, waits for the pass in flight, removes the listener and the timer. */
  stop(): Promise<void>;
  /** After start(): resolves once the listener is in place (or LISTEN failed) and the first pass ran. */
  readonly ready: Promise<void>;
}

const DEFAULT_BATCH_SIZE = 20;

export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const clock = options.clock ?? systemClock;
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const leaseSeconds = options.leaseSeconds ?? Math.max(60, Math.ceil((timeoutMs * 3) / 1000));
  const pollIntervalMs = options.pollIntervalMs ?? 2_000;
  const onError = options.onError ?? ((error: unknown) => console.error("webhook dispatcher:", error));
  const apis = Object.keys(options.adapters);

  async function send(row: OutboxRow): Promise<DeliveryOutcome> {
    const adapter = options.adapters[row.api];
    if (!adapter) return { delivered: false, error: `no adapter for api ${row.api}`, final: true };
    const guard = await checkOutboundUrl(row.url, {
      allowPrivate: options.allowPrivate,
      resolve: options.resolve,
    });
    if (!guard.ok) return { delivered: false, error: `refused: ${guard.reason}`, final: !guard.transient };

    let signed: Record<string, string> | null;
    let body = row.body;
    try {
      if (adapter.body) body = await adapter.body(row);
      signed = await adapter.sign(body === row.body ? row : { ...row, body });
    } catch (error) {
      return { delivered: false, error: `signing failed: ${message(error)}` };
    }
    if (signed === null) return { delivered: false, error: "subscription no longer active", final: true };

    const headers = new Headers();
    for (const [name, value] of Object.entries(row.headers ?? {})) headers.set(name, String(value));
    for (const [name, value] of Object.entries(signed)) headers.set(name, value);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
    if (!headers.has("user-agent")) headers.set("user-agent", "Sitewire-Webhooks/1");

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    try {
      const response = await doFetch(row.url, {
        method: "POST",
        headers,
        body,
        // A redirect could lead past the guard to a private address: it counts as a failure.
        redirect: "manual",
        signal: controller.signal,
      });
      await response.body?.cancel().catch(() => {});
      if (response.status >= 200 && response.status < 300) {
        return { delivered: true, status: response.status };
      }
      return { delivered: false, status: response.status, error: `HTTP ${response.status}` };
    } catch (error) {
      if (timedOut) return { delivered: false, error: `timeout after ${timeoutMs} ms` };
      return { delivered: false, error: message(error) };
    } finally {
      clearTimeout(timer);
    }
  }

  async function deliver(row: OutboxRow, counts: RunCounts): Promise<void> {
    // anything unexpected (a stored header Headers refuses, say) is a failed attempt, never a lost row
    const outcome = await send(row).catch((error): DeliveryOutcome => ({
      delivered: false,
      error: message(error),
    }));
    const updated = await recordOutcome(options.sql, row, outcome, clock.now());
    if (!updated) return; // the lease ran out and another dispatcher owns the row now
    if (updated.status === "delivered") counts.delivered++;
    else if (updated.status === "failed") counts.failed++;
    else counts.retrying++;
    const adapter = options.adapters[row.api];
    if (adapter?.record) {
      try {
        await adapter.record(options.sql, updated, outcome);
      } catch (error) {
        onError(error);
      }
    }
  }

  async function runOnce(): Promise<RunCounts> {
    const counts: RunCounts = { claimed: 0, delivered: 0, retrying: 0, failed: 0 };
    if (!apis.length) return counts;
    const rows = await claimDue(options.sql, {
      limit: batchSize,
      now: clock.now(),
      leaseSeconds,
      apis,
      targets: options.targets,
    });
    counts.claimed = rows.length;
    const settled = await Promise.allSettled(rows.map((row) => deliver(row, counts)));
    const broken = settled.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (broken) throw broken.reason; // recording failed (database gone): the lease brings the rows back
    return counts;
  }

  // the long-running loop (LISTEN + poll) is the one every queue worker shares
  const loop = createWorkerLoop({
    sql: options.sql,
    channel: OUTBOX_CHANNEL,
    listen: options.listen,
    pollIntervalMs,
    onError,
    pass: async () => (await runOnce()).claimed >= batchSize,
  });
  return { runOnce, ready: loop.ready, start: loop.start, stop: loop.stop };
}

/**
 * Delivery for a serverless trigger (a route pg_net or pg_cron calls): claims, sends and records a batch,
 * and goes on while full batches come back, up to `maxPasses` so one call stays within a function's
 * time limit (what is left waits for the next call). Answers the counts of every pass together.
 */
export async function deliverDue(options: DispatcherOptions, maxPasses = 1): Promise<RunCounts> {
  const dispatcher = createDispatcher(options);
  const total: RunCounts = { claimed: 0, delivered: 0, retrying: 0, failed: 0 };
  for (let pass = 0; pass < maxPasses; pass++) {
    const counts = await dispatcher.runOnce();
    for (const name of Object.keys(total) as (keyof RunCounts)[]) total[name] += counts[name];
    if (counts.claimed < (options.batchSize ?? DEFAULT_BATCH_SIZE)) break;
  }
  return total;
}

/** The error's message with its causes ("fetch failed: ... Connection refused"), kept short. */
function message(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    const text = e instanceof Error ? e.message : String(e);
    if (text && !parts.includes(text)) parts.push(text);
    e = e instanceof Error ? e.cause : undefined;
  }
  const text = parts.join(": ") || "network error";
  return text.length > 300 ? text.slice(0, 297) + "..." : text;
}
