// Paid bookings' SQL: fulfilment claims and credits.
import type { Db, Tx } from "../../../shared/db.ts";
import type { BookingRow } from "./bookings.ts";

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
