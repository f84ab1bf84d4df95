// GET /v2/slots: open times of an event type for a range, keyed by day in the caller's time zone.
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import type { SchedulingEnv } from "../access.ts";
import { openSlots } from "../domain/availability.ts";
import { forwardSlots } from "../domain/forward.ts";
import type { Slot } from "../domain/slots.ts";
import { dateIn, isoIn, isZone } from "../domain/zones.ts";
import { badRequest, success } from "../envelope.ts";
import { slotData } from "../store/holds.ts";
import { catalogOf, intParam, outboundOf, parseInstant, visibleType } from "./common.ts";

const MAX_RANGE_DAYS = 100;

export function slotsOut(slots: Slot[], zone: string, range: boolean, showSeats: boolean) {
  const days: Record<string, Record<string, unknown>[]> = {};
  for (const s of slots) {
    const item: Record<string, unknown> = { start: isoIn(s.start, zone) };
    if (range) item.end = isoIn(s.end, zone);
    if (s.seats) {
      if (showSeats) {
        item.seatsBooked = s.seats.booked;
        item.seatsRemaining = s.seats.remaining;
        item.seatsTotal = s.seats.total;
      }
      if (s.seats.bookingUid) item.bookingUid = s.seats.bookingUid;
    }
    (days[dateIn(s.start, zone)] ??= []).push(item);
  }
  return days;
}

export function slotsHandler(ctx: FunctionContext) {
  return (c: Context<SchedulingEnv>) => slotsAnswer(ctx, c, (name) => c.req.query(name) || undefined);
}

/** The slots answer for query values read through `q` (the booker page fixes the type by its path). */
export async function slotsAnswer(
  ctx: FunctionContext,
  c: Context<SchedulingEnv>,
  q: (name: string) => string | undefined,
) {
  const ref = q("eventTypeId") ?? q("eventTypeSlug");
  if (!ref) throw badRequest("eventTypeId or eventTypeSlug is required");
  if (q("eventTypeId") && !/^\d+$/.test(q("eventTypeId")!)) {
    throw badRequest("eventTypeId must be an integer");
  }
  const from = parseInstant(q("start") ?? q("startTime"), "start");
  const to = parseInstant(q("end") ?? q("endTime"), "end", true);
  if (to <= from) throw badRequest("end must be after start");
  if (to - from > MAX_RANGE_DAYS * 86_400_000) {
    throw badRequest(`the range may span at most ${MAX_RANGE_DAYS} days`);
  }
  const zone = (q("timeZone") ?? "UTC").replace(/^"|"$/g, "");
  if (!isZone(zone)) throw badRequest(`timeZone ${zone} is not an IANA time zone`);
  const format = q("format") ?? q("slotFormat") ?? "time";
  if (format !== "range" && format !== "time") throw badRequest("format must be range or time");
  const catalog = await catalogOf(ctx, c);
  const type = visibleType(catalog, ref, c.get("caller"));
  const length = intParam(
    q("duration") ?? q("lengthInMinutes"),
    "duration",
    1,
    24 * 60,
    type.lengths[0] ?? 0,
  );
  if (type.lengths.length && !type.lengths.includes(length)) {
    throw badRequest(`duration must be one of ${type.lengths.join(", ")}`);
  }
  if (type.scheduler !== "native") {
    const data = await forwardSlots(outboundOf(ctx), type, catalog, {
      start: new Date(from).toISOString(),
      end: new Date(to).toISOString(),
      timeZone: zone,
      format,
      duration: q("duration") ?? q("lengthInMinutes") ? length : undefined,
    });
    return success(c, data);
  }
  const slots = type.lengths.length
    ? await openSlots(type, {
      from,
      to,
      lengthMinutes: length,
      now: ctx.clock.now().getTime(),
      weekStart: catalog.sessions.weekStart,
    }, (input) => slotData(ctx.sql, input))
    : [];
  return success(c, slotsOut(slots, zone, format === "range", type.seatsShowAvailabilityCount));
}
