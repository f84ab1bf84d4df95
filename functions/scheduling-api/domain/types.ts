// The types the scheduling domain's modules share: what a domain call needs (Deps) and what a new booking
// says (CreateInput). Kept apart so the modules that use them need not import each other.
import type { Clock } from "../../../shared/clock.ts";
import type { Sql } from "../../../shared/db.ts";
import type { Catalog } from "./catalog.ts";
import type { EventType } from "./event-types.ts";

export interface Deps {
  sql: Sql;
  clock: Clock;
  catalog: Catalog;
  publicUrl: string;
  /** how requests to external schedulers leave (domain/forward.ts) */
  outbound: Outbound;
}

/** How requests to external schedulers leave: the URL guard's allowance, and the fetch and timeout tests set. */
export interface Outbound {
  allowPrivate: boolean;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

export interface Attendee {
  name: string;
  email: string;
  timeZone: string;
  language: string;
  phoneNumber?: string;
}

export interface CreateInput {
  type: EventType;
  start: number;
  lengthMinutes?: number;
  attendee: Attendee;
  guests: string[];
  metadata: Record<string, string>;
  responses: Record<string, unknown>;
  location?: string;
  recurrenceCount?: number;
  /** fulfilment of a paid checkout: the payment itself is the credit */
  paymentSessionId?: string;
}
