// Held time's SQL: a booking's holds (the exclusion constraint's rows), what the slot search reads, and
// the admission's locks and counts.
import type { Db, Tx } from "../../../shared/db.ts";
import { fnv31 } from "../domain/hosts.ts";

/** Holds the booking's padded time on each host; the exclusion constraint refuses an overlap (23P01). */
export async function insertHolds(
  tx: Tx,
  bookingId: number,
  hosts: string[],
  start: Date,
  end: Date,
): Promise<void> {
  await tx`
    insert into public.scheduling_holds (booking_id, host_email, during)
    select ${bookingId}, h, tstzrange(${start}, ${end}, '[)') from unnest(${hosts}::text[]) as h`;
}

export async function deleteHolds(tx: Tx, bookingId: number): Promise<void> {
  await tx`delete from public.scheduling_holds where booking_id = ${bookingId}`;
}

export interface SlotData {
  busy: { host_email: string; start: number; end: number; group: string | null; booking_start: number }[];
  type_bookings: { start: number; end: number }[];
  seat_groups: { uid: string; start: number; taken: number }[];
}

/** What slotData reads, as its input names it (the key slot data is kept under). */
export interface SlotDataInput {
  hosts: string[];
  from: Date;
  to: Date;
  slug: string;
  limitsFrom: Date | null;
  limitsTo: Date | null;
  seated: boolean;
  /** a booking being moved: its own minutes do not count against the type's limits */
  exceptBookingId?: number;
}

/**
 * Everything the slot computation needs from the database in one round trip: the held time of the
 * hosts around the range (GiST index of the exclusion constraint), this type's active bookings in the
 * limit periods, and its seat groups in the range.
 */
export async function slotData(db: Db, input: SlotDataInput): Promise<SlotData> {
  return parseSlotData(await slotDataText(db, input));
}

export function parseSlotData(text: string): SlotData {
  const data = JSON.parse(text) as { [K in keyof SlotData]: SlotData[K] | null };
  return {
    busy: data.busy ?? [],
    type_bookings: data.type_bookings ?? [],
    seat_groups: data.seat_groups ?? [],
  };
}

/** slotData's answer as the JSON text it arrives in (what a kept copy is measured and stored by). */
export async function slotDataText(db: Db, input: SlotDataInput): Promise<string> {
  const [row] = await db<{ data: string }[]>`
    select json_build_object(
      'busy', (select json_agg(json_build_object(
          'host_email', h.host_email,
          'start', (extract(epoch from lower(h.during)) * 1000)::bigint,
          'end', (extract(epoch from upper(h.during)) * 1000)::bigint,
          'group', b.seat_of,
          'booking_start', (extract(epoch from b.start_at) * 1000)::bigint) order by lower(h.during))
         from public.scheduling_holds h join public.scheduling_bookings b on b.id = h.booking_id
        where h.host_email = any(${input.hosts}::text[])
          and h.during && tstzrange(${input.from}, ${input.to}, '[)')),
      'type_bookings', (select json_agg(json_build_object(
          'start', (extract(epoch from start_at) * 1000)::bigint,
          'end', (extract(epoch from end_at) * 1000)::bigint))
         from public.scheduling_bookings
        where ${
    input.limitsFrom !== null
  } and event_type_slug = ${input.slug} and status in ('accepted', 'pending')
          and id <> ${input.exceptBookingId ?? 0}
          and start_at >= ${input.limitsFrom ?? input.from} and start_at < ${input.limitsTo ?? input.to}),
      'seat_groups', (select json_agg(json_build_object(
          'uid', g.seat_of, 'start', (extract(epoch from g.start_at) * 1000)::bigint, 'taken', g.taken))
         from (select seat_of, min(start_at) as start_at, count(*)::int as taken
                 from public.scheduling_bookings
                where ${input.seated} and event_type_slug = ${input.slug} and seat_of is not null
                  and status in ('accepted', 'pending') and start_at >= ${input.from} and start_at < ${input.to}
                group by seat_of) g))::text as data`;
  return row.data;
}

/**
 * Serialises the bookings that share a limit the exclusion constraint cannot express (a type's count
 * and duration limits, a host's daily and weekly caps, an attendee's allowance): each name is one
 * transaction-scoped advisory lock, taken in ascending key order so two callers never wait on each
 * other crosswise. Held until the transaction ends; a re-check after it sees every committed rival.
 */
export async function lockBookingScope(tx: Tx, names: string[]): Promise<void> {
  // the second half of each key: the name's stable hash (the one event type and host ids use)
  const keys = [...new Set(names.map(fnv31))].sort((a, b) => a - b);
  if (!keys.length) return;
  await tx`
    select count(pg_advisory_xact_lock(${ADVISORY_NAMESPACE}::int4, k)) from unnest(${keys}::int4[]) as k`;
}

/** The first half of every scheduling advisory lock key: keeps them apart from other areas' locks. */
const ADVISORY_NAMESPACE = 0x5c4ed;

/** This attendee's active bookings of a type starting in [from, to) (the allowance). */
export async function countAttendeeBookings(
  db: Db,
  email: string,
  slug: string,
  from: Date,
  to: Date,
  exceptUid?: string,
): Promise<number> {
  const [c] = await db<{ n: number }[]>`
    select count(*)::int as n from public.scheduling_bookings
     where lower(attendee_email) = lower(${email}) and event_type_slug = ${slug}
       and status in ('accepted', 'pending') and start_at >= ${from} and start_at < ${to}
       ${exceptUid ? db`and uid <> ${exceptUid}` : db``}`;
  return c.n;
}
