// GET /cable (public /api/desk/cable): the live channel as an Action Cable WebSocket, the address
// Chatwoot's clients derive from their install root (`<install>/cable`). No key: a subscription names a
// conversation's pubsub_token, which only that conversation's contact is given.
import { Hono } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import type { CallerEnv } from "../../../shared/http.ts";
import { clientAccess, type SupportEnv } from "../access.ts";
import { badRequest } from "../envelope.ts";
import { signMessageFiles } from "../files.ts";
import { CABLE_PROTOCOL, createCableSession } from "../realtime/actioncable.ts";
import { createLiveHub, type LiveHub } from "../realtime/hub.ts";
import { conversationForPubsubToken } from "../store/live.ts";

export function cableRoutes(ctx: FunctionContext, hub: LiveHub = supportLiveHub(ctx)): Hono<SupportEnv> {
  const app = new Hono<SupportEnv>();
  // the site's switches and the per-address limit, as for the client API: opening the socket is one request
  app.get("/", clientAccess(ctx), (c) => {
    const upgrade = (c.env as CallerEnv | undefined)?.upgradeWebSocket;
    if (!upgrade || c.req.header("upgrade")?.toLowerCase() !== "websocket") {
      throw badRequest("The cable answers WebSocket connections only.");
    }
    const offered = (c.req.header("sec-websocket-protocol") ?? "").split(",").map((p) => p.trim());
    const { socket, response } = upgrade(offered.includes(CABLE_PROTOCOL) ? { protocol: CABLE_PROTOCOL } : {});
    const session = createCableSession(
      {
        send: (frame) => {
          if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
        },
        close: () => socket.close(),
      },
      {
        hub,
        knows: async (token) => (await conversationForPubsubToken(ctx.sql, token)) !== undefined,
        now: () => ctx.clock.now(),
        onError: (error) => console.error("support cable:", error),
      },
    );
    socket.onopen = () => session.open();
    socket.onmessage = (event) => {
      if (typeof event.data === "string") session.receive(event.data);
    };
    socket.onclose = () => session.close();
    socket.onerror = () => session.close();
    return response;
  });
  return app;
}

const hubs = new WeakMap<FunctionContext, LiveHub>();

/** One hub (one LISTEN) per function context, however many times the routes are mounted. */
export function supportLiveHub(ctx: FunctionContext): LiveHub {
  let hub = hubs.get(ctx);
  if (!hub) {
    hub = createLiveHub(ctx.sql, { present: (message) => signMessageFiles(ctx, message) });
    hubs.set(ctx, hub);
  }
  return hub;
}
