// Slot data kept between reads (routes/slots.ts, under the held-time version of
// migrations/20261126007200_scheduling_held_versions.sql): a booking through another instance, or held
// time written straight to the database, shows in the very next slots answer; a change slots do not read
// leaves the kept data standing. These tests take the weeks from 2031-01-06 + 150..153.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";

import { onRealServer, testDatabaseUrl } from "../../helpers/db.ts";
import { serveTestHost } from "../../helpers/host.ts";
import { HELD_SCOPE } from "../../../functions/scheduling-api/access.ts";
import { fnv31 } from "../../../functions/scheduling-api/domain/hosts.ts";
import { connect, type Tx } from "../../../shared/db.ts";
import { addDays, call, guestBooking, host, monday } from "./support.ts";

const key = await host.key("scheduling");
const sql = host.ctx.sql;
const realServer = await onRealServer();
// Ada hosts the intro call 09:00-17:00 Europe/Berlin: 08:00Z in winter
const at = (week: number, day: number, utc: string) => `${addDays(monday(week), day)}T${utc}:00.000Z`;

async function starts(baseUrl: string, week: number): Promise<string[]> {
  const r = await call(
    "GET",
    `${baseUrl}/api/scheduling/v2/slots?eventTypeSlug=intro-call&start=${monday(week)}&end=${
      addDays(monday(week), 4)
    }&format=range`,
    key,
  );
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (Object.values(r.body.data).flat() as { start: string }[]).map((s) =>
    new Date(s.start).toISOString()
  );
}

/** A guest's half-hour intro call at `time`, booked through the API: its uid. */
async function bookIntroCall(time: string): Promise<string> {
  const made = await call("POST", "/bookings", key, guestBooking("intro-call", time, { lengthInMinutes: 30 }));
  assert.equal(made.status, 201, JSON.stringify(made.body));
  return made.body.data.uid as string;
}

async function heldVersion(): Promise<number> {
  const [v] = await sql<{ version: number }[]>`
    select version from public.answer_versions where scope = ${HELD_SCOPE}`;
  return Number(v.version);
}

/** A second instance: its own pool and its own kept slot data, over the same database. */
function secondHost() {
  const pool = connect(testDatabaseUrl(), { max: 2 });
  const served = serveTestHost(pool, { host: "127.0.0.1", overrides: { ...host.ctx.config } });
  return {
    baseUrl: served.baseUrl,
    async close() {
      await served.close();
      await pool.end();
    },
  };
}

test("a booking through one instance leaves the slots another instance kept, and a cancel brings it back", async () => {
  const b = secondHost();
  try {
    const time = at(150, 1, "09:00");
    assert.ok((await starts(b.baseUrl, 150)).includes(time));
    assert.ok((await starts(b.baseUrl, 150)).includes(time), "read twice: the second read takes kept data");
    const uid = await bookIntroCall(time);
    assert.ok(!(await starts(b.baseUrl, 150)).includes(time), "the other instance's next answer lacks it");
    assert.ok(!(await starts(host.baseUrl, 150)).includes(time));
    const cancelled = await call("POST", `/bookings/${uid}/cancel`, key, {
      cancellationReason: "kept-slots test",
    });
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.ok(
      (await starts(b.baseUrl, 150)).includes(time),
      "the cancel frees it on the other instance at once",
    );
  } finally {
    await b.close();
  }
});

test("held time written straight to the database (an administrator, another tool) shows in the next answer", async () => {
  const time = at(151, 2, "10:00");
  assert.ok((await starts(host.baseUrl, 151)).includes(time));
  const start = new Date(time), end = new Date(Date.parse(time) + 30 * 60_000);
  const [booking] = await sql<{ id: number }[]>`
    insert into public.scheduling_bookings (uid, event_type_slug, event_type_id, title, start_at, end_at, status,
      host_emails, attendee_name, attendee_email, attendee_time_zone, ics_uid)
    values ('kept-slots-direct', 'intro-call', ${fnv31("intro-call")}, 'Direct', ${start}, ${end}, 'accepted',
            ${["ada@demo.sitewire.dev"]}, 'Direct', 'direct@example.com', 'UTC', 'kept-slots-direct')
    returning id`;
  await sql`
    insert into public.scheduling_holds (booking_id, host_email, during)
    values (${booking.id}, 'ada@demo.sitewire.dev', tstzrange(${start}, ${end}))`;
  assert.ok(!(await starts(host.baseUrl, 151)).includes(time), "the hold takes the slot at once");
  await sql`delete from public.scheduling_holds where booking_id = ${booking.id}`;
  assert.ok((await starts(host.baseUrl, 151)).includes(time), "its removal frees it at once");
  // a bump whose notification never arrives (a pooler without LISTEN, a lost connection): the version
  // the admission reads is what keeps the answer fresh. The triggers are off for this one transaction
  // (replica role), so it bumps by hand and notifies nobody.
  await sql.begin(async (tx) => {
    await tx`set local session_replication_role = replica`;
    await tx`
      insert into public.scheduling_holds (booking_id, host_email, during)
      values (${booking.id}, 'ada@demo.sitewire.dev', tstzrange(${start}, ${end}))`;
    await tx`update public.answer_versions set version = version + 1 where scope = ${HELD_SCOPE}`;
  });
  assert.ok(!(await starts(host.baseUrl, 151)).includes(time), "taken again without a notification");
  await sql`delete from public.scheduling_holds where booking_id = ${booking.id}`;
  await sql`delete from public.scheduling_bookings where id = ${booking.id}`;
});

test("the held-time version moves with what slots read, and stands for what they do not", async () => {
  const time = at(152, 3, "11:00");
  const uid = await bookIntroCall(time);
  const booking = sql`(select id from public.scheduling_bookings where uid = ${uid})`;
  // Each step in a transaction that first locks the version row (other tests' bookings then wait for it
  // at their commits, so every bump seen here is this transaction's), fires its deferred triggers at once
  // and reads the version; rolled back, so the booking stays as made.
  async function bumps(change: (tx: Tx) => Promise<unknown>): Promise<number> {
    let moved = 0;
    await sql.begin(async (tx) => {
      const [v] = await tx<{ version: number }[]>`
        select version from public.answer_versions where scope = ${HELD_SCOPE} for update`;
      await change(tx);
      await tx`set constraints all immediate`;
      const [after] = await tx<{ version: number }[]>`
        select version from public.answer_versions where scope = ${HELD_SCOPE}`;
      moved = Number(after.version) - Number(v.version);
      throw new RollBack();
    }).catch((error) => {
      if (!(error instanceof RollBack)) throw error;
    });
    return moved;
  }
  assert.equal(
    await bumps((tx) =>
      tx`update public.scheduling_bookings set meeting_started_at = now() where uid = ${uid}`
    ),
    0,
    "a meeting's state",
  );
  assert.equal(
    await bumps((tx) =>
      tx`update public.scheduling_bookings set attendee_name = 'Renamed' where uid = ${uid}`
    ),
    0,
    "a name",
  );
  assert.equal(
    await bumps((tx) => tx`delete from public.scheduling_holds where booking_id = -1`),
    0,
    "a statement that changed nothing",
  );
  assert.equal(
    await bumps((tx) => tx`update public.scheduling_bookings set status = 'pending' where uid = ${uid}`),
    1,
    "a status",
  );
  assert.equal(
    await bumps((tx) =>
      tx`update public.scheduling_bookings set end_at = end_at + interval '15 minutes' where uid = ${uid}`
    ),
    1,
    "a booking's times",
  );
  assert.equal(
    await bumps((tx) =>
      tx`update public.scheduling_holds set during = tstzrange(lower(during), upper(during) + interval '15 minutes')
         where booking_id = ${booking}`
    ),
    1,
    "a hold",
  );
  assert.equal(
    await bumps(async (tx) => {
      await tx`update public.scheduling_bookings set start_at = start_at + interval '1 minute' where uid = ${uid}`;
      await tx`update public.scheduling_holds set during = tstzrange(lower(during) + interval '1 minute', upper(during))
               where booking_id = ${booking}`;
      await tx`update public.scheduling_bookings set status = 'pending' where uid = ${uid}`;
    }),
    1,
    "one transaction, one bump, however many rows it changed",
  );
  const before = await heldVersion();
  await sql`update public.scheduling_bookings set status = 'pending' where uid = ${uid}`;
  assert.ok(await heldVersion() > before, "and a change on its own, committed, bumps it at its commit");
});

class RollBack extends Error {}

Deno.test({
  name:
    "the version is bumped at commit: two bookings' transactions that lock each other's rows never deadlock on it",
  // the embedded PGlite runs one transaction at a time: there is nothing to interleave
  ignore: !realServer,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const [x, y] = await Promise.all([153, 153].map(async (week, i) => {
      const uid = await bookIntroCall(at(week, i + 1, "13:00"));
      const [row] = await sql<{ id: number }[]>`
        select id from public.scheduling_bookings where uid = ${uid}`;
      return row.id;
    }));
    const a = connect(testDatabaseUrl(), { max: 1 }), b = connect(testDatabaseUrl(), { max: 1 });
    try {
      const before = await heldVersion();
      let release!: () => void;
      const bLocked = new Promise<void>((resolve) => release = resolve);
      let aWrote!: () => void;
      const aWroteFirst = new Promise<void>((resolve) => aWrote = resolve);
      // A writes held time first, then wants the row B locked; B locks that row, then writes held time
      // too. A version row locked at each transaction's first write would make B wait for A while A
      // waits for B, and Postgres would end one of them with a deadlock error.
      const txA = a.begin(async (tx) => {
        await tx`update public.scheduling_holds set during = during where booking_id = ${x}`;
        aWrote();
        await bLocked;
        await tx`select id from public.scheduling_bookings where id = ${y} for update`;
      });
      const txB = b.begin(async (tx) => {
        await aWroteFirst;
        await tx`select id from public.scheduling_bookings where id = ${y} for update`;
        release();
        // A is now waiting for this row; then B writes held time while A waits
        await new Promise((resolve) => setTimeout(resolve, 200));
        await tx`update public.scheduling_holds set during = during where booking_id = ${y}`;
      });
      await Promise.all([txA, txB]);
      // other tests' bookings may bump it too meanwhile
      assert.ok(await heldVersion() >= before + 2, "each transaction bumped at its commit");
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
  },
});
