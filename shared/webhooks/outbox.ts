// The durable webhook outbox (table webhook_outbox): enqueue inside the caller's transaction, claim due
// rows with SKIP LOCKED so any number of dispatchers cooperate, and record each attempt's outcome.
import type { Db } from "../db.ts";

export type OutboxStatus = "pending" | "delivered" | "failed";

export interface OutboxRow {
  id: number;
  api: string;
  subscriptionId: string;
  event: string;
  url: string;
  /** Headers stored with the event (never signatures: adapters compute those at send time). */
  headers: Record<string, string>;
  /** The exact bytes to send, as text. */
  body: string;
  status: OutboxStatus;
  /** Attempts made so far, counting the one a claim just started. */
  attempts: number;
  maxAttempts: number;
  nextAttemptAt: Date;
  claimedUntil: Date | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

/** What one attempt came to: a 2xx, or a failure with the HTTP status when there was one. */
export type DeliveryOutcome =
  | { delivered: true; status: number }
  | { delivered: false; status?: number | null; error: string; final?: boolean };

export interface EnqueueInput {
  api: string;
  subscriptionId: string | number;
  event: string;
  url: string;
  headers?: Record<string, string>;
  body: string;
  maxAttempts?: number;
  /** First attempt time; defaults to the database's now(). */
  at?: Date;
}

/** Writes one delivery; call it inside the transaction that makes the change it reports. */
export async function enqueueWebhook(db: Db, input: EnqueueInput): Promise<number> {
  const [row] = await db<{ id: number }[]>`
    insert into public.webhook_outbox (api, subscription_id, event, url, headers, body, max_attempts, next_attempt_at)
    values (${input.api}, ${String(input.subscriptionId)}, ${input.event}, ${input.url},
            ${db.json(input.headers ?? {})}, ${input.body}, ${input.maxAttempts ?? 8},
            coalesce(${input.at ?? null}::timestamptz, now()))
    returning id`;
  return row.id;
}

export interface ClaimOptions {
  limit: number;
  now: Date;
  /** How long a claim keeps other dispatchers away; longer than the send timeout. */
  leaseSeconds: number;
  /** Only rows of these APIs (a dispatcher claims only what it has adapters for). */
  apis?: string[];
  /**
   * Only rows addressed under one of these URL prefixes: a dispatcher serving one endpoint (a
   * redelivery to one receiver, or a test's own loopback receiver among other processes' rows).
   */
  targets?: string[];
}

/**
 * Claims up to `limit` due rows in one statement: pending, due, and not under another live claim.
 * SKIP LOCKED lets concurrent dispatchers take disjoint rows; the claim bumps attempts and sets
 * claimed_until so the row stays out of reach while it is being sent, and comes back if the
 * dispatcher dies mid-send. Rows come back in due order.
 */
export async function claimDue(db: Db, options: ClaimOptions): Promise<OutboxRow[]> {
  const apis = options.apis ?? null;
  const targets = options.targets?.length ? options.targets.map((t) => `${t.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) : null;
  const rows = await db<RawRow[]>`
    update public.webhook_outbox o
       set attempts = o.attempts + 1,
           claimed_until = ${options.now}::timestamptz + make_interval(secs => ${options.leaseSeconds})
     where o.id in (
       select id from public.webhook_outbox
        where status = 'pending'
          -- the caller's clock counts whole milliseconds, now() microseconds: a row made due by now() in
          -- the same millisecond is due, not a few microseconds in the future (until the next poll)
          and next_attempt_at < ${options.now}::timestamptz + interval '1 millisecond'
          and (claimed_until is null or claimed_until < ${options.now}::timestamptz)
          and (${apis}::text[] is null or api = any(${apis}::text[]))
          and (${targets}::text[] is null or url like any(${targets}::text[]))
        order by next_attempt_at, id
        limit ${options.limit}
        for update skip locked)
    returning o.*`;
  return rows.map(fromRaw).sort((a, b) =>
    a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || a.id - b.id
  );
}

export const BACKOFF_BASE_SECONDS = 10;
export const BACKOFF_CAP_SECONDS = 3600;

/** Wait before the next try after `attempts` failed ones: 10 s, 20 s, 40 s ... capped at one hour. */
export function backoffSeconds(attempts: number): number {
  const n = Math.max(1, Math.floor(attempts));
  return Math.min(BACKOFF_CAP_SECONDS, BACKOFF_BASE_SECONDS * 2 ** Math.min(n - 1, 30));
}

/**
 * Records an attempt on a claimed row: delivered, retry later (next_attempt_at = now + backoff), or
 * failed for good once attempts reach max_attempts (or the outcome says `final`). Only the claim that
 * made the attempt can record it (a row whose lease ran out and was claimed again is left alone);
 * answers the updated row, or null when the claim was stale.
 */
export async function recordOutcome(
  db: Db,
  row: OutboxRow,
  outcome: DeliveryOutcome,
  now: Date,
): Promise<OutboxRow | null> {
  let rows: RawRow[];
  if (outcome.delivered) {
    rows = await db<RawRow[]>`
      update public.webhook_outbox
         set status = 'delivered', delivered_at = ${now}, last_status = ${outcome.status}, last_error = null,
             claimed_until = null
       where id = ${row.id} and status = 'pending' and attempts = ${row.attempts}
      returning *`;
  } else {
    const giveUp = outcome.final === true || row.attempts >= row.maxAttempts;
    const next = new Date(now.getTime() + backoffSeconds(row.attempts) * 1000);
    rows = await db<RawRow[]>`
      update public.webhook_outbox
         set status = ${giveUp ? "failed" : "pending"},
             next_attempt_at = ${giveUp ? row.nextAttemptAt : next},
             last_status = ${outcome.status ?? null}, last_error = ${outcome.error.slice(0, 500)},
             claimed_until = null
       where id = ${row.id} and status = 'pending' and attempts = ${row.attempts}
      returning *`;
  }
  return rows.length ? fromRaw(rows[0]) : null;
}

interface RawRow {
  id: number;
  api: string;
  subscription_id: string;
  event: string;
  url: string;
  headers: Record<string, string> | string | null;
  body: string;
  status: OutboxStatus;
  attempts: number;
  max_attempts: number;
  next_attempt_at: Date;
  claimed_until: Date | null;
  last_status: number | null;
  last_error: string | null;
  created_at: Date;
  delivered_at: Date | null;
}

function fromRaw(r: RawRow): OutboxRow {
  const headers = typeof r.headers === "string" ? JSON.parse(r.headers) : r.headers ?? {};
  return {
    id: Number(r.id),
    api: r.api,
    subscriptionId: r.subscription_id,
    event: r.event,
    url: r.url,
    headers,
    body: r.body,
    status: r.status,
    attempts: r.attempts,
    maxAttempts: r.max_attempts,
    nextAttemptAt: r.next_attempt_at,
    claimedUntil: r.claimed_until,
    lastStatus: r.last_status,
    lastError: r.last_error,
    createdAt: r.created_at,
    deliveredAt: r.delivered_at,
  };
}
