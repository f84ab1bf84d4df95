// Jobs that run once a day at a fixed UTC time (the upload sweep, the cart sweep). Where the database has
// pg_cron, migrations schedule them there with dailyCron's expression; the embedded default's host runs the
// same schedule with startDaily. The clock decides the times, so a fixed clock and fake timers test it.
import type { Clock } from "./clock.ts";

export interface DailyTime {
  hour: number;
  minute: number;
}

/** The pg_cron expression of a daily UTC time. */
export const dailyCron = (at: DailyTime): string => `${at.minute} ${at.hour} * * *`;

/** The next occurrence of `at` (UTC) strictly after `now`. */
export function nextDailyAt(now: Date, at: DailyTime): Date {
  const next = new Date(
    Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), at.hour, at.minute),
  );
  if (next.getTime() <= now.getTime()) next.setUTCDate(next.getUTCDate() + 1);
  return next;
}

type TimerId = ReturnType<typeof setTimeout>;

export interface Timers {
  set(run: () => void, ms: number): TimerId;
  clear(id: TimerId): void;
}

const realTimers: Timers = { set: (run, ms) => setTimeout(run, ms), clear: (id) => clearTimeout(id) };

/**
 * Runs `run` at every next occurrence of `at` until stopped; a run that fails is reported and the next one
 * is still scheduled.
 */
export function startDaily(input: {
  at: DailyTime;
  clock: Clock;
  run: (now: Date) => Promise<unknown>;
  onError: (error: unknown) => void;
  timers?: Timers;
}): { stop(): void } {
  const timers = input.timers ?? realTimers;
  let timer: TimerId | undefined;
  let stopped = false;
  const schedule = () => {
    if (stopped) return;
    const now = input.clock.now();
    timer = timers.set(() => {
      input.run(input.clock.now()).catch(input.onError).finally(schedule);
    }, nextDailyAt(now, input.at).getTime() - now.getTime());
  };
  schedule();
  return {
    stop() {
      stopped = true;
      if (timer !== undefined) timers.clear(timer);
    },
  };
}
