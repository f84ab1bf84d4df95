// The nightly cart sweep (spec: a cart is kept thirty days from its last change). Where the database has
// pg_cron, migration 20261122000050 schedules sweep_storefront_carts at CART_SWEEP_CRON itself; where it
// has not (the embedded default, `deno task dev`), the host runs the same schedule with startCartSweep.
import type { Clock } from "../../shared/clock.ts";

/** 04:20 UTC every day, the time of the pg_cron schedule */
export const CART_SWEEP_AT_UTC = { hour: 4, minute: 20 };
export const CART_SWEEP_CRON = `${CART_SWEEP_AT_UTC.minute} ${CART_SWEEP_AT_UTC.hour} * * *`;

/** The next sweep strictly after `now`. */
export function nextCartSweepAt(now: Date): Date {
  const at = new Date(Date.UTC(
    now.getUTCFullYear(),
    now.getUTCMonth(),
    now.getUTCDate(),
    CART_SWEEP_AT_UTC.hour,
    CART_SWEEP_AT_UTC.minute,
  ));
  if (at.getTime() <= now.getTime()) at.setUTCDate(at.getUTCDate() + 1);
  return at;
}

type TimerId = ReturnType<typeof setTimeout>;

export interface Timers {
  set(run: () => void, ms: number): TimerId;
  clear(id: TimerId): void;
}

const realTimers: Timers = { set: (run, ms) => setTimeout(run, ms), clear: (id) => clearTimeout(id) };

/**
 * Runs `sweep` at every next sweep time until stopped; a sweep that fails is reported and the next one
 * is still scheduled. The clock decides the times, so a fixed clock and fake timers test it.
 */
export function startCartSweep(input: {
  clock: Clock;
  sweep: (now: Date) => Promise<unknown>;
  onError?: (error: unknown) => void;
  timers?: Timers;
}): { stop(): void } {
  const timers = input.timers ?? realTimers;
  const onError = input.onError ?? ((error) => console.error("cart sweep:", error));
  let timer: TimerId | undefined;
  let stopped = false;
  const schedule = () => {
    if (stopped) return;
    const now = input.clock.now();
    timer = timers.set(() => {
      input.sweep(input.clock.now()).catch(onError).finally(schedule);
    }, nextCartSweepAt(now).getTime() - now.getTime());
  };
  schedule();
  return {
    stop() {
      stopped = true;
      if (timer !== undefined) timers.clear(timer);
    },
  };
}
