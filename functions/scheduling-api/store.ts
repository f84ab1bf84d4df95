// All SQL of the scheduling API. Nothing else in the function writes SQL.
import type postgres from "postgres";
import type { Db, Tx } from "../../shared/db.ts";
import type { SessionEntry, Tier } from "./domain/event-types.ts";
import { fnv31 } from "./domain/hosts.ts";

type Fragment = postgres.PendingQuery<postgres.Row[]>;

export const ACTIVE = ["accepted", "pending"];

// --- people --------------------------------------------------------------------------------------

export interface PersonRow {
  id: string;
  email: string;
  role: "admin" | "support" | "member";
  tier: Tier | null;
}

export async function personById(db: Db, id: string): Promise<PersonRow | undefined> {
  const [row] = await db<PersonRow[]>`
    select p.id, lower(p.email) as email, p.role, t.tier
      from public.profiles p left join public.person_tiers t on t.person_id = p.id
     where p.id = ${id}`;
  return row;
}

export async function personByEmail(db: Db, email: string): Promise<PersonRow | undefined> {
  const [row] = await db<PersonRow[]>`
    select p.id, lower(p.email) as email, p.role, t.tier
      from public.profiles p left join public.person_tiers t on t.person_id = p.id
     where lower(p.email) = lower(${email})
     limit 1`;
  return row;
}

// --- event types (session records) ---------------------------------------------------------------

export async function loadSessionEntries(db: Db): Promise<SessionEntry[]> {
  return await db<SessionEntry[]>`
    select id, fields from public.content_entries
     where stage = 'published' and model_id = 'session'
     order by id`;
}

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
    select b.*, count(*) over () as total
      from public.scheduling_bookings b
     where ${matching}
     order by ${order}
     limit ${f.take} offset ${f.skip}`;
  let total = rows[0]?.total ?? 0;
  if (!rows.length && f.skip > 0) {
    // past the end: the window function saw no row, count separately
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

export interface SlotData {
  busy: { host_email: string; start: number; end: number; group: string | null; booking_start: number }[];
  type_bookings: { start: number; end: number }[];
  seat_groups: { uid: string; start: number; taken: number }[];
}

/**
 * Everything the slot computation needs from the database in one round trip: the held time of the
 * hosts around the range (GiST index of the exclusion constraint), this type's active bookings in the
 * limit periods, and its seat groups in the range.
 */
export async function slotData(
  db: Db,
  input: {
    hosts: string[];
    from: Date;
    to: Date;
    slug: string;
    limitsFrom: Date | null;
    limitsTo: Date | null;
    seated: boolean;
    /** a booking being moved: its own minutes do not count against the type's limits */
    exceptBookingId?: number;
  },
): Promise<SlotData> {
  const [row] = await db<
    {
      busy: SlotData["busy"] | null;
      type_bookings: SlotData["type_bookings"] | null;
      seat_groups: SlotData["seat_groups"] | null;
    }[]
  >`
    select
      (select json_agg(json_build_object(
          'host_email', h.host_email,
          'start', (extract(epoch from lower(h.during)) * 1000)::bigint,
          'end', (extract(epoch from upper(h.during)) * 1000)::bigint,
          'group', b.seat_of,
          'booking_start', (extract(epoch from b.start_at) * 1000)::bigint) order by lower(h.during))
         from public.scheduling_holds h join public.scheduling_bookings b on b.id = h.booking_id
        where h.host_email = any(${input.hosts}::text[])
          and h.during && tstzrange(${input.from}, ${input.to}, '[)')) as busy,
      (select json_agg(json_build_object(
          'start', (extract(epoch from start_at) * 1000)::bigint,
          'end', (extract(epoch from end_at) * 1000)::bigint))
         from public.scheduling_bookings
        where ${
    input.limitsFrom !== null
  } and event_type_slug = ${input.slug} and status in ('accepted', 'pending')
          and id <> ${input.exceptBookingId ?? 0}
          and start_at >= ${input.limitsFrom ?? input.from} and start_at < ${
    input.limitsTo ?? input.to
  }) as type_bookings,
      (select json_agg(json_build_object(
          'uid', g.seat_of, 'start', (extract(epoch from g.start_at) * 1000)::bigint, 'taken', g.taken))
         from (select seat_of, min(start_at) as start_at, count(*)::int as taken
                 from public.scheduling_bookings
                where ${input.seated} and event_type_slug = ${input.slug} and seat_of is not null
                  and status in ('accepted', 'pending') and start_at >= ${input.from} and start_at < ${input.to}
                group by seat_of) g) as seat_groups`;
  return { busy: row.busy ?? [], type_bookings: row.type_bookings ?? [], seat_groups: row.seat_groups ?? [] };
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

// --- payments: fulfilment claims and credits -----------------------------------------------------

export interface PaymentRow {
  session_id: string;
  status: "processing" | "booked" | "unavailable" | "failed";
  event_type_slug: string;
  attendee_email: string;
  start_at: Date | null;
  booking_id: number | null;
  updated_at: Date;
}

/** Spends an unspent paid credit of this attendee for this type (locked; skipped if another spends it). */
export async function takeCredit(tx: Tx, email: string, slug: string): Promise<PaymentRow | undefined> {
  const [row] = await tx<PaymentRow[]>`
    select session_id, status, event_type_slug, attendee_email, start_at, booking_id, updated_at
      from public.scheduling_payments
     where lower(attendee_email) = lower(${email}) and event_type_slug = ${slug}
       and booking_id is null and status in ('booked', 'unavailable')
     order by created_at
     limit 1
     for update skip locked`;
  return row;
}

export async function spendCredit(tx: Tx, sessionId: string, bookingId: number | null): Promise<void> {
  await tx`update public.scheduling_payments set booking_id = ${bookingId}, updated_at = now() where session_id = ${sessionId}`;
}

/**
 * Takes the fulfilment claim of a payment session; false when it is already taken. A claim still
 * `processing` since before `staleBefore` belongs to a fulfilment that died between claim and settle:
 * it may be taken again (the unique session id on bookings keeps a second booking out).
 */
export async function claimPayment(
  db: Db,
  p: {
    sessionId: string;
    slug: string;
    email: string;
    start: Date | null;
    amount: number | null;
    currency: string | null;
    now: Date;
    staleBefore: Date;
  },
): Promise<boolean> {
  const rows = await db`
    insert into public.scheduling_payments (session_id, status, event_type_slug, attendee_email, start_at, amount,
      currency, created_at, updated_at)
    values (${p.sessionId}, 'processing', ${p.slug}, ${p.email}, ${p.start}, ${p.amount}, ${p.currency}, ${p.now},
      ${p.now})
    on conflict (session_id) do update set updated_at = excluded.updated_at, error = null
      where scheduling_payments.status = 'processing' and scheduling_payments.updated_at < ${p.staleBefore}
    returning session_id`;
  return rows.length === 1;
}

/** The active booking a payment session made, if one exists (a fulfilment that died before settling). */
export async function bookingByPaymentSession(db: Db, sessionId: string): Promise<BookingRow | undefined> {
  const [row] = await db<BookingRow[]>`
    select * from public.scheduling_bookings
     where payment_session_id = ${sessionId} and status in ('accepted', 'pending')`;
  return row;
}

export async function settlePayment(
  db: Db,
  sessionId: string,
  status: PaymentRow["status"],
  bookingId: number | null,
  error?: string,
) {
  await db`update public.scheduling_payments
              set status = ${status}, booking_id = ${bookingId}, error = ${error ?? null}, updated_at = now()
            where session_id = ${sessionId}`;
}

export async function paymentBySession(db: Db, sessionId: string): Promise<PaymentRow | undefined> {
  const [row] = await db<PaymentRow[]>`
    select session_id, status, event_type_slug, attendee_email, start_at, booking_id, updated_at
      from public.scheduling_payments where session_id = ${sessionId}`;
  return row;
}

export async function releaseCreditOf(tx: Tx, bookingId: number): Promise<void> {
  await tx`update public.scheduling_payments set booking_id = null, updated_at = now() where booking_id = ${bookingId}`;
}

// --- webhooks ------------------------------------------------------------------------------------

export interface WebhookRow {
  id: number;
  uid: string;
  subscriber_url: string;
  triggers: string[];
  active: boolean;
  secret: string | null;
  payload_template: string | null;
  event_type_slug: string | null;
  source: "hand" | "file";
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  last_at: Date | null;
  last_error: string | null;
}

export async function listWebhooks(
  db: Db,
  take: number,
  skip: number,
): Promise<{ rows: WebhookRow[]; total: number }> {
  const rows = await db<(WebhookRow & { total: number })[]>`
    select w.*, count(*) over () as total from public.scheduling_webhooks w order by id limit ${take} offset ${skip}`;
  return { rows: rows.map(({ total: _t, ...r }) => r as WebhookRow), total: rows[0]?.total ?? 0 };
}

/** By integer id or by the row's uuid. */
export async function webhookByRef(db: Db, ref: string): Promise<WebhookRow | undefined> {
  if (/^\d{1,15}$/.test(ref)) {
    const [row] = await db<WebhookRow[]>`select * from public.scheduling_webhooks where id = ${Number(ref)}`;
    return row;
  }
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(ref)) return undefined;
  const [row] = await db<WebhookRow[]>`select * from public.scheduling_webhooks where uid = ${ref}::uuid`;
  return row;
}

export async function insertWebhook(
  db: Db,
  w: Pick<
    WebhookRow,
    | "subscriber_url"
    | "triggers"
    | "active"
    | "secret"
    | "payload_template"
    | "event_type_slug"
    | "created_by"
  >,
): Promise<WebhookRow> {
  const [row] = await db<WebhookRow[]>`insert into public.scheduling_webhooks ${db(w)} returning *`;
  return row;
}

export async function updateWebhook(db: Db, id: number, changes: Partial<WebhookRow>): Promise<WebhookRow> {
  const [row] = await db<WebhookRow[]>`
    update public.scheduling_webhooks set ${
    db(changes as Record<string, unknown>)
  }, updated_at = now() where id = ${id} returning *`;
  return row;
}

export async function deleteWebhook(db: Db, id: number): Promise<void> {
  await db`delete from public.scheduling_webhooks where id = ${id}`;
}

/** Active subscriptions for a trigger, narrowed to the event type when they name one. */
export async function matchingWebhooks(db: Db, trigger: string, slug: string | null): Promise<WebhookRow[]> {
  return await db<WebhookRow[]>`
    select * from public.scheduling_webhooks
     where active and ${trigger} = any(triggers)
       and (event_type_slug is null or event_type_slug = ${slug})
     order by id`;
}

export async function webhookSecret(
  db: Db,
  id: number,
): Promise<{ secret: string | null; active: boolean } | undefined> {
  const [row] = await db<{ secret: string | null; active: boolean }[]>`
    select secret, active from public.scheduling_webhooks where id = ${id}`;
  return row;
}

export async function recordWebhookAttempt(
  db: Db,
  id: number,
  at: Date,
  error: string | null,
): Promise<void> {
  await db`update public.scheduling_webhooks set last_at = ${at}, last_error = ${error} where id = ${id}`;
}

// --- meeting rooms ------------------------------------------------------------------------------

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
