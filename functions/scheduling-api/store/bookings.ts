// The scheduling API's SQL for bookings: the rows, their lists, writes, seat groups and the attendee's
// chat access. The other areas' SQL is beside this file (people, event types, holds, payments, webhooks,
// meetings); nothing outside store/ writes SQL.
import type postgres from "postgres";
import type { Db, Tx } from "../../../shared/db.ts";

type Fragment = postgres.PendingQuery<postgres.Row[]>;

export const ACTIVE = ["accepted", "pending"];

// --- bookings ------------------------------------------------------------------------------------

export interface BookingRow {
  id: number;
  uid: string;
  event_type_slug: string;
  event_type_id: number;
  title: string;
  description: string;
  start_at: Date;
  end_at: Date;
  before_buffer: number;
  after_buffer: number;
  status: "accepted" | "pending" | "cancelled" | "rejected" | "rescheduled";
  host_emails: string[];
  attendee_name: string;
  attendee_email: string;
  attendee_time_zone: string;
  attendee_language: string;
  attendee_phone: string | null;
  guests: string[];
  location: string | null;
  meeting_url: string | null;
  metadata: Record<string, unknown>;
  responses: Record<string, unknown>;
  cancellation_reason: string | null;
  rescheduling_reason: string | null;
  rescheduled_from_uid: string | null;
  rescheduled_by: string | null;
  recurring_uid: string | null;
  seat_of: string | null;
  payment_session_id: string | null;
  booked_by: string | null;
  ics_uid: string;
  ics_sequence: number;
  meeting_started_at: Date | null;
  meeting_ended_at: Date | null;
  /** when the host confirmed a pending booking */
  confirmed_at: Date | null;
  /** where the latest move took the booking from */
  previous_start_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type NewBooking = Omit<
  BookingRow,
  | "id"
  | "created_at"
  | "updated_at"
  | "ics_sequence"
  | "meeting_started_at"
  | "meeting_ended_at"
  | "confirmed_at"
  | "previous_start_at"
>;

export interface BookingFilter {
  statuses: ("upcoming" | "past" | "cancelled" | "unconfirmed" | "recurring")[];
  attendeeEmail?: string;
  attendeeName?: string;
  bookingUid?: string;
  eventTypeSlugs?: string[];
  /** the types of the teams asked for (teamId, teamsIds) */
  teamTypeSlugs?: string[];
  afterStart?: Date;
  beforeEnd?: Date;
  afterCreatedAt?: Date;
  beforeCreatedAt?: Date;
  afterUpdatedAt?: Date;
  beforeUpdatedAt?: Date;
  /** the order, in Cal's precedence: start, end, created, updated (start ascending when none is asked) */
  sort: { field: "start" | "end" | "created" | "updated"; direction: "asc" | "desc" }[];
  take: number;
  skip: number;
  now: Date;
  /** a person (not an administrator) sees only bookings they attend or host */
  onlyFor?: string;
}

/**
 * The total of an upcoming or past list with no other filter, from the live bookings kept per month
 * (migrations/20261126004200_scheduling_live_booking_counts.sql): the months wholly on that side of now,
 * plus the current month's live bookings on that side, counted on the live-bookings index. Undefined
 * for any other list, whose matches are counted.
 */
function keptLiveTotal(db: Db, f: BookingFilter): Fragment | undefined {
  const [status, ...more] = f.statuses;
  const filtered = f.attendeeEmail || f.attendeeName || f.bookingUid || f.eventTypeSlugs || f.teamTypeSlugs ||
    f.afterStart || f.beforeEnd || f.afterCreatedAt || f.beforeCreatedAt || f.afterUpdatedAt ||
    f.beforeUpdatedAt || f.onlyFor !== undefined;
  if (more.length || filtered || (status !== "upcoming" && status !== "past")) return undefined;
  const monthStart = new Date(Date.UTC(f.now.getUTCFullYear(), f.now.getUTCMonth(), 1));
  const nextMonth = new Date(Date.UTC(f.now.getUTCFullYear(), f.now.getUTCMonth() + 1, 1));
  const live = db`b.status in ('accepted', 'pending')`;
  return status === "upcoming"
    ? db`select (coalesce((select sum(bookings) from public.scheduling_live_booking_months
                           where month >= ${nextMonth}), 0)
                 + (select count(*) from public.scheduling_bookings b
                    where ${live} and b.end_at >= ${f.now} and b.end_at < ${nextMonth}))::int`
    : db`select (coalesce((select sum(bookings) from public.scheduling_live_booking_months
                           where month < ${monthStart}), 0)
                 + (select count(*) from public.scheduling_bookings b
                    where ${live} and b.end_at < ${f.now} and b.end_at >= ${monthStart}))::int`;
}

export async function listBookings(db: Db, f: BookingFilter): Promise<{ rows: BookingRow[]; total: number }> {
  const status = (s: BookingFilter["statuses"][number]): Fragment => {
    switch (s) {
      case "upcoming":
        return db`(b.status in ('accepted', 'pending') and b.end_at >= ${f.now})`;
      case "past":
        return db`(b.status in ('accepted', 'pending') and b.end_at < ${f.now})`;
      case "cancelled":
        return db`(b.status in ('cancelled', 'rejected'))`;
      case "unconfirmed":
        return db`(b.status = 'pending' and b.end_at >= ${f.now})`;
      case "recurring":
        return db`(b.recurring_uid is not null and b.status in ('accepted', 'pending') and b.end_at >= ${f.now})`;
    }
  };
  let statusClause: Fragment = db`true`;
  if (f.statuses.length) {
    statusClause = f.statuses.map(status).reduce((a, b) => db`${a} or ${b}`);
  }
  // compared as the API shows them (milliseconds), so a booking's own createdAt or updatedAt bounds it
  const createdMs = db`date_trunc('milliseconds', b.created_at)`;
  const updatedMs = db`date_trunc('milliseconds', b.updated_at)`;
  // one set of filters for the page and for its count
  const matching = db`
     (${statusClause})
     ${f.attendeeEmail ? db`and lower(b.attendee_email) = lower(${f.attendeeEmail})` : db``}
     ${
    f.attendeeName
      ? db`and b.attendee_name ilike ${"%" + f.attendeeName.replace(/[\\%_]/g, "\\$&") + "%"}`
      : db``
  }
     ${f.bookingUid ? db`and b.uid = ${f.bookingUid}` : db``}
     ${f.eventTypeSlugs ? db`and b.event_type_slug = any(${f.eventTypeSlugs}::text[])` : db``}
     ${f.teamTypeSlugs ? db`and b.event_type_slug = any(${f.teamTypeSlugs}::text[])` : db``}
     ${f.afterStart ? db`and b.start_at >= ${f.afterStart}` : db``}
     ${f.beforeEnd ? db`and b.end_at <= ${f.beforeEnd}` : db``}
     ${f.afterCreatedAt ? db`and ${createdMs} >= ${f.afterCreatedAt}` : db``}
     ${f.beforeCreatedAt ? db`and ${createdMs} <= ${f.beforeCreatedAt}` : db``}
     ${f.afterUpdatedAt ? db`and ${updatedMs} >= ${f.afterUpdatedAt}` : db``}
     ${f.beforeUpdatedAt ? db`and ${updatedMs} <= ${f.beforeUpdatedAt}` : db``}
     ${
    f.onlyFor ? db`and (lower(b.attendee_email) = ${f.onlyFor} or ${f.onlyFor} = any(b.host_emails))` : db``
  }`;
  const column = {
    start: db`b.start_at`,
    end: db`b.end_at`,
    created: db`b.created_at`,
    updated: db`b.updated_at`,
  };
  const sort = f.sort.length ? f.sort : [{ field: "start", direction: "asc" } as const];
  const order = [
    ...sort.map((s) => db`${column[s.field]} ${s.direction === "desc" ? db`desc` : db`asc`}`),
    sort[0].direction === "desc" ? db`b.id desc` : db`b.id asc`,
  ].reduce((a, b) => db`${a}, ${b}`);
  const rows = await db<(BookingRow & { total: number })[]>`
    select b.*, (${keptLiveTotal(db, f) ?? db`select count(*)::int from public.scheduling_bookings b where ${matching}`}) as total
      from public.scheduling_bookings b
     where ${matching}
     order by ${order}
     limit ${f.take} offset ${f.skip}`;
  let total = rows[0]?.total ?? 0;
  if (!rows.length && f.skip > 0) {
    // past the end: no row carried the count, count separately
    const [c] = await db<{ n: number }[]>`
      select count(*)::int as n from public.scheduling_bookings b where ${matching}`;
    total = c.n;
  }
  return { rows: rows.map(({ total: _t, ...r }) => r as BookingRow), total };
}

export async function bookingByUid(db: Db, uid: string, lock = false): Promise<BookingRow | undefined> {
  const [row] = lock
    ? await db<BookingRow[]>`select * from public.scheduling_bookings where uid = ${uid} for update`
    : await db<BookingRow[]>`select * from public.scheduling_bookings where uid = ${uid}`;
  return row;
}

export async function bookingById(db: Db, id: number): Promise<BookingRow | undefined> {
  const [row] = await db<BookingRow[]>`select * from public.scheduling_bookings where id = ${id}`;
  return row;
}

export async function bookingsByRecurring(db: Db, recurringUid: string): Promise<BookingRow[]> {
  return await db<BookingRow[]>`
    select * from public.scheduling_bookings where recurring_uid = ${recurringUid} order by start_at, id`;
}

function bookingValues(tx: Tx, b: NewBooking) {
  return tx({
    ...b,
    metadata: tx.json(b.metadata as postgres.JSONValue),
    responses: tx.json(b.responses as postgres.JSONValue),
  } as Record<string, unknown>);
}

export async function insertBooking(tx: Tx, b: NewBooking): Promise<BookingRow> {
  const [row] = await tx<BookingRow[]>`
    insert into public.scheduling_bookings ${bookingValues(tx, b)}
    returning *`;
  return row;
}

/**
 * Keeps an external scheduler's booking (no held time: the scheduler owns it). A uid seen before answers
 * the row kept then, only if it is that scheduler's (never a native booking that happens to share it).
 */
export async function insertMirror(tx: Tx, b: NewBooking): Promise<BookingRow | undefined> {
  const [row] = await tx<BookingRow[]>`
    insert into public.scheduling_bookings ${bookingValues(tx, b)}
    on conflict (uid) do nothing
    returning *`;
  if (row) return row;
  const [kept] = await tx<BookingRow[]>`
    select * from public.scheduling_bookings
     where uid = ${b.uid} and metadata->>'provider' = ${String(b.metadata.provider)}`;
  return kept;
}

/** Changes an external scheduler's booking as its webhook says (never a native booking). */
export async function updateMirror(
  tx: Tx,
  uid: string,
  provider: string,
  changes: Pick<Partial<BookingRow>, "status" | "cancellation_reason">,
): Promise<BookingRow | undefined> {
  const [row] = await tx<BookingRow[]>`
    update public.scheduling_bookings set ${tx(changes as Record<string, unknown>)}, updated_at = now()
     where uid = ${uid} and metadata->>'provider' = ${provider} returning *`;
  return row;
}

export async function updateBooking(tx: Tx, id: number, changes: Partial<BookingRow>): Promise<BookingRow> {
  const set: Record<string, unknown> = { ...changes };
  if (changes.metadata) set.metadata = tx.json(changes.metadata as postgres.JSONValue);
  const [row] = await tx<BookingRow[]>`
    update public.scheduling_bookings set ${tx(set)}, updated_at = now() where id = ${id} returning *`;
  return row;
}

/** Active seats of a seat group, the lead's row locked so joins and departures serialize. */
export async function lockSeatGroup(
  tx: Tx,
  leadUid: string,
): Promise<{ lead: BookingRow | undefined; taken: number }> {
  const [lead] = await tx<
    BookingRow[]
  >`select * from public.scheduling_bookings where uid = ${leadUid} for update`;
  const [c] = await tx<{ n: number }[]>`
    select count(*)::int as n from public.scheduling_bookings where seat_of = ${leadUid} and status in ('accepted', 'pending')`;
  return { lead, taken: c.n };
}

/** Hands a seat group from its departing first seat to the next seat: the held time and seat_of move. */
export async function passSeatLead(tx: Tx, lead: BookingRow): Promise<void> {
  await tx`
    with next as (
      select id, uid from public.scheduling_bookings
       where seat_of = ${lead.uid} and uid <> ${lead.uid} and status in ('accepted', 'pending')
       order by created_at, id limit 1
    ), moved as (
      update public.scheduling_holds set booking_id = (select id from next) where booking_id = ${lead.id}
    )
    update public.scheduling_bookings set seat_of = (select uid from next)
     where seat_of = ${lead.uid} and uid <> ${lead.uid} and status in ('accepted', 'pending')`;
}

/** The seat group of a type at a start, if one holds time. */
export async function seatGroupAt(db: Db, slug: string, start: Date): Promise<string | undefined> {
  const [row] = await db<{ seat_of: string }[]>`
    select b.seat_of from public.scheduling_bookings b
      join public.scheduling_holds h on h.booking_id = b.id
     where b.event_type_slug = ${slug} and b.start_at = ${start} and b.seat_of = b.uid
     limit 1`;
  return row?.seat_of;
}

// --- chat access ---------------------------------------------------------------------------------

/** Grants (or renews, with the booking's current hosts) the attendee's chat access of a made booking. */
export async function grantChat(tx: Tx, b: BookingRow, now: Date): Promise<void> {
  await tx`
    insert into public.scheduling_chat_grants (booking_id, attendee_email, host_emails, granted_at)
    values (${b.id}, ${b.attendee_email.toLowerCase()}, ${b.host_emails}, ${now})
    on conflict (booking_id) do update
      set host_emails = excluded.host_emails, attendee_email = excluded.attendee_email,
          granted_at = case when scheduling_chat_grants.revoked_at is null
                            then scheduling_chat_grants.granted_at else excluded.granted_at end,
          revoked_at = null`;
}

export async function revokeChat(tx: Tx, bookingId: number, now: Date): Promise<void> {
  await tx`update public.scheduling_chat_grants set revoked_at = ${now}
            where booking_id = ${bookingId} and revoked_at is null`;
}
