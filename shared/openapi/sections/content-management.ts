// Content Management: the cloud-mode writes of spec "Management API (cloud mode)", under a management key
// with the management media type; in git mode every write answers BadRequest (405) with the reason.
import {
  bothBases,
  headerRef,
  MANAGEMENT_MEDIA_TYPE,
  parameterRef,
  responseRef,
  SPACE_BASE,
} from "../common.ts";
import { MAX_UPLOAD_BYTES } from "../enums/content.ts";
import { json, pathParam, queryParam } from "../builders.ts";
import { ref } from "../schemas.ts";
import type {
  OpenApiSection,
  Operation,
  Parameter,
  Response,
  Schema,
  SecurityRequirement,
} from "../types.ts";

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

/** A management read (uploads, definitions): a management key in either mode, so no 405. */
function readOp(o: Omit<Operation, "tags" | "security">): Operation {
  const { "405": _gitMode, ...errors } = writeErrors;
  return { ...o, tags, security, responses: { ...o.responses, ...errors } };
}

/** A client mistake in the request: a body that is not JSON or too large, a bad id or version header. */
const badQuery = { "400": responseRef("BadQuery") };

/** Content types and locales come from the site: every write to them is 405 with that reason. */
function fromTheSite(operationId: string, summary: string, what: string): Operation {
  return {
    operationId,
    summary,
    description: `Always refused: ${what}. Answers BadRequest (405) with the reason, in either mode.`,
    tags,
    security,
    responses: {
      "401": responseRef("AccessTokenInvalid"),
      "403": responseRef("AccessDenied"),
      "405": responseRef("BadRequest"),
      "429": responseRef("RateLimitExceeded"),
    },
  };
}
const TYPES_FROM_MODELS = "content types come from the site's models (models/ in its content directory)";
const LOCALES_FROM_CONFIG = "locales come from the site's configuration (site.yaml)";
const NO_ARCHIVE =
  "entries and assets have no archived state: unpublish to take one off Delivery, or delete it";

/** What clients must set to send uploads here (reference: the upload host). */
const MAX_UPLOAD_MB = MAX_UPLOAD_BYTES / 1024 / 1024;

const HOST_UPLOAD_NOTE =
  "contentful-management sends uploads to its own upload host unless told otherwise: pass `hostUpload` equal to " +
  "`host` (with the same `basePath` and `insecure`) when creating the client, or the bytes go to Contentful's " +
  "upload.contentful.com instead of this site.";

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
      properties: {
        fields: { type: "object", additionalProperties: byLocale },
        metadata: { type: "object" },
      },
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
              description:
                "Per locale: { contentType, fileName, uploadFrom: Link to an Upload } or { ..., upload: `<url>` }.",
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
          items: {
            type: "string",
            pattern:
              "^(ContentManagement\\.|\\*\\.)?(Entry|Asset|\\*)\\.(create|save|publish|unpublish|delete|\\*)$",
          },
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
    description: "Cloud-mode writes under a management key, with Content-Type `" + MANAGEMENT_MEDIA_TYPE +
      "`: create, " +
      "replace, publish, unpublish and delete entries; upload, process and delete assets; manage webhook definitions. " +
      "The entry and asset reads above answer the management shapes (fields keyed by locale, sys.version) when asked " +
      "with that media type under a management key; their lists accept content_type, skip and limit. Content types " +
      "and locales are not written here (405: they come from the site's models and configuration). In git mode every " +
      "write answers BadRequest (405) with the reason. " + HOST_UPLOAD_NOTE,
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
          description:
            "Creates the entry at this id (201) or replaces its typed fields whole (200): an omitted field is dropped.",
          parameters: [versionHeader],
          requestBody: body("ManagementEntryWrite"),
          responses: {
            "200": answer("Replaced.", "ManagementEntry"),
            "201": answer("Created at this id.", "ManagementEntry"),
            ...badQuery,
            "404": responseRef("NotFound"),
            "409": responseRef("VersionMismatch"),
            "422": responseRef("ValidationFailed"),
          },
        }),
        delete: op({
          operationId: "deleteEntry",
          summary: "Delete an entry",
          description:
            "Removes the entry and publishes the removal: sync shows a DeletedEntry to older tokens.",
          parameters: [versionHeader],
          responses: {
            "204": empty("Deleted."),
            ...badQuery,
            "404": responseRef("NotFound"),
            "409": responseRef("VersionMismatch"),
          },
        }),
      }, entry),
      ...bothBases("/entries/{entry_id}/published", {
        put: op({
          operationId: "publishEntry",
          summary: "Publish an entry",
          description:
            "Publishes the draft at once (event Entry.publish); a required field left empty is 422.",
          parameters: [versionHeader],
          responses: {
            "200": answer("Published.", "ManagementEntry"),
            ...badQuery,
            "404": responseRef("NotFound"),
            "409": responseRef("VersionMismatch"),
            "422": responseRef("ValidationFailed"),
          },
        }),
        delete: op({
          operationId: "unpublishEntry",
          summary: "Unpublish an entry",
          description:
            "Delivery loses it; Preview keeps it (event Entry.unpublish). An entry not published is 400.",
          parameters: [versionHeader],
          responses: {
            "200": answer("Unpublished.", "ManagementEntry"),
            ...badQuery,
            "404": responseRef("NotFound"),
            "409": responseRef("VersionMismatch"),
          },
        }),
      }, entry),
      ...bothBases("/entries/{entry_id}/archived", {
        put: fromTheSite("archiveEntry", "Archive an entry (refused)", NO_ARCHIVE),
        delete: fromTheSite("unarchiveEntry", "Unarchive an entry (refused)", NO_ARCHIVE),
      }, entry),
      ...bothBases("/assets", {
        post: op({
          operationId: "createAsset",
          summary: "Create an asset",
          description:
            "An asset from fields.file[locale].uploadFrom (an upload) or .upload (a URL fetched through the outbound guard).",
          requestBody: body("ManagementAssetWrite"),
          responses: {
            "201": answer("Created (pending until processed).", "ManagementAsset"),
            ...badQuery,
            "422": responseRef("ValidationFailed"),
          },
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
            ...badQuery,
            "404": responseRef("NotFound"),
            "409": responseRef("VersionMismatch"),
            "422": responseRef("ValidationFailed"),
          },
        }),
        delete: op({
          operationId: "deleteAsset",
          summary: "Delete an asset",
          description: "409 while a record names it (details.used says which).",
          parameters: [versionHeader],
          responses: {
            "204": empty("Deleted."),
            ...badQuery,
            "404": responseRef("NotFound"),
            "409": responseRef("VersionMismatch"),
          },
        }),
      }, asset),
      ...bothBases("/assets/{asset_id}/files/{locale}/process", {
        put: op({
          operationId: "processAsset",
          summary: "Process an asset's file",
          description:
            "Takes the bytes into the library at `content/uploads/api/<id>/<fileName>` (event Asset.publish).",
          parameters: [versionHeader],
          responses: {
            "204": empty("Processed."),
            ...badQuery,
            "404": responseRef("NotFound"),
            "409": responseRef("VersionMismatch"),
            "422": responseRef("ValidationFailed"),
          },
        }),
      }, [...asset, pathParam("locale", "The locale whose file to process.")]),
      ...bothBases("/assets/{asset_id}/published", {
        put: op({
          operationId: "publishAsset",
          summary: "Publish an asset",
          description:
            "A library file is published by existing: answers the asset. One not processed yet is 422.",
          parameters: [versionHeader],
          responses: {
            "200": answer("The asset.", "ManagementAsset"),
            ...badQuery,
            "404": responseRef("NotFound"),
            "409": responseRef("VersionMismatch"),
            "422": responseRef("ValidationFailed"),
          },
        }),
        delete: op({
          operationId: "unpublishAsset",
          summary: "Unpublish an asset (refused)",
          description: "Always 400 for an asset that exists: delete the asset instead.",
          responses: { "400": responseRef("BadQuery"), "404": responseRef("NotFound") },
        }),
      }, asset),
      ...bothBases("/assets/{asset_id}/archived", {
        put: fromTheSite("archiveAsset", "Archive an asset (refused)", NO_ARCHIVE),
        delete: fromTheSite("unarchiveAsset", "Unarchive an asset (refused)", NO_ARCHIVE),
      }, asset),
      // asset.createFromFiles sends its bytes under the environment, upload.create without it: both are served
      ...bothBases("/uploads", {
        post: op({
          operationId: "createUpload",
          summary: "Upload bytes",
          description:
            `The body is the raw file (at most ${MAX_UPLOAD_MB} MB); the upload expires a day later. An empty body is 400. ` +
            HOST_UPLOAD_NOTE,
          requestBody: {
            required: true,
            content: {
              "application/octet-stream": {
                schema: { type: "string", contentMediaType: "application/octet-stream" },
              },
            },
          },
          responses: { "201": answer("The upload.", "Upload"), ...badQuery },
        }),
      }),
      ...bothBases("/uploads/{upload_id}", {
        get: readOp({
          operationId: "getUpload",
          summary: "Get an upload",
          responses: { "200": answer("The upload.", "Upload"), "404": responseRef("NotFound") },
        }),
        delete: op({
          operationId: "deleteUpload",
          summary: "Delete an upload",
          responses: { "204": empty("Deleted."), "404": responseRef("NotFound") },
        }),
      }, [uploadId]),
      ...bothBases("/content_types", {
        post: fromTheSite("createContentType", "Create a content type (refused)", TYPES_FROM_MODELS),
      }),
      ...bothBases("/content_types/{content_type_id}", {
        put: fromTheSite("putContentType", "Create or update a content type (refused)", TYPES_FROM_MODELS),
        delete: fromTheSite("deleteContentType", "Delete a content type (refused)", TYPES_FROM_MODELS),
      }, [parameterRef("content_type_id")]),
      ...bothBases("/content_types/{content_type_id}/published", {
        put: fromTheSite("publishContentType", "Publish a content type (refused)", TYPES_FROM_MODELS),
        delete: fromTheSite("unpublishContentType", "Unpublish a content type (refused)", TYPES_FROM_MODELS),
      }, [parameterRef("content_type_id")]),
      ...bothBases("/locales", {
        post: fromTheSite("createLocale", "Create a locale (refused)", LOCALES_FROM_CONFIG),
      }),
      ...bothBases("/locales/{locale_id}", {
        put: fromTheSite("putLocale", "Update a locale (refused)", LOCALES_FROM_CONFIG),
        delete: fromTheSite("deleteLocale", "Delete a locale (refused)", LOCALES_FROM_CONFIG),
      }, [pathParam("locale_id", "The locale's id.")]),
      [`${SPACE_BASE}/webhook_definitions`]: {
        parameters: [parameterRef("space")],
        get: readOp({
          operationId: "listWebhookDefinitions",
          summary: "List webhook definitions",
          parameters: [
            queryParam("skip", "How many to pass over.", { type: "integer", minimum: 0, default: 0 }),
            queryParam("limit", "How many to answer.", {
              type: "integer",
              minimum: 1,
              maximum: 1000,
              default: 100,
            }),
          ],
          responses: { "200": answer("The definitions.", "WebhookDefinitionCollection"), ...badQuery },
        }),
        post: op({
          operationId: "createWebhookDefinition",
          summary: "Create a webhook definition",
          description:
            "Topics `ContentManagement.<Entry|Asset>.<create|save|publish|unpublish|delete>` match by `<Type>.<event>`, " +
            "`<Type>.*` and `*.*`. A bad url or topic is 422, and so is a url naming localhost or a loopback or " +
            "private address unless the site allows such targets.",
          requestBody: body("WebhookDefinition"),
          responses: {
            "201": answer("Created.", "WebhookDefinition"),
            ...badQuery,
            "422": responseRef("ValidationFailed"),
          },
        }),
      },
      [`${SPACE_BASE}/webhook_definitions/{webhook_id}`]: {
        parameters: [parameterRef("space"), webhookId],
        get: readOp({
          operationId: "getWebhookDefinition",
          summary: "Get a webhook definition",
          responses: {
            "200": answer("The definition.", "WebhookDefinition"),
            "404": responseRef("NotFound"),
          },
        }),
        put: op({
          operationId: "putWebhookDefinition",
          summary: "Replace a webhook definition",
          description:
            "Needs the current version. One declared in the site's configuration (source file) is 405.",
          parameters: [versionHeader],
          requestBody: body("WebhookDefinition"),
          responses: {
            "200": answer("Replaced.", "WebhookDefinition"),
            ...badQuery,
            "404": responseRef("NotFound"),
            "409": responseRef("VersionMismatch"),
            "422": responseRef("ValidationFailed"),
          },
        }),
        delete: op({
          operationId: "deleteWebhookDefinition",
          summary: "Delete a webhook definition",
          description: "One declared in the site's configuration (source file) is 405.",
          parameters: [versionHeader],
          responses: {
            "204": empty("Deleted."),
            ...badQuery,
            "404": responseRef("NotFound"),
            "409": responseRef("VersionMismatch"),
          },
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
            "200": {
              description: "What was removed.",
              content: json({ type: "object", additionalProperties: true }),
            },
            ...badQuery,
            "401": responseRef("AccessTokenInvalid"),
          },
        },
      },
      "/api/content/sweep-image-cache": {
        post: {
          operationId: "sweepImageCache",
          summary: "Sweep the images door's cache",
          description:
            "Removes cached transforms of files no asset has any more (deleted, or replaced). The images door sweeps a " +
            "few after each transform it computes; pg_cron calls this daily (04:40) where the database has it. Service key only.",
          tags,
          security: [{ serviceRole: [] }],
          responses: {
            "200": {
              description: "How many cached transforms were removed.",
              content: json({
                type: "object",
                required: ["removed"],
                properties: { removed: { type: "integer", minimum: 0 } },
              }),
            },
            "401": responseRef("AccessTokenInvalid"),
          },
        },
      },
      "/api/content/webhooks/deliver": {
        post: {
          operationId: "deliverWebhooks",
          summary: "Deliver due webhooks",
          description:
            "Delivers the content API's webhook deliveries that are due, as the host's dispatcher does (every other API's function " +
            "serves its own delivery route at its function address). " +
            "Deployed on Supabase, pg_net calls it after a change that writes content webhooks and pg_cron every minute while some are due. " +
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
                  ["claimed", "delivered", "retrying", "failed"].map((
                    name,
                  ) => [name, { type: "integer", minimum: 0 }]),
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
                  ["claimed", "pushed", "retrying", "failed"].map((
                    name,
                  ) => [name, { type: "integer", minimum: 0 }]),
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
        BadRequest: errorAnswer(
          "BadRequest: a write in git mode, or to content types and locales; the message says why.",
          "BadRequest",
        ),
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
