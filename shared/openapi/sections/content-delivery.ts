// Content Delivery: the space, the environment, entries, assets, content types, locales (each under both
// bases, spec "Content API: addresses" and "Collection arguments") and the OpenAPI document's own routes.
import {
  ENVIRONMENT_BASE,
  headerRef,
  parameterRef,
  readOperation,
  SPACE_BASE,
  underBothBases,
} from "../common.ts";
import { MIMETYPE_GROUPS as MIMETYPE_GROUP_TYPES } from "../enums/content.ts";
import type { OpenApiSection, Operation, Parameter, PathItem, SectionContext } from "../types.ts";

export const CONTENT_DELIVERY_TAG = "Content Delivery";

export const MIMETYPE_GROUPS = Object.keys(MIMETYPE_GROUP_TYPES);

const FILTER_OPERATORS = [
  "ne",
  "in",
  "nin",
  "exists",
  "lt",
  "lte",
  "gt",
  "gte",
  "match",
  "all",
  "near",
  "within",
];
const SYS_ORDER = ["sys.createdAt", "sys.updatedAt", "sys.id", "sys.revision"];

// ---- Collection arguments ----

/** content_type: an enum of the site's type ids (no enum when the site has none). */
export function contentTypeParameter(ctx: SectionContext, description: string): Parameter {
  return {
    name: "content_type",
    in: "query",
    description,
    schema: ctx.typeIds.length ? { type: "string", enum: [...ctx.typeIds] } : { type: "string" },
  };
}

function localeParameter(ctx: SectionContext): Parameter {
  return {
    name: "locale",
    in: "query",
    description:
      "A locale code of the site, or `*` for every locale (each field value becomes an object keyed by locale code). " +
      "Any other value is BadQuery.",
    schema: {
      type: "string",
      enum: [...ctx.localeCodes, "*"],
      ...(ctx.defaultLocale ? { default: ctx.defaultLocale } : {}),
    },
  };
}

const selectParameter = (): Parameter => ({
  name: "select",
  in: "query",
  description:
    "Comma list of the parts to return, such as `sys.id,fields.title`; two levels at most. sys is always returned whole.",
  style: "form",
  explode: false,
  schema: { type: "array", items: { type: "string", pattern: "^(sys|fields)(\\.[A-Za-z0-9_]+)?$" } },
  example: ["sys.id", "fields.title"],
});

const includeParameter = (): Parameter => ({
  name: "include",
  in: "query",
  description:
    "Depth of linked entries and assets returned in includes.Entry and includes.Asset (0 to 10, default 1). " +
    "The page's own items are never repeated in includes; a link to nothing published is listed in errors.",
  schema: { type: "integer", minimum: 0, maximum: 10, default: 1 },
});

const limitParameter = (): Parameter => ({
  name: "limit",
  in: "query",
  description: "Page size, 1 to 1000 (default 100). Out of range is BadQuery.",
  schema: { type: "integer", minimum: 1, maximum: 1000, default: 100 },
});

const skipParameter = (): Parameter => ({
  name: "skip",
  in: "query",
  description: "Items to skip, from 0.",
  schema: { type: "integer", minimum: 0, default: 0 },
});

const queryParameter = (what: string): Parameter => ({
  name: "query",
  in: "query",
  description: `Full-text search over ${what}.`,
  schema: { type: "string" },
});

const stringQuery = (name: string, description: string): Parameter => ({
  name,
  in: "query",
  description,
  schema: { type: "string" },
});

function orderParameter(description: string, itemPattern: string, fallback: string): Parameter {
  return {
    name: "order",
    in: "query",
    description,
    style: "form",
    explode: false,
    schema: { type: "array", items: { type: "string", pattern: itemPattern }, default: [fallback] },
  };
}

const SYS_ID_IN = (): Parameter => ({
  name: "sys.id[in]",
  in: "query",
  description: "Only the items with one of these ids (comma list).",
  style: "form",
  explode: false,
  schema: { type: "array", items: { type: "string" } },
});

/**
 * The sys.* and fields.* filters. Their names are open-ended (`fields.<field>[<operator>]`), which OpenAPI
 * cannot list, so they are one form-exploded object whose property names follow a pattern, described here.
 */
function entryFiltersParameter(ctx: SectionContext): Parameter {
  const fieldsByType = ctx.input.contentTypes
    .map((type) => `- ${type.sys.id}: ${type.fields.filter((f) => !f.omitted).map((f) => f.id).join(", ")}`)
    .join("\n");
  return {
    name: "filters",
    in: "query",
    style: "form",
    explode: true,
    description: [
      "Filters on sys and fields, each sent as its own query parameter (the name `filters` itself is not sent):",
      "",
      "- `sys.id=<id>`, `sys.id[in]=<a>,<b>`, `sys.createdAt[gte]=<date>`, `sys.updatedAt[lt]=<date>`, `sys.revision[gt]=<n>` and the like",
      "- `fields.<field>=<value>` for equality, or `fields.<field>[<op>]=<value>` with op one of " +
      "ne, in, nin, exists, lt, lte, gt, gte, match, all",
      "- `fields.<link>.sys.id=<id>` filters on a link's target",
      "",
      "Filtering or ordering on fields.* needs content_type (else BadQuery). [near] and [within] answer InvalidQuery " +
      "(there are no location fields).",
      ...(fieldsByType ? ["", "Fields by content type:", fieldsByType] : []),
    ].join("\n"),
    schema: {
      type: "object",
      propertyNames: {
        pattern: `^(sys\\.[A-Za-z]+(\\.[A-Za-z]+)*|fields\\.[A-Za-z0-9_]+(\\.sys\\.id)?)(\\[(${
          FILTER_OPERATORS.join("|")
        })\\])?$`,
      },
      additionalProperties: { type: "string" },
    },
    example: { "fields.slug": "hello-world", "sys.createdAt[gte]": "2024-01-01T00:00:00Z" },
  };
}

function entryCollectionParameters(ctx: SectionContext): Parameter[] {
  const fieldIds = new Set(ctx.input.contentTypes.flatMap((t) => t.fields.map((f) => f.id)));
  return [
    contentTypeParameter(
      ctx,
      "Only entries of this content type; required to filter or order on fields.* (else BadQuery).",
    ),
    selectParameter(),
    includeParameter(),
    localeParameter(ctx),
    orderParameter(
      `Comma list of ${
        SYS_ORDER.join(", ")
      } or \`fields.<field>\` (with content_type); a leading \`-\` means descending. ` +
        "Default -sys.createdAt." +
        (fieldIds.size ? ` Field ids of the site's types: ${[...fieldIds].join(", ")}.` : ""),
      `^-?(${SYS_ORDER.map((s) => s.replace(".", "\\.")).join("|")}|fields\\.[A-Za-z0-9_]+)$`,
      "-sys.createdAt",
    ),
    limitParameter(),
    skipParameter(),
    queryParameter("every field and the body"),
    stringQuery("links_to_entry", "Only entries linking to the entry with this id."),
    stringQuery("links_to_asset", "Only entries linking to the asset with this id."),
    SYS_ID_IN(),
    entryFiltersParameter(ctx),
  ];
}

function assetCollectionParameters(ctx: SectionContext): Parameter[] {
  return [
    selectParameter(),
    localeParameter(ctx),
    orderParameter(
      "sys.createdAt or fields.title; a leading `-` means descending. Default -sys.createdAt.",
      "^-?(sys\\.createdAt|fields\\.title)$",
      "-sys.createdAt",
    ),
    limitParameter(),
    skipParameter(),
    queryParameter("the assets' titles and file names"),
    SYS_ID_IN(),
    stringQuery("fields.title", "Only assets with this title."),
    stringQuery("fields.file.fileName", "Only assets with this file name."),
    stringQuery("fields.file.contentType", "Only assets of this MIME type."),
    {
      name: "mimetype_group",
      in: "query",
      description: "Only assets whose MIME type belongs to this group.",
      schema: { type: "string", enum: MIMETYPE_GROUPS },
    },
  ];
}

const PREVIEW_NOTE = "A preview key answers drafts too (the Preview API, same address).";

// ---- The section ----

export const contentDeliverySection: OpenApiSection = {
  name: "content delivery",
  tags: [{
    name: CONTENT_DELIVERY_TAG,
    group: "Content API",
    description:
      "Read the site's records as entries, its media library as assets, its models as content types, and its locales. " +
      "Every route answers under /api/content/spaces/{space}/environments/master and, with the environment omitted, " +
      "under /api/content/spaces/{space}. GET, HEAD and OPTIONS are accepted; answers carry ETag and honour If-None-Match.",
  }],
  paths(ctx) {
    const tags = [CONTENT_DELIVERY_TAG];
    const entryId = parameterRef("entry_id");
    const assetId = parameterRef("asset_id");
    const contentTypeId = parameterRef("content_type_id");
    const paths: Record<string, PathItem> = {
      [SPACE_BASE]: {
        parameters: [parameterRef("space")],
        get: readOperation(ctx, {
          operationId: "getSpace",
          summary: "Get the space",
          description: "The space: { sys: { type Space, id }, name, locales }.",
          tags,
          ok: { description: "The space.", schema: "Space" },
        }),
      },
      [ENVIRONMENT_BASE]: {
        parameters: [parameterRef("space"), parameterRef("environment")],
        get: readOperation(ctx, {
          operationId: "getEnvironment",
          summary: "Get the environment",
          description: "The one environment, `master`.",
          tags,
          ok: { description: "The environment.", schema: "Environment" },
        }),
      },
      ...underBothBases("/entries", () =>
        readOperation(ctx, {
          operationId: "getEntries",
          summary: "List entries",
          description: "A page of published entries with the linked entries and assets in includes. " +
            `Default order -sys.createdAt. ${PREVIEW_NOTE}`,
          tags,
          parameters: entryCollectionParameters(ctx),
          ok: { description: "A page of entries.", schema: "EntryCollection", managed: "ManagementEntryCollection" },
        })),
      ...underBothBases("/entries/{entry_id}", () =>
        readOperation(ctx, {
          operationId: "getEntry",
          summary: "Get an entry",
          description: `One entry; select is honoured. ${PREVIEW_NOTE}`,
          tags,
          parameters: [selectParameter(), localeParameter(ctx)],
          ok: { description: "The entry.", schema: "Entry", managed: "ManagementEntry" },
        }), [entryId]),
      ...underBothBases("/assets", () =>
        readOperation(ctx, {
          operationId: "getAssets",
          summary: "List assets",
          description: "A page of the media library's files.",
          tags,
          parameters: assetCollectionParameters(ctx),
          ok: { description: "A page of assets.", schema: "AssetCollection", managed: "ManagementAssetCollection" },
        })),
      ...underBothBases("/assets/{asset_id}", () =>
        readOperation(ctx, {
          operationId: "getAsset",
          summary: "Get an asset",
          tags,
          parameters: [localeParameter(ctx)],
          ok: { description: "The asset.", schema: "Asset", managed: "ManagementAsset" },
        }), [assetId]),
      ...underBothBases("/content_types", () =>
        readOperation(ctx, {
          operationId: "getContentTypes",
          summary: "List content types",
          description: "Every content type, derived from the site's models.",
          tags,
          ok: { description: "The content types.", schema: "ContentTypeCollection" },
        })),
      ...underBothBases("/content_types/{content_type_id}", () =>
        readOperation(ctx, {
          operationId: "getContentType",
          summary: "Get a content type",
          tags,
          ok: { description: "The content type.", schema: "ContentType" },
        }), [contentTypeId]),
      ...underBothBases("/locales", () =>
        readOperation(ctx, {
          operationId: "getLocales",
          summary: "List locales",
          description: "The site's locales, from its configuration.",
          tags,
          ok: { description: "The locales.", schema: "LocaleCollection" },
        })),
      "/openapi.json": { get: openApiOperation("getOpenApiDocument", tags) },
      "/api/content/content/v1/openapi.json": { get: openApiOperation("getContentOpenApiDocument", tags) },
      "/api": {
        get: {
          operationId: "getApiReference",
          summary: "The API reference page",
          description: "This document, rendered for people. Shown while the api module is on.",
          tags,
          security: [],
          responses: {
            "200": { description: "The page.", content: { "text/html": { schema: { type: "string" } } } },
            "404": { $ref: "#/components/responses/NotFound" },
          },
        },
      },
    };
    return paths;
  },
};

function openApiOperation(operationId: string, tags: string[]): Operation {
  return {
    operationId,
    summary: "Get this OpenAPI document",
    description: "The OpenAPI 3.1 description of the site's APIs. No key is needed.",
    tags,
    security: [],
    responses: {
      "200": {
        description: "The OpenAPI document.",
        headers: { "X-Contentful-Request-Id": headerRef("X-Contentful-Request-Id") },
        content: {
          "application/json": { schema: { type: "object", description: "An OpenAPI 3.1 document." } },
        },
      },
      "429": { $ref: "#/components/responses/RateLimitExceeded" },
    },
  };
}
