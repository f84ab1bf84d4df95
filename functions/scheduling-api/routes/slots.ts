// GET /v2/slots: open times of an event type for a range, keyed by day in the caller's time zone.
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import type { AnswerCache } from "../../../shared/answer-cache.ts";
import { HELD_SCOPE, type SchedulingEnv } from "../access.ts";
import { openSlots, type SlotDataLoader } from "../domain/availability.ts";
import { forwardSlots } from "../domain/forward.ts";
import type { Slot } from "../domain/slots.ts";
import { isoAndDateIn, isoIn, isZone } from "../domain/zones.ts";
import { badRequest, success } from "../envelope.ts";
import { parseSlotData, type SlotData, slotData, slotDataText } from "../store/holds.ts";
import { catalogOf, intParam, outboundOf, parseInstant, visibleType } from "./common.ts";

const MAX_RANGE_DAYS = 100;

export function slotsOut(slots: Slot[], zone: string, range: boolean, showSeats: boolean) {
  const days: Record<string, Record<string, unknown>[]> = {};
  for (const s of slots) {
    const { iso, date } = isoAndDateIn(s.start, zone);
    const item: Record<string, unknown> = range ? { start: iso, end: isoIn(s.end, zone) } : { start: iso };
    if (s.seats) {
      if (showSeats) {
        item.seatsBooked = s.seats.booked;
        item.seatsRemaining = s.seats.remaining;
        item.seatsTotal = s.seats.total;
      }
      if (s.seats.bookingUid) item.bookingUid = s.seats.bookingUid;
    }
    (days[date] ??= []).push(item);
  }
  return days;
}

export function slotsHandler(ctx: FunctionContext, kept: AnswerCache) {
  return (c: Context<SchedulingEnv>) => slotsAnswer(ctx, kept, c, (name) => c.req.query(name) || undefined);
}

/**
 * The slot data of a request: what a request that saw the same held-time version (or a later one) read
 * for the same input, else its own round trip, kept for the next. The computation itself runs on every
 * request: it depends on the clock (notice, booking window), the data does not.
 */
function keptSlotData(ctx: FunctionContext, kept: AnswerCache, version: number | undefined): SlotDataLoader {
  return async (input) => {
    if (version === undefined) return await slotData(ctx.sql, input);
    const key = JSON.stringify(input);
    const hit = kept.get(HELD_SCOPE, version, key);
    if (hit?.value) return hit.value as SlotData;
    const text = await slotDataText(ctx.sql, input);
    const data = parseSlotData(text);
    kept.put(HELD_SCOPE, version, key, {
      body: text,
      etag: "",
      contentType: "application/json",
      value: data,
    });
    return data;
  };
}

/** The slots answer for query values read through `q` (the booker page fixes the type by its path). */
export async function slotsAnswer(
  ctx: FunctionContext,
  kept: AnswerCache,
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
    }, keptSlotData(ctx, kept, c.get("heldVersion")))
    : [];
  return success(c, slotsOut(slots, zone, format === "range", type.seatsShowAvailabilityCount));
}
