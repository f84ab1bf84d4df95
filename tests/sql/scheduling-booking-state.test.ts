// Migration 20261124000500 moves a booking's own state out of its metadata: rows written before it keep
// their confirmation time and previous start in the new columns, lose the members from metadata, and a
// caller's member of the same name in another shape (or another provider's row) stays untouched. The
// migration's text is run again on rows shaped as the old code wrote them (it is idempotent).
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import type { Tx } from "../../shared/db.ts";
import { rolledBack } from "./support.ts";

const MIGRATION = await Deno.readTextFile(
  new URL("../../migrations/20261124000500_scheduling_booking_state.sql", import.meta.url),
);

async function booking(tx: Tx, metadata: Record<string, unknown>, paymentSession: string | null = null) {
  const uid = `state-${crypto.randomUUID()}`;
  await tx`insert into public.scheduling_bookings (uid, event_type_slug, event_type_id, title, start_at, end_at, status,
             host_emails, attendee_name, attendee_email, attendee_time_zone, ics_uid, metadata, payment_session_id)
           values (${uid}, 'intro-call', 1, 'State', '2033-01-03T09:00:00Z', '2033-01-03T09:15:00Z', 'accepted',
                   ${["ada@demo.sitewire.dev"]}, 'A', 'a@x.test', 'UTC', ${`${uid}@x`}, ${
    tx.json(metadata as never)
  },
                   ${paymentSession})`;
  return uid;
}

const row = async (tx: Tx, uid: string) =>
  (await tx<
    { metadata: Record<string, unknown>; confirmed_at: Date | null; previous_start_at: Date | null }[]
  >`
    select metadata, confirmed_at, previous_start_at from public.scheduling_bookings where uid = ${uid}`)[0];

test("the booking-state migration moves confirmedAt, previousStart and paymentSession out of metadata", () =>
  rolledBack(async (tx) => {
    const old = await booking(tx, {
      mine: "1",
      provider: "sitewire",
      event: "session.intro-call",
      confirmedAt: "2032-12-01T10:00:00.000Z",
      previousStart: "2032-12-24T09:00:00.000Z",
      paymentSession: "cs_local_abc",
    }, "cs_local_abc");
    const callers = await booking(
      tx,
      { provider: "sitewire", confirmedAt: "yes", paymentSession: "mine" },
      "cs_x",
    );
    const mirror = await booking(tx, {
      provider: "https://cal.example",
      confirmedAt: "2032-12-01T10:00:00.000Z",
    });
    // the rows above queued the held-time version's deferred triggers (migration 20261126007200), and a
    // table with pending trigger events cannot be altered in the same transaction: fire them first
    await tx`set constraints all immediate`;
    await tx.unsafe(MIGRATION);

    const moved = await row(tx, old);
    assert.deepEqual(moved.metadata, { mine: "1", provider: "sitewire", event: "session.intro-call" });
    assert.equal(moved.confirmed_at?.toISOString(), "2032-12-01T10:00:00.000Z");
    assert.equal(moved.previous_start_at?.toISOString(), "2032-12-24T09:00:00.000Z");

    const kept = await row(tx, callers);
    assert.deepEqual(kept.metadata, { provider: "sitewire", confirmedAt: "yes", paymentSession: "mine" });
    assert.equal(kept.confirmed_at, null);

    assert.deepEqual((await row(tx, mirror)).metadata, {
      provider: "https://cal.example",
      confirmedAt: "2032-12-01T10:00:00.000Z",
    });
  }));
