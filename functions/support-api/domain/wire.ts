// The client API's shapes, made from what the desk's builders give (the contact's own view leaves out
// what only the desk sees: assignee, counts, meta).
import type { DeskSettings } from "./desk.ts";

export interface ClientContactSource {
  id: number;
  name: string | null;
  email: string | null;
  identifier: string | null;
  verified: boolean;
  custom_attributes: Record<string, unknown>;
}

/** The client API's contact: the token it was reached with is its source_id; pubsub_token is per thread. */
export function clientContact(contact: ClientContactSource, token: string) {
  return {
    id: contact.id,
    source_id: token,
    name: contact.name,
    email: contact.email,
    identifier: contact.identifier,
    pubsub_token: null,
    custom_attributes: contact.custom_attributes,
    additional_attributes: { verified: contact.verified },
  };
}

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

/** The client API's conversation, from the desk's conversation (with messages) and its live channel token. */
export function clientConversation(desk: Json, pubsubToken: string) {
  const sender = desk.meta?.sender ?? {};
  return {
    id: desk.id,
    uuid: pubsubToken.slice(0, 32).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, "$1-$2-$3-$4-$5"),
    inbox_id: 1,
    status: desk.status,
    contact_last_seen_at: desk.contact_last_seen_at,
    agent_last_seen_at: desk.agent_last_seen_at,
    messages: desk.messages ?? [],
    contact: { id: sender.id, name: sender.name, email: sender.email, phone_number: null },
    custom_attributes: desk.custom_attributes,
    additional_attributes: { path: desk.additional_attributes?.path ?? null, source: desk.additional_attributes?.source ?? null },
    pubsub_token: pubsubToken,
  };
}

/** The desk's one inbox. */
export function inbox(desk: DeskSettings, space: string) {
  return {
    id: 1,
    name: desk.name,
    channel_type: "Channel::WebWidget",
    website_token: space,
    website_url: desk.websiteUrl,
    widget_color: "#1f93ff",
    avatar_url: "",
  };
}

export interface WebhookSource {
  id: number;
  url: string;
  subscriptions: string[];
  source: string;
  last_at: Date | null;
  last_error: string | null;
}

export function webhook(row: WebhookSource, secret?: string) {
  return {
    id: row.id,
    url: row.url,
    subscriptions: row.subscriptions,
    account_id: 1,
    inbox: null,
    source: row.source,
    last_at: row.last_at ? Math.floor(new Date(row.last_at).getTime() / 1000) : null,
    last_error: row.last_error,
    ...(secret ? { secret } : {}),
  };
}
