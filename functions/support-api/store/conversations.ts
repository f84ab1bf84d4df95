// SQL of the desk's conversations. Answers are built by the database's support_conversation_json, the
// same builder the webhook triggers use.
import type { Db } from "../../../shared/db.ts";
import type { AssigneeFilter, Status, StatusFilter } from "../domain/conversations.ts";

export type ConversationJson = Record<string, any>;

export interface ConversationRow {
  id: number;
  contact_id: number;
  status: Status;
  pubsub_token: string;
  assignee_id: number | null;
}

export async function createConversation(
  db: Db,
  input: {
    contactId: number;
    path?: string | null;
    source?: string | null;
    attributes: Record<string, unknown>;
    prompt?: { id: string; text: string };
    bookingId?: number | null;
    assigneeId?: number | null;
  },
): Promise<number> {
  const [row] = await db<{ id: number }[]>`
    insert into public.support_conversations (contact_id, path, source, prompt_id, custom_attributes, booking_id, assignee_id)
    values (${input.contactId}, ${input.path ?? null}, ${input.source ?? null}, ${input.prompt?.id ?? null},
            ${db.json(input.attributes as never)}, ${input.bookingId ?? null}, ${input.assigneeId ?? null})
    returning id`;
  if (input.prompt) {
    await db`insert into public.support_messages (conversation_id, message_type, content)
             values (${row.id}, 2, ${input.prompt.text})`;
  }
  return row.id;
}

/** The conversation's row when it belongs to the contact (a contact reaches only its own threads). */
export async function contactConversation(db: Db, contactId: number, id: number): Promise<ConversationRow | undefined> {
  const [row] = await db<ConversationRow[]>`
    select id, contact_id, status, pubsub_token, assignee_id from public.support_conversations
    where id = ${id} and contact_id = ${contactId}`;
  return row;
}

export async function conversationRow(db: Db, id: number): Promise<ConversationRow | undefined> {
  const [row] = await db<ConversationRow[]>`
    select id, contact_id, status, pubsub_token, assignee_id from public.support_conversations where id = ${id}`;
  return row;
}

/** The application conversation (with its messages, or the list item without). */
export async function conversationJson(db: Db, id: number, withMessages = true): Promise<ConversationJson | undefined> {
  const [row] = await db<{ json: ConversationJson }[]>`
    select public.support_conversation_json(v, ${withMessages}) as json from public.support_conversations v where v.id = ${id}`;
  return row?.json;
}

/** A contact's threads, latest first, each with its messages and its pubsub_token. */
export async function contactConversations(
  db: Db,
  contactId: number,
): Promise<{ json: ConversationJson; pubsub_token: string }[]> {
  return await db<{ json: ConversationJson; pubsub_token: string }[]>`
    select public.support_conversation_json(v, true) as json, v.pubsub_token
    from public.support_conversations v where v.contact_id = ${contactId}
    order by v.last_activity_at desc, v.id desc`;
}

/** The desk's threads of one contact, latest first, without messages. */
export async function conversationsOfContact(db: Db, contactId: number): Promise<ConversationJson[]> {
  const rows = await db<{ json: ConversationJson }[]>`
    select public.support_conversation_json(v, false) as json
    from public.support_conversations v where v.contact_id = ${contactId}
    order by v.last_activity_at desc, v.id desc`;
  return rows.map((r) => r.json);
}

/**
 * The desk's list: a page of threads of the status (latest first) for the assignee filter, and the
 * counts for the status across assignees (mine, assigned, unassigned, all).
 */
export async function deskConversations(
  db: Db,
  filter: { status: StatusFilter; assignee: AssigneeFilter; agentId: number; page: number; size: number },
): Promise<{ meta: Record<string, number>; payload: ConversationJson[] }> {
  const status = filter.status === "all" ? null : filter.status;
  const [counts] = await db<{ mine: number; assigned: number; unassigned: number; all: number }[]>`
    select count(*) filter (where assignee_id = ${filter.agentId})::int as mine,
           count(*) filter (where assignee_id is not null)::int as assigned,
           count(*) filter (where assignee_id is null)::int as unassigned,
           count(*)::int as all
    from public.support_conversations where (${status}::text is null or status = ${status})`;
  const rows = await db<{ json: ConversationJson }[]>`
    select public.support_conversation_json(v, false) as json from (
      select * from public.support_conversations
      where (${status}::text is null or status = ${status})
        and case ${filter.assignee}
              when 'me' then assignee_id = ${filter.agentId}
              when 'unassigned' then assignee_id is null
              when 'assigned' then assignee_id is not null
              else true end
      order by last_activity_at desc, id desc
      limit ${filter.size} offset ${(filter.page - 1) * filter.size}) v
    order by v.last_activity_at desc, v.id desc`;
  return {
    meta: {
      mine_count: counts.mine,
      assigned_count: counts.assigned,
      unassigned_count: counts.unassigned,
      all_count: counts.all,
    },
    payload: rows.map((r) => r.json),
  };
}

export async function setStatus(db: Db, id: number, status: Status): Promise<void> {
  await db`
    update public.support_conversations
       set status = ${status}, updated_at = now(),
           resolved_at = case when ${status} = 'resolved' then coalesce(resolved_at, now()) else null end
     where id = ${id} and status is distinct from ${status}`;
}

export async function assign(db: Db, id: number, agentId: number | null): Promise<void> {
  await db`update public.support_conversations set assignee_id = ${agentId}, updated_at = now()
           where id = ${id} and assignee_id is distinct from ${agentId}`;
}

export async function markSeen(db: Db, id: number, by: "contact" | "agent", now: Date): Promise<void> {
  if (by === "contact") {
    await db`update public.support_conversations set contact_last_seen_at = ${now} where id = ${id}`;
  } else {
    await db`update public.support_conversations set agent_last_seen_at = ${now} where id = ${id}`;
  }
}

/** Claims the conversation's one acknowledgement: true the first time only. */
export async function claimAcknowledgement(db: Db, id: number, now: Date): Promise<boolean> {
  const rows = await db`update public.support_conversations set acknowledged_at = ${now}
                        where id = ${id} and acknowledged_at is null returning id`;
  return rows.length === 1;
}

export async function signalTyping(db: Db, id: number, on: boolean, by: "contact" | "user", byId: number): Promise<void> {
  await db`select public.support_signal_typing(${id}, ${on}, ${by}, ${byId})`;
}

export async function setConversationAttributes(db: Db, id: number, attributes: Record<string, unknown>): Promise<void> {
  await db`update public.support_conversations set custom_attributes = ${db.json(attributes as never)}, updated_at = now()
           where id = ${id}`;
}
