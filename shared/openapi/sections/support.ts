// The support desk (Chatwoot-compatible; spec network-and-support.md "Support desk API"): the public client
// API, the application API, a line's files, the delivery route and the widget script, as functions/support-api
// serves them (tests/functions/support-api/openapi.test.ts calls every operation and checks its answers).
import { errorRefs, errorResponses, type ErrorRow, jsonBody, jsonResponse, noContent, pathParam, queryParam, RETRY_AFTER } from "../builders.ts";
import { ref } from "../schemas.ts";
import { SUPPORT_EVENTS } from "../enums/support.ts";
import type { OpenApiSection, Operation, Schema, SecurityRequirement } from "../types.ts";

const GROUP = "Support API";
export const SUPPORT_TAGS = { client: "Client", conversations: "Conversations", contacts: "Contacts", webhooks: "Support Webhooks" };
export const SUPPORT_CLIENT_BASE = "/api/desk/public/api/desk/api/v1/inboxes/{inbox}";
export const SUPPORT_APP_BASE = "/api/desk/api/v1/accounts/{account}";

const error = (message: string) => ({ error: message, errors: [message] });
const ERRORS: ErrorRow[] = [
  { status: 400, name: "SupportBadRequest", description: "A body that is not JSON (or not an object), or a bad query parameter.", example: error("The body is not valid JSON.") },
  { status: 401, name: "SupportUnauthorized", description: "No token or a revoked one; the client read of an account's contact.", example: error("Invalid Access Token") },
  { status: 403, name: "SupportForbidden", description: "A key of another kind, or a key whose maker is not on the desk.", example: error("This key cannot use the desk") },
  { status: 404, name: "SupportNotFound", description: "An unknown resource.", example: error("Resource could not be found") },
  { status: 422, name: "SupportUnprocessable", description: "A private note, a message that is not outgoing, no such agent, a bad webhook url or no known event.", example: error("Agent not found") },
  { status: 413, name: "SupportTooLarge", description: "A JSON body over 1 MB, or a message's form over 40 MB.", example: error("The body is larger than 1 MB.") },
  { status: 429, name: "SupportTooManyRequests", description: "The guest or thread guards, or the rate limit; Retry-After says when.", example: error("Too many requests"), headers: { "Retry-After": RETRY_AFTER } },
];

const desk: SecurityRequirement[] = [{ apiAccessToken: [] }, { key: [] }];
const string = { type: "string" };
const unix = { type: "integer", description: "Unix seconds (0 when unset)." };
const nullableString = { type: ["string", "null"] };
const attributes = { type: "object", additionalProperties: true };
const payload = (schema: Schema | string) => ({
  type: "object",
  properties: { payload: typeof schema === "string" ? ref(schema) : schema },
});

/** An operation that takes a body also answers 400 (not a JSON object) and 413 (over 1 MB; a form over 40 MB). */
const bodyErrors = (o: Omit<Operation, "tags" | "security">) => (o.requestBody ? [400, 413] : []);
function clientOp(o: Omit<Operation, "tags" | "security">, ...errors: number[]): Operation {
  const statuses = [...new Set([429, ...bodyErrors(o), ...errors])];
  return { ...o, tags: [SUPPORT_TAGS.client], security: [], responses: { ...o.responses, ...errorRefs(ERRORS, ...statuses) } };
}
function deskOp(tag: string, o: Omit<Operation, "tags" | "security">, ...errors: number[]): Operation {
  const statuses = [...new Set([401, 403, 429, ...bodyErrors(o), ...errors])];
  return { ...o, tags: [tag], security: desk, responses: { ...o.responses, ...errorRefs(ERRORS, ...statuses) } };
}

function schemas(): Record<string, Schema> {
  return {
    SupportError: {
      type: "object",
      description: "The support desk's error body.",
      required: ["error", "errors"],
      properties: { error: string, errors: { type: "array", items: string } },
    },
    SupportMessage: {
      type: "object",
      properties: {
        id: { type: "integer" },
        content: { type: ["string", "null"] },
        inbox_id: { type: "integer" },
        conversation_id: { type: "integer" },
        message_type: { type: "integer", enum: [0, 1, 2], description: "0 incoming, 1 outgoing, 2 activity." },
        content_type: { type: "string", enum: ["text", "input_select"] },
        content_attributes: { type: "object", additionalProperties: true },
        status: string,
        private: { type: "boolean" },
        created_at: unix,
        sender: { type: ["object", "null"], additionalProperties: true },
        attachments: { type: "array", items: ref("SupportAttachment") },
        echo_id: string,
      },
    },
    SupportAttachment: {
      type: "object",
      description: "A line's file; data_url is signed for one hour.",
      properties: {
        id: { type: "integer" },
        message_id: { type: "integer" },
        file_type: { type: "string", enum: ["image", "audio", "file"] },
        extension: nullableString,
        data_url: { type: ["string", "null"], format: "uri" },
        thumb_url: nullableString,
        file_size: { type: "integer" },
        duration: { type: "number", description: "Seconds, for a voice note." },
      },
    },
    SupportMessageForm: {
      type: "object",
      description: "A line with files, as Chatwoot's clients post it (`message[content]` is read as `content`).",
      properties: {
        content: string,
        echo_id: string,
        message_type: { type: "string", enum: ["outgoing"] },
        seconds: { type: "number", description: "A voice note's length: with an audio file, content_attributes { kind: voice, seconds }." },
        "attachments[]": { type: "array", maxItems: 5, items: { type: "string", format: "binary" } },
      },
    },
    SupportMessageWrite: {
      type: "object",
      required: ["content"],
      properties: {
        content: { type: "string", description: "A contact's line: at most 4000 characters." },
        echo_id: string,
        message_type: { type: "string", enum: ["outgoing"], description: "The desk's line: outgoing only (422 otherwise)." },
        private: { type: "boolean", description: "true is refused (422): the desk keeps no private notes." },
        content_type: { type: "string", enum: ["text", "input_select"] },
        content_attributes: {
          type: "object",
          description: "For input_select: the offered choices.",
          properties: { items: { type: "array", items: { type: "object", properties: { title: string, value: string } } } },
        },
      },
    },
    ClientConversation: {
      type: "object",
      properties: {
        id: { type: "integer" },
        inbox_id: { type: "integer" },
        status: { type: "string", enum: ["open", "pending", "resolved"] },
        contact_last_seen_at: unix,
        agent_last_seen_at: unix,
        messages: { type: "array", items: ref("SupportMessage") },
        contact: { type: "object", additionalProperties: true },
        custom_attributes: { type: "object", additionalProperties: true },
        additional_attributes: { type: "object", properties: { path: nullableString, source: nullableString } },
        uuid: string,
        pubsub_token: { type: "string", description: "The conversation's live channel (/api/desk/cable, RoomChannel)." },
      },
    },
    SupportConversation: {
      type: "object",
      description: "A conversation as the desk sees it.",
      properties: {
        id: { type: "integer" },
        inbox_id: { type: "integer" },
        account_id: { type: "integer" },
        status: { type: "string", enum: ["open", "pending", "resolved"] },
        channel: { const: "Channel::WebWidget" },
        unread_count: { type: "integer" },
        created_at: unix,
        updated_at: unix,
        waiting_since: unix,
        labels: { type: "array", items: string },
        messages: { type: "array", items: ref("SupportMessage") },
        meta: { type: "object", additionalProperties: true },
      },
      additionalProperties: true,
    },
    GuestContact: {
      type: "object",
      description:
        "The contact as the client API shows it; source_id is the contact's secret token (kept only as its hash). " +
        "A guest has no name or email; an account contact (made with the site's session) is verified.",
      properties: {
        id: { type: "integer" },
        source_id: string,
        name: nullableString,
        email: nullableString,
        identifier: nullableString,
        pubsub_token: { type: "null" },
        custom_attributes: attributes,
        additional_attributes: { type: "object", properties: { verified: { type: "boolean" } } },
      },
    },
    ClientContactWrite: {
      type: "object",
      description:
        "custom_attributes are merged (null removes a key). A given name, email, phone_number or avatar_url is kept " +
        "among the custom attributes as given, never as identity; identifier makes a guest a user, never verified, " +
        "and is never merged into another contact.",
      properties: {
        custom_attributes: attributes,
        path: string,
        identifier: { type: ["string", "integer"] },
        name: string,
        email: string,
        phone_number: string,
        avatar_url: string,
      },
    },
    SupportContact: {
      type: "object",
      properties: {
        id: { type: "integer" },
        name: string,
        email: { type: ["string", "null"] },
        identifier: { type: ["string", "null"] },
        custom_attributes: { type: "object", additionalProperties: true },
        additional_attributes: { type: "object", additionalProperties: true },
        created_at: unix,
        last_activity_at: unix,
        conversations_count: { type: "integer" },
      },
    },
    SupportInbox: {
      type: "object",
      properties: { id: { type: "integer" }, name: string, channel_type: { const: "Channel::WebWidget" }, website_token: string, website_url: string },
    },
    SupportAgent: {
      type: "object",
      properties: {
        id: { type: "integer" },
        account_id: { type: "integer" },
        name: string,
        available_name: string,
        email: string,
        role: { type: "string", enum: ["administrator", "agent"] },
        availability_status: string,
        confirmed: { type: "boolean" },
        thumbnail: string,
      },
    },
    SupportWebhook: {
      type: "object",
      properties: {
        id: { type: "integer" },
        url: { type: "string", format: "uri" },
        subscriptions: { type: "array", items: { type: "string", enum: SUPPORT_EVENTS } },
        account_id: { type: "integer" },
        inbox: { type: "null" },
        source: { type: "string", enum: ["hand", "file"] },
        last_at: { type: ["integer", "null"], description: "Unix seconds of the last delivery attempt." },
        last_error: { type: ["string", "null"] },
        secret: {
          type: "string",
          description:
            "Only in the answer that made it: signs each delivery, X-Chatwoot-Signature: sha256=<hex HMAC-SHA256 of " +
            "\"<X-Chatwoot-Timestamp>.<raw body>\">.",
        },
      },
    },
    SupportWebhookWrite: {
      type: "object",
      properties: {
        url: { type: "string", format: "uri" },
        subscriptions: { type: "array", items: { type: "string", enum: SUPPORT_EVENTS } },
        webhook: { type: "object", properties: { url: { type: "string", format: "uri" }, subscriptions: { type: "array", items: string } } },
      },
    },
  };
}

export const supportSection: OpenApiSection = {
  name: "support",
  requires: ["support"],
  schemaNames: Object.keys(schemas()),
  tags: [
    {
      name: SUPPORT_TAGS.client,
      group: GROUP,
      description:
        "The public client API (Chatwoot-compatible) for visitors: contacts, their conversations and messages, and " +
        "the chat widget script. No key: the contact's source_id in the path is its secret (an account contact also " +
        "needs its person's session as a bearer). The same routes answer under /api/desk/public/api/v1/inboxes/{inbox}, " +
        "the path a Chatwoot client computes from the install root {base_url}/api/desk. Errors: { error, errors }.",
    },
    {
      name: SUPPORT_TAGS.conversations,
      group: GROUP,
      description:
        "The desk's application API (the account segment is ignored): conversations, messages, assignments, inboxes " +
        "and agents. Send a support key as the api_access_token header or a bearer; its maker must be on the desk.",
    },
    { name: SUPPORT_TAGS.contacts, group: GROUP, description: "The desk's contacts." },
    { name: SUPPORT_TAGS.webhooks, group: GROUP, description: "Outbound webhook subscriptions of the desk." },
  ],
  paths() {
    const C = SUPPORT_CLIENT_BASE;
    const A = SUPPORT_APP_BASE;
    const inbox = pathParam("inbox", "The inbox identifier: the site's space id.");
    const sourceId = pathParam("source_id", "The contact's token (its secret).");
    const conversationId = pathParam("conversation_id", "The conversation's id.", { type: "integer" });
    const account = pathParam("account", "Any account id (ignored).");
    const id = (name: string, what: string) => pathParam(name, `The ${what}'s id.`, { type: "integer" });
    const clientConversation = `${C}/contacts/{source_id}/conversations/{conversation_id}`;
    const messageBody = {
      required: true,
      content: {
        "application/json": { schema: ref("SupportMessageWrite") },
        "multipart/form-data": { schema: ref("SupportMessageForm") },
      },
    };
    const deskAction = (sub: string, operationId: string, summary: string, description: string, body?: Schema): Record<string, unknown> => ({
      [`${A}/conversations/{conversation_id}/${sub}`]: {
        parameters: [account, conversationId],
        post: deskOp(SUPPORT_TAGS.conversations, {
          operationId,
          summary,
          description,
          ...(body ? { requestBody: jsonBody(body) } : {}),
          responses: { "200": { description: "Done." } },
        }, 404, 422),
      },
    });
    const clientAction = (sub: string, operationId: string, summary: string, description: string, body?: Schema): Record<string, unknown> => ({
      [`${clientConversation}/${sub}`]: {
        parameters: [inbox, sourceId, conversationId],
        post: clientOp({
          operationId,
          summary,
          description,
          ...(body ? { requestBody: jsonBody(body) } : {}),
          responses: { "200": { description: "Done." } },
        }, 404, 422),
      },
    });
    return {
      [`${C}/contacts`]: {
        parameters: [inbox],
        post: clientOp({
          operationId: "supportCreateContact",
          summary: "Create a guest contact",
          description:
            "At most five new guests an hour from one address (429 past that). With the site's session as a bearer it " +
            "answers the person's account contact instead (verified), with a fresh token.",
          requestBody: jsonBody("ClientContactWrite", undefined, false),
          responses: { "200": jsonResponse("The guest.", "GuestContact") },
        }, 404),
      },
      [`${C}/contacts/{source_id}`]: {
        parameters: [inbox, sourceId],
        get: clientOp({ operationId: "supportGetContact", summary: "Get the contact", responses: { "200": jsonResponse("The contact.", "GuestContact") } }, 401, 404),
        patch: clientOp({
          operationId: "supportUpdateContact",
          summary: "Update the contact's attributes",
          requestBody: jsonBody("ClientContactWrite"),
          responses: { "200": jsonResponse("The contact.", "GuestContact") },
        }, 401, 404),
      },
      [`${C}/contacts/{source_id}/conversations`]: {
        parameters: [inbox, sourceId],
        get: clientOp({ operationId: "supportListClientConversations", summary: "List the contact's conversations", responses: { "200": jsonResponse("Latest first, with messages.", { type: "array", items: ref("ClientConversation") }) } }, 404),
        post: clientOp({
          operationId: "supportCreateClientConversation",
          summary: "Start a conversation",
          description: "Opens on the desk's default prompt when the site has one; at most eight new threads an hour.",
          requestBody: jsonBody({
            type: "object",
            properties: {
              path: string,
              source: string,
              custom_attributes: attributes,
              booking_uid: { type: "string", description: "A booking whose chat grant names this (account) contact's address: the thread is assigned to its host." },
            },
          }, undefined, false),
          responses: { "200": jsonResponse("The conversation.", "ClientConversation") },
        }, 404, 422),
      },
      [clientConversation]: {
        parameters: [inbox, sourceId, conversationId],
        get: clientOp({ operationId: "supportGetClientConversation", summary: "Get a conversation", responses: { "200": jsonResponse("The conversation.", "ClientConversation") } }, 404),
      },
      [`${clientConversation}/messages`]: {
        parameters: [inbox, sourceId, conversationId],
        get: clientOp({
          operationId: "supportListClientMessages",
          summary: "List messages",
          parameters: [queryParam("after", "Lines from this time on (unix seconds, inclusive: clients drop the ids they have).", { type: "integer" })],
          responses: { "200": jsonResponse("Oldest first, at most 200 (without after: the latest 200).", { type: "array", items: ref("SupportMessage") }) },
        }, 400, 404),
        post: clientOp({
          operationId: "supportCreateClientMessage",
          summary: "Send a message",
          description:
            "The contact's line: at most 4000 characters (422), one a second (429). The conversation's first line is " +
            "followed once by the desk's acknowledgement (message_type 2).",
          requestBody: messageBody,
          responses: { "200": jsonResponse("The message.", "SupportMessage") },
        }, 400, 404, 413, 422),
      },
      ...clientAction("toggle_typing", "supportToggleTyping", "Show typing", "The inbox shows the contact typing.", {
        type: "object",
        required: ["typing_status"],
        properties: { typing_status: { type: "string", enum: ["on", "off"] } },
      }),
      ...clientAction("update_last_seen", "supportUpdateLastSeen", "Mark read", "Marks the conversation read up to now."),
      ...clientAction("toggle_status", "supportResolveClientConversation", "Resolve", "The contact resolves the conversation; a later contact line opens it again."),
      "/api/desk/packs/js/sdk.js": {
        get: {
          operationId: "supportGetWidgetScript",
          summary: "Get the chat widget script",
          description: "window.chatwootSDK.run({ websiteToken: <space id>, baseUrl }) mounts the widget; window.$chatwoot controls it.",
          tags: [SUPPORT_TAGS.client],
          security: [],
          responses: { "200": { description: "The script.", content: { "application/javascript": { schema: string } } } },
        },
      },
      [`${A}/conversations`]: {
        parameters: [account],
        get: deskOp(SUPPORT_TAGS.conversations, {
          operationId: "supportListConversations",
          summary: "List conversations",
          description: "Counts are for the status across assignees.",
          parameters: [
            queryParam("status", "Which.", { type: "string", enum: ["open", "pending", "resolved", "all"] }),
            queryParam("assignee_type", "Whose.", { type: "string", enum: ["me", "unassigned", "assigned", "all"] }),
            queryParam("page", "25 per page, latest first.", { type: "integer", minimum: 1 }),
          ],
          responses: {
            "200": jsonResponse("The conversations and counts.", {
              type: "object",
              properties: {
                data: {
                  type: "object",
                  properties: {
                    meta: {
                      type: "object",
                      properties: {
                        mine_count: { type: "integer" },
                        assigned_count: { type: "integer" },
                        unassigned_count: { type: "integer" },
                        all_count: { type: "integer" },
                      },
                    },
                    payload: { type: "array", items: ref("SupportConversation") },
                  },
                },
              },
            }),
          },
        }, 400),
      },
      [`${A}/conversations/{conversation_id}`]: {
        parameters: [account, conversationId],
        get: deskOp(SUPPORT_TAGS.conversations, { operationId: "supportGetConversation", summary: "Get a conversation", responses: { "200": jsonResponse("With its messages.", "SupportConversation") } }, 404),
      },
      [`${A}/conversations/{conversation_id}/messages`]: {
        parameters: [account, conversationId],
        get: deskOp(SUPPORT_TAGS.conversations, {
          operationId: "supportListMessages",
          summary: "List a conversation's messages",
          parameters: [queryParam("before", "Lines before this message id (the latest 100 before it, oldest first).", { type: "integer" })],
          responses: { "200": jsonResponse("{ meta, payload }.", { type: "object", properties: { meta: { type: "object", additionalProperties: true }, payload: { type: "array", items: ref("SupportMessage") } } }) },
        }, 404),
        post: deskOp(SUPPORT_TAGS.conversations, {
          operationId: "supportCreateMessage",
          summary: "Reply as an agent",
          description: "An outgoing line as the key's maker, which marks the thread read by the agent; a private note or another message_type is 422.",
          requestBody: messageBody,
          responses: { "200": jsonResponse("The message.", "SupportMessage") },
        }, 400, 404, 413, 422),
      },
      [`${A}/conversations/{conversation_id}/messages/{message_id}`]: {
        parameters: [account, conversationId, id("message_id", "message")],
        delete: deskOp(SUPPORT_TAGS.conversations, {
          operationId: "supportWithdrawMessage",
          summary: "Withdraw a line",
          description: "The line stays in its place with content null and content_attributes.deleted; its files go.",
          responses: { "200": jsonResponse("The withdrawn line.", "SupportMessage") },
        }, 404),
      },
      ...deskAction("toggle_typing_status", "supportAgentTyping", "Show the agent typing", "The widget shows the agent typing (live channel only).", {
        type: "object",
        required: ["typing_status"],
        properties: { typing_status: { type: "string", enum: ["on", "off"] } },
      }),
      [`${A}/conversations/{conversation_id}/custom_attributes`]: {
        parameters: [account, conversationId],
        post: deskOp(SUPPORT_TAGS.conversations, {
          operationId: "supportSetConversationAttributes",
          summary: "Set a conversation's custom attributes",
          description: "Replaces them; subscribers of conversation_updated hear it.",
          requestBody: jsonBody({ type: "object", required: ["custom_attributes"], properties: { custom_attributes: attributes } }),
          responses: { "200": jsonResponse("The attributes.", { type: "object", properties: { custom_attributes: attributes } }) },
        }, 400, 404, 422),
      },
      ...deskAction("update_last_seen", "supportAgentRead", "Mark read by the desk", "Sets agent_last_seen_at; unread_count starts over."),
      "/api/desk/files/{attachment_id}": {
        parameters: [id("attachment_id", "attachment")],
        get: {
          operationId: "supportGetFile",
          summary: "Get a line's file",
          description: "The address a message's data_url gives, signed for one hour.",
          tags: [SUPPORT_TAGS.client],
          security: [],
          parameters: [
            queryParam("expires", "Unix seconds.", { type: "integer" }, true),
            queryParam("signature", "Hex HMAC-SHA256.", { type: "string" }, true),
          ],
          responses: {
            "200": { description: "The file.", content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } } },
            ...errorRefs(ERRORS, 403, 404),
          },
        },
      },
      "/api/desk/webhooks/deliver": {
        post: {
          operationId: "supportDeliverWebhooks",
          summary: "Deliver the desk's due webhooks",
          description:
            "Sends the desk's due deliveries (also at /functions/v1/support-api/deliver, the spec's delivery trigger; a body " +
            "{ event, id } may name what prompted the call). Service key only; used by the database, never by clients.",
          tags: [SUPPORT_TAGS.webhooks],
          security: [{ serviceRole: [] }],
          responses: {
            "200": jsonResponse("What this call did.", {
              type: "object",
              properties: { claimed: { type: "integer" }, delivered: { type: "integer" }, retrying: { type: "integer" }, failed: { type: "integer" } },
            }),
            ...errorRefs(ERRORS, 401),
          },
        },
      },
      [`${A}/conversations/{conversation_id}/toggle_status`]: {
        parameters: [account, conversationId],
        post: deskOp(SUPPORT_TAGS.conversations, {
          operationId: "supportToggleStatus",
          summary: "Change a conversation's status",
          description: "The given status, or without one: resolved, or open when it was resolved.",
          requestBody: jsonBody({ type: "object", properties: { status: { type: "string", enum: ["open", "pending", "resolved"] } } }, undefined, false),
          responses: {
            "200": jsonResponse("The new status.", {
              type: "object",
              properties: {
                meta: { type: "object" },
                payload: { type: "object", properties: { success: { type: "boolean" }, current_status: string, conversation_id: { type: "integer" }, snoozed_until: { type: "null" } } },
              },
            }),
          },
        }, 404, 422),
      },
      [`${A}/conversations/{conversation_id}/assignments`]: {
        parameters: [account, conversationId],
        post: deskOp(SUPPORT_TAGS.conversations, {
          operationId: "supportAssign",
          summary: "Assign a conversation",
          description: "An agent id; null or 0 unassigns (answers null).",
          requestBody: jsonBody({ type: "object", properties: { assignee_id: { type: ["integer", "null"] } } }),
          responses: { "200": jsonResponse("The agent, or null.", { oneOf: [ref("SupportAgent"), { type: "null" }] }) },
        }, 404, 422),
      },
      [`${A}/contacts`]: {
        parameters: [account],
        get: deskOp(SUPPORT_TAGS.contacts, {
          operationId: "supportListContacts",
          summary: "List contacts",
          parameters: [queryParam("page", "15 per page, last seen first.", { type: "integer", minimum: 1 })],
          responses: { "200": jsonResponse("{ meta, payload }.", { type: "object", properties: { meta: { type: "object", properties: { count: { type: "integer" }, current_page: { type: "integer" } } }, payload: { type: "array", items: ref("SupportContact") } } }) },
        }, 400),
      },
      [`${A}/contacts/{contact_id}`]: {
        parameters: [account, id("contact_id", "contact")],
        get: deskOp(SUPPORT_TAGS.contacts, { operationId: "supportGetContactDesk", summary: "Get a contact", responses: { "200": jsonResponse("With conversations_count.", payload("SupportContact")) } }, 404),
      },
      [`${A}/contacts/{contact_id}/conversations`]: {
        parameters: [account, id("contact_id", "contact")],
        get: deskOp(SUPPORT_TAGS.contacts, { operationId: "supportListContactConversations", summary: "List a contact's conversations", responses: { "200": jsonResponse("Its conversations.", payload({ type: "array", items: ref("SupportConversation") })) } }, 404),
      },
      [`${A}/inboxes`]: {
        parameters: [account],
        get: deskOp(SUPPORT_TAGS.conversations, { operationId: "supportListInboxes", summary: "List inboxes", responses: { "200": jsonResponse("The one inbox.", payload({ type: "array", items: ref("SupportInbox") })) } }),
      },
      [`${A}/agents`]: {
        parameters: [account],
        get: deskOp(SUPPORT_TAGS.conversations, { operationId: "supportListAgents", summary: "List agents", responses: { "200": jsonResponse("Administrators and support people.", { type: "array", items: ref("SupportAgent") }) } }),
      },
      "/api/desk/api/v1/profile": {
        get: deskOp(SUPPORT_TAGS.conversations, { operationId: "supportGetProfile", summary: "Get the key's maker", responses: { "200": jsonResponse("The agent, with accounts.", { allOf: [ref("SupportAgent"), { type: "object", properties: { accounts: { type: "array", items: { type: "object", additionalProperties: true } } } }] }) } }),
      },
      [`${A}/webhooks`]: {
        parameters: [account],
        get: deskOp(SUPPORT_TAGS.webhooks, { operationId: "supportListWebhooks", summary: "List webhooks", responses: { "200": jsonResponse("{ payload: { webhooks } }.", payload({ type: "object", properties: { webhooks: { type: "array", items: ref("SupportWebhook") } } })) } }),
        post: deskOp(SUPPORT_TAGS.webhooks, {
          operationId: "supportCreateWebhook",
          summary: "Create a webhook",
          requestBody: jsonBody("SupportWebhookWrite"),
          responses: { "201": jsonResponse("{ payload: { webhook } }.", payload({ type: "object", properties: { webhook: ref("SupportWebhook") } })) },
        }, 422),
      },
      [`${A}/webhooks/{webhook_id}`]: {
        parameters: [account, id("webhook_id", "webhook")],
        patch: deskOp(SUPPORT_TAGS.webhooks, {
          operationId: "supportUpdateWebhook",
          summary: "Update a webhook",
          requestBody: jsonBody("SupportWebhookWrite"),
          responses: { "200": jsonResponse("{ payload: { webhook } }.", payload({ type: "object", properties: { webhook: ref("SupportWebhook") } })) },
        }, 404, 422),
        delete: deskOp(SUPPORT_TAGS.webhooks, { operationId: "supportDeleteWebhook", summary: "Delete a webhook", responses: { "204": noContent("Deleted.") } }, 404),
      },
    } as ReturnType<NonNullable<OpenApiSection["paths"]>>;
  },
  components() {
    return {
      schemas: schemas(),
      responses: errorResponses("SupportError", ERRORS),
      securitySchemes: {
        apiAccessToken: {
          type: "apiKey",
          in: "header",
          name: "api_access_token",
          description: "A support key whose maker is an administrator or a support person.",
        },
      },
    };
  },
};
