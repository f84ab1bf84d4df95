// The SQL the live channel needs: which conversation a pubsub_token opens, and a line as the client API
// shows it (the same JSON builder the APIs and the webhooks use).
import type { Db } from "../../../shared/db.ts";

/** The conversation a pubsub_token subscribes to, or undefined for a token nobody holds. */
export async function conversationForPubsubToken(db: Db, token: string): Promise<number | undefined> {
  const [row] = await db<{ id: number }[]>`
    select id from public.support_conversations where pubsub_token = ${token}`;
  return row?.id;
}

/** One line as the client API answers it, or undefined once it is gone. */
export async function liveMessage(db: Db, id: number): Promise<Record<string, unknown> | undefined> {
  const [row] = await db<{ message: Record<string, unknown> }[]>`
    select public.support_message_json(m) as message from public.support_messages m where m.id = ${id}`;
  return row?.message;
}
