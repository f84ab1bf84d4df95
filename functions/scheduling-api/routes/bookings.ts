// /v2/bookings: list, create, get, and the actions on one booking. Parse the wire, call
// domain/bookings.ts, answer the wire.
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { isEmailAddress } from "../../../shared/email.ts";
import { isPrivileged, type SchedulingEnv } from "../access.ts";
import {
  cancelBooking,
  type CancelInput,
  confirmBooking,
  createBooking,
  declineBooking,
  loadFor,
  rescheduleBooking,
} from "../domain/bookings.ts";
import type { Catalog } from "../domain/catalog.ts";
import type { CreateInput } from "../domain/types.ts";
import type { EventType } from "../domain/event-types.ts";
import { bookingIcs } from "../domain/ics.ts";
import { isZone } from "../domain/zones.ts";
import { badRequest, pagination, success } from "../envelope.ts";
import { type BookingFilter, listBookings } from "../store/bookings.ts";
import { bookingOut, teamIdOf } from "../wire.ts";
import { bookableType, catalogOf, depsOf, intParam, jsonBody, parseInstant } from "./common.ts";

type C = Context<SchedulingEnv>;
const STATUSES = ["upcoming", "past", "cancelled", "unconfirmed", "recurring"] as const;
/** Cal's sort parameters, in the precedence its list applies them */
const SORTS = [
  ["sortStart", "start"],
  ["sortEnd", "end"],
  ["sortCreated", "created"],
  ["sortUpdatedAt", "updated"],
] as const;

function optionalText(body: Record<string, unknown>, field: string, max = 5000): string | null {
  const v = body[field];
  if (v === undefined || v === null) return null;
  if (typeof v !== "string") throw badRequest(`${field} must be a string`);
  if (v.length > max) throw badRequest(`${field} may be at most ${max} characters`);
  return v;
}

/** The create body (Cal's 2024-08-13 shape) as domain input; every problem is a 400 naming the field. */
export function parseCreate(body: Record<string, unknown>, catalog: Catalog): CreateInput {
  const start = parseInstant(body.start, "start");
  const ref = body.eventTypeId ?? body.eventTypeSlug;
  if (ref === undefined || ref === null || ref === "") {
    throw badRequest("eventTypeId or eventTypeSlug is required");
  }
  if (
    body.eventTypeId !== undefined &&
    !(Number.isInteger(body.eventTypeId) || /^\d+$/.test(String(body.eventTypeId)))
  ) {
    throw badRequest("eventTypeId must be an integer");
  }
  const type: EventType = bookableType(catalog, String(ref));
  const a = body.attendee;
  if (!a || typeof a !== "object" || Array.isArray(a)) {
    throw badRequest("attendee is required: { name, email, timeZone }");
  }
  const att = a as Record<string, unknown>;
  if (typeof att.name !== "string" || !att.name.trim() || att.name.length > 200) {
    throw badRequest("attendee.name is required", { field: "attendee.name" });
  }
  if (!isEmailAddress(att.email)) {
    throw badRequest("attendee.email must be an email address", { field: "attendee.email" });
  }
  const timeZone = att.timeZone === undefined ? "UTC" : att.timeZone;
  if (!isZone(timeZone)) throw badRequest("attendee.timeZone must be an IANA time zone");
  const language = att.language === undefined ? "en" : att.language;
  if (typeof language !== "string" || !/^[a-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/.test(language)) {
    throw badRequest("attendee.language must be a language code");
  }
  const responses = body.bookingFieldsResponses ?? {};
  if (typeof responses !== "object" || responses === null || Array.isArray(responses)) {
    throw badRequest("bookingFieldsResponses must be an object");
  }
  const r = { ...(responses as Record<string, unknown>) };
  // Cal's { type: "attendeePhone", phone } location carries the attendee's number
  const placed = body.location && typeof body.location === "object"
    ? body.location as Record<string, unknown>
    : undefined;
  let phone = att.phoneNumber ?? r.attendeePhoneNumber ??
    (placed?.type === "attendeePhone" ? placed.phone : undefined);
  if (phone !== undefined && phone !== null && phone !== "") {
    if (typeof phone !== "string" || !/^\+?[0-9 ()\-.]{5,20}$/.test(phone)) {
      throw badRequest("attendee.phoneNumber must be a phone number", { field: "attendee.phoneNumber" });
    }
  } else phone = undefined;
  delete r.attendeePhoneNumber;
  delete r.name;
  delete r.email;
  if (r.notes !== undefined && typeof r.notes !== "string") {
    throw badRequest("bookingFieldsResponses.notes must be a string", { field: "bookingFieldsResponses.notes" });
  }
  for (const field of type.bookingFields) {
    if (
      ["name", "email", "attendeePhoneNumber", "location", "title", "notes", "guests", "rescheduleReason"]
        .includes(field.slug)
    ) continue;
    const v = r[field.slug];
    if (field.required && (v === undefined || v === null || v === "")) {
      throw badRequest(`bookingFieldsResponses.${field.slug} is required`, {
        field: `bookingFieldsResponses.${field.slug}`,
      });
    }
    if (v !== undefined && field.options && !field.options.includes(String(v))) {
      throw badRequest(`bookingFieldsResponses.${field.slug} must be one of ${field.options.join(", ")}`, {
        field: `bookingFieldsResponses.${field.slug}`,
      });
    }
  }
  const guests = body.guests ?? [];
  if (!Array.isArray(guests) || !guests.every(isEmailAddress) || guests.length > 30) {
    throw badRequest("guests must be a list of email addresses", { field: "guests" });
  }
  if (guests.length && type.disableGuests) throw badRequest("This session takes no guests.");
  const metadata = body.metadata ?? {};
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
    throw badRequest("metadata must be an object");
  }
  const meta = metadata as Record<string, unknown>;
  if (Object.keys(meta).length > 50) throw badRequest("metadata may have at most 50 keys");
  for (const [k, v] of Object.entries(meta)) {
    if (k.length > 40) throw badRequest("metadata keys may be at most 40 characters");
    if (typeof v !== "string" || v.length > 500) {
      throw badRequest("metadata values must be strings of at most 500 characters");
    }
  }
  let lengthInMinutes: number | undefined;
  if (body.lengthInMinutes !== undefined) {
    if (!Number.isInteger(body.lengthInMinutes)) throw badRequest("lengthInMinutes must be an integer");
    lengthInMinutes = body.lengthInMinutes as number;
  }
  let recurrenceCount: number | undefined;
  if (body.recurrenceCount !== undefined) {
    if (!Number.isInteger(body.recurrenceCount) || (body.recurrenceCount as number) < 1) {
      throw badRequest("recurrenceCount must be a positive integer");
    }
    recurrenceCount = body.recurrenceCount as number;
  }
  let location: string | undefined;
  if (typeof body.location === "string") location = body.location;
  else if (placed) {
    location = placed.type === "attendeePhone"
      ? "attendeePhone"
      : String(placed.address ?? placed.link ?? placed.phone ?? placed.integration ?? placed.type ?? "");
  }
  if (location !== undefined && location.length > 500) {
    throw badRequest("location may be at most 500 characters", { field: "location" });
  }
  return {
    type,
    start,
    lengthMinutes: lengthInMinutes,
    attendee: {
      name: (att.name as string).trim(),
      email: (att.email as string).trim().toLowerCase(),
      timeZone,
      language,
      ...(phone ? { phoneNumber: phone as string } : {}),
    },
    guests: (guests as string[]).map((g) => g.toLowerCase()),
    metadata: meta as Record<string, string>,
    responses: r,
    location: location || undefined,
    recurrenceCount,
  };
}

/** The reschedule body { start, reschedulingReason?, rescheduledBy? } as domain input. */
export function parseReschedule(body: Record<string, unknown>) {
  const start = parseInstant(body.start, "start");
  const rescheduledBy = body.rescheduledBy === undefined || body.rescheduledBy === null
    ? null
    : body.rescheduledBy;
  if (rescheduledBy !== null && !isEmailAddress(rescheduledBy)) {
    throw badRequest("rescheduledBy must be an email address");
  }
  return {
    start,
    reason: optionalText(body, "reschedulingReason"),
    rescheduledBy: rescheduledBy as string | null,
  };
}

/** The cancel body (Cal's): { cancellationReason?, cancelSubsequentBookings?, seatUid? }. */
export function parseCancel(body: Record<string, unknown>): CancelInput {
  const subsequent = body.cancelSubsequentBookings;
  if (subsequent !== undefined && subsequent !== null && typeof subsequent !== "boolean") {
    throw badRequest("cancelSubsequentBookings must be true or false", { field: "cancelSubsequentBookings" });
  }
  const seatUid = optionalText(body, "seatUid", 100);
  return {
    reason: optionalText(body, "cancellationReason"),
    subsequent: subsequent === true,
    ...(seatUid ? { seatUid } : {}),
  };
}

export function bookingRoutes(ctx: FunctionContext) {
  return {
    async list(c: C) {
      const catalog = await catalogOf(ctx, c);
      const caller = c.get("caller");
      const q = (name: string) => c.req.query(name) || undefined;
      const statuses = (q("status") ?? "").split(",").map((s) => s.trim()).filter(Boolean);
      for (const s of statuses) {
        if (!(STATUSES as readonly string[]).includes(s)) {
          throw badRequest(`status must be among ${STATUSES.join(", ")}`);
        }
      }
      const sort: BookingFilter["sort"] = [];
      for (const [parameter, field] of SORTS) {
        const direction = q(parameter);
        if (direction === undefined) continue;
        if (direction !== "asc" && direction !== "desc") {
          throw badRequest(`${parameter} must be asc or desc`, { parameter });
        }
        sort.push({ field, direction });
      }
      const slugs: string[] = [];
      const ids = [q("eventTypeId"), ...(q("eventTypeIds")?.split(",") ?? [])].filter((x): x is string =>
        Boolean(x)
      );
      for (const id of ids) {
        if (!/^\d+$/.test(id.trim())) throw badRequest("eventTypeId must be an integer");
        slugs.push(catalog.types.find((t) => t.id === Number(id))?.slug ?? `#${id}`);
      }
      if (q("eventTypeSlug")) slugs.push(q("eventTypeSlug")!);
      // a team's bookings are those of its types (a type's teamId is the one its record names)
      const teamIds = [q("teamId"), ...(q("teamsIds")?.split(",") ?? [])].filter((x): x is string =>
        Boolean(x?.trim())
      );
      for (const id of teamIds) {
        if (!/^\d+$/.test(id.trim())) throw badRequest("teamId must be an integer", { parameter: "teamId" });
      }
      const teamTypeSlugs = teamIds.length
        ? catalog.types.filter((t) => t.team && teamIds.some((id) => Number(id) === teamIdOf(t.team!)))
          .map((t) => t.slug)
        : undefined;
      const instant = (name: string, endOfDay = false) =>
        q(name) ? new Date(parseInstant(q(name), name, endOfDay)) : undefined;
      // Cal turns spaces in attendeeEmail back into '+' (an unencoded '+' arrives as a space)
      const attendeeEmail = q("attendeeEmail")?.replace(/ /g, "+");
      const filter: BookingFilter = {
        statuses: statuses as BookingFilter["statuses"],
        attendeeEmail,
        attendeeName: q("attendeeName"),
        bookingUid: q("bookingUid"),
        eventTypeSlugs: slugs.length ? slugs : undefined,
        teamTypeSlugs,
        afterStart: instant("afterStart"),
        beforeEnd: instant("beforeEnd", true),
        afterCreatedAt: instant("afterCreatedAt"),
        beforeCreatedAt: instant("beforeCreatedAt", true),
        afterUpdatedAt: instant("afterUpdatedAt"),
        beforeUpdatedAt: instant("beforeUpdatedAt", true),
        sort,
        take: intParam(q("take") ?? q("limit"), "take", 1, 250, 100),
        skip: intParam(q("skip"), "skip", 0, 1_000_000, 0),
        now: ctx.clock.now(),
        onlyFor: isPrivileged(caller) ? undefined : caller.kind === "person" ? caller.email : "\u0000",
      };
      const { rows, total } = await listBookings(ctx.sql, filter);
      return success(c, rows.map((b) => bookingOut(b, catalog)), 200, {
        pagination: pagination(total, filter.take, filter.skip),
      });
    },

    async create(c: C) {
      const deps = await depsOf(ctx, c);
      const input = parseCreate(await jsonBody(c), deps.catalog);
      const made = await createBooking(deps, c.get("caller"), input);
      const out = made.map((b) => bookingOut(b, deps.catalog));
      return success(c, input.type.recurrence ? out : out[0], 201);
    },

    async get(c: C) {
      const deps = await depsOf(ctx, c);
      return success(c, bookingOut(await loadFor(deps, c.get("caller"), c.req.param("uid")!), deps.catalog));
    },

    async ics(c: C) {
      const deps = await depsOf(ctx, c);
      const b = await loadFor(deps, c.get("caller"), c.req.param("uid")!);
      return new Response(bookingIcs(b, deps.catalog), {
        headers: {
          "content-type": "text/calendar; charset=utf-8",
          "content-disposition": `attachment; filename="${b.uid}.ics"`,
        },
      });
    },

    async reschedule(c: C) {
      const deps = await depsOf(ctx, c);
      const body = await jsonBody(c);
      const b = await rescheduleBooking(deps, c.get("caller"), c.req.param("uid")!, parseReschedule(body));
      return success(c, bookingOut(b, deps.catalog), 201);
    },

    async cancel(c: C) {
      const deps = await depsOf(ctx, c);
      const body = await jsonBody(c);
      const b = await cancelBooking(deps, c.get("caller"), c.req.param("uid")!, parseCancel(body));
      return success(c, bookingOut(b, deps.catalog));
    },

    async confirm(c: C) {
      const deps = await depsOf(ctx, c);
      return success(
        c,
        bookingOut(await confirmBooking(deps, c.get("caller"), c.req.param("uid")!), deps.catalog),
      );
    },

    async decline(c: C) {
      const deps = await depsOf(ctx, c);
      const body = await jsonBody(c);
      const b = await declineBooking(
        deps,
        c.get("caller"),
        c.req.param("uid")!,
        optionalText(body, "reason"),
      );
      return success(c, bookingOut(b, deps.catalog));
    },
  };
}
