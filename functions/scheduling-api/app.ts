// The scheduling function's route table: read this first.
//
//   GET    /v2/me                                  the current user            routes/catalog.ts
//   GET    /v2/event-types[/{id|slug}]             session records as types    routes/catalog.ts
//   GET    /v2/schedules[/{id}|/default]           hosts' hours                routes/catalog.ts
//   GET    /v2/ooo (and /v2/me/ooo)                away periods                routes/catalog.ts
//   *      writes to the three above               405
//   GET    /v2/slots                               open times                  routes/slots.ts
//   GET    /v2/bookings, POST /v2/bookings         list, create                routes/bookings.ts
//   GET    /v2/bookings/{uid}[/ics]                one booking, its invitation
//   POST   /v2/bookings/{uid}/reschedule|cancel|confirm|decline
//   GET    /v2/webhooks, POST, GET|PATCH|DELETE /v2/webhooks/{id|uuid}         routes/webhooks.ts
//   POST   /v2/intake                              an external scheduler's signed webhooks (routes/intake.ts)
//   POST   /v2/payments/webhook, GET /v2/payments/{session}   paid bookings' fulfilment (routes/payments.ts)
//   POST   /v2/meetings/sweep                      end meetings whose room closed (service key; sweep.ts)
//   POST   /webhooks/deliver                       due scheduling webhooks (service key; pg_net and pg_cron
//                                                  call it on Supabase; webhook-adapter.ts)
//   POST   /book/{slug}/checkout, GET .../payments/{session}   a paid booking's checkout and its state
//   GET    /book/{slug}[/embed], /book/{slug}/...  the booker page and its calls (routes/booker.ts)
//   GET    /book/video/{uid}, .../state, POST .../join|leave|end   the meeting room (routes/room.ts)
//
// Paths are relative to the function root: the host maps /api/scheduling/* and /functions/v1/scheduling-api/*
// here (and /book/* for the page). cal-api-version is accepted on every route and never required.
import { Hono } from "hono";
import { answerCache } from "../../shared/answer-cache.ts";
import type { FunctionContext } from "../../shared/context.ts";
import { RATE_LIMIT_HEADER_NAMES } from "../../shared/gate.ts";
import { answerEntryRefusal, openCors, requestId } from "../../shared/http.ts";
import { schedulingAccess, type SchedulingEnv } from "./access.ts";
import { methodNotAllowed, notFound, SchedulingError, schedulingErrorHandler } from "./envelope.ts";
import { bookErrorHandler, bookerRoutes } from "./routes/booker.ts";
import { bookingRoutes } from "./routes/bookings.ts";
import { catalogRoutes } from "./routes/catalog.ts";
import { refuseUnstorableText } from "./routes/common.ts";
import { intakeHandler } from "./routes/intake.ts";
import { paymentRoutes } from "./routes/payments.ts";
import { roomRoutes } from "./routes/room.ts";
import { slotsHandler } from "./routes/slots.ts";
import { webhookRoutes } from "./routes/webhooks.ts";
import { webhookDeliveryHandler } from "../../shared/webhooks/delivery-route.ts";
import { webhookAdapters } from "./webhook-adapter.ts";
import { sweepHandler } from "./routes/sweep.ts";

export function createSchedulingApp(ctx: FunctionContext): Hono<SchedulingEnv> {
  const app = new Hono<SchedulingEnv>({ strict: false });
  // the slot data the slots answers read, kept under the held-time version (routes/slots.ts)
  const heldData = answerCache(ctx.sql, ctx.config.answerCacheBytes);
  app.use("*", requestId("X-Request-Id"));
  app.use("*", answerEntryRefusal((method) => methodNotAllowed(`The method ${method} is not allowed.`)));
  app.use(
    "*",
    openCors({
      allowHeaders: ["cal-api-version", "vendor-api-version", "x-cal-client-id", "x-cal-secret-key"],
      exposeHeaders: ["X-Request-Id", ...RATE_LIMIT_HEADER_NAMES],
    }),
  );
  app.onError(schedulingErrorHandler);
  app.use("*", refuseUnstorableText);
  app.notFound(() => {
    throw notFound("Route");
  });

  // the booker page and its calls admit visitors (no key), like the intake admits a signed sender; they
  // and the paid booking's routes need only the sessions module (the api module switches the API)
  const payments = paymentRoutes(ctx);
  const page = schedulingAccess(ctx, { visitors: true, pageOnly: true });
  const book = new Hono<SchedulingEnv>({ strict: false });
  book.use("*", page);
  roomRoutes(ctx, book);
  bookerRoutes(ctx, book, heldData);
  book.post("/:slug/checkout", payments.checkout);
  book.get("/:slug/payments/:id", payments.status);
  book.all("*", () => {
    throw notFound("Route");
  });
  book.onError(bookErrorHandler);
  app.route("/book", book);

  // signed senders: the signature is the credential (an external scheduler; the payment provider).
  // Registered on the app before the /v2 sub-app so its key check never runs for them.
  const visitors = schedulingAccess(ctx, { visitors: true });
  app.post("/v2/intake", visitors, intakeHandler(ctx));
  app.post("/v2/payments/webhook", page, payments.webhook);
  app.get("/v2/payments/:id", page, payments.status);
  // the scheduled sweep presents the service key, which is no API key: it skips the admission entirely
  app.post("/v2/meetings/sweep", sweepHandler(ctx));
  app.post(
    "/webhooks/deliver",
    webhookDeliveryHandler(
      ctx,
      webhookAdapters(ctx),
      () => new SchedulingError("UNAUTHORIZED", "Webhook delivery needs the service key."),
    ),
  );

  const v2 = new Hono<SchedulingEnv>({ strict: false });
  v2.use("*", schedulingAccess(ctx));
  const catalog = catalogRoutes(ctx);
  v2.get("/me", catalog.me);
  v2.get("/event-types", catalog.listEventTypes);
  v2.get("/event-types/:ref", catalog.getEventType);
  v2.get("/schedules", catalog.listSchedules);
  v2.get("/schedules/:id", catalog.getSchedule);
  v2.get("/ooo", catalog.listAway);
  v2.get("/me/ooo", catalog.listAway);
  const readOnly = (what: string) => () => {
    throw methodNotAllowed(`${what} are read-only here: they are set in the site.`);
  };
  for (const path of ["/event-types", "/event-types/*"]) {
    v2.on(["POST", "PUT", "PATCH", "DELETE"], path, readOnly("Event types"));
  }
  for (const path of ["/schedules", "/schedules/*"]) {
    v2.on(["POST", "PUT", "PATCH", "DELETE"], path, readOnly("Schedules"));
  }
  for (const path of ["/ooo", "/ooo/*", "/me/ooo", "/me/ooo/*"]) {
    v2.on(["POST", "PUT", "PATCH", "DELETE"], path, readOnly("Away periods"));
  }

  v2.get("/slots", slotsHandler(ctx, heldData));
  v2.get("/slots/available", slotsHandler(ctx, heldData));

  const bookings = bookingRoutes(ctx);
  v2.get("/bookings", bookings.list);
  v2.post("/bookings", bookings.create);
  v2.get("/bookings/:uid", bookings.get);
  v2.get("/bookings/:uid/ics", bookings.ics);
  v2.post("/bookings/:uid/reschedule", bookings.reschedule);
  v2.post("/bookings/:uid/cancel", bookings.cancel);
  v2.post("/bookings/:uid/confirm", bookings.confirm);
  v2.post("/bookings/:uid/decline", bookings.decline);

  const webhooks = webhookRoutes(ctx);
  v2.get("/webhooks", webhooks.list);
  v2.post("/webhooks", webhooks.create);
  v2.get("/webhooks/:ref", webhooks.get);
  v2.patch("/webhooks/:ref", webhooks.update);
  v2.delete("/webhooks/:ref", webhooks.remove);

  app.route("/v2", v2);
  return app;
}
