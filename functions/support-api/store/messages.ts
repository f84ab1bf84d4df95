// SQL of the desk's lines. Answers are built by the database's support_message_json.
import type { Db } from "../../../shared/db.ts";

export type MessageJson = Record<string, any>;

export async function insertMessage(
  db: Db,
  input: {
    conversationId: number;
    type: 0 | 1 | 2;
    content: string | null;
    contactId?: number | null;
    agentId?: number | null;
    echoId?: string | null;
    contentType?: "text" | "input_select";
    contentAttributes?: Record<string, unknown>;
    at?: Date;
  },
): Promise<MessageJson> {
  const [row] = await db<{ json: MessageJson }[]>`
    with m as (
      insert into public.support_messages (conversation_id, message_type, content, sender_contact_id, sender_agent_id,
        echo_id, content_type, content_attributes, created_at)
      values (${input.conversationId}, ${input.type}, ${input.content}, ${input.contactId ?? null},
              ${input.agentId ?? null}, ${input.echoId ?? null}, ${input.contentType ?? "text"},
              ${db.json((input.contentAttributes ?? {}) as never)}, coalesce(${input.at ?? null}::timestamptz, now()))
      returning *)
    select public.support_message_json(m::public.support_messages) as json from m`;
  return row.json;
}

/** A contact's read: lines from `after` (unix seconds, inclusive: clients dedupe by id), oldest first. */
export async function clientMessages(db: Db, conversationId: number, after: number | null, limit: number): Promise<MessageJson[]> {
  const rows = after === null
    ? await db<{ json: MessageJson }[]>`
        select json from (
          select public.support_message_json(m) as json, m.created_at, m.id from public.support_messages m
          where m.conversation_id = ${conversationId} order by m.created_at desc, m.id desc limit ${limit}) latest
        order by created_at, id`
    : await db<{ json: MessageJson }[]>`
        select public.support_message_json(m) as json from public.support_messages m
        where m.conversation_id = ${conversationId} and m.created_at >= to_timestamp(${after})
        order by m.created_at, m.id limit ${limit}`;
  return rows.map((r) => r.json);
}

/** Every line of a thread, oldest first (the desk's read; Chatwoot pages it with before=). */
export async function deskMessages(db: Db, conversationId: number, before: number | null, limit: number): Promise<MessageJson[]> {
  const rows = await db<{ json: MessageJson }[]>`
    select json from (
      select public.support_message_json(m) as json, m.created_at, m.id from public.support_messages m
      where m.conversation_id = ${conversationId} and (${before}::bigint is null or m.id < ${before})
      order by m.created_at desc, m.id desc limit ${limit}) page
    order by created_at, id`;
  return rows.map((r) => r.json);
}

export async function messageJson(db: Db, id: number): Promise<MessageJson | undefined> {
  const [row] = await db<{ json: MessageJson }[]>`
    select public.support_message_json(m) as json from public.support_messages m where m.id = ${id}`;
  return row?.json;
}

/**
 * Withdraws a line of the thread: its text and files go, the row stays with content null and
 * content_attributes.deleted (Chatwoot's), so every reader shows where it was. Answers the files' storage
 * keys (for the caller to remove from storage) and the line, or undefined when the thread has no such line.
 */
export async function withdrawMessage(
  db: Db,
  conversationId: number,
  id: number,
): Promise<{ message: MessageJson; storageKeys: string[] } | undefined> {
  const files = await db<{ storage_key: string }[]>`
    delete from public.support_attachments a using public.support_messages m
    where a.message_id = m.id and m.id = ${id} and m.conversation_id = ${conversationId}
    returning a.storage_key`;
  const [row] = await db<{ json: MessageJson }[]>`
    with m as (
      update public.support_messages
         set content = null, content_attributes = content_attributes || '{"deleted": true}'::jsonb, updated_at = now()
       where id = ${id} and conversation_id = ${conversationId}
      returning *)
    select public.support_message_json(m::public.support_messages) as json from m`;
  return row ? { message: row.json, storageKeys: files.map((f) => f.storage_key) } : undefined;
}
