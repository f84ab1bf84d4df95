// The support desk (Chatwoot-compatible; spec network-and-support.md "Support desk API"): the public client
// API, the application API and the widget script, described from the spec; the support engineer refines it.
import { errorRefs, errorResponses, type ErrorRow, jsonBody, jsonResponse, noContent, pathParam, queryParam, RETRY_AFTER } from "../builders.ts";
import { ref } from "../schemas.ts";
import type { OpenApiSection, Operation, Schema, SecurityRequirement } from "../types.ts";

const GROUP = "Support API";
export const SUPPORT_TAGS = { client: "Client", conversations: "Conversations", contacts: "Contacts", webhooks: "Support Webhooks" };
export const SUPPORT_CLIENT_BASE = "/api/desk/public/api/desk/api/v1/inboxes/{inbox}";
export const SUPPORT_APP_BASE = "/api/desk/api/v1/accounts/{account}";
export const SUPPORT_EVENTS = [
  "conversation_created",
  "conversation_status_changed",
  "conversation_updated",
  "message_created",
  "contact_created",
  "message_updated",
  "contact_updated",
  "webwidget_triggered",
];

const error = (message: string) => ({ error: message, errors: [message] });
const ERRORS: ErrorRow[] = [
  { status: 401, name: "SupportUnauthorized", description: "No token or a revoked one; the client read of an account's contact.", example: error("Invalid Access Token") },
  { status: 403, name: "SupportForbidden", description: "A key of another kind, or a key whose maker is not on the desk.", example: error("This key cannot use the desk") },
  { status: 404, name: "SupportNotFound", description: "An unknown resource.", example: error("Resource could not be found") },
  { status: 422, name: "SupportUnprocessable", description: "A private note, a message that is not outgoing, no such agent, a bad webhook url or no known event.", example: error("Agent not found") },
  { status: 429, name: "SupportTooManyRequests", description: "The guest or thread guards, or the rate limit; Retry-After says when.", example: error("Too many requests"), headers: { "Retry-After": RETRY_AFTER } },
];

const desk: SecurityRequirement[] = [{ apiAccessToken: [] }, { key: [] }];
const string = { type: "string" };
const unix = { type: "integer", description: "Unix seconds." };
const payload = (schema: Schema | string) => ({
  type: "object",
  properties: { payload: typeof schema === "string" ? ref(schema) : schema },
});

function clientOp(o: Omit<Operation, "tags" | "security">, ...errors: number[]): Operation {
  return { ...o, tags: [SUPPORT_TAGS.client], security: [], responses: { ...o.responses, ...errorRefs(ERRORS, 429, ...errors) } };
}
function deskOp(tag: string, o: Omit<Operation, "tags" | "security">, ...errors: number[]): Operation {
  return { ...o, tags: [tag], security: desk, responses: { ...o.responses, ...errorRefs(ERRORS, 401, 403, 429, ...errors) } };
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
        attachments: { type: "array", items: { type: "object", additionalProperties: true } },
        echo_id: string,
      },
    },
    SupportMessageWrite: {
      type: "object",
      required: ["content"],
      properties: { content: { type: "string", maxLength: 4000 }, echo_id: string, message_type: { type: "string", enum: ["outgoing"] } },
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
        additional_attributes: { type: "object", additionalProperties: true },
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
      description: "A new guest; source_id is the contact's secret token.",
      properties: {
        id: { type: "integer" },
        source_id: string,
        name: { type: "null" },
        email: { type: "null" },
        identifier: { type: "null" },
        pubsub_token: { type: "null" },
        custom_attributes: { type: "object", additionalProperties: true },
        additional_attributes: { type: "object", additionalProperties: true },
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
      properties: { id: { type: "integer" }, name: string, email: string, role: string },
    },
    SupportWebhook: {
      type: "object",
      properties: {
        id: { type: "integer" },
        url: { type: "string", format: "uri" },
        subscriptions: { type: "array", items: { type: "string", enum: SUPPORT_EVENTS } },
        last_at: { type: ["string", "null"], format: "date-time" },
        last_error: { type: ["string", "null"] },
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
        "the chat widget script. No key: the contact's source_id in the path is its secret. Errors: { error, errors }.",
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
    const clientAction = (sub: string, operationId: string, summary: string, description: string, body?: Schema): Record<string, unknown> => ({
      [`${clientConversation}/${sub}`]: {
        parameters: [inbox, sourceId, conversationId],
        post: clientOp({
          operationId,
          summary,
          description,
          ...(body ? { requestBody: jsonBody(body) } : {}),
          responses: { "200": jsonResponse("Done.", { type: "object", additionalProperties: true }) },
        }, 404),
      },
    });
    return {
      [`${C}/contacts`]: {
        parameters: [inbox],
        post: clientOp({
          operationId: "supportCreateContact",
          summary: "Create a guest contact",
          description: "At most five new guests an hour from one address (429 past that).",
          requestBody: jsonBody({ type: "object", properties: { custom_attributes: { type: "object", additionalProperties: true }, path: string } }, undefined, false),
          responses: { "200": jsonResponse("The guest.", "GuestContact") },
        }, 404),
      },
      [`${C}/contacts/{source_id}`]: {
        parameters: [inbox, sourceId],
        get: clientOp({ operationId: "supportGetContact", summary: "Get the contact", responses: { "200": jsonResponse("The contact.", "GuestContact") } }, 401, 404),
        patch: clientOp({
          operationId: "supportUpdateContact",
          summary: "Update the contact's attributes",
          requestBody: jsonBody({ type: "object", properties: { custom_attributes: { type: "object", additionalProperties: true } } }),
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
          requestBody: jsonBody({ type: "object", properties: { path: string, custom_attributes: { type: "object", additionalProperties: true } } }, undefined, false),
          responses: { "200": jsonResponse("The conversation.", "ClientConversation") },
        }, 404),
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
          parameters: [queryParam("after", "Only lines after this time (unix seconds).", { type: "integer" })],
          responses: { "200": jsonResponse("Oldest first, at most 200.", { type: "array", items: ref("SupportMessage") }) },
        }, 404),
        post: clientOp({
          operationId: "supportCreateClientMessage",
          summary: "Send a message",
          description: "The contact's line: at most 4000 characters, one a second.",
          requestBody: jsonBody("SupportMessageWrite"),
          responses: { "200": jsonResponse("The message.", "SupportMessage") },
        }, 404),
      },
      ...clientAction("toggle_typing", "supportToggleTyping", "Show typing", "The inbox shows the contact typing.", {
        type: "object",
        required: ["typing_status"],
        properties: { typing_status: { type: "string", enum: ["on", "off"] } },
      }),
      ...clientAction("update_last_seen", "supportUpdateLastSeen", "Mark read", "Marks the conversation read up to now."),
      ...clientAction("toggle_status", "supportResolveClientConversation", "Resolve", "The contact resolves the conversation."),
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
          parameters: [
            queryParam("status", "Which.", { type: "string", enum: ["open", "pending", "resolved", "all"] }),
            queryParam("assignee_type", "Whose.", { type: "string", enum: ["me", "unassigned", "all"] }),
            queryParam("page", "25 per page, latest first.", { type: "integer", minimum: 1 }),
          ],
          responses: {
            "200": jsonResponse("The conversations and counts.", {
              type: "object",
              properties: {
                data: {
                  type: "object",
                  properties: {
                    meta: { type: "object", properties: { mine_count: { type: "integer" }, unassigned_count: { type: "integer" }, all_count: { type: "integer" } } },
                    payload: { type: "array", items: ref("SupportConversation") },
                  },
                },
              },
            }),
          },
        }),
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
          responses: { "200": jsonResponse("{ meta, payload }.", { type: "object", properties: { meta: { type: "object", additionalProperties: true }, payload: { type: "array", items: ref("SupportMessage") } } }) },
        }, 404),
        post: deskOp(SUPPORT_TAGS.conversations, {
          operationId: "supportCreateMessage",
          summary: "Reply as an agent",
          description: "An outgoing line as the key's maker; a private note or another message_type is 422.",
          requestBody: jsonBody("SupportMessageWrite"),
          responses: { "200": jsonResponse("The message.", "SupportMessage") },
        }, 404, 422),
      },
      [`${A}/conversations/{conversation_id}/toggle_status`]: {
        parameters: [account, conversationId],
        post: deskOp(SUPPORT_TAGS.conversations, {
          operationId: "supportToggleStatus",
          summary: "Change a conversation's status",
          description: "The given status, or without one: resolved, or open when it was resolved.",
          requestBody: jsonBody({ type: "object", properties: { status: { type: "string", enum: ["open", "pending", "resolved"] } } }, undefined, false),
          responses: { "200": jsonResponse("The new status.", payload({ type: "object", properties: { success: { type: "boolean" }, current_status: string, conversation_id: { type: "integer" } } })) },
        }, 404),
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
          parameters: [queryParam("page", "Ordered by last seen.", { type: "integer", minimum: 1 })],
          responses: { "200": jsonResponse("{ meta, payload }.", { type: "object", properties: { meta: { type: "object", properties: { count: { type: "integer" }, current_page: { type: "integer" } } }, payload: { type: "array", items: ref("SupportContact") } } }) },
        }),
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
