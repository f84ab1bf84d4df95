// A visitor and an agent of the desk, through the real client and application APIs of a running host:
// what the live-channel, widget and bench tests act with.
import { createKey } from "../../../shared/keys.ts";
import { ensurePerson } from "../../../shared/people.ts";
import type { Sql } from "../../../shared/db.ts";

export interface Thread {
  sourceId: string;
  conversationId: number;
  pubsubToken: string;
  /** the client API root of the conversation */
  root: string;
}

/** Posts JSON and answers the parsed body; throws with the body on a non-2xx answer. */
export async function send(method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** A guest with one open thread; `address` stands in for the visitor's own address (the guest guard counts it). */
export async function openThread(baseUrl: string, space: string, address: string): Promise<Thread> {
  const inbox = `${baseUrl}/api/desk/public/api/v1/inboxes/${space}`;
  const forwarded = { "x-forwarded-for": address };
  const contact = await send("POST", `${inbox}/contacts`, {}, forwarded);
  const conversation = await send("POST", `${inbox}/contacts/${contact.source_id}/conversations`, {}, forwarded);
  return {
    sourceId: contact.source_id,
    conversationId: conversation.id,
    pubsubToken: conversation.pubsub_token,
    root: `${inbox}/contacts/${contact.source_id}/conversations/${conversation.id}`,
  };
}

/** A support key whose maker is on the desk. */
export async function agentKey(sql: Sql, email: string): Promise<string> {
  const person = await ensurePerson(sql, email, "support");
  return (await createKey(sql, { name: `agent ${email}`, kind: "support", createdBy: person.id })).key;
}

/** An agent's line through the application API. */
export function agentLine(baseUrl: string, key: string, conversationId: number, content: string) {
  return send(
    "POST",
    `${baseUrl}/api/desk/api/v1/accounts/1/conversations/${conversationId}/messages`,
    { content, message_type: "outgoing" },
    { api_access_token: key },
  );
}
