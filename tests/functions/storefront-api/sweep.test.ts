// The nightly cart sweep's schedule: 04:20 UTC every day, the same time the migration gives pg_cron, run
// by the host's timer where the database has no pg_cron; a failed sweep still schedules the next.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { fixedClock } from "../../../shared/clock.ts";
import {
  CART_SWEEP_CRON,
  nextCartSweepAt,
  startCartSweep,
  type Timers,
} from "../../../functions/storefront-api/sweep.ts";

const HOUR = 3600_000;

test("the next cart sweep is the coming 04:20 UTC, strictly after now", () => {
  assert.equal(nextCartSweepAt(new Date("2026-03-01T10:00:00Z")).toISOString(), "2026-03-02T04:20:00.000Z");
  assert.equal(nextCartSweepAt(new Date("2026-03-01T04:19:59Z")).toISOString(), "2026-03-01T04:20:00.000Z");
  assert.equal(nextCartSweepAt(new Date("2026-03-01T04:20:00Z")).toISOString(), "2026-03-02T04:20:00.000Z");
  assert.equal(nextCartSweepAt(new Date("2026-12-31T23:00:00Z")).toISOString(), "2027-01-01T04:20:00.000Z");
});

test("the host's schedule is the one the migration gives pg_cron", async () => {
  const migration = await Deno.readTextFile(
    new URL("../../../migrations/20261122000050_storefront_carts.sql", import.meta.url),
  );
  const scheduled = migration.match(/cron\.schedule\('sitewire-sweep-storefront-carts', '([^']+)'/)?.[1];
  assert.equal(scheduled, CART_SWEEP_CRON);
  assert.equal(CART_SWEEP_CRON, "20 4 * * *");
});

test("the sweep runs at each 04:20 UTC with the clock's time, goes on after a failure, and stops when asked", async () => {
  const clock = fixedClock("2026-03-01T10:00:00Z");
  const pending: { run: () => void; ms: number; id: number }[] = [];
  let cleared: number[] = [];
  let ids = 0;
  const timers = {
    set: (run: () => void, ms: number) => {
      pending.push({ run, ms, id: ++ids });
      return ids;
    },
    clear: (id: number) => cleared.push(id),
  } as unknown as Timers;
  const swept: string[] = [];
  const errors: unknown[] = [];
  let fail = false;
  const loop = startCartSweep({
    clock,
    timers,
    onError: (e) => errors.push(e),
    sweep: (now) => {
      swept.push(now.toISOString());
      return fail ? Promise.reject(new Error("database away")) : Promise.resolve(3);
    },
  });
  const fire = async () => {
    const next = pending.shift()!;
    clock.advance(next.ms);
    next.run();
    await new Promise((r) => setTimeout(r, 0));
    return next;
  };

  assert.equal(pending.length, 1);
  assert.equal(pending[0].ms, 18 * HOUR + 20 * 60_000, "until 04:20 the next day");
  await fire();
  assert.deepEqual(swept, ["2026-03-02T04:20:00.000Z"]);
  assert.equal(pending.length, 1, "the next night is scheduled");
  assert.equal(pending[0].ms, 24 * HOUR);

  fail = true;
  await fire();
  assert.equal(errors.length, 1, "the failure is reported");
  assert.equal(pending.length, 1, "and the next night is still scheduled");
  fail = false;
  await fire();
  assert.deepEqual(swept.slice(1), ["2026-03-03T04:20:00.000Z", "2026-03-04T04:20:00.000Z"]);

  cleared = [];
  const waiting = pending[0].id;
  loop.stop();
  assert.deepEqual(cleared, [waiting]);
});
