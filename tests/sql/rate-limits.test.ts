// Rate-limit counters: windows that have ended are swept by the first hit of each minute, so the table
// holds about the windows in use, whoever (or whatever made-up token) made them. Each case runs in a
// transaction that is rolled back, at instants of its own long ago, so the sweeps of the requests other
// tests make meanwhile neither see its rows nor race it.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import type { Tx } from "../../shared/db.ts";
import { as, refused, rolledBack } from "./support.ts";

/**
 * A minute of its own in 2001, so no other hit has written that minute's sweep row; never one of the last
 * two of an hour, so the hits a case makes a minute later still fall in the same hour's window.
 */
function minuteOfOwn(): Date {
  const hours = Math.floor(Math.random() * 8_000);
  const minutes = Math.floor(Math.random() * 58);
  return new Date(Date.UTC(2001, 0, 1) + hours * 3_600_000 + minutes * 60_000);
}

async function window(tx: Tx, bucket: string, start: Date, seconds: number, hits = 1) {
  await tx`insert into public.rate_limit_counters (bucket, window_start, window_seconds, hits)
           values (${bucket}, ${start}, ${seconds}, ${hits})`;
}

async function left(tx: Tx, bucket: string): Promise<string[]> {
  const rows = await tx<{ w: string }[]>`
    select window_seconds || '@' || to_char(window_start at time zone 'UTC', 'HH24:MI:SS') as w
    from public.rate_limit_counters where bucket = ${bucket} order by window_start, window_seconds`;
  return rows.map((r) => r.w);
}

test("the sweep deletes the windows that ended over a minute ago and keeps the rest", () =>
  rolledBack(async (tx) => {
    const now = new Date("2001-06-01T12:00:30Z");
    const bucket = `sweep-test:${crypto.randomUUID()}`;
    await window(tx, bucket, new Date("2001-06-01T10:00:00Z"), 3600); // ended 11:00: gone
    await window(tx, bucket, new Date("2001-06-01T11:59:00Z"), 1); // ended 11:59:01: gone
    await window(tx, bucket, new Date("2001-06-01T11:59:40Z"), 1); // ended 50 s ago: kept (slack)
    await window(tx, bucket, new Date("2001-06-01T12:00:00Z"), 3600); // running: kept
    await window(tx, bucket, new Date("2001-06-01T12:00:29Z"), 1); // ended just now: kept
    const [{ swept }] = await tx<{ swept: number }[]>`select public.rate_limit_sweep(${now}) as swept`;
    assert.ok(swept >= 2);
    assert.deepEqual(await left(tx, bucket), ["1@11:59:40", "3600@12:00:00", "1@12:00:29"]);
  }));

test("the first hit of each minute sweeps; later hits of that minute do not", () =>
  rolledBack(async (tx) => {
    const minute = minuteOfOwn();
    const at = (seconds: number) => new Date(minute.getTime() + seconds * 1000);
    const stale = `sweep-stale:${crypto.randomUUID()}`;
    const hitter = `sweep-hitter:${crypto.randomUUID()}`;
    const hit = async (when: Date) =>
      await tx`select * from public.rate_limit_hit(${hitter}, array[3600, 1], ${when})`;

    await window(tx, stale, at(-7200), 3600);
    const counted = await hit(at(5));
    assert.deepEqual(counted.map((r) => [r.window_seconds, r.hits]).sort(), [[1, 1], [3600, 1]]);
    assert.deepEqual(await left(tx, stale), [], "the minute's first hit swept the ended window");

    await window(tx, stale, at(-7200), 3600);
    await hit(at(40));
    assert.equal((await left(tx, stale)).length, 1, "a second hit in the same minute does not sweep again");

    await hit(at(65));
    assert.deepEqual(await left(tx, stale), [], "the next minute's first hit does");
    // the hitter's own windows are counted as before: the hour's window has all three hits
    const [{ hits }] = await tx<{ hits: number }[]>`
      select hits from public.rate_limit_counters where bucket = ${hitter} and window_seconds = 3600`;
    assert.equal(hits, 3);
  }));

test("only the service role sweeps or counts; the image cache list is the service role's too", () =>
  rolledBack(async (tx) => {
    for (const who of ["anon", { sub: crypto.randomUUID() }] as const) {
      await as(tx, who, async (q) => {
        await refused(q, (s) => s`select public.rate_limit_sweep(now())`);
        await refused(q, (s) => s`select * from public.rate_limit_hit('x', array[60], now())`);
        await refused(q, (s) => s`select * from public.rate_limit_count('x', array[60], now())`);
        await refused(q, (s) => s`select * from public.content_image_variants`);
        await refused(
          q,
          (s) => s`insert into public.content_image_variants (content_hash, variant) values ('a', 'b')`,
        );
      });
    }
    await as(tx, "service_role", async (q) => {
      await q`select public.rate_limit_sweep('2001-01-01')`;
      await q`insert into public.content_image_variants (content_hash, variant) values ('a', 'b') on conflict do nothing`;
    });
  }));
