// The nightly cart sweep (spec: a cart is kept thirty days from its last change). Where the database has
// pg_cron, migration 20261122000050 schedules sweep_storefront_carts at CART_SWEEP_CRON itself; where it
// has not (the embedded default, `deno task dev`), the host runs the same schedule with startCartSweep.
import type { Clock } from "../../shared/clock.ts";
import { dailyCron, nextDailyAt, startDaily, type Timers } from "../../shared/daily.ts";

export type { Timers };

/** 04:20 UTC every day, the time of the pg_cron schedule */
export const CART_SWEEP_AT_UTC = { hour: 4, minute: 20 };
export const CART_SWEEP_CRON = dailyCron(CART_SWEEP_AT_UTC);

/** The next sweep strictly after `now`. */
export const nextCartSweepAt = (now: Date): Date => nextDailyAt(now, CART_SWEEP_AT_UTC);

/** Runs `sweep` at every next sweep time until stopped; a failed sweep is reported, the next still runs. */
export function startCartSweep(input: {
  clock: Clock;
  sweep: (now: Date) => Promise<unknown>;
  onError?: (error: unknown) => void;
  timers?: Timers;
}): { stop(): void } {
  return startDaily({
    at: CART_SWEEP_AT_UTC,
    clock: input.clock,
    run: input.sweep,
    onError: input.onError ?? ((error) => console.error("cart sweep:", error)),
    timers: input.timers,
  });
}
