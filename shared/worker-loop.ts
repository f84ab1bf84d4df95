// The long-running loop of a worker that drains a durable queue table (the webhook dispatcher, the
// repository push): it wakes on NOTIFY <channel> for work just queued and every poll interval for work
// that came due (retries) or a notification it missed, and runs passes until one says nothing more is
// waiting. The queue's own code (claim, work, record) is the pass; this is only the when.
import type { Sql } from "./db.ts";

/** Calls `wake` whenever queued rows may be due; answers how to stop listening. */
export type WakeSource = (channel: string, wake: () => void) => Promise<{ unlisten(): Promise<unknown> }>;

export interface WorkerLoopOptions {
  /** where the default wake source listens */
  sql: Sql;
  /** the NOTIFY channel the queue's insert trigger signals */
  channel: string;
  /** One pass over the queue; answers true when more may be waiting at once (a full batch came back). */
  pass(): Promise<boolean>;
  /**
   * Where wake-ups come from; default LISTEN <channel> on `sql` (postgres.js opens one extra connection
   * for it). `false` polls only. The embedded PGlite socket shares one backend between its connections
   * and hands a NOTIFY to the connection that committed it, so there the poll does the work.
   */
  listen?: WakeSource | false;
  pollIntervalMs: number;
  /** errors of the loop itself (database down, a pass failing) */
  onError(error: unknown): void;
}

export interface WorkerLoop {
  /** Runs until stop(): wakes on NOTIFY and every poll interval. Resolves once stopped. */
  start(): Promise<void>;
  /** Stops the loop, waits for the pass in flight, removes the listener and the timer. */
  stop(): Promise<void>;
  /** After start(): resolves once the listener is in place (or LISTEN failed) and the first pass ran. */
  readonly ready: Promise<void>;
}

export function createWorkerLoop(options: WorkerLoopOptions): WorkerLoop {
  let running = false;
  let loop: Promise<void> | undefined;
  let wake: (() => void) | undefined;
  let woken = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let unlisten: (() => Promise<unknown>) | undefined;
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  function poke(): void {
    woken = true;
    wake?.();
  }

  function pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (woken || !running) return resolve();
      wake = () => {
        clearTimeout(timer);
        timer = undefined;
        wake = undefined;
        resolve();
      };
      timer = setTimeout(() => wake?.(), ms);
    });
  }

  async function drain(): Promise<void> {
    // Keep going while full batches come back: a backlog drains without waiting for the poll.
    while (running) {
      woken = false;
      if (!(await options.pass())) return;
    }
  }

  async function run(): Promise<void> {
    const source: WakeSource | false = options.listen ??
      ((channel, wake) => options.sql.listen(channel, wake));
    if (source) {
      try {
        const meta = await source(options.channel, poke);
        unlisten = () => meta.unlisten();
      } catch (error) {
        options.onError(error); // no LISTEN (e.g. a transaction pooler): polling alone still works
      }
    }
    let first = true;
    while (running) {
      try {
        await drain();
      } catch (error) {
        options.onError(error);
      }
      if (first) markReady();
      first = false;
      await pause(options.pollIntervalMs);
    }
    markReady();
  }

  return {
    ready,
    start() {
      if (loop) return loop;
      running = true;
      woken = true;
      loop = run();
      return loop;
    },
    async stop() {
      running = false;
      wake?.();
      await loop;
      loop = undefined;
      clearTimeout(timer);
      timer = undefined;
      const stopListening = unlisten;
      unlisten = undefined;
      await stopListening?.().catch(options.onError);
    },
  };
}
