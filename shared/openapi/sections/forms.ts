// The Forms API (Typeform-compatible; spec forms-and-scheduling.md "Forms API"), described from the spec
// so the document is whole before the forms-api function is; its engineer refines this section.
import {
  errorRefs,
  errorResponses,
  type ErrorRow,
  jsonBody,
  jsonResponse,
  noContent,
  pathParam,
  queryParam,
  RETRY_AFTER,
} from "../builders.ts";
import { ref } from "../schemas.ts";
import type { OpenApiSection, Operation, Parameter, Schema, SecurityRequirement } from "../types.ts";
import { FIELD_TYPES, RESPONSE_SORTS } from "../enums/forms.ts";

const GROUP = "Forms API";
export const FORMS_TAGS = { forms: "Forms", responses: "Responses", webhooks: "Webhooks", insights: "Insights" };
export const FORMS_BASE = "/api";

const ERRORS: ErrorRow[] = [
  { status: 400, name: "FormsBadRequest", description: "VALIDATION_ERROR (an argument out of range, a bad tag or url, an existing id on POST, an unparsable line, an unnamed form, a bad patch) or BAD_REQUEST (a question type or jump the runner cannot express).", example: { code: "VALIDATION_ERROR", description: "page_size must be between 1 and 200" } },
  { status: 401, name: "FormsUnauthorized", description: "AUTHENTICATION_FAILED: no key, or a revoked one.", example: { code: "AUTHENTICATION_FAILED", description: "Authentication credentials not found on the Request Headers" } },
  { status: 403, name: "FormsForbidden", description: "FORBIDDEN: a key of another kind.", example: { code: "FORBIDDEN", description: "This key cannot use the Forms API." } },
  { status: 404, name: "FormsNotFound", description: "NOT_FOUND: an unknown or unpublished form (and every theme and image route).", example: { code: "NOT_FOUND", description: "Form not found" } },
  { status: 405, name: "FormsMethodNotAllowed", description: "METHOD_NOT_ALLOWED: a write to a form in git mode.", example: { code: "METHOD_NOT_ALLOWED", description: "Forms are edited in the site's repository." } },
  { status: 429, name: "FormsTooManyRequests", description: "TOO_MANY_REQUESTS; Retry-After says when to try again.", example: { code: "TOO_MANY_REQUESTS", description: "Too many requests" }, headers: { "Retry-After": RETRY_AFTER } },
];

const security: SecurityRequirement[] = [{ key: [] }, { access_token: [] }];
const formId = pathParam("form_id", "The form's id (its slug).");
const string = { type: "string" };
const dateTime = { type: "string", format: "date-time" };
const href = { type: "object", properties: { href: { type: "string", format: "uri" } } };

function op(tag: string, o: Omit<Operation, "tags" | "security">, ...errors: number[]): Operation {
  return { ...o, tags: [tag], security, responses: { ...o.responses, ...errorRefs(ERRORS, 401, 403, 429, ...errors) } };
}

function schemas(): Record<string, Schema> {
  const field: Schema = {
    type: "object",
    required: ["id", "ref", "title", "type"],
    properties: {
      id: string,
      ref: string,
      title: string,
      type: {
        type: "string",
        // the types the form runner has a kind for, and the group every slide is
        enum: [...FIELD_TYPES, "group"],
      },
      properties: { type: "object", additionalProperties: true },
      validations: {
        type: "object",
        properties: { required: { type: "boolean" }, min_value: { type: "number" }, max_value: { type: "number" } },
      },
    },
  };
  return {
    FormsError: {
      type: "object",
      description: "The Forms API's error body.",
      required: ["code", "description"],
      properties: {
        code: { type: "string", enum: ["AUTHENTICATION_FAILED", "FORBIDDEN", "NOT_FOUND", "BAD_REQUEST", "VALIDATION_ERROR", "METHOD_NOT_ALLOWED", "TOO_MANY_REQUESTS"] },
        description: string,
        details: { type: "array", items: { type: "object", additionalProperties: true } },
      },
    },
    FormsUser: {
      type: "object",
      properties: { alias: string, email: string, language: string, user_id: string },
    },
    Workspace: {
      type: "object",
      properties: {
        id: { const: "default" },
        name: string,
        default: { type: "boolean" },
        shared: { type: "boolean" },
        forms: { type: "object", properties: { count: { type: "integer" }, href: string } },
        self: href,
      },
    },
    WorkspaceList: list("Workspace"),
    FormField: field,
    Form: {
      type: "object",
      description: "A form's definition: one group per slide, logic jumps, welcome and thank-you screens.",
      required: ["title"],
      properties: {
        id: string,
        type: { type: "string", enum: ["form", "quiz"] },
        title: string,
        workspace: href,
        theme: href,
        settings: { type: "object", additionalProperties: true },
        welcome_screens: { type: "array", items: { type: "object", additionalProperties: true } },
        thankyou_screens: { type: "array", items: { type: "object", additionalProperties: true } },
        fields: { type: "array", items: ref("FormField") },
        logic: { type: "array", items: { type: "object", additionalProperties: true } },
        created_at: dateTime,
        last_updated_at: dateTime,
        published_at: dateTime,
        _links: { type: "object", properties: { display: string, responses: string } },
      },
    },
    FormListItem: {
      type: "object",
      properties: {
        id: string,
        title: string,
        last_updated_at: dateTime,
        created_at: dateTime,
        settings: { type: "object", properties: { is_public: { type: "boolean" }, is_trial: { type: "boolean" } } },
        self: href,
        theme: href,
        _links: { type: "object", properties: { display: string, responses: string } },
      },
    },
    FormList: list("FormListItem"),
    JsonPatch: {
      type: "array",
      description: "RFC 6902 operations applied to the definition as GET answers it.",
      items: {
        type: "object",
        required: ["op", "path"],
        properties: {
          op: { type: "string", enum: ["add", "replace", "remove", "move", "copy", "test"] },
          path: string,
          from: string,
          value: {},
        },
      },
    },
    FormAnswer: {
      type: "object",
      required: ["field", "type"],
      properties: {
        field: { type: "object", properties: { id: string, type: string, ref: string } },
        type: { type: "string", enum: ["text", "email", "url", "phone_number", "number", "choice", "choices", "date", "file_url"] },
      },
      additionalProperties: true,
    },
    FormResponse: {
      type: "object",
      properties: {
        landing_id: string,
        token: string,
        response_id: string,
        response_type: { const: "completed" },
        landed_at: dateTime,
        submitted_at: { type: ["string", "null"], format: "date-time" },
        metadata: { type: "object", additionalProperties: true },
        hidden: { type: "object", additionalProperties: { type: "string" } },
        calculated: { type: "object", properties: { score: { type: "number" } } },
        variables: { type: "array", items: { type: "object", additionalProperties: true } },
        ending: { type: "object", properties: { id: string, ref: string } },
        answers: { type: "array", items: ref("FormAnswer") },
      },
    },
    FormResponseList: list("FormResponse"),
    FormWebhook: {
      type: "object",
      description: "A subscription; its secret is never returned.",
      properties: {
        id: string,
        form_id: string,
        tag: { type: "string", pattern: "^[a-zA-Z0-9_.-]{1,64}$" },
        url: { type: "string", format: "uri" },
        enabled: { type: "boolean" },
        verify_ssl: { type: "boolean" },
        created_at: dateTime,
        updated_at: dateTime,
      },
    },
    FormWebhookWrite: {
      type: "object",
      description: "url is needed for a new tag; on an existing one an absent url keeps the stored one.",
      properties: {
        url: { type: "string", format: "uri" },
        enabled: { type: "boolean" },
        secret: string,
        verify_ssl: { type: "boolean" },
      },
    },
    FormWebhookList: { type: "object", properties: { items: { type: "array", items: ref("FormWebhook") } } },
    InsightsSummary: {
      type: "object",
      properties: {
        fields: { type: "array", items: { type: "object", additionalProperties: true } },
        form: {
          type: "object",
          properties: {
            platforms: { type: "array", items: { type: "object", additionalProperties: true } },
            summary: { type: "object", additionalProperties: { type: "number" } },
          },
        },
      },
    },
  };
}

function list(item: string): Schema {
  return {
    type: "object",
    required: ["total_items", "page_count", "items"],
    properties: {
      total_items: { type: "integer", minimum: 0 },
      page_count: { type: "integer", minimum: 0 },
      items: { type: "array", items: ref(item) },
    },
  };
}

function responseListParameters(): Parameter[] {
  return [
    queryParam("page_size", "1 to 1000, default 25.", { type: "integer", minimum: 1, maximum: 1000, default: 25 }),
    queryParam("since", "Responses submitted (or, while open, started) at or after this instant.", dateTime),
    queryParam("until", "… before this instant.", dateTime),
    queryParam("after", "Responses after this token (a response_id or token) in the chosen order.", string),
    queryParam("before", "Responses before this token in the chosen order.", string),
    queryParam("included_response_ids", "Only these tokens (comma list).", string),
    queryParam("completed", "`true`, `false` or `all` (default).", { type: "string", enum: ["true", "false", "all"], default: "all" }),
    queryParam("sort", "Order.", { type: "string", enum: [...RESPONSE_SORTS], default: "submitted_at,desc" }),
    queryParam("query", "A word to find in any answer.", string),
    queryParam("fields", "Only these fields' answers on each item (comma list).", string),
    queryParam("answered_fields", "Only responses that answered every listed field (comma list).", string),
  ];
}

export const formsSection: OpenApiSection = {
  name: "forms",
  requires: ["forms"],
  schemaNames: Object.keys(schemas()),
  tags: [
    {
      name: FORMS_TAGS.forms,
      group: GROUP,
      description:
        "The site's published forms (Typeform-compatible; base {base_url}/api, and /v1/* is rewritten to it). A forms " +
        "key is needed on every request, as a bearer or ?access_token= (the public-API switch does not waive it). " +
        "In cloud mode forms can be created, replaced, patched and deleted; in git mode those answer 405. /themes and " +
        "/images always answer NOT_FOUND. Errors: { code, description }.",
    },
    { name: FORMS_TAGS.responses, group: GROUP, description: "A form's responses: listed, paged by token, deleted; uploaded files." },
    { name: FORMS_TAGS.webhooks, group: GROUP, description: "Per-form subscriptions, signed with Typeform-Signature." },
    { name: FORMS_TAGS.insights, group: GROUP, description: "Per-form statistics." },
  ],
  paths() {
    const F = FORMS_TAGS.forms;
    const tag = pathParam("tag", "The subscription's tag.", { type: "string", pattern: "^[a-zA-Z0-9_.-]{1,64}$" });
    return {
      [`${FORMS_BASE}/me`]: {
        get: op(F, { operationId: "formsGetMe", summary: "Get the current user", responses: { "200": jsonResponse("The key's user.", "FormsUser") } }),
      },
      [`${FORMS_BASE}/workspaces`]: {
        get: op(F, { operationId: "formsListWorkspaces", summary: "List workspaces", description: "One workspace: the site.", responses: { "200": jsonResponse("The workspaces.", "WorkspaceList") } }),
      },
      [`${FORMS_BASE}/workspaces/default`]: {
        get: op(F, { operationId: "formsGetWorkspace", summary: "Get the workspace", responses: { "200": jsonResponse("The site's workspace.", "Workspace") } }),
      },
      [`${FORMS_BASE}/forms`]: {
        get: op(F, {
          operationId: "formsListForms",
          summary: "List forms",
          parameters: [
            queryParam("search", "A word in the title.", string),
            queryParam("page", "From 1.", { type: "integer", minimum: 1, default: 1 }),
            queryParam("page_size", "1 to 200, default 10.", { type: "integer", minimum: 1, maximum: 200, default: 10 }),
          ],
          responses: { "200": jsonResponse("A page of forms.", "FormList") },
        }, 400),
        post: op(F, {
          operationId: "formsCreateForm",
          summary: "Create a form (cloud mode)",
          description: "Creates the form document and publishes it at once. The id is the given id or the slugified title.",
          requestBody: jsonBody("Form"),
          responses: { "201": jsonResponse("The definition read back.", "Form") },
        }, 400, 405),
      },
      [`${FORMS_BASE}/forms/{form_id}`]: {
        parameters: [formId],
        get: op(F, { operationId: "formsGetForm", summary: "Get a form", responses: { "200": jsonResponse("The definition.", "Form") } }, 404),
        put: op(F, {
          operationId: "formsPutForm",
          summary: "Create or replace a form (cloud mode)",
          requestBody: jsonBody("Form"),
          responses: { "200": jsonResponse("Replaced.", "Form"), "201": jsonResponse("Created at this id.", "Form") },
        }, 400, 405),
        patch: op(F, {
          operationId: "formsPatchForm",
          summary: "Patch a form (cloud mode)",
          description: "A JSON Patch applied to the definition as GET answers it, then written as PUT does.",
          requestBody: jsonBody("JsonPatch"),
          responses: { "200": jsonResponse("The patched definition.", "Form") },
        }, 400, 404, 405),
        delete: op(F, {
          operationId: "formsDeleteForm",
          summary: "Delete a form (cloud mode)",
          description: "Removes the document and publishes the removal; responses are kept.",
          responses: { "204": noContent("Deleted.") },
        }, 404, 405),
      },
      [`${FORMS_BASE}/forms/{form_id}/responses`]: {
        parameters: [formId],
        get: op(FORMS_TAGS.responses, {
          operationId: "formsListResponses",
          summary: "List responses",
          parameters: responseListParameters(),
          responses: { "200": jsonResponse("A page of responses, answers in the form's field order.", "FormResponseList") },
        }, 400, 404),
        delete: op(FORMS_TAGS.responses, {
          operationId: "formsDeleteResponses",
          summary: "Delete responses",
          description: "Removes the responses, their answers and their files.",
          parameters: [
            queryParam("included_tokens", "The responses' tokens (comma list).", string),
            queryParam("included_response_ids", "Accepted too.", string),
          ],
          responses: { "204": noContent("Deleted.") },
        }, 400, 404),
      },
      [`${FORMS_BASE}/forms/{form_id}/responses/{token}/fields/{ref}/files/{filename}`]: {
        parameters: [formId, pathParam("token", "The response's token."), pathParam("ref", "The field's ref."), pathParam("filename", "The file's name.")],
        get: op(FORMS_TAGS.responses, {
          operationId: "formsGetResponseFile",
          summary: "Get an uploaded file",
          responses: {
            "302": {
              description: "A redirect to a signed address, valid for one hour.",
              headers: { Location: { description: "The signed address.", schema: { type: "string", format: "uri" } } },
            },
          },
        }, 404),
      },
      [`${FORMS_BASE}/forms/{form_id}/webhooks`]: {
        parameters: [formId],
        get: op(FORMS_TAGS.webhooks, { operationId: "formsListWebhooks", summary: "List webhooks", responses: { "200": jsonResponse("The form's subscriptions.", "FormWebhookList") } }, 404),
      },
      [`${FORMS_BASE}/forms/{form_id}/webhooks/{tag}`]: {
        parameters: [formId, tag],
        get: op(FORMS_TAGS.webhooks, { operationId: "formsGetWebhook", summary: "Get a webhook", responses: { "200": jsonResponse("The subscription.", "FormWebhook") } }, 404),
        put: op(FORMS_TAGS.webhooks, {
          operationId: "formsPutWebhook",
          summary: "Create or update a webhook",
          requestBody: jsonBody("FormWebhookWrite"),
          responses: { "200": jsonResponse("Updated.", "FormWebhook"), "201": jsonResponse("Created.", "FormWebhook") },
        }, 400, 404),
        delete: op(FORMS_TAGS.webhooks, { operationId: "formsDeleteWebhook", summary: "Delete a webhook", responses: { "204": noContent("Deleted.") } }, 404),
      },
      [`${FORMS_BASE}/insights/{form_id}/summary`]: {
        parameters: [formId],
        get: op(FORMS_TAGS.insights, { operationId: "formsGetInsights", summary: "Get a form's insights", responses: { "200": jsonResponse("Visits, completions and drop-offs.", "InsightsSummary") } }, 404),
      },
    };
  },
  components() {
    return { schemas: schemas(), responses: errorResponses("FormsError", ERRORS) };
  },
};
