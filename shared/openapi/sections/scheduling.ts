// The Scheduling API (Cal.com API v2-compatible; spec forms-and-scheduling.md "Scheduling API"), described
// from the spec; the scheduling-api engineer refines this section.
import {
  errorRefs,
  errorResponses,
  type ErrorRow,
  headerParam,
  jsonBody,
  jsonResponse,
  pathParam,
  queryParam,
  RETRY_AFTER,
} from "../builders.ts";
import { ref } from "../schemas.ts";
import type { OpenApiSection, Operation, Schema, SecurityRequirement } from "../types.ts";
import { TRIGGERS } from "../enums/scheduling.ts";

const GROUP = "Scheduling API";
export const SCHEDULING_TAGS = {
  eventTypes: "Event Types",
  slots: "Slots",
  bookings: "Bookings",
  schedules: "Schedules",
  webhooks: "Scheduling Webhooks",
};
export const SCHEDULING_BASE = "/api/scheduling/v2";
/** The triggers a subscription may name: the scheduling function's own list. */
export const SCHEDULING_TRIGGERS = [...TRIGGERS];

const error = (code: string, message: string, details?: unknown) => ({
  status: "error",
  error: { code, message, ...(details ? { details } : {}) },
});
const ERRORS: ErrorRow[] = [
  {
    status: 400,
    name: "SchedulingBadRequest",
    description: "BAD_REQUEST: a malformed request, a phone-location type without a number.",
    example: error("BAD_REQUEST", "start must be an ISO 8601 date"),
  },
  {
    status: 401,
    name: "SchedulingUnauthorized",
    description: "UNAUTHORIZED: missing or invalid credentials.",
    example: error("UNAUTHORIZED", "Invalid credentials"),
  },
  {
    status: 402,
    name: "SchedulingPaymentRequired",
    description: "PAYMENT_REQUIRED: a paid type without credit (details.code `unpaid`).",
    example: error("PAYMENT_REQUIRED", "This session must be paid for", { code: "unpaid" }),
  },
  {
    status: 403,
    name: "SchedulingForbidden",
    description:
      "FORBIDDEN: details.code `guest`, `not-included`, `over` (with next and allowance) or `too-soon`; a key of another kind; a person acting on another's booking.",
    example: error("FORBIDDEN", "Your plan does not include this session", { code: "not-included" }),
  },
  {
    status: 404,
    name: "SchedulingNotFound",
    description: "NOT_FOUND: an unknown resource.",
    example: error("NOT_FOUND", "Booking not found"),
  },
  {
    status: 405,
    name: "SchedulingMethodNotAllowed",
    description:
      "METHOD_NOT_ALLOWED: writes to event types, schedules and away periods; webhooks for a person.",
    example: error("METHOD_NOT_ALLOWED", "Event types are edited in the site"),
  },
  {
    status: 409,
    name: "SchedulingConflict",
    description: "CONFLICT: the time was just taken (details.code `taken`).",
    example: error("CONFLICT", "That time was just taken", { code: "taken" }),
  },
  {
    status: 429,
    name: "SchedulingTooManyRequests",
    description: "TOO_MANY_REQUESTS; Retry-After says when to try again.",
    example: error("TOO_MANY_REQUESTS", "Too many requests"),
    headers: { "Retry-After": RETRY_AFTER },
  },
  {
    status: 502,
    name: "SchedulingBadGateway",
    description: "BAD_GATEWAY: the scheduler failed.",
    example: error("BAD_GATEWAY", "The scheduler failed"),
  },
  {
    status: 503,
    name: "SchedulingUnavailable",
    description: "SERVICE_UNAVAILABLE: a native type with no host or no length.",
    example: error("SERVICE_UNAVAILABLE", "This session has no host"),
  },
];

const security: SecurityRequirement[] = [{ key: [] }, { access_token: [] }, { personJwt: [] }];
const keyOnly: SecurityRequirement[] = [{ key: [] }, { access_token: [] }];
const string = { type: "string" };
const dateTime = { type: "string", format: "date-time" };

/** A success answer: { status: success, data }. */
const ok = (description: string, data: Schema | string) =>
  jsonResponse(description, {
    type: "object",
    required: ["status", "data"],
    properties: { status: { const: "success" }, data: typeof data === "string" ? ref(data) : data },
  });
const listOf = (name: string): Schema => ({ type: "array", items: ref(name) });

const version = (date: string) =>
  headerParam("cal-api-version", `Honoured where Cal.com asks for it (${date} here); never required.`, {
    type: "string",
    enum: [date],
  });

function op(
  tag: string,
  o: Omit<Operation, "tags" | "security"> & { security?: SecurityRequirement[] },
  ...errors: number[]
): Operation {
  return {
    security,
    ...o,
    tags: [tag],
    responses: { ...o.responses, ...errorRefs(ERRORS, 401, 403, 429, ...errors) },
  };
}

function schemas(): Record<string, Schema> {
  return {
    SchedulingError: {
      type: "object",
      description: "The Scheduling API's error body.",
      required: ["status", "error"],
      properties: {
        status: { const: "error" },
        error: {
          type: "object",
          required: ["code", "message"],
          properties: {
            code: {
              type: "string",
              enum: [
                "BAD_REQUEST",
                "UNAUTHORIZED",
                "PAYMENT_REQUIRED",
                "FORBIDDEN",
                "NOT_FOUND",
                "METHOD_NOT_ALLOWED",
                "CONFLICT",
                "TOO_MANY_REQUESTS",
                "INTERNAL_SERVER_ERROR",
                "BAD_GATEWAY",
                "SERVICE_UNAVAILABLE",
              ],
            },
            message: string,
            details: { type: "object", additionalProperties: true },
          },
        },
      },
    },
    SchedulingUser: {
      type: "object",
      properties: {
        id: { type: "integer" },
        username: string,
        email: string,
        name: string,
        timeFormat: { type: "integer" },
        defaultScheduleId: { type: ["integer", "null"] },
        weekStart: string,
        timeZone: string,
        organizationId: { type: ["integer", "null"] },
      },
    },
    EventType: {
      type: "object",
      description: "A bookable session type; id is the slug's FNV-1a hash (31 bits).",
      required: ["id", "slug", "title", "lengthInMinutes"],
      properties: {
        id: { type: "integer", minimum: 1, maximum: 2147483647 },
        ownerId: { type: ["integer", "null"] },
        title: string,
        slug: string,
        description: { type: ["string", "null"] },
        lengthInMinutes: { type: "integer", minimum: 1 },
        lengthInMinutesOptions: { type: "array", items: { type: "integer" } },
        locations: { type: "array", items: { type: "object", additionalProperties: true } },
        bookingFields: { type: "array", items: { type: "object", additionalProperties: true } },
        minimumBookingNotice: { type: "integer" },
        beforeEventBuffer: { type: "integer" },
        afterEventBuffer: { type: "integer" },
        price: { type: "number" },
        currency: string,
        requiresConfirmation: { type: "boolean" },
        schedulingType: { type: "string", enum: ["ROUND_ROBIN", "COLLECTIVE", "MANAGED"] },
        hosts: { type: "array", items: { type: "object", additionalProperties: true } },
        metadata: { type: "object", additionalProperties: true },
      },
      additionalProperties: true,
    },
    Slots: {
      type: "object",
      description: "Open times keyed by day (YYYY-MM-DD); `end` with format=range.",
      additionalProperties: {
        type: "array",
        items: { type: "object", required: ["start"], properties: { start: dateTime, end: dateTime } },
      },
    },
    Booking: {
      type: "object",
      required: ["uid", "status", "start", "end"],
      properties: {
        id: { type: "integer" },
        uid: string,
        title: string,
        description: { type: ["string", "null"] },
        hosts: { type: "array", items: { type: "object", additionalProperties: true } },
        status: { type: "string", enum: ["accepted", "pending", "rescheduled", "cancelled", "rejected"] },
        cancellationReason: { type: ["string", "null"] },
        rescheduledFromUid: { type: ["string", "null"] },
        start: dateTime,
        end: dateTime,
        duration: { type: "integer" },
        eventTypeId: { type: "integer" },
        eventType: { type: "object", properties: { id: { type: "integer" }, slug: string } },
        meetingUrl: { type: ["string", "null"] },
        location: { type: ["string", "null"] },
        attendees: { type: "array", items: { type: "object", additionalProperties: true } },
        guests: { type: "array", items: string },
        bookingFieldsResponses: { type: "object", additionalProperties: true },
        metadata: { type: "object", additionalProperties: true },
        createdAt: dateTime,
        updatedAt: dateTime,
      },
      additionalProperties: true,
    },
    BookingCreate: {
      type: "object",
      required: ["start", "attendee"],
      properties: {
        start: dateTime,
        eventTypeId: { type: "integer" },
        eventTypeSlug: string,
        attendee: {
          type: "object",
          required: ["name", "email"],
          properties: {
            name: string,
            email: { type: "string", format: "email" },
            timeZone: string,
            language: string,
            phoneNumber: string,
          },
        },
        guests: { type: "array", items: { type: "string", format: "email" } },
        metadata: { type: "object", additionalProperties: true },
        bookingFieldsResponses: {
          type: "object",
          properties: { notes: string, attendeePhoneNumber: string },
        },
      },
    },
    BookingReschedule: {
      type: "object",
      required: ["start"],
      properties: { start: dateTime, reschedulingReason: string, rescheduledBy: string },
    },
    BookingCancel: {
      type: "object",
      properties: {
        cancellationReason: string,
        cancelSubsequentBookings: { type: "boolean", description: "Cancel the rest of a recurring run too." },
        seatUid: { ...string, description: "Cancel only this seat of a seated booking." },
      },
    },
    Schedule: {
      type: "object",
      properties: {
        id: { type: "integer" },
        ownerId: { type: "integer" },
        name: string,
        timeZone: string,
        availability: {
          type: "array",
          items: {
            type: "object",
            properties: { days: { type: "array", items: string }, startTime: string, endTime: string },
          },
        },
        isDefault: { type: "boolean" },
        overrides: {
          type: "array",
          items: {
            type: "object",
            properties: { date: { type: "string", format: "date" }, startTime: string, endTime: string },
          },
        },
        metadata: { type: "object", additionalProperties: true },
      },
    },
    OutOfOffice: {
      type: "object",
      properties: {
        id: { type: "integer" },
        userId: { type: "integer" },
        start: dateTime,
        end: dateTime,
        notes: { type: ["string", "null"] },
        reason: { type: "object", properties: { emoji: string, reason: string } },
        toUser: { type: ["object", "null"], additionalProperties: true },
      },
    },
    SchedulingWebhook: {
      type: "object",
      description: "A subscription; its secret is never returned.",
      properties: {
        id: { type: "integer" },
        uid: { type: "string", format: "uuid" },
        subscriberUrl: { type: "string", format: "uri" },
        triggers: { type: "array", items: { type: "string", enum: SCHEDULING_TRIGGERS } },
        active: { type: "boolean" },
        payloadTemplate: { type: ["string", "null"] },
        eventTypeId: { type: ["integer", "null"] },
        userId: { type: ["integer", "null"] },
        createdAt: dateTime,
        updatedAt: dateTime,
        lastDeliveredAt: { type: ["string", "null"], format: "date-time" },
        lastError: { type: ["string", "null"] },
      },
    },
    SchedulingWebhookWrite: {
      type: "object",
      properties: {
        subscriberUrl: { type: "string", format: "uri" },
        triggers: { type: "array", items: { type: "string", enum: SCHEDULING_TRIGGERS } },
        active: { type: "boolean" },
        secret: string,
        payloadTemplate: string,
        eventTypeId: { type: "integer" },
      },
    },
  };
}

export const schedulingSection: OpenApiSection = {
  name: "scheduling",
  requires: ["sessions"],
  schemaNames: Object.keys(schemas()),
  tags: [
    {
      name: SCHEDULING_TAGS.eventTypes,
      group: GROUP,
      description:
        "The site's bookable session types (Cal.com API v2-compatible, base {base_url}/api/scheduling/v2), read-only: " +
        "a write answers 405. A scheduling key sees everything; a person's JWT their own bookings and the types their " +
        "plan admits. Answers are { status: success, data }; errors { status: error, error: { code, message, details? } }.",
    },
    { name: SCHEDULING_TAGS.slots, group: GROUP, description: "Open times of a type." },
    {
      name: SCHEDULING_TAGS.bookings,
      group: GROUP,
      description:
        "Bookings: list, create (through the admission check), reschedule, cancel, confirm, decline.",
    },
    {
      name: SCHEDULING_TAGS.schedules,
      group: GROUP,
      description: "Hosts' hours and away periods, read-only (writes answer 405); the current user.",
    },
    {
      name: SCHEDULING_TAGS.webhooks,
      group: GROUP,
      description: "Subscriptions (key only), signed with X-Cal-Signature-256.",
    },
  ],
  paths() {
    const B = SCHEDULING_BASE;
    const uid = pathParam("uid", "The booking's uid.");
    const bookingAction = (action: string, summary: string, description: string, body?: string): Operation =>
      op(
        SCHEDULING_TAGS.bookings,
        {
          operationId: `schedulingBooking${action}`,
          summary,
          description,
          parameters: [version("2024-08-13")],
          ...(body ? { requestBody: jsonBody(body) } : {}),
          responses: { "200": ok("The booking.", "Booking") },
        },
        400,
        404,
        409,
        502,
      );
    return {
      [`${B}/me`]: {
        get: op(SCHEDULING_TAGS.schedules, {
          operationId: "schedulingGetMe",
          summary: "Get the current user",
          responses: { "200": ok("The caller.", "SchedulingUser") },
        }),
      },
      [`${B}/event-types`]: {
        get: op(SCHEDULING_TAGS.eventTypes, {
          operationId: "schedulingListEventTypes",
          summary: "List event types",
          parameters: [
            queryParam("username", "A host's username.", string),
            queryParam("eventSlug", "One type's slug.", string),
            version("2024-06-14"),
          ],
          responses: { "200": ok("The caller's event types.", listOf("EventType")) },
        }),
      },
      [`${B}/event-types/{event_type}`]: {
        parameters: [pathParam("event_type", "The type's id or slug.")],
        get: op(SCHEDULING_TAGS.eventTypes, {
          operationId: "schedulingGetEventType",
          summary: "Get an event type",
          parameters: [version("2024-06-14")],
          responses: { "200": ok("The event type.", "EventType") },
        }, 404),
      },
      [`${B}/slots`]: {
        get: op(
          SCHEDULING_TAGS.slots,
          {
            operationId: "schedulingGetSlots",
            summary: "Get open slots",
            parameters: [
              queryParam("eventTypeId", "The type's id (or give eventTypeSlug).", { type: "integer" }),
              queryParam("eventTypeSlug", "The type's slug.", string),
              queryParam("start", "First day.", { type: "string", format: "date" }, true),
              queryParam("end", "Last day.", { type: "string", format: "date" }, true),
              queryParam("timeZone", "The zone days are counted in.", string),
              queryParam("format", "`range` adds each slot's end.", { type: "string", enum: ["range"] }),
              version("2024-09-04"),
            ],
            responses: { "200": ok("Open times by day.", "Slots") },
          },
          400,
          404,
        ),
      },
      [`${B}/bookings`]: {
        get: op(SCHEDULING_TAGS.bookings, {
          operationId: "schedulingListBookings",
          summary: "List bookings",
          parameters: [
            queryParam("status", "No default filter.", {
              type: "string",
              enum: ["upcoming", "past", "cancelled", "unconfirmed", "recurring"],
            }),
            queryParam("attendeeEmail", "An attendee's address.", { type: "string", format: "email" }),
            queryParam("eventTypeId", "A type's id.", { type: "integer" }),
            queryParam("eventTypeSlug", "A type's slug.", string),
            queryParam("eventTypeIds", "Several types' ids, comma separated.", string),
            queryParam("attendeeName", "An attendee's name.", string),
            queryParam("bookingUid", "One booking's uid.", string),
            queryParam("teamId", "A team's id: the bookings of its types.", { type: "integer" }),
            queryParam("teamsIds", "Several teams' ids, comma separated.", string),
            queryParam("afterStart", "Starting after.", dateTime),
            queryParam("beforeEnd", "Ending before.", dateTime),
            queryParam("afterCreatedAt", "Made at or after.", dateTime),
            queryParam("beforeCreatedAt", "Made at or before.", dateTime),
            queryParam("afterUpdatedAt", "Changed at or after.", dateTime),
            queryParam("beforeUpdatedAt", "Changed at or before.", dateTime),
            queryParam("sortStart", "Order by start.", { type: "string", enum: ["asc", "desc"] }),
            queryParam("sortEnd", "Order by end.", { type: "string", enum: ["asc", "desc"] }),
            queryParam("sortCreated", "Order by when made.", { type: "string", enum: ["asc", "desc"] }),
            queryParam("sortUpdatedAt", "Order by when last changed.", {
              type: "string",
              enum: ["asc", "desc"],
            }),
            queryParam("take", "1 to 250, default 100.", {
              type: "integer",
              minimum: 1,
              maximum: 250,
              default: 100,
            }),
            queryParam("skip", "From 0.", { type: "integer", minimum: 0, default: 0 }),
            version("2024-08-13"),
          ],
          responses: { "200": ok("The bookings.", listOf("Booking")) },
        }, 400),
        post: op(
          SCHEDULING_TAGS.bookings,
          {
            operationId: "schedulingCreateBooking",
            summary: "Create a booking",
            description:
              "Passes the admission check: a guest only where the type admits guests (403 guest), the tier (403 " +
              "not-included), the allowance (403 over), a paid type's credit (402 unpaid), a just-taken time (409 taken); " +
              "a person's JWT books only for their own address.",
            parameters: [version("2024-08-13")],
            requestBody: jsonBody("BookingCreate"),
            responses: { "201": ok("The booking.", "Booking") },
          },
          400,
          402,
          404,
          409,
          502,
          503,
        ),
      },
      [`${B}/bookings/{uid}`]: {
        parameters: [uid],
        get: op(SCHEDULING_TAGS.bookings, {
          operationId: "schedulingGetBooking",
          summary: "Get a booking",
          parameters: [version("2024-08-13")],
          responses: { "200": ok("The booking.", "Booking") },
        }, 404),
      },
      [`${B}/bookings/{uid}/reschedule`]: {
        parameters: [uid],
        post: bookingAction(
          "Reschedule",
          "Reschedule a booking",
          "A person inside the type's notice period gets 403 too-soon.",
          "BookingReschedule",
        ),
      },
      [`${B}/bookings/{uid}/cancel`]: {
        parameters: [uid],
        post: bookingAction(
          "Cancel",
          "Cancel a booking",
          "Stores the reason; the booking answers with status cancelled.",
          "BookingCancel",
        ),
      },
      [`${B}/bookings/{uid}/confirm`]: {
        parameters: [uid],
        post: bookingAction(
          "Confirm",
          "Confirm a pending booking",
          "The host or an administrator, only while pending.",
        ),
      },
      [`${B}/bookings/{uid}/decline`]: {
        parameters: [uid],
        post: bookingAction(
          "Decline",
          "Decline a pending booking",
          "The host or an administrator, only while pending; the time is freed.",
        ),
      },
      [`${B}/schedules`]: {
        get: op(SCHEDULING_TAGS.schedules, {
          operationId: "schedulingListSchedules",
          summary: "List schedules",
          description: "A key sees every host's; a person their own.",
          parameters: [version("2024-06-11")],
          responses: { "200": ok("The schedules.", listOf("Schedule")) },
        }),
      },
      [`${B}/schedules/{schedule_id}`]: {
        parameters: [pathParam("schedule_id", "The schedule's id.", { type: "integer" })],
        get: op(SCHEDULING_TAGS.schedules, {
          operationId: "schedulingGetSchedule",
          summary: "Get a schedule",
          parameters: [version("2024-06-11")],
          responses: { "200": ok("The schedule.", "Schedule") },
        }, 404),
      },
      [`${B}/ooo`]: {
        get: op(SCHEDULING_TAGS.schedules, {
          operationId: "schedulingListOutOfOffice",
          summary: "List away periods",
          responses: { "200": ok("Away periods.", listOf("OutOfOffice")) },
        }),
      },
      [`${B}/webhooks`]: {
        get: op(SCHEDULING_TAGS.webhooks, {
          operationId: "schedulingListWebhooks",
          summary: "List webhooks",
          security: keyOnly,
          responses: { "200": ok("The subscriptions.", listOf("SchedulingWebhook")) },
        }, 405),
        post: op(
          SCHEDULING_TAGS.webhooks,
          {
            operationId: "schedulingCreateWebhook",
            summary: "Create a webhook",
            security: keyOnly,
            requestBody: jsonBody("SchedulingWebhookWrite"),
            responses: { "201": ok("The subscription.", "SchedulingWebhook") },
          },
          400,
          405,
        ),
      },
      [`${B}/webhooks/{webhook_id}`]: {
        parameters: [pathParam("webhook_id", "The integer id or the row's uuid.")],
        get: op(
          SCHEDULING_TAGS.webhooks,
          {
            operationId: "schedulingGetWebhook",
            summary: "Get a webhook",
            security: keyOnly,
            responses: { "200": ok("The subscription.", "SchedulingWebhook") },
          },
          404,
          405,
        ),
        patch: op(
          SCHEDULING_TAGS.webhooks,
          {
            operationId: "schedulingUpdateWebhook",
            summary: "Update a webhook",
            security: keyOnly,
            requestBody: jsonBody("SchedulingWebhookWrite"),
            responses: { "200": ok("The subscription.", "SchedulingWebhook") },
          },
          400,
          404,
          405,
        ),
        delete: op(
          SCHEDULING_TAGS.webhooks,
          {
            operationId: "schedulingDeleteWebhook",
            summary: "Delete a webhook",
            security: keyOnly,
            responses: { "200": ok("The removed subscription.", "SchedulingWebhook") },
          },
          404,
          405,
        ),
      },
    };
  },
  components() {
    return {
      schemas: schemas(),
      responses: errorResponses("SchedulingError", ERRORS),
      securitySchemes: {
        personJwt: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description:
            "A signed-in person's JWT (Supabase Auth): their own bookings, the types their plan admits.",
        },
      },
    };
  },
};
