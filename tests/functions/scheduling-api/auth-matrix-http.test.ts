// The auth matrix on every route of the scheduling API: no credentials, a revoked key, a key of another
// kind and a forged JWT are refused alike (401, 401, 403, 401) before anything else; a scheduling key,
// an administrator's JWT and a stranger's JWT (a person acting on another's booking) get what the spec
// gives them. These tests take the weeks from 2031-01-06 + 124..125.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { fnv31 } from "../../../functions/scheduling-api/domain/hosts.ts";
import { addDays, call, guestBooking, host, monday, person } from "./support.ts";

const key = await host.key("scheduling");
const admin = (await person("admin")).jwt;
const stranger = (await person("member")).jwt;

// a fresh free time of Ada's (intro-call) for every booking and move: 15-minute steps through her hours
let next = 0;
function freeTime(): string {
  const n = next++;
  const day = addDays(monday(124), Math.floor(n / 28) % 5 + 7 * Math.floor(n / 140));
  const minutes = 8 * 60 + (n % 28) * 15; // 08:00Z-15:00Z: inside Ada's 09:00-17:00 in Berlin (CEST, 07:00Z-15:00Z)
  return `${day}T${String(Math.floor(minutes / 60)).padStart(2, "0")}:${
    String(minutes % 60).padStart(2, "0")
  }:00.000Z`;
}
const booking = async () => {
  const r = await call("POST", "/bookings", key, guestBooking("intro-call", freeTime()));
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data.uid as string;
};
// the webhooks made here never match another file's events: inactive, and for a type nobody books
const MATRIX_HOOK = {
  subscriberUrl: "http://127.0.0.1:9/matrix",
  triggers: ["BOOKING_CREATED"],
  active: false,
  eventTypeId: fnv31("open-office"),
};
const dropMatrixHooks = () =>
  host.ctx.sql`delete from public.scheduling_webhooks where subscriber_url = ${MATRIX_HOOK.subscriberUrl}`;
const webhook = async () => (await call("POST", "/webhooks", key, MATRIX_HOOK)).body.data;

type Call = [method: string, path: string, body?: unknown];

type Route = {
  name: string;
  /** builds the request afresh for each caller (a booking to act on, a time to move to) */
  request: () => Call | Promise<Call>;
  key: number;
  admin: number;
  stranger: number;
};

const routes: Route[] = [
  { name: "me", request: () => ["GET", "/me"], key: 200, admin: 200, stranger: 200 },
  { name: "event types", request: () => ["GET", "/event-types"], key: 200, admin: 200, stranger: 200 },
  {
    name: "one event type",
    request: () => ["GET", "/event-types/intro-call"],
    key: 200,
    admin: 200,
    stranger: 200,
  },
  {
    name: "write an event type",
    request: () => ["PATCH", "/event-types/intro-call", {}],
    key: 405,
    admin: 405,
    stranger: 405,
  },
  { name: "schedules", request: () => ["GET", "/schedules"], key: 200, admin: 200, stranger: 200 },
  // a stranger hosts nothing: they have no schedule of their own
  {
    name: "the default schedule",
    request: () => ["GET", "/schedules/default"],
    key: 200,
    admin: 200,
    stranger: 404,
  },
  {
    name: "write a schedule",
    request: () => ["POST", "/schedules", {}],
    key: 405,
    admin: 405,
    stranger: 405,
  },
  { name: "away periods", request: () => ["GET", "/ooo"], key: 200, admin: 200, stranger: 200 },
  { name: "my away periods", request: () => ["GET", "/me/ooo"], key: 200, admin: 200, stranger: 200 },
  {
    name: "write an away period",
    request: () => ["DELETE", "/ooo/1"],
    key: 405,
    admin: 405,
    stranger: 405,
  },
  {
    name: "slots",
    request: () => [
      "GET",
      `/slots?eventTypeSlug=intro-call&start=${monday(124)}&end=${addDays(monday(124), 1)}`,
    ],
    key: 200,
    admin: 200,
    stranger: 200,
  },
  { name: "bookings", request: () => ["GET", "/bookings"], key: 200, admin: 200, stranger: 200 },
  // a person books only for their own address
  {
    name: "create a booking",
    request: () => ["POST", "/bookings", guestBooking("intro-call", freeTime())],
    key: 201,
    admin: 201,
    stranger: 403,
  },
  {
    name: "one booking",
    request: async () => ["GET", `/bookings/${await booking()}`],
    key: 200,
    admin: 200,
    stranger: 403,
  },
  {
    name: "its invitation",
    request: async () => ["GET", `/bookings/${await booking()}/ics`],
    key: 200,
    admin: 200,
    stranger: 403,
  },
  {
    name: "reschedule",
    request: async () => ["POST", `/bookings/${await booking()}/reschedule`, { start: freeTime() }],
    key: 201,
    admin: 201,
    stranger: 403,
  },
  {
    name: "cancel",
    request: async () => ["POST", `/bookings/${await booking()}/cancel`, { cancellationReason: "matrix" }],
    key: 200,
    admin: 200,
    stranger: 403,
  },
  // an accepted booking: only a pending one is decided (400), and only by its host or an administrator
  {
    name: "confirm",
    request: async () => ["POST", `/bookings/${await booking()}/confirm`],
    key: 400,
    admin: 400,
    stranger: 403,
  },
  {
    name: "decline",
    request: async () => ["POST", `/bookings/${await booking()}/decline`, {}],
    key: 400,
    admin: 400,
    stranger: 403,
  },
  { name: "webhooks", request: () => ["GET", "/webhooks"], key: 200, admin: 405, stranger: 405 },
  {
    name: "create a webhook",
    request: () => ["POST", "/webhooks", MATRIX_HOOK],
    key: 201,
    admin: 405,
    stranger: 405,
  },
  {
    name: "one webhook",
    request: async () => ["GET", `/webhooks/${(await webhook()).id}`],
    key: 200,
    admin: 405,
    stranger: 405,
  },
  {
    name: "update a webhook",
    request: async () => ["PATCH", `/webhooks/${(await webhook()).uid}`, { active: false }],
    key: 200,
    admin: 405,
    stranger: 405,
  },
  {
    name: "delete a webhook",
    request: async () => ["DELETE", `/webhooks/${(await webhook()).id}`],
    key: 200,
    admin: 405,
    stranger: 405,
  },
];

test("every route refuses no credentials, a revoked key, another kind of key and a forged JWT alike", async () => {
  const refused: [string, string | null, number, string][] = [
    ["no credentials", null, 401, "UNAUTHORIZED"],
    ["a revoked key", await host.revokedKey("scheduling"), 401, "UNAUTHORIZED"],
    ["a forms key", await host.key("forms"), 403, "FORBIDDEN"],
    ["a forged JWT", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl", 401, "UNAUTHORIZED"],
  ];
  try {
    for (const route of routes) {
      for (const [who, token, status, code] of refused) {
        const [method, path, body] = await route.request();
        const r = await call(method, path, token, body);
        assert.equal(r.status, status, `${route.name}, ${who}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.error.code, code);
      }
    }
  } finally {
    await dropMatrixHooks();
  }
});

test("every route answers a scheduling key, an administrator and a stranger as the spec says", async () => {
  const callers: [keyof Pick<Route, "key" | "admin" | "stranger">, string][] = [
    ["key", key],
    ["admin", admin],
    ["stranger", stranger],
  ];
  try {
    for (const route of routes) {
      for (const [who, token] of callers) {
        const [method, path, body] = await route.request();
        const r = await call(method, path, token, body);
        assert.equal(r.status, route[who], `${route.name}, ${who}: ${JSON.stringify(r.body)}`);
        // every answer is the envelope, but the invitation, which is a calendar file
        if (r.headers.get("content-type")?.startsWith("text/calendar")) {
          assert.match(r.body, /^BEGIN:VCALENDAR/);
        } else assert.equal(r.body.status, r.status < 300 ? "success" : "error");
      }
    }
  } finally {
    await dropMatrixHooks();
  }
});
