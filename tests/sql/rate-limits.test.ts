// Rate-limit buckets: those whose windows have all ended are swept by the first admission of each minute,
// so the table holds about the buckets in use, whoever (or whatever made-up token) made them. The counting
// itself is the admission statement's (tests/shared/gate.test.ts). Each case runs in a
// transaction that is rolled back, at instants of its own, so the sweeps of the requests other tests make
// meanwhile neither see its rows nor race it.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import type { Tx } from "../../shared/db.ts";
import { as, refused, rolledBack } from "./support.ts";

/**
 * A minute of its own decades ahead: the sweep's claim only ever moves forward, so a minute before the
 * last one claimed (by the requests other tests make now) would never be claimed. The case's transaction
 * is rolled back, so its claim never holds up theirs.
 */
function minuteOfOwn(): Date {
  const hours = Math.floor(Math.random() * 8_000);
  const minutes = Math.floor(Math.random() * 58);
  return new Date(Date.UTC(2090, 0, 1) + hours * 3_600_000 + minutes * 60_000);
}

const epochSecond = (at: string | Date) => Math.floor(new Date(at).getTime() / 1000);

/** A bucket counted last at `counted`, whose every window has ended at `expires`. */
async function bucket(tx: Tx, name: string, counted: string | Date, expires: string | Date) {
  await tx`insert into public.rate_limit_buckets (bucket, windows, hits, counted_at, expires_at)
           values (${name}, '{3600,1}', '{5,1}', ${epochSecond(counted)}, ${epochSecond(expires)})`;
}

async function left(tx: Tx, prefix: string): Promise<string[]> {
  const rows = await tx<{ bucket: string }[]>`
    select bucket from public.rate_limit_buckets where bucket like ${prefix + "%"} order by bucket`;
  return rows.map((r) => r.bucket.slice(prefix.length));
}

test("the sweep deletes the buckets whose windows all ended over a minute ago and keeps the rest", () =>
  rolledBack(async (tx) => {
    const now = new Date("2001-06-01T12:00:30Z");
    const prefix = `sweep-test:${crypto.randomUUID()}:`;
    await bucket(tx, prefix + "a-hour-ago", "2001-06-01T10:30:00Z", "2001-06-01T11:00:00Z"); // gone
    await bucket(tx, prefix + "b-ended-at-11:59:29", "2001-06-01T11:59:28Z", "2001-06-01T11:59:29Z"); // gone
    await bucket(tx, prefix + "c-ended-50-s-ago", "2001-06-01T11:59:39Z", "2001-06-01T11:59:40Z"); // kept (slack)
    await bucket(tx, prefix + "d-running", "2001-06-01T12:00:29Z", "2001-06-01T13:00:00Z"); // kept
    const [{ swept }] = await tx<{ swept: number }[]>`select public.rate_limit_sweep(${now}) as swept`;
    assert.ok(swept >= 2);
    assert.deepEqual(await left(tx, prefix), ["c-ended-50-s-ago", "d-running"]);
  }));

test("the first caller of each minute sweeps; later callers of that minute do not", () =>
  rolledBack(async (tx) => {
    const minute = minuteOfOwn();
    const at = (seconds: number) => new Date(minute.getTime() + seconds * 1000);
    const prefix = `sweep-due:${crypto.randomUUID()}:`;
    const due = async (when: Date) => (await tx<{ swept: number }[]>`
      select public.rate_limit_sweep_due(${when}) as swept`)[0].swept;

    await bucket(tx, prefix + "stale", at(-7300), at(-7200));
    await due(at(5));
    assert.deepEqual(await left(tx, prefix), [], "the minute's first caller swept the ended bucket");

    await bucket(tx, prefix + "stale", at(-7300), at(-7200));
    assert.equal(await due(at(40)), 0);
    assert.deepEqual(await left(tx, prefix), ["stale"], "a second caller in the same minute does not sweep again");

    await due(at(65));
    assert.deepEqual(await left(tx, prefix), [], "the next minute's first caller does");
  }));

test("only the service role sweeps or counts; the image cache list is the service role's too", () =>
  rolledBack(async (tx) => {
    for (const who of ["anon", { sub: crypto.randomUUID() }] as const) {
      await as(tx, who, async (q) => {
        await refused(q, (s) => s`select public.rate_limit_sweep(now())`);
        await refused(q, (s) => s`select public.rate_limit_sweep_due(now())`);
        await refused(q, (s) => s`select * from public.rate_limit_buckets`);
        await refused(
          q,
          (s) => s`insert into public.rate_limit_buckets (bucket, windows, hits, counted_at, expires_at)
                   values ('x', '{60}', '{1}', 0, 60)`,
        );
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
