// Content Management: the cloud-mode writes of spec "Management API (cloud mode)", under a management key
// with the management media type; in git mode every write answers BadRequest (405) with the reason.
import { bothBases, headerRef, MANAGEMENT_MEDIA_TYPE, parameterRef, responseRef, SPACE_BASE } from "../common.ts";
import { json, pathParam, queryParam } from "../builders.ts";
import { ref } from "../schemas.ts";
import type { OpenApiSection, Operation, Parameter, Response, Schema, SecurityRequirement } from "../types.ts";

export const CONTENT_MANAGEMENT_TAG = "Content Management";
export const WEBHOOK_TOPICS_EXAMPLE = ["ContentManagement.Entry.publish", "ContentManagement.Asset.*", "*.*"];

const tags = [CONTENT_MANAGEMENT_TAG];
const security: SecurityRequirement[] = [{ key: [] }, { access_token: [] }];
const managed = (schema: string | Schema) => ({
  [MANAGEMENT_MEDIA_TYPE]: { schema: typeof schema === "string" ? ref(schema) : schema },
});
const answer = (description: string, schema: string | Schema): Response => ({
  description,
  headers: { "X-Contentful-Request-Id": headerRef("X-Contentful-Request-Id") },
  content: managed(schema),
});
const body = (schema: string) => ({ required: true, content: { ...managed(schema), ...json(ref(schema)) } });
const empty = (description: string): Response => ({ description });

/** Every write can be refused alike: 401, 403 (not a management key), 405 (git mode), 429. */
const writeErrors = {
  "401": responseRef("AccessTokenInvalid"),
  "403": responseRef("AccessDenied"),
  "405": responseRef("BadRequest"),
  "429": responseRef("RateLimitExceeded"),
};

const versionHeader: Parameter = {
  name: "X-Contentful-Version",
  in: "header",
  description: "The version the write expects (sys.version); a stale one is VersionMismatch (409).",
  schema: { type: "integer", minimum: 0 },
};

function op(o: Omit<Operation, "tags" | "security">): Operation {
  return { ...o, tags, security, responses: { ...o.responses, ...writeErrors } };
}

const managementSys: Schema = {
  allOf: [ref("Sys"), {
    type: "object",
    properties: {
      version: { type: "integer", description: "The row's revision × 2, plus 1 while a draft is pending." },
      publishedVersion: { type: "integer" },
      publishedAt: { type: "string", format: "date-time" },
      firstPublishedAt: { type: "string", format: "date-time" },
      publishedCounter: { type: "integer", minimum: 0 },
      createdBy: ref("Link"),
      updatedBy: ref("Link"),
    },
  }],
};
const byLocale: Schema = {
  type: "object",
  description: "A field's value in each locale: { <locale code>: value }.",
  additionalProperties: true,
};

function schemas(): Record<string, Schema> {
  return {
    ManagementEntry: {
      type: "object",
      description: "An entry in the management shape: every field keyed by locale.",
      required: ["sys", "fields"],
      properties: { sys: managementSys, fields: { type: "object", additionalProperties: byLocale } },
    },
    ManagementEntryWrite: {
      type: "object",
      description:
        "The typed fields, keyed by locale. A rich-text field takes a document or its `<field>Markdown` twin (the " +
        "twin wins); an Asset link must name a library file (else 422 notResolvable); an Entry link names an entry id.",
      required: ["fields"],
      properties: { fields: { type: "object", additionalProperties: byLocale }, metadata: { type: "object" } },
    },
    ManagementEntryCollection: managementCollection("ManagementEntry"),
    ManagementAsset: {
      type: "object",
      required: ["sys", "fields"],
      properties: { sys: managementSys, fields: { type: "object", additionalProperties: byLocale } },
    },
    ManagementAssetWrite: {
      type: "object",
      required: ["fields"],
      properties: {
        fields: {
          type: "object",
          required: ["file"],
          properties: {
            title: byLocale,
            description: byLocale,
            file: {
              type: "object",
              description: "Per locale: { contentType, fileName, uploadFrom: Link to an Upload } or { ..., upload: <url> }.",
              additionalProperties: {
                type: "object",
                required: ["fileName"],
                properties: {
                  contentType: { type: "string" },
                  fileName: { type: "string" },
                  uploadFrom: ref("Link"),
                  upload: { type: "string", format: "uri" },
                },
              },
            },
          },
        },
      },
    },
    ManagementAssetCollection: managementCollection("ManagementAsset"),
    Upload: {
      type: "object",
      description: "Bytes waiting to become an asset; removed a day after creation.",
      required: ["sys"],
      properties: {
        sys: {
          type: "object",
          required: ["id", "type", "expiresAt"],
          properties: {
            id: { type: "string" },
            type: { const: "Upload" },
            createdAt: { type: "string", format: "date-time" },
            expiresAt: { type: "string", format: "date-time" },
            space: ref("Link"),
          },
        },
      },
    },
    WebhookDefinition: {
      type: "object",
      required: ["name", "url", "topics"],
      properties: {
        sys: ref("Sys"),
        name: { type: "string" },
        url: { type: "string", format: "uri" },
        topics: {
          type: "array",
          items: { type: "string", pattern: "^(ContentManagement\\.|\\*\\.)?(Entry|Asset|\\*)\\.(create|save|publish|unpublish|delete|\\*)$" },
          example: WEBHOOK_TOPICS_EXAMPLE,
        },
        headers: {
          type: "array",
          description: "Sent with every delivery; a secret header's value is never read back.",
          items: {
            type: "object",
            required: ["key"],
            properties: { key: { type: "string" }, value: { type: "string" }, secret: { type: "boolean" } },
          },
        },
        active: { type: "boolean" },
      },
    },
    WebhookDefinitionCollection: managementCollection("WebhookDefinition"),
  };
}

function managementCollection(item: string): Schema {
  return {
    type: "object",
    required: ["sys", "total", "skip", "limit", "items"],
    properties: {
      sys: { type: "object", properties: { type: { const: "Array" } } },
      total: { type: "integer", minimum: 0 },
      skip: { type: "integer", minimum: 0 },
      limit: { type: "integer", minimum: 1, maximum: 1000 },
      items: { type: "array", items: ref(item) },
    },
  };
}

export const contentManagementSection: OpenApiSection = {
  name: "content management",
  schemaNames: Object.keys(schemas()),
  tags: [{
    name: CONTENT_MANAGEMENT_TAG,
    group: "Content API",
    description:
      "Cloud-mode writes under a management key, with Content-Type `" + MANAGEMENT_MEDIA_TYPE + "`: create, " +
      "replace, publish, unpublish and delete entries; upload, process and delete assets; manage webhook definitions. " +
      "The entry and asset reads above answer the management shapes (fields keyed by locale, sys.version) when asked " +
      "with that media type under a management key; their lists accept content_type, skip and limit. Content types " +
      "and locales are not written here (405: they come from the site's models and configuration). In git mode every " +
      "write answers BadRequest (405) with the reason.",
  }],
  paths() {
    const entry = [parameterRef("entry_id")];
    const asset = [parameterRef("asset_id")];
    const uploadId = pathParam("upload_id", "The upload's id.");
    const webhookId = pathParam("webhook_id", "The webhook definition's id.");
    return {
      ...bothBases("/entries", {
        post: op({
          operationId: "createEntry",
          summary: "Create an entry",
          description:
            "Creates an unpublished entry with id `<type>.<path>`, the path taken from the record's slug field, else " +
            "its slugified title.",
          parameters: [{
            name: "X-Contentful-Content-Type",
            in: "header",
            required: true,
            description: "The new entry's content type id.",
            schema: { type: "string" },
          }],
          requestBody: body("ManagementEntryWrite"),
          responses: {
            "201": answer("Created (a draft).", "ManagementEntry"),
            "400": responseRef("BadQuery"),
            "409": responseRef("VersionMismatch"),
            "422": responseRef("ValidationFailed"),
          },
        }),
      }),
      ...bothBases("/entries/{entry_id}", {
        put: op({
          operationId: "putEntry",
          summary: "Create or replace an entry",
          description: "Creates the entry at this id (201) or replaces its typed fields whole (200): an omitted field is dropped.",
          parameters: [versionHeader],
          requestBody: body("ManagementEntryWrite"),
          responses: {
            "200": answer("Replaced.", "ManagementEntry"),
            "201": answer("Created at this id.", "ManagementEntry"),
            "409": responseRef("VersionMismatch"),
            "422": responseRef("ValidationFailed"),
          },
        }),
        delete: op({
          operationId: "deleteEntry",
          summary: "Delete an entry",
          description: "Removes the entry and publishes the removal: sync shows a DeletedEntry to older tokens.",
          responses: { "204": empty("Deleted."), "404": responseRef("NotFound") },
        }),
      }, entry),
      ...bothBases("/entries/{entry_id}/published", {
        put: op({
          operationId: "publishEntry",
          summary: "Publish an entry",
          description: "Publishes the draft at once (event Entry.publish).",
          parameters: [versionHeader],
          responses: { "200": answer("Published.", "ManagementEntry"), "404": responseRef("NotFound"), "409": responseRef("VersionMismatch") },
        }),
        delete: op({
          operationId: "unpublishEntry",
          summary: "Unpublish an entry",
          description: "Delivery loses it; Preview keeps it (event Entry.unpublish).",
          responses: { "200": answer("Unpublished.", "ManagementEntry"), "404": responseRef("NotFound") },
        }),
      }, entry),
      ...bothBases("/assets", {
        post: op({
          operationId: "createAsset",
          summary: "Create an asset",
          description: "An asset from fields.file[locale].uploadFrom (an upload) or .upload (a URL fetched through the outbound guard).",
          requestBody: body("ManagementAssetWrite"),
          responses: { "201": answer("Created (pending until processed).", "ManagementAsset"), "422": responseRef("ValidationFailed") },
        }),
      }),
      ...bothBases("/assets/{asset_id}", {
        put: op({
          operationId: "putAsset",
          summary: "Create or replace an asset",
          parameters: [versionHeader],
          requestBody: body("ManagementAssetWrite"),
          responses: {
            "200": answer("Replaced.", "ManagementAsset"),
            "201": answer("Created at this id.", "ManagementAsset"),
            "409": responseRef("VersionMismatch"),
            "422": responseRef("ValidationFailed"),
          },
        }),
        delete: op({
          operationId: "deleteAsset",
          summary: "Delete an asset",
          description: "409 while a record names it (details.used says which).",
          responses: { "204": empty("Deleted."), "404": responseRef("NotFound"), "409": responseRef("VersionMismatch") },
        }),
      }, asset),
      ...bothBases("/assets/{asset_id}/files/{locale}/process", {
        put: op({
          operationId: "processAsset",
          summary: "Process an asset's file",
          description: "Takes the bytes into the library at content/uploads/api/<id>/<fileName> (event Asset.publish).",
          responses: { "204": empty("Processed."), "404": responseRef("NotFound"), "422": responseRef("ValidationFailed") },
        }),
      }, [...asset, pathParam("locale", "The locale whose file to process.")]),
      ...bothBases("/assets/{asset_id}/published", {
        put: op({
          operationId: "publishAsset",
          summary: "Publish an asset",
          description: "A library file is published by existing: answers the asset.",
          responses: { "200": answer("The asset.", "ManagementAsset"), "404": responseRef("NotFound") },
        }),
        delete: op({
          operationId: "unpublishAsset",
          summary: "Unpublish an asset (refused)",
          description: "Always 400: delete the asset instead.",
          responses: { "400": responseRef("BadQuery") },
        }),
      }, asset),
      [`${SPACE_BASE}/uploads`]: {
        parameters: [parameterRef("space")],
        post: op({
          operationId: "createUpload",
          summary: "Upload bytes",
          description: "The body is the raw file; the upload expires a day later.",
          requestBody: {
            required: true,
            content: { "application/octet-stream": { schema: { type: "string", contentMediaType: "application/octet-stream" } } },
          },
          responses: { "201": answer("The upload.", "Upload") },
        }),
      },
      [`${SPACE_BASE}/uploads/{upload_id}`]: {
        parameters: [parameterRef("space"), uploadId],
        get: op({
          operationId: "getUpload",
          summary: "Get an upload",
          responses: { "200": answer("The upload.", "Upload"), "404": responseRef("NotFound") },
        }),
        delete: op({
          operationId: "deleteUpload",
          summary: "Delete an upload",
          responses: { "204": empty("Deleted."), "404": responseRef("NotFound") },
        }),
      },
      [`${SPACE_BASE}/webhook_definitions`]: {
        parameters: [parameterRef("space")],
        get: op({
          operationId: "listWebhookDefinitions",
          summary: "List webhook definitions",
          responses: { "200": answer("The definitions.", "WebhookDefinitionCollection") },
        }),
        post: op({
          operationId: "createWebhookDefinition",
          summary: "Create a webhook definition",
          description:
            "Topics ContentManagement.<Entry|Asset>.<create|save|publish|unpublish|delete> match by `<Type>.<event>`, " +
            "`<Type>.*` and `*.*`. A bad url or topic is 422.",
          requestBody: body("WebhookDefinition"),
          responses: { "201": answer("Created.", "WebhookDefinition"), "422": responseRef("ValidationFailed") },
        }),
      },
      [`${SPACE_BASE}/webhook_definitions/{webhook_id}`]: {
        parameters: [parameterRef("space"), webhookId],
        get: op({
          operationId: "getWebhookDefinition",
          summary: "Get a webhook definition",
          responses: { "200": answer("The definition.", "WebhookDefinition"), "404": responseRef("NotFound") },
        }),
        put: op({
          operationId: "putWebhookDefinition",
          summary: "Replace a webhook definition",
          requestBody: body("WebhookDefinition"),
          responses: {
            "200": answer("Replaced.", "WebhookDefinition"),
            "404": responseRef("NotFound"),
            "422": responseRef("ValidationFailed"),
          },
        }),
        delete: op({
          operationId: "deleteWebhookDefinition",
          summary: "Delete a webhook definition",
          responses: { "204": empty("Deleted."), "404": responseRef("NotFound") },
        }),
      },
      "/api/content/sweep-uploads": {
        post: {
          operationId: "sweepUploads",
          summary: "Sweep expired uploads",
          description:
            "The daily sweep (04:50): removes uploads, and assets never processed, older than a day. Service key only.",
          tags,
          security: [{ serviceRole: [] }],
          parameters: [
            queryParam("older_than_ms", "For a manual run: the age, in milliseconds, past which to sweep.", {
              type: "integer",
              minimum: 0,
            }),
          ],
          responses: {
            "200": { description: "What was removed.", content: json({ type: "object", additionalProperties: true }) },
            "401": responseRef("AccessTokenInvalid"),
          },
        },
      },
      "/api/content/webhooks/deliver": {
        post: {
          operationId: "deliverWebhooks",
          summary: "Deliver due webhooks",
          description:
            "Delivers the webhook deliveries that are due, of every API (content, forms, scheduling), as the host's dispatcher does. " +
            "Deployed on Supabase, pg_net calls it after a change that writes webhooks and pg_cron every minute while some are due. " +
            "Service key only.",
          tags,
          security: [{ serviceRole: [] }],
          responses: {
            "200": {
              description: "What this call did: rows claimed, delivered, to be retried, given up.",
              content: json({
                type: "object",
                required: ["claimed", "delivered", "retrying", "failed"],
                properties: Object.fromEntries(
                  ["claimed", "delivered", "retrying", "failed"].map((name) => [name, { type: "integer", minimum: 0 }]),
                ),
              }),
            },
            "401": responseRef("AccessTokenInvalid"),
          },
        },
      },
      "/api/content/repository/push": {
        post: {
          operationId: "pushToRepository",
          summary: "Push due changes to the content directory",
          description:
            "Cloud mode: writes the entries published, unpublished or deleted and the asset files processed or deleted " +
            "(through the API or in the database) to the site's content directory, committing each change where the " +
            "directory is a git work tree, as the host's worker does. For a deployment whose content function runs beside " +
            "the directory; call it from a scheduler. Service key only.",
          tags,
          security: [{ serviceRole: [] }],
          responses: {
            "200": {
              description: "What this call did: pushes claimed, pushed, to be retried, given up.",
              content: json({
                type: "object",
                required: ["claimed", "pushed", "retrying", "failed"],
                properties: Object.fromEntries(
                  ["claimed", "pushed", "retrying", "failed"].map((name) => [name, { type: "integer", minimum: 0 }]),
                ),
              }),
            },
            "401": responseRef("AccessTokenInvalid"),
          },
        },
      },
    };
  },
  components() {
    return {
      schemas: schemas(),
      responses: {
        VersionMismatch: errorAnswer(
          "VersionMismatch: a stale X-Contentful-Version, an entry already at the id, or an asset still in use (details.used).",
          "VersionMismatch",
        ),
        ValidationFailed: errorAnswer(
          "ValidationFailed: details.errors[] names each refused field: { name (unknown, notResolvable, invalid), " +
            "path ['fields', <field>], details }.",
          "ValidationFailed",
        ),
        BadRequest: errorAnswer("BadRequest: a write in git mode, or to content types and locales; the message says why.", "BadRequest"),
      },
      securitySchemes: {
        serviceRole: {
          type: "http",
          scheme: "bearer",
          description: "The deployment's service role key (Supabase), for the scheduled jobs only.",
        },
      },
    };
  },
};

function errorAnswer(description: string, id: string): Response {
  return {
    description,
    headers: { "X-Contentful-Request-Id": headerRef("X-Contentful-Request-Id") },
    content: {
      [MANAGEMENT_MEDIA_TYPE]: {
        schema: ref("Error"),
        example: { sys: { type: "Error", id }, message: description.split(":")[0], requestId: "4c5f2a0e" },
      },
    },
  };
}
