// Meeting rooms: the page a made booking's meetingUrl names ({base_url}/book/video/<uid>). The room is
// open from a little before the start until a while after the end, to the booking's attendee, guests
// and hosts (and administrators). The first join starts the meeting (MEETING_STARTED); a host ending
// it, or the sweep once the room has closed, ends it (MEETING_ENDED). Each event is enqueued in the
// transaction that marks it, and the marks are taken once, so no event is sent twice.
import type { Caller } from "../access.ts";
import { badRequest, forbidden, SchedulingError } from "../envelope.ts";
import * as bookingStore from "../store/bookings.ts";
import * as meetingStore from "../store/meetings.ts";
import type { BookingRow } from "../store/bookings.ts";
import type { ParticipantRole } from "../store/meetings.ts";
import type { Deps } from "./types.ts";
import { announce } from "./events.ts";

const MINUTE = 60_000;
/** the room opens this long before the start (people come early to check their sound) */
export const OPENS_BEFORE_MINUTES = 10;
/** and closes this long after the end (meetings overrun); the sweep ends started meetings then */
export const CLOSES_AFTER_MINUTES = 15;
/** a participant whose page has not said it is still there for this long has left */
export const PRESENT_WITHIN_MS = 45_000;
/** meetings the sweep ends per transaction */
const SWEEP_BATCH = 100;

export type RoomState = "pending" | "cancelled" | "waiting" | "open" | "ended";

export function roomWindow(b: BookingRow): { opensAt: number; closesAt: number } {
  return {
    opensAt: b.start_at.getTime() - OPENS_BEFORE_MINUTES * MINUTE,
    closesAt: b.end_at.getTime() + CLOSES_AFTER_MINUTES * MINUTE,
  };
}

/** Where the room stands at `now` (pure). */
export function roomState(b: BookingRow, now: number): RoomState {
  if (b.status === "pending") return "pending";
  if (b.status !== "accepted") return "cancelled";
  const { opensAt, closesAt } = roomWindow(b);
  if (b.meeting_ended_at || now >= closesAt) return "ended";
  return now < opensAt ? "waiting" : "open";
}

/** The part an address plays in a booking, if any. */
export function participantRole(b: BookingRow, email: string): ParticipantRole | undefined {
  const e = email.trim().toLowerCase();
  if (b.host_emails.includes(e)) return "host";
  if (b.attendee_email.toLowerCase() === e) return "attendee";
  if (b.guests.some((g) => g.toLowerCase() === e)) return "guest";
  return undefined;
}

export interface Participant {
  email: string;
  name: string;
  role: ParticipantRole;
}

function nameOf(deps: Deps, b: BookingRow, email: string, role: ParticipantRole): string {
  if (role === "attendee") return b.attendee_name;
  if (role === "host") return deps.catalog.hosts.find((h) => h.email === email)?.name ?? email;
  return email.split("@")[0];
}

/**
 * Who is asking. A signed-in person is who their token says; a key acts for the address it names; a
 * visitor holding the room's address names theirs, which must be one of the booking's.
 */
export function identify(
  deps: Deps,
  b: BookingRow,
  caller: Caller,
  given: { email?: string; name?: string },
): Participant {
  let email: string | undefined;
  let role: ParticipantRole | undefined;
  if (caller.kind === "person") {
    email = caller.email;
    role = participantRole(b, email) ?? (caller.admin ? "administrator" : undefined);
    if (!role) throw forbidden("You are not one of this booking's attendees or hosts.");
  } else {
    if (!given.email) throw badRequest("email is required: the address the booking knows you by");
    email = given.email.trim().toLowerCase();
    role = participantRole(b, email) ?? (caller.kind === "key" ? "administrator" : undefined);
    if (!role) throw forbidden("That address is not one of this booking's attendees or hosts.");
  }
  const name = given.name?.trim().slice(0, 200) || nameOf(deps, b, email, role);
  return { email, name, role };
}

async function roomBooking(deps: Deps, uid: string): Promise<BookingRow> {
  const b = await bookingStore.bookingByUid(deps.sql, uid);
  // a booking without a room (another location, or not made yet) has no such page
  if (!b || !b.meeting_url) {
    throw new SchedulingError("NOT_FOUND", `Meeting room ${uid} not found`);
  }
  return b;
}

export interface RoomView {
  booking: BookingRow;
  state: RoomState;
  opensAt: number;
  closesAt: number;
  joins: Awaited<ReturnType<typeof meetingStore.joinsOf>>;
  you?: Participant;
}

export async function viewRoom(deps: Deps, uid: string, you?: Participant): Promise<RoomView> {
  const booking = await roomBooking(deps, uid);
  const now = deps.clock.now().getTime();
  const joins = await meetingStore.joinsOf(deps.sql, booking.id, new Date(now - PRESENT_WITHIN_MS));
  return { booking, state: roomState(booking, now), ...roomWindow(booking), joins, you };
}

function closed(view: { state: RoomState; opensAt: number; closesAt: number }): SchedulingError {
  const why: Record<RoomState, string> = {
    pending: "The booking waits for its host's confirmation; the room opens once it is confirmed.",
    cancelled: "The booking was cancelled: its room is closed.",
    waiting: `The room opens at ${new Date(view.opensAt).toISOString()}.`,
    ended: "The meeting has ended.",
    open: "",
  };
  return forbidden(why[view.state], {
    code: "room-closed",
    state: view.state,
    opensAt: new Date(view.opensAt).toISOString(),
    closesAt: new Date(view.closesAt).toISOString(),
  });
}

/**
 * A participant comes in (or says they are still there: the page repeats it as a heartbeat). The
 * first join of the booking starts the meeting.
 */
export async function joinRoom(
  deps: Deps,
  caller: Caller,
  uid: string,
  given: { email?: string; name?: string },
): Promise<RoomView> {
  const b = await roomBooking(deps, uid);
  const you = identify(deps, b, caller, given);
  const now = deps.clock.now();
  const state = roomState(b, now.getTime());
  if (state !== "open") throw closed({ state, ...roomWindow(b) });
  await deps.sql.begin(async (tx) => {
    await meetingStore.recordJoin(tx, b.id, you, now);
    const started = await meetingStore.markMeetingStarted(tx, b.id, now);
    if (started) await announce(deps, tx, "MEETING_STARTED", started);
  });
  return await viewRoom(deps, uid, you);
}

export async function leaveRoom(
  deps: Deps,
  caller: Caller,
  uid: string,
  given: { email?: string },
): Promise<RoomView> {
  const b = await roomBooking(deps, uid);
  const you = identify(deps, b, caller, given);
  await meetingStore.recordLeave(deps.sql, b.id, you.email, deps.clock.now());
  return await viewRoom(deps, uid, you);
}

/** A host (signed in), an administrator or a key ends the meeting for everyone. */
export async function endMeeting(deps: Deps, caller: Caller, uid: string): Promise<RoomView> {
  const b = await roomBooking(deps, uid);
  const host = caller.kind === "person" && b.host_emails.includes(caller.email);
  if (!(host || caller.kind === "key" || (caller.kind === "person" && caller.admin))) {
    throw forbidden("Only the booking's host (signed in) or an administrator ends the meeting.");
  }
  if (!b.meeting_started_at) throw badRequest("The meeting has not started: nobody has joined yet.");
  await deps.sql.begin(async (tx) => {
    const ended = await meetingStore.markMeetingEnded(tx, b.id, deps.clock.now());
    if (ended) await announce(deps, tx, "MEETING_ENDED", ended);
  });
  return await viewRoom(deps, uid);
}

/** Ends every started meeting whose room has closed; answers how many. */
export async function sweepMeetings(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  const closedBefore = new Date(now.getTime() - CLOSES_AFTER_MINUTES * MINUTE);
  let total = 0;
  for (;;) {
    const ended = await deps.sql.begin(async (tx) => {
      const rows = await meetingStore.claimMeetingsToEnd(tx, closedBefore, now, SWEEP_BATCH);
      for (const b of rows) await announce(deps, tx, "MEETING_ENDED", b);
      return rows.length;
    });
    total += ended;
    if (ended < SWEEP_BATCH) return total;
  }
}
