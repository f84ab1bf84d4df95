// The live channel of the desk inside one process: one LISTEN on the database's `support_live`
// notifications (written by the support tables' triggers and the typing routes in the transaction of the
// change, so any instance's change wakes every instance), fanned out to the sockets subscribed to a
// conversation's pubsub_token. Nothing polls: a change is pushed when its transaction commits.
import type { Sql } from "../../../shared/db.ts";
import { liveMessage } from "../store/live.ts";

export const LIVE_CHANNEL = "support_live";

/** The notification's payload, as the migration's support_live() writes it. */
export interface LiveNotice {
  event: string;
  conversation_id: number;
  pubsub_token: string;
  message_id?: number;
  /** the line itself when it fits in a notification: saves the read (see build) */
  message?: Record<string, unknown>;
  status?: string;
  sender?: { type?: string; id?: number };
}

/** What a subscriber is sent: Chatwoot's ActionCable broadcast body { event, data }. */
export interface LiveBroadcast {
  event: string;
  data: Record<string, unknown>;
}

export type LiveListener = (broadcast: LiveBroadcast) => void;

export interface LiveHub {
  /** Starts listening (once per hub) and registers the listener; answers how to stop. */
  subscribe(pubsubToken: string, listener: LiveListener): Promise<() => void>;
  /** Stops listening; subscribers get nothing more. */
  close(): Promise<void>;
}

export interface LiveHubOptions {
  /** turns a line's JSON into what a client may read (signed attachment addresses) */
  present?: (message: Record<string, unknown>) => Promise<Record<string, unknown>> | Record<string, unknown>;
  onError?: (error: unknown) => void;
}

export function createLiveHub(sql: Sql, options: LiveHubOptions = {}): LiveHub {
  const subscribers = new Map<string, Set<LiveListener>>();
  // each conversation's broadcasts leave in the order of their notifications, even when building one
  // (reading its line) takes longer than the next
  const tails = new Map<string, Promise<void>>();
  let listening: Promise<{ unlisten(): Promise<unknown> }> | undefined;
  const onError = options.onError ?? ((error) => console.error("support live channel:", error));

  async function build(notice: LiveNotice): Promise<LiveBroadcast | undefined> {
    const conversation = { id: notice.conversation_id };
    switch (notice.event) {
      case "message.created":
      case "message.updated": {
        if (typeof notice.message_id !== "number") return undefined;
        const message = notice.message ?? await liveMessage(sql, notice.message_id);
        if (!message) return undefined;
        return { event: notice.event, data: options.present ? await options.present(message) : message };
      }
      case "conversation.status_changed":
        return { event: notice.event, data: { ...conversation, status: notice.status } };
      case "conversation.typing_on":
      case "conversation.typing_off":
        return {
          event: notice.event,
          data: { conversation, user: { id: notice.sender?.id ?? null, type: notice.sender?.type ?? null }, is_private: false },
        };
      default:
        return undefined;
    }
  }

  function deliver(payload: string): void {
    let notice: LiveNotice;
    try {
      notice = JSON.parse(payload);
    } catch (error) {
      return onError(error);
    }
    const token = notice.pubsub_token;
    if (typeof token !== "string" || !subscribers.has(token)) return;
    const previous = tails.get(token) ?? Promise.resolve();
    const next = previous.then(async () => {
      const broadcast = await build(notice);
      if (!broadcast) return;
      for (const listener of subscribers.get(token) ?? []) {
        try {
          listener(broadcast);
        } catch (error) {
          onError(error);
        }
      }
    }).catch(onError);
    tails.set(token, next);
    next.then(() => {
      if (tails.get(token) === next) tails.delete(token);
    });
  }

  return {
    async subscribe(pubsubToken, listener) {
      listening ??= sql.listen(LIVE_CHANNEL, deliver).catch((error) => {
        listening = undefined;
        throw error;
      });
      await listening;
      const set = subscribers.get(pubsubToken) ?? new Set<LiveListener>();
      set.add(listener);
      subscribers.set(pubsubToken, set);
      return () => {
        set.delete(listener);
        if (set.size === 0 && subscribers.get(pubsubToken) === set) subscribers.delete(pubsubToken);
      };
    },
    async close() {
      subscribers.clear();
      const current = listening;
      listening = undefined;
      if (current) await (await current).unlisten().catch(onError);
    },
  };
}
