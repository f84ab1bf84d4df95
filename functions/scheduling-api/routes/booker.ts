// The booker page and the calls it makes, relative to /book: the page itself (with /embed, the address
// @calcom/embed-core frames), its open times, its booking, the state of a paid booking's checkout, and
// moving or cancelling the booking made. No key: a visitor books as a guest (the admission check
// decides) and acts on that booking with its uid and the attendee's address; a signed-in person may
// send their JWT.
import type { Context, Hono } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { isEmailAddress } from "../../../shared/email.ts";
import { type BookerData, renderBookerNotFound, renderBookerPage } from "../pages/booker.ts";
import type { Caller, SchedulingEnv } from "../access.ts";
import { cancelBooking, createBooking, loadFor, rescheduleBooking } from "../domain/bookings.ts";
import { findType } from "../domain/catalog.ts";
import { type EventType, type Location, locationValue } from "../domain/event-types.ts";
import { badRequest, schedulingErrorHandler, SchedulingError, SessionsOff, success } from "../envelope.ts";
import { bookingOut } from "../wire.ts";
import { parseCancel, parseCreate, parseReschedule } from "./bookings.ts";
import { catalogOf, depsOf, jsonBody, typeVisible } from "./common.ts";
import { slotsAnswer } from "./slots.ts";
import type { AnswerCache } from "../../../shared/answer-cache.ts";

/** A location as the booker page offers it. */
function locationLabel(l: Location): string {
  switch (l.type) {
    case "integration":
      return "Video call";
    case "link":
      return `Online: ${l.link}`;
    case "address":
      return `In person: ${l.address}`;
    case "phone":
      return `By phone: call ${l.phone}`;
    case "attendeePhone":
      return "By phone: we call you";
  }
}

export function bookerData(type: EventType): BookerData {
  const platform = [
    "name",
    "email",
    "location",
    "attendeePhoneNumber",
    "title",
    "notes",
    "guests",
    "rescheduleReason",
  ];
  return {
    id: type.id,
    slug: type.slug,
    title: type.title,
    description: type.description,
    lengths: type.lengths,
    price: type.price,
    currency: type.currency,
    // the visitor chooses among several; the value is what the booking names the place by (its type
    // where it has no text of its own: the attendee's phone)
    locations: type.locations.map((l) => ({
      value: locationValue(l) ?? l.type,
      label: locationLabel(l),
    })),
    needsPhone: type.locations.some((l) => l.type === "attendeePhone"),
    disableGuests: type.disableGuests,
    formFields: type.bookingFields.filter((f) => !platform.includes(f.slug)),
    checkout: type.price > 0,
    hosts: type.hosts.map((h) => h.host.name),
    successRedirectUrl: type.successRedirectUrl,
  };
}

export function bookerRoutes(ctx: FunctionContext, book: Hono<SchedulingEnv>, kept: AnswerCache): void {
  const page = async (c: import("hono").Context<SchedulingEnv>) => {
    const catalog = await catalogOf(ctx, c);
    const type = findType(catalog, c.req.param("slug")!);
    if (!type || !typeVisible(type, c.get("caller"))) {
      // a page, not an API answer: a visitor (or the embed's parent) is told the link leads nowhere
      return c.html(renderBookerNotFound(), 404, { "cache-control": "no-store" });
    }
    const html = await renderBookerPage(bookerData(type), {
      embedded: c.req.query("embed") !== undefined,
      theme: c.req.query("theme") ?? "light",
    });
    // frameable on purpose: the embed library puts it in an iframe on other sites
    return c.html(html, 200, { "cache-control": "no-store" });
  };
  book.get("/:slug", page);
  book.get("/:slug/embed", page);

  book.get(
    "/:slug/slots",
    (c) =>
      slotsAnswer(
        ctx,
        kept,
        c,
        (name) =>
          name === "eventTypeSlug"
            ? c.req.param("slug")
            : name === "eventTypeId"
            ? undefined
            : c.req.query(name) || undefined,
      ),
  );

  // the booking just made, moved or cancelled from the page: its uid and its attendee's address
  const attendee = (c: Context<SchedulingEnv>, email: unknown): Caller => {
    const caller = c.get("caller");
    if (caller.kind !== "visitor") return caller; // a key or a signed-in person acts as itself
    if (!isEmailAddress(email)) throw badRequest("email is required: the address the booking was made for");
    return { kind: "attendee", email: email.toLowerCase() };
  };
  book.get("/:slug/bookings/:uid", async (c) => {
    const deps = await depsOf(ctx, c);
    const b = await loadFor(deps, attendee(c, c.req.query("email")), c.req.param("uid"));
    return success(c, bookingOut(b, deps.catalog));
  });
  book.post("/:slug/bookings/:uid/reschedule", async (c) => {
    const deps = await depsOf(ctx, c);
    const body = await jsonBody(c);
    const b = await rescheduleBooking(
      deps,
      attendee(c, body.email),
      c.req.param("uid"),
      parseReschedule(body),
    );
    return success(c, bookingOut(b, deps.catalog), 201);
  });
  book.post("/:slug/bookings/:uid/cancel", async (c) => {
    const deps = await depsOf(ctx, c);
    const body = await jsonBody(c);
    const b = await cancelBooking(deps, attendee(c, body.email), c.req.param("uid"), parseCancel(body));
    return success(c, bookingOut(b, deps.catalog));
  });

  book.post("/:slug/bookings", async (c) => {
    const deps = await depsOf(ctx, c);
    const body = await jsonBody(c);
    delete body.eventTypeId;
    body.eventTypeSlug = c.req.param("slug");
    const input = parseCreate(body, deps.catalog);
    const made = await createBooking(deps, c.get("caller"), input);
    const out = made.map((b) => bookingOut(b, deps.catalog));
    return success(c, input.type.recurrence ? out : out[0], 201);
  });
}

/** The booker page's own addresses: the page and its embed. */
const BOOKER_PAGE = /^\/book\/[^/]+(\/embed)?\/?$/;

/**
 * onError of /book: with the sessions module off, every page a person opens (the booker page, its embed,
 * a meeting room) answers the booker's own HTML 404, which also tells an embedding parent; so does a
 * booker address that leads nowhere, or any navigation asking for HTML. The page's calls keep the API's
 * JSON envelope.
 */
export function bookErrorHandler(error: Error, c: Context): Response {
  const reading = c.req.method === "GET" || c.req.method === "HEAD";
  const navigation = (c.req.header("accept") ?? "").includes("text/html");
  const notFound = error instanceof SchedulingError && error.code === "NOT_FOUND";
  const page = reading && notFound &&
    (navigation || BOOKER_PAGE.test(c.req.path) ||
      (error instanceof SessionsOff && /^\/book\/video\/[^/]+\/?$/.test(c.req.path)));
  if (page) return c.html(renderBookerNotFound(), 404, { "cache-control": "no-store" });
  return schedulingErrorHandler(error, c);
}
