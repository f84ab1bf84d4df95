// The live bookings kept per UTC month (migration 20261126004200): they agree with a count of the table
// through bulk inserts, confirmations, cancellations, moves to another month, new uids and deletes, and
// only the service role reads or writes them.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import type { Tx } from "../../shared/db.ts";
import { as, makePeople, refused, rolledBack } from "./support.ts";

/** Kept and counted live bookings per month, for the months this test's bookings fall in. */
async function agree(tx: Tx, tag: string, step: string) {
  // the kept rows hold every booking of a month, the other tests' too: compare the months' whole counts
  const kept = await tx<{ month: Date; n: number }[]>`
    select month, sum(bookings)::int as n from public.scheduling_live_booking_months
    where month >= '2040-01-01' group by month having sum(bookings) <> 0 order by month`;
  const counted = await tx<{ month: Date; n: number }[]>`
    select date_trunc('month', end_at, 'UTC') as month, count(*)::int as n from public.scheduling_bookings
    where status in ('accepted', 'pending') and end_at >= '2040-01-01' group by 1 order by 1`;
  assert.deepEqual(kept.map((r) => [r.month.toISOString(), r.n]), counted.map((r) => [r.month.toISOString(), r.n]), `${step} (${tag})`);
}

test("live bookings kept per month agree with the table through every change, and only the service role reads them", () =>
  rolledBack(async (tx) => {
    const tag = crypto.randomUUID().slice(0, 8);
    // other tests may have bookings in these months too: what this test adds is measured as a difference
    const keptSince2040 = async () =>
      (await tx<{ n: number }[]>`
        select coalesce(sum(bookings), 0)::int as n from public.scheduling_live_booking_months where month >= '2040-01-01'`)[0].n;
    const before = await keptSince2040();
    // 300 bookings across 2040's months, every fourth cancelled, every fifth pending; one statement
    await tx`insert into public.scheduling_bookings (uid, event_type_slug, event_type_id, title, start_at, end_at, status,
               host_emails, attendee_name, attendee_email, attendee_time_zone, ics_uid)
             select ${tag} || '-' || i, 'intro-call', 1, 'Count', t, t + interval '30 minutes',
                    case when i % 4 = 0 then 'cancelled' when i % 5 = 0 then 'pending' else 'accepted' end,
                    array['ada@demo.sitewire.dev'], 'A', 'a@x.test', 'UTC', ${tag} || '-' || i || '@x'
             from generate_series(1, 300) as i,
                  lateral (select timestamptz '2040-01-01T00:00:00Z' + make_interval(hours => i * 29) - interval '15 minutes' as t) s`;
    await agree(tx, tag, "a bulk insert");
    assert.equal(await keptSince2040() - before, 300 - 75, "every booking but the cancelled fourth counted");
    // a booking ending exactly at a month's first instant belongs to that month; one a second before, to the last
    await tx`update public.scheduling_bookings set end_at = '2040-03-01T00:00:00Z' where uid = ${tag + "-1"}`;
    await tx`update public.scheduling_bookings set end_at = '2040-02-29T23:59:59Z' where uid = ${tag + "-2"}`;
    await agree(tx, tag, "moved to a month's edges");
    await tx`update public.scheduling_bookings set status = 'cancelled' where uid like ${tag + "-1%"}`;
    await agree(tx, tag, "cancelled");
    await tx`update public.scheduling_bookings set status = 'accepted' where uid like ${tag + "-2%"} and status = 'cancelled'`;
    await agree(tx, tag, "a cancelled booking taken back");
    await tx`update public.scheduling_bookings set status = 'accepted' where status = 'pending' and uid like ${tag + "-%"}`;
    await agree(tx, tag, "pending confirmed (live to live: unchanged)");
    await tx`update public.scheduling_bookings set end_at = end_at + interval '40 days' where uid like ${tag + "-3%"}`;
    await agree(tx, tag, "rescheduled into later months");
    await tx`update public.scheduling_bookings set uid = uid || 'x' where uid like ${tag + "-4%"}`;
    await agree(tx, tag, "new uids (other shards)");
    await tx`update public.scheduling_bookings set title = 'Renamed' where uid like ${tag + "-%"}`;
    await agree(tx, tag, "a change of nothing counted");
    await tx`delete from public.scheduling_bookings where uid like ${tag + "-5%"}`;
    await agree(tx, tag, "deleted");

    const people = await makePeople(tx);
    for (const who of [people.admin, people.support, people.member, "anon" as const]) {
      await as(tx, who, (q) => refused(q, (s) => s`select * from public.scheduling_live_booking_months`));
      await as(tx, who, (q) => refused(q, (s) => s`update public.scheduling_live_booking_months set bookings = 0`));
      await as(tx, who, (q) => refused(q, (s) => s`select public.scheduling_live_booking_months_apply('[]')`));
    }
  }));
