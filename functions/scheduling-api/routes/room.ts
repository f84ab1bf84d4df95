// The meeting room, relative to /book: GET /video/{uid} (the page a booking's meetingUrl names), its
// state, and join (also the page's heartbeat), leave and end. No key: the room's address is what a
// participant holds; a visitor names the address the booking knows them by, a signed-in person is who
// their token says (see domain/meetings.ts).
import type { Context, Hono } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { isEmailAddress } from "../../../shared/email.ts";
import { renderRoomPage } from "../pages/room.ts";
import type { SchedulingEnv } from "../access.ts";
import { endMeeting, identify, joinRoom, leaveRoom, viewRoom } from "../domain/meetings.ts";
import { badRequest, success } from "../envelope.ts";
import { roomOut } from "../wire.ts";
import { depsOf, jsonBody } from "./common.ts";

type C = Context<SchedulingEnv>;

async function given(c: C): Promise<{ email?: string; name?: string }> {
  const body = await jsonBody(c);
  if (body.email !== undefined && !isEmailAddress(body.email)) {
    throw badRequest("email must be an email address");
  }
  if (body.name !== undefined && (typeof body.name !== "string" || body.name.length > 200)) {
    throw badRequest("name must be a text of at most 200 characters");
  }
  return { email: body.email as string | undefined, name: body.name as string | undefined };
}

export function roomRoutes(ctx: FunctionContext, book: Hono<SchedulingEnv>): void {
  book.get("/video/:uid", async (c) => {
    const deps = await depsOf(ctx, c);
    const view = await viewRoom(deps, c.req.param("uid"));
    return c.html(await renderRoomPage(roomOut(view, deps.catalog, deps.clock.now())), 200, {
      "cache-control": "no-store",
    });
  });

  book.get("/video/:uid/state", async (c) => {
    const deps = await depsOf(ctx, c);
    const caller = c.get("caller");
    let view = await viewRoom(deps, c.req.param("uid"));
    // a signed-in participant sees themselves; anyone else holding the address sees names only
    if (caller.kind === "person") view = { ...view, you: identify(deps, view.booking, caller, {}) };
    return success(c, roomOut(view, deps.catalog, deps.clock.now()));
  });

  book.post("/video/:uid/join", async (c) => {
    const deps = await depsOf(ctx, c);
    const view = await joinRoom(deps, c.get("caller"), c.req.param("uid"), await given(c));
    return success(c, roomOut(view, deps.catalog, deps.clock.now()));
  });

  book.post("/video/:uid/leave", async (c) => {
    const deps = await depsOf(ctx, c);
    const view = await leaveRoom(deps, c.get("caller"), c.req.param("uid"), await given(c));
    return success(c, roomOut(view, deps.catalog, deps.clock.now()));
  });

  book.post("/video/:uid/end", async (c) => {
    const deps = await depsOf(ctx, c);
    return success(
      c,
      roomOut(await endMeeting(deps, c.get("caller"), c.req.param("uid")), deps.catalog, deps.clock.now()),
    );
  });
}
