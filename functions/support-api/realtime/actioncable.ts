// One ActionCable connection, as Rails' Action Cable server speaks it to @rails/actioncable (Chatwoot's
// widget, dashboard and mobile apps): `welcome` on open, a `ping` every three seconds (the client's
// monitor counts a connection stale after six silent ones), `subscribe` / `unsubscribe` / `message`
// commands whose identifier is a JSON string echoed back verbatim, `confirm_subscription` or
// `reject_subscription`, and broadcasts as { identifier, message }. The one channel is Chatwoot's
// RoomChannel, subscribed with a conversation's pubsub_token.
import type { LiveBroadcast, LiveHub } from "./hub.ts";

/** The subprotocol the server picks; @rails/actioncable closes a socket that agreed on anything else. */
export const CABLE_PROTOCOL = "actioncable-v1-json";
export const PING_INTERVAL_MS = 3000;
/** subscriptions one socket may hold (a widget holds one; a client with a few threads open, a few) */
export const MAX_SUBSCRIPTIONS = 20;
/** a command frame larger than this is not read */
export const MAX_FRAME_BYTES = 16 * 1024;

export interface CableTransport {
  send(frame: Record<string, unknown>): void;
  close(): void;
}

export interface CableSessionOptions {
  hub: LiveHub;
  /** whether a pubsub_token opens a conversation */
  knows(pubsubToken: string): Promise<boolean>;
  now?: () => Date;
  pingIntervalMs?: number;
  onError?: (error: unknown) => void;
}

export interface CableSession {
  /** the socket opened: welcome, then pings */
  open(): void;
  /** a text frame from the client */
  receive(frame: string): Promise<void>;
  /** the socket closed: drop every subscription and the pings */
  close(): void;
}

interface Command {
  command?: unknown;
  identifier?: unknown;
  data?: unknown;
}

export function createCableSession(transport: CableTransport, options: CableSessionOptions): CableSession {
  const now = options.now ?? (() => new Date());
  const onError = options.onError ?? (() => {});
  // identifier (the client's own string, echoed verbatim) → how to stop its stream; a pending
  // subscription holds undefined so a repeated subscribe is not counted twice
  const subscriptions = new Map<string, (() => void) | undefined>();
  let ping: ReturnType<typeof setInterval> | undefined;
  let closed = false;

  function send(frame: Record<string, unknown>): void {
    if (closed) return;
    try {
      transport.send(frame);
    } catch (error) {
      onError(error);
    }
  }

  function roomToken(identifier: string): string | undefined {
    try {
      const params = JSON.parse(identifier);
      if (params && params.channel === "RoomChannel" && typeof params.pubsub_token === "string" && params.pubsub_token) {
        return params.pubsub_token;
      }
    } catch {
      // not JSON: no channel it could name
    }
    return undefined;
  }

  async function subscribe(identifier: string): Promise<void> {
    if (subscriptions.has(identifier)) return; // Rails ignores a second subscribe to the same identifier
    const token = roomToken(identifier);
    if (!token || subscriptions.size >= MAX_SUBSCRIPTIONS) {
      return send({ identifier, type: "reject_subscription" });
    }
    subscriptions.set(identifier, undefined);
    let known = false;
    try {
      known = await options.knows(token);
    } catch (error) {
      onError(error);
    }
    if (!known || closed || !subscriptions.has(identifier)) {
      subscriptions.delete(identifier);
      return send({ identifier, type: "reject_subscription" });
    }
    let stop: () => void;
    try {
      stop = await options.hub.subscribe(token, (broadcast: LiveBroadcast) => {
        send({ identifier, message: broadcast });
      });
    } catch (error) {
      // no LISTEN to be had (the database is down): the client is told, and retries as it does
      onError(error);
      subscriptions.delete(identifier);
      return send({ identifier, type: "reject_subscription" });
    }
    if (closed || !subscriptions.has(identifier)) return stop();
    subscriptions.set(identifier, stop);
    send({ identifier, type: "confirm_subscription" });
  }

  function unsubscribe(identifier: string): void {
    const stop = subscriptions.get(identifier);
    subscriptions.delete(identifier);
    stop?.();
  }

  return {
    open() {
      send({ type: "welcome" });
      ping = setInterval(
        () => send({ type: "ping", message: Math.floor(now().getTime() / 1000) }),
        options.pingIntervalMs ?? PING_INTERVAL_MS,
      );
    },
    async receive(frame) {
      if (closed || frame.length > MAX_FRAME_BYTES) return;
      let command: Command;
      try {
        command = JSON.parse(frame);
      } catch {
        return; // Rails logs and drops a frame it cannot decode
      }
      if (!command || typeof command.identifier !== "string") return;
      try {
        switch (command.command) {
          case "subscribe":
            return await subscribe(command.identifier);
          case "unsubscribe":
            return unsubscribe(command.identifier);
          case "message":
            // RoomChannel's one action is update_presence; presence is not tracked, so it changes nothing
            return;
        }
      } catch (error) {
        onError(error);
      }
    },
    close() {
      closed = true;
      clearInterval(ping);
      for (const stop of subscriptions.values()) stop?.();
      subscriptions.clear();
    },
  };
}
