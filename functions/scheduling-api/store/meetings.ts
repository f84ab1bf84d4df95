// Meeting rooms' SQL: joins and leaves, and a meeting's start and end.
import type { Db, Tx } from "../../../shared/db.ts";
import type { BookingRow } from "./bookings.ts";

export type ParticipantRole = "host" | "attendee" | "guest" | "administrator";

export interface JoinRow {
  email: string;
  name: string;
  role: ParticipantRole;
  first_joined_at: Date;
  last_seen_at: Date;
  left_at: Date | null;
}

/** A participant's join or heartbeat; answers whether it was their first. */
export async function recordJoin(
  tx: Tx,
  bookingId: number,
  p: { email: string; name: string; role: ParticipantRole },
  now: Date,
): Promise<boolean> {
  const [row] = await tx<{ first: boolean }[]>`
    insert into public.scheduling_meeting_joins (booking_id, email, name, role, first_joined_at, last_seen_at)
    values (${bookingId}, ${p.email}, ${p.name}, ${p.role}, ${now}, ${now})
    on conflict (booking_id, email) do update
      set name = excluded.name, last_seen_at = excluded.last_seen_at, left_at = null
    returning (xmax = 0) as first`;
  return row.first;
}

export async function recordLeave(db: Db, bookingId: number, email: string, now: Date): Promise<void> {
  await db`update public.scheduling_meeting_joins set left_at = ${now}
            where booking_id = ${bookingId} and email = ${email}`;
}

/** Everyone who has joined, the ones seen since `since` and not gone marked present. */
export async function joinsOf(
  db: Db,
  bookingId: number,
  since: Date,
): Promise<(JoinRow & { present: boolean })[]> {
  return await db<(JoinRow & { present: boolean })[]>`
    select email, name, role, first_joined_at, last_seen_at, left_at,
           (left_at is null and last_seen_at >= ${since}) as present
      from public.scheduling_meeting_joins where booking_id = ${bookingId}
     order by first_joined_at, array_position(array['host', 'attendee', 'guest', 'administrator'], role), email`;
}

/** Marks the meeting started; answers the booking only the first time (so MEETING_STARTED goes once). */
export async function markMeetingStarted(tx: Tx, id: number, now: Date): Promise<BookingRow | undefined> {
  const [row] = await tx<BookingRow[]>`
    update public.scheduling_bookings set meeting_started_at = ${now}
     where id = ${id} and meeting_started_at is null returning *`;
  return row;
}

/** Marks a started meeting ended; answers the booking only the first time (MEETING_ENDED goes once). */
export async function markMeetingEnded(tx: Tx, id: number, now: Date): Promise<BookingRow | undefined> {
  const [row] = await tx<BookingRow[]>`
    update public.scheduling_bookings set meeting_ended_at = ${now}
     where id = ${id} and meeting_started_at is not null and meeting_ended_at is null returning *`;
  return row;
}

/**
 * Claims started meetings whose room closed before `closedBefore` (their end plus the room's grace) and
 * marks them ended; SKIP LOCKED lets several sweeps run at once without sending an event twice.
 */
export async function claimMeetingsToEnd(
  tx: Tx,
  closedBefore: Date,
  now: Date,
  limit: number,
): Promise<BookingRow[]> {
  return await tx<BookingRow[]>`
    update public.scheduling_bookings set meeting_ended_at = ${now}
     where id in (select id from public.scheduling_bookings
                   where meeting_started_at is not null and meeting_ended_at is null and end_at <= ${closedBefore}
                   order by end_at limit ${limit} for update skip locked)
    returning *`;
}
