// Wire shapes of the scheduling API (Cal.com API v2, 2024-dated versions): domain → JSON. Input
// parsing lives beside the routes that read it; this module only answers.
import type { Catalog } from "./domain/catalog.ts";
import type { EventType } from "./domain/event-types.ts";
import { type AwayPeriod, fnv31, type Host, type Schedule } from "./domain/hosts.ts";
import { bookingMetadata } from "./domain/events.ts";
import type { RoomView } from "./domain/meetings.ts";
import type { BookingRow } from "./store/bookings.ts";
import type { WebhookRow } from "./store/webhooks.ts";

export function eventTypeOut(type: EventType, publicUrl: string) {
  const owner = type.hosts[0]?.host;
  return {
    id: type.id,
    ownerId: owner?.id ?? null,
    title: type.title,
    slug: type.slug,
    description: type.description,
    lengthInMinutes: type.lengths[0] ?? null,
    lengthInMinutesOptions: type.lengths,
    locations: type.locations,
    bookingFields: type.bookingFields,
    disableGuests: type.disableGuests,
    slotInterval: type.slotInterval,
    offsetStart: type.offsetStart,
    minimumBookingNotice: type.minimumBookingNotice,
    beforeEventBuffer: type.beforeEventBuffer,
    afterEventBuffer: type.afterEventBuffer,
    recurrence: type.recurrence,
    metadata: {
      requires: type.requires,
      below: type.below,
      weekly: type.weekly,
      monthly: type.monthly,
      scheduler: type.scheduler,
      sku: type.sku,
      record: type.entryId,
      team: type.team,
      form: type.form,
      customName: type.customName,
    },
    price: type.price,
    currency: type.currency,
    lockTimeZoneToggleOnBookingPage: type.flags.lockTimeZoneToggleOnBookingPage,
    hideCalendarNotes: type.flags.hideCalendarNotes,
    hideCalendarEventDetails: type.flags.hideCalendarEventDetails,
    hideOrganizerEmail: type.flags.hideOrganizerEmail,
    successRedirectUrl: type.successRedirectUrl,
    forwardParamsSuccessRedirect: type.flags.forwardParamsSuccessRedirect,
    hidden: type.flags.hidden,
    requiresBookerEmailVerification: type.flags.requiresBookerEmailVerification,
    disableCancelling: type.flags.disableCancelling,
    disableRescheduling: type.flags.disableRescheduling,
    allowReschedulingPastBookings: type.flags.allowReschedulingPastBookings,
    seatsPerTimeSlot: type.seatsPerTimeSlot,
    seatsShowAvailabilityCount: type.seatsPerTimeSlot ? type.seatsShowAvailabilityCount : null,
    seats: type.seatsPerTimeSlot
      ? {
        seatsPerTimeSlot: type.seatsPerTimeSlot,
        showAvailabilityCount: type.seatsShowAvailabilityCount,
        showAttendeeInfo: type.seatsShowAttendeeInfo,
      }
      : { disabled: true },
    scheduleId: type.hosts[0]?.schedule?.id ?? null,
    requiresConfirmation: type.requiresConfirmation,
    confirmationPolicy: type.confirmationPolicy,
    customName: type.customName,
    users: type.hosts.map(({ host }) => ({ id: host.id, name: host.name, username: host.username })),
    hosts: type.hosts.map((h) => ({
      userId: h.host.id,
      name: h.host.name,
      mandatory: h.mandatory,
      priority: h.priority,
      scheduleId: h.schedule?.id ?? null,
    })),
    schedulingType: type.schedulingType,
    assignAllTeamMembers: type.assignAllTeamMembers,
    teamId: type.team ? teamIdOf(type.team) : null,
    bookingLimitsCount: type.limitsCount,
    bookingLimitsDuration: type.limitsDuration,
    bookingWindow: type.bookingWindow,
    _links: { book: `${publicUrl}/book/${type.slug}` },
  };
}

/** A team's id: stable, from the name the session records give it. */
export function teamIdOf(team: string): number {
  return fnv31(`team:${team}`);
}

export function scheduleOut(s: Schedule, owner: Host) {
  return {
    id: s.id,
    ownerId: owner.id,
    name: s.name,
    timeZone: s.timeZone,
    availability: s.availability,
    isDefault: s.isDefault,
    overrides: s.overrides,
    metadata: s.metadata,
  };
}

export function awayOut(a: AwayPeriod, catalog: Catalog) {
  const host = catalog.hosts.find((h) => h.email === a.hostEmail)!;
  const to = a.toEmail ? catalog.hosts.find((h) => h.email === a.toEmail) : undefined;
  return {
    id: a.id,
    userId: host.id,
    start: a.start,
    end: a.end,
    notes: a.notes,
    reason: a.reason,
    toUser: to ? { id: to.id, name: to.name, username: to.username, email: to.email } : null,
  };
}

export function meOut(
  host: Host | undefined,
  person: { id: string; email: string } | undefined,
  site: { name: string; slug: string },
) {
  const base = host ?? {
    id: 0,
    username: person?.email.split("@")[0] ?? site.slug,
    email: person?.email ?? "",
    name: null,
    timeFormat: 24,
    weekStart: "Monday",
    timeZone: "UTC",
    schedules: [],
  };
  return {
    id: host?.id ?? (person ? fnv31(`person:${person.id}`) : fnv31(`site:${site.slug}`)),
    username: base.username,
    email: base.email,
    name: base.name,
    timeFormat: base.timeFormat,
    defaultScheduleId: host?.schedules.find((s) => s.isDefault)?.id ?? null,
    weekStart: base.weekStart,
    timeZone: base.timeZone,
    organizationId: fnv31(`site:${site.slug}`),
    organization: { id: fnv31(`site:${site.slug}`), name: site.name, slug: site.slug },
  };
}

export function bookingOut(b: BookingRow, catalog: Catalog) {
  const metadata = bookingMetadata(b);
  const duration = Math.round((b.end_at.getTime() - b.start_at.getTime()) / 60_000);
  const responses: Record<string, unknown> = { name: b.attendee_name, email: b.attendee_email };
  const r = b.responses ?? {};
  if (r.notes !== undefined) responses.notes = r.notes;
  if (b.attendee_phone) responses.attendeePhoneNumber = b.attendee_phone;
  for (const [k, v] of Object.entries(r)) if (!(k in responses)) responses[k] = v;
  return {
    id: b.id,
    uid: b.uid,
    title: b.title,
    description: b.description,
    hosts: b.host_emails.map((email) => {
      const h = catalog.hosts.find((x) => x.email === email);
      return {
        id: h?.id ?? fnv31(`user:${email}`),
        name: h?.name ?? email,
        email,
        username: h?.username ?? email.split("@")[0],
        timeZone: h?.timeZone ?? "UTC",
      };
    }),
    status: b.status,
    cancellationReason: b.cancellation_reason,
    reschedulingReason: b.rescheduling_reason,
    rescheduledFromUid: b.rescheduled_from_uid,
    start: b.start_at.toISOString(),
    end: b.end_at.toISOString(),
    duration,
    eventTypeId: b.event_type_id,
    eventType: { id: b.event_type_id, slug: b.event_type_slug },
    meetingUrl: b.meeting_url,
    location: b.location,
    absentHost: false,
    createdAt: b.created_at.toISOString(),
    updatedAt: b.updated_at.toISOString(),
    metadata,
    rating: null,
    icsUid: b.ics_uid,
    attendees: [{
      name: b.attendee_name,
      email: b.attendee_email,
      timeZone: b.attendee_time_zone,
      language: b.attendee_language,
      absent: false,
      ...(b.attendee_phone ? { phoneNumber: b.attendee_phone } : {}),
    }],
    guests: b.guests,
    bookingFieldsResponses: responses,
    ...(b.recurring_uid ? { recurringBookingUid: b.recurring_uid } : {}),
    ...(b.seat_of ? { seatUid: b.uid } : {}),
  };
}

export function webhookOut(w: WebhookRow, catalog: Catalog) {
  return {
    id: w.id,
    uid: w.uid,
    subscriberUrl: w.subscriber_url,
    triggers: w.triggers,
    active: w.active,
    payloadTemplate: w.payload_template,
    eventTypeId: w.event_type_slug
      ? (catalog.types.find((t) => t.slug === w.event_type_slug)?.id ?? fnv31(w.event_type_slug))
      : null,
    userId: null,
    source: w.source,
    createdAt: w.created_at.toISOString(),
    updatedAt: w.updated_at.toISOString(),
    lastDeliveredAt: w.last_at?.toISOString() ?? null,
    lastError: w.last_error,
  };
}

/** A meeting room as its page and its calls show it: names, never addresses (but your own). */
export function roomOut(v: RoomView, catalog: Catalog, now: Date) {
  const b = v.booking;
  const type = catalog.types.find((t) => t.slug === b.event_type_slug);
  return {
    uid: b.uid,
    title: b.title,
    description: type?.flags.hideCalendarNotes ? null : b.description,
    eventType: { id: b.event_type_id, slug: b.event_type_slug, title: type?.title ?? b.title },
    status: b.status,
    state: v.state,
    start: b.start_at.toISOString(),
    end: b.end_at.toISOString(),
    opensAt: new Date(v.opensAt).toISOString(),
    closesAt: new Date(v.closesAt).toISOString(),
    startedAt: b.meeting_started_at?.toISOString() ?? null,
    endedAt: b.meeting_ended_at?.toISOString() ?? null,
    hosts: b.host_emails.map((email) => ({
      name: catalog.hosts.find((h) => h.email === email)?.name ?? email.split("@")[0],
    })),
    attendees: [{ name: b.attendee_name }],
    guests: b.guests.length,
    participants: v.joins.map((j) => ({
      name: j.name,
      role: j.role,
      present: j.present,
      joinedAt: j.first_joined_at.toISOString(),
    })),
    you: v.you ? { name: v.you.name, email: v.you.email, role: v.you.role } : null,
    // the server's clock, so the page counts down to the opening by it rather than the visitor's
    now: now.toISOString(),
  };
}
