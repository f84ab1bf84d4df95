// The generated OpenAPI document (spec: "Generated OpenAPI document"), built from a small fixture and
// validated as OpenAPI 3.1 by swagger-parser.
import assert from "node:assert/strict";
import SwaggerParser from "@apidevtools/swagger-parser";
import { Ajv2020 } from "ajv/dist/2020.js";
import { test } from "../../helpers/test.ts";
import {
  buildOpenApiDocument,
  DEFAULT_SECTIONS,
  OpenApiBuildError,
  type OpenApiDocument,
  type OpenApiInput,
  type OpenApiSection,
  type Operation,
  type Parameter,
  type Schema,
} from "../../../shared/openapi/document.ts";
import { pascalCase, typeSchemaNames } from "../../../shared/openapi/schemas.ts";

const field = (id: string, type: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: id[0].toUpperCase() + id.slice(1),
  type,
  localized: false,
  required: false,
  disabled: false,
  omitted: false,
  validations: [],
  ...extra,
});

function fixture(overrides: Partial<OpenApiInput> = {}): OpenApiInput {
  return {
    site: { name: "Demo Site", slug: "demo" },
    space: "demo",
    publicUrl: "http://localhost:8000/",
    functionsUrl: "http://localhost:54321",
    modules: { api: true, forms: false, sessions: false, store: false, support: false, network: false },
    contentTypes: [
      {
        sys: { id: "article" },
        name: "Article",
        description: "A post of the site's journal.",
        displayField: "title",
        fields: [
          field("title", "Symbol", {
            required: true,
            localized: true,
            validations: [{ size: { max: 256 } }],
          }),
          field("slug", "Symbol", { required: true, validations: [{ regexp: { pattern: "^[a-z0-9-]+$" } }] }),
          field("status", "Symbol", { validations: [{ in: ["draft", "live"] }] }),
          field("summary", "Text"),
          field("body", "RichText"),
          field("bodyMarkdown", "Text"),
          field("readingMinutes", "Integer", { validations: [{ range: { min: 0, max: 600 } }] }),
          field("rating", "Number"),
          field("featured", "Boolean"),
          field("date", "Date"),
          field("extra", "Object"),
          field("cover", "Link", { linkType: "Asset" }),
          field("book", "Link", { linkType: "Entry", validations: [{ linkContentType: ["book"] }] }),
          field("tags", "Array", { items: { type: "Symbol", validations: [{ in: ["news", "howto"] }] } }),
          field("related", "Array", { items: { type: "Link", linkType: "Entry" } }),
          field("gallery", "Array", {
            items: { type: "Link", linkType: "Asset" },
            validations: [{ size: { max: 5 } }],
          }),
          field("attachments", "Array", { items: { type: "Object" } }),
          field("internalNote", "Text", { omitted: true }),
        ],
      },
      {
        sys: { id: "book" },
        name: "Book",
        description: null,
        displayField: "title",
        fields: [field("title", "Symbol", { required: true }), field("pages", "Integer")],
      },
      {
        sys: { id: "modelEvent" },
        name: "Event",
        description: "The site's own model models/events.",
        displayField: "name",
        fields: [field("name", "Symbol", { required: true }), field("startsAt", "Date", { required: true })],
      },
    ],
    locales: [
      { code: "en-US", name: "English (United States)", default: true, fallbackCode: null },
      { code: "de", name: "German", default: false, fallbackCode: "en-US" },
    ],
    ...overrides,
  };
}

async function validate(doc: OpenApiDocument) {
  await SwaggerParser.validate(structuredClone(doc) as any);
}

const ENV = "/api/content/spaces/{space}/environments/{environment}";
const SHORT = "/api/content/spaces/{space}";

function operations(doc: OpenApiDocument): [string, string, Operation][] {
  const out: [string, string, Operation][] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of ["get", "put", "post", "delete", "patch", "head", "options"] as const) {
      const op = item[method];
      if (op) out.push([path, method, op]);
    }
  }
  return out;
}

/** A parameter of an operation, looking through $refs into components.parameters. */
function param(doc: OpenApiDocument, path: string, name: string): Parameter | undefined {
  const item = doc.paths[path];
  const all = [...(item.parameters ?? []), ...(item.get?.parameters ?? [])];
  return all
    .map((p) => "$ref" in p ? doc.components.parameters![(p as { $ref: string }).$ref.split("/").pop()!] : p)
    .find((p) => p.name === name);
}

test("the document is valid OpenAPI 3.1 by swagger-parser", async () => {
  const doc = buildOpenApiDocument(fixture());
  await validate(doc);
  assert.equal(doc.openapi, "3.1.0");
  assert.equal(doc.info.title, "Demo Site API");
  assert.equal(doc.info.version, "1");
});

test("servers: the public address first, then the content function's own address", () => {
  const doc = buildOpenApiDocument(fixture());
  assert.deepEqual(doc.servers.map((s) => s.url), [
    "http://localhost:8000",
    "http://localhost:54321/functions/v1/content",
  ]);
});

/**
 * Routes whose every answer is a refusal (spec: DELETE assets/{id}/published is always 400; writes to
 * content types and locales are always 405; so are archive and unarchive, a state not offered), under both bases.
 */
const ALWAYS_REFUSED = [
  "unpublishAsset",
  "createContentType",
  "putContentType",
  "deleteContentType",
  "publishContentType",
  "unpublishContentType",
  "createLocale",
  "putLocale",
  "deleteLocale",
  "archiveEntry",
  "unarchiveEntry",
  "archiveAsset",
  "unarchiveAsset",
].flatMap((id) => [id, `${id}WithoutEnvironment`]);

test("every operation has a unique operationId, a summary, a known tag and a success answer", () => {
  const doc = buildOpenApiDocument(fixture());
  const tagNames = new Set(doc.tags.map((t) => t.name));
  const ids = new Set<string>();
  for (const [path, method, op] of operations(doc)) {
    const where = `${method} ${path}`;
    assert.ok(op.operationId && !ids.has(op.operationId), `${where}: operationId ${op.operationId}`);
    ids.add(op.operationId);
    assert.ok(op.summary, `${where}: summary`);
    assert.ok(op.tags.length && op.tags.every((t) => tagNames.has(t)), `${where}: tags ${op.tags}`);
    const codes = Object.keys(op.responses);
    if (ALWAYS_REFUSED.includes(op.operationId)) assert.ok(codes.every((c) => c >= "400"), where);
    else assert.ok(codes.some((c) => /^[23]\d\d$/.test(c)), `${where}: a 2xx or 3xx answer`);
  }
});

test("every path template parameter is declared as a required path parameter, and no other", () => {
  const doc = buildOpenApiDocument(fixture());
  for (const [path, item] of Object.entries(doc.paths)) {
    const inTemplate = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
    for (const method of ["get", "put", "post", "delete", "patch"] as const) {
      if (!item[method]) continue;
      const declared = [...(item.parameters ?? []), ...(item[method]!.parameters ?? [])]
        .map((p) =>
          "$ref" in p ? doc.components.parameters![(p as { $ref: string }).$ref.split("/").pop()!] : p
        )
        .filter((p) => p.in === "path");
      assert.deepEqual(declared.map((p) => p.name).sort(), inTemplate, `${method} ${path}`);
      assert.ok(declared.every((p) => p.required === true), `${path}: path parameters are required`);
    }
  }
});

test("every read route answers under both the environment and the short base", () => {
  const doc = buildOpenApiDocument(fixture());
  for (
    const sub of [
      "/entries",
      "/entries/{entry_id}",
      "/assets",
      "/assets/{asset_id}",
      "/content_types",
      "/content_types/{content_type_id}",
      "/locales",
      "/sync",
    ]
  ) {
    assert.ok(doc.paths[`${ENV}${sub}`]?.get, `${ENV}${sub}`);
    assert.ok(doc.paths[`${SHORT}${sub}`]?.get, `${SHORT}${sub}`);
  }
  for (
    const path of [
      SHORT,
      ENV,
      "/api/media/{space}/{asset_id}/{hash}/{file}",
      "/openapi.json",
      "/api/content/content/v1/openapi.json",
    ]
  ) {
    assert.ok(doc.paths[path]?.get, path);
  }
  assert.deepEqual(doc.components.parameters!.environment.schema.enum, ["master"]);
  assert.deepEqual(doc.components.parameters!.space.schema.enum, ["demo"]);
});

test("content_type is an enum of the type ids on entries, sync and the content type route", () => {
  const doc = buildOpenApiDocument(fixture());
  const ids = ["article", "book", "modelEvent"];
  for (const path of [`${ENV}/entries`, `${SHORT}/entries`, `${ENV}/sync`, `${SHORT}/sync`]) {
    assert.deepEqual(param(doc, path, "content_type")?.schema.enum, ids, path);
  }
  assert.deepEqual(param(doc, `${ENV}/content_types/{content_type_id}`, "content_type_id")?.schema.enum, ids);
});

test("entries take every collection argument of the spec, with their ranges", () => {
  const doc = buildOpenApiDocument(fixture());
  const path = `${ENV}/entries`;
  for (
    const name of [
      "content_type",
      "select",
      "include",
      "locale",
      "order",
      "limit",
      "skip",
      "query",
      "links_to_entry",
      "links_to_asset",
      "sys.id[in]",
      "filters",
      "If-None-Match",
    ]
  ) {
    assert.ok(param(doc, path, name), name);
  }
  assert.deepEqual(pick(param(doc, path, "include")!.schema, "minimum", "maximum", "default"), {
    minimum: 0,
    maximum: 10,
    default: 1,
  });
  assert.deepEqual(pick(param(doc, path, "limit")!.schema, "minimum", "maximum", "default"), {
    minimum: 1,
    maximum: 1000,
    default: 100,
  });
  assert.equal(param(doc, path, "skip")!.schema.minimum, 0);
  assert.deepEqual(param(doc, path, "locale")!.schema.enum, ["en-US", "de", "*"]);
  assert.equal(param(doc, path, "locale")!.schema.default, "en-US");
  const filters = param(doc, path, "filters")!;
  assert.equal(filters.style, "form");
  assert.equal(filters.explode, true);
  assert.match(filters.description!, /fields\.<field>\[<op>\]/);
  assert.match(filters.description!, /modelEvent: name, startsAt/);
  const names = new RegExp((filters.schema.propertyNames as { pattern: string }).pattern);
  for (
    const ok of ["sys.id", "sys.createdAt[gte]", "fields.title", "fields.tags[all]", "fields.book.sys.id"]
  ) {
    assert.match(ok, names);
  }
  assert.doesNotMatch("limit", names);
  const order = new RegExp((param(doc, path, "order")!.schema.items as { pattern: string }).pattern);
  for (const ok of ["-sys.createdAt", "sys.revision", "fields.title", "-fields.date"]) {
    assert.match(ok, order);
  }
  assert.doesNotMatch("sys.bogus", order);
  const assets = `${SHORT}/assets`;
  assert.deepEqual(
    [...(param(doc, assets, "mimetype_group")!.schema.enum as string[])].sort(),
    [
      "image",
      "audio",
      "video",
      "pdfdocument",
      "plaintext",
      "richtext",
      "presentation",
      "spreadsheet",
      "code",
      "archive",
      "attachment",
    ].sort(),
  );
  for (const name of ["fields.title", "fields.file.fileName", "fields.file.contentType", "sys.id[in]"]) {
    assert.ok(param(doc, assets, name), name);
  }
});

test("sync takes initial, sync_token, type and content_type", () => {
  const doc = buildOpenApiDocument(fixture());
  const path = `${ENV}/sync`;
  assert.deepEqual(param(doc, path, "type")!.schema.enum, [
    "all",
    "Entry",
    "Asset",
    "Deletion",
    "DeletedEntry",
    "DeletedAsset",
  ]);
  assert.ok(param(doc, path, "initial"));
  assert.ok(param(doc, path, "sync_token"));
  const ok = doc.paths[path].get!.responses["200"] as { content: Record<string, { schema: Schema }> };
  assert.deepEqual(ok.content["application/vnd.contentful.delivery.v1+json"].schema, {
    $ref: "#/components/schemas/SyncCollection",
  });
});

test("the image route documents every image parameter with its range", () => {
  const doc = buildOpenApiDocument(fixture());
  const path = "/api/media/{space}/{asset_id}/{hash}/{file}";
  const op = doc.paths[path].get!;
  assert.deepEqual(op.tags, ["Content Images"]);
  assert.deepEqual(op.security, []);
  for (const name of ["w", "h"]) {
    assert.deepEqual(pick(param(doc, path, name)!.schema, "minimum", "maximum"), {
      minimum: 1,
      maximum: 4000,
    });
  }
  assert.deepEqual(pick(param(doc, path, "q")!.schema, "minimum", "maximum"), { minimum: 1, maximum: 100 });
  assert.deepEqual(param(doc, path, "fit")!.schema.enum, ["pad", "fill", "scale", "crop", "thumb"]);
  assert.ok((param(doc, path, "f")!.schema.enum as string[]).includes("bottom_right"));
  assert.deepEqual(param(doc, path, "fm")!.schema.enum, ["jpg", "png", "webp", "gif", "avif"]);
  assert.ok(param(doc, path, "r"));
  assert.match("rgb:ff00aa", new RegExp(param(doc, path, "bg")!.schema.pattern as string));
  assert.ok(op.responses["400"] && op.responses["404"] && op.responses["304"]);
});

test("reads answer the vendor media type, 304, and the error answers with the Error schema", () => {
  const doc = buildOpenApiDocument(fixture());
  const op = doc.paths[`${ENV}/entries`].get!;
  const ok = op.responses["200"] as {
    headers: Record<string, unknown>;
    content: Record<string, { schema: Schema }>;
  };
  assert.deepEqual(Object.keys(ok.content), [
    "application/vnd.contentful.delivery.v1+json",
    "application/vnd.contentful.management.v1+json",
  ]);
  assert.deepEqual(ok.content["application/vnd.contentful.management.v1+json"].schema, {
    $ref: "#/components/schemas/ManagementEntryCollection",
  }, "a management key asking with the management media type gets the management shape");
  assert.deepEqual(ok.content["application/vnd.contentful.delivery.v1+json"].schema, {
    $ref: "#/components/schemas/EntryCollection",
  });
  for (
    const header of [
      "ETag",
      "Cache-Control",
      "X-Contentful-Request-Id",
      "X-Contentful-RateLimit-Hour-Limit",
      "X-Contentful-RateLimit-Second-Remaining",
    ]
  ) {
    assert.ok(ok.headers[header], header);
  }
  assert.deepEqual(
    Object.fromEntries(Object.entries(op.responses).filter(([code]) => code !== "200")),
    {
      "304": { $ref: "#/components/responses/NotModified" },
      "400": { $ref: "#/components/responses/BadQuery" },
      "401": { $ref: "#/components/responses/AccessTokenInvalid" },
      "403": { $ref: "#/components/responses/AccessDenied" },
      "404": { $ref: "#/components/responses/NotFound" },
      "429": { $ref: "#/components/responses/RateLimitExceeded" },
    },
  );
  const responses = doc.components.responses!;
  for (const name of ["BadQuery", "AccessTokenInvalid", "AccessDenied", "NotFound", "RateLimitExceeded"]) {
    assert.deepEqual(responses[name].content!["application/vnd.contentful.delivery.v1+json"].schema, {
      $ref: "#/components/schemas/Error",
    });
  }
  assert.ok(responses.RateLimitExceeded.headers!["X-Contentful-RateLimit-Reset"]);
  assert.equal(doc.components.headers!["X-Contentful-RateLimit-Reset"].schema.type, "integer");
});

test("the key is a bearer scheme, optional on delivery while api.public is on", () => {
  const open = buildOpenApiDocument(fixture());
  assert.deepEqual(pick(open.components.securitySchemes!.key, "type", "scheme"), {
    type: "http",
    scheme: "bearer",
  });
  assert.deepEqual(pick(open.components.securitySchemes!.access_token, "type", "in", "name"), {
    type: "apiKey",
    in: "query",
    name: "access_token",
  });
  assert.deepEqual(open.paths[`${ENV}/entries`].get!.security, [{ key: [] }, { access_token: [] }, {}]);
  assert.deepEqual(open.paths["/openapi.json"].get!.security, []);

  const closed = buildOpenApiDocument(fixture({ api: { public: false } }));
  assert.deepEqual(closed.paths[`${ENV}/entries`].get!.security, [{ key: [] }, { access_token: [] }]);
  assert.deepEqual(closed.paths["/api/content/content/v1/openapi.json"].get!.security, []);
});

test("with only the api module on: the Content and Analytics tags, in their groups", () => {
  const doc = buildOpenApiDocument(fixture());
  const content = [
    "Content Delivery",
    "Content Management",
    "Content Sync",
    "Content GraphQL",
    "Content Images",
  ];
  const analytics = ["Analytics Events", "Analytics Capture"];
  assert.deepEqual(doc.tags.map((t) => t.name), [...content, ...analytics]);
  assert.deepEqual(doc["x-tagGroups"], [
    { name: "Content API", tags: content },
    { name: "Analytics API", tags: analytics },
  ]);
});

const formsSection: OpenApiSection = {
  name: "widgets (test)",
  requires: ["forms"],
  tags: [{ name: "Widgets", group: "Widgets API", description: "Widgets." }],
  schemaNames: ["Widget"],
  paths: () => ({
    "/widgets": {
      get: {
        operationId: "listWidgets",
        summary: "List widgets",
        tags: ["Widgets"],
        responses: { "200": { description: "Widgets." } },
      },
    },
  }),
  components: () => ({ schemas: { Widget: { type: "object" } } }),
};

test("a section gated by a module appears only while that module is on", async () => {
  const sections = [...DEFAULT_SECTIONS, formsSection];
  const off = buildOpenApiDocument(fixture(), sections);
  assert.ok(!off.tags.some((t) => t.name === "Widgets"));
  assert.ok(!off["x-tagGroups"].some((g) => g.name === "Widgets API"));
  assert.equal(off.paths["/widgets"], undefined);
  assert.equal(off.components.schemas!.Widget, undefined);

  const input = fixture();
  input.modules.forms = true;
  const on = buildOpenApiDocument(input, sections);
  assert.deepEqual(on.tags.map((t) => t.name).at(-1), "Widgets");
  assert.deepEqual(on["x-tagGroups"].map((g) => g.name).at(-1), "Widgets API");
  assert.ok(on.paths["/widgets"].get);
  await validate(on);
});

test("a content type never takes a schema name a section owns", () => {
  const input = fixture();
  input.modules.forms = true;
  input.contentTypes.push({ sys: { id: "widget" }, name: "Widget", fields: [] });
  input.contentTypes.push({ sys: { id: "asset" }, name: "Asset", fields: [] });
  input.contentTypes.push({ sys: { id: "form" }, name: "Form", fields: [] });
  const doc = buildOpenApiDocument(input, [...DEFAULT_SECTIONS, formsSection]);
  const entry = doc.components.schemas!.Entry as { oneOf: Schema[] };
  assert.deepEqual(entry.oneOf.slice(-3), [
    { $ref: "#/components/schemas/WidgetEntry" },
    { $ref: "#/components/schemas/AssetEntry" },
    { $ref: "#/components/schemas/FormEntry" },
  ]);
  assert.deepEqual(doc.components.schemas!.Widget, { type: "object" });
  assert.equal(
    (doc.components.schemas!.Form as { description: string }).description.startsWith("A form's definition"),
    true,
  );
});

test("two sections claiming the same operation or tag are refused", () => {
  assert.throws(
    () =>
      buildOpenApiDocument(fixture(), [...DEFAULT_SECTIONS, { ...formsSection, requires: [] }, {
        ...formsSection,
        name: "again",
        requires: [],
        tags: [],
      }]),
    OpenApiBuildError,
  );
  assert.throws(
    () =>
      buildOpenApiDocument(fixture(), [...DEFAULT_SECTIONS, {
        name: "clash",
        tags: [{ name: "Content Sync", group: "Content API" }],
      }]),
    OpenApiBuildError,
  );
});

test("type ids become PascalCase schema names", () => {
  assert.equal(pascalCase("article"), "Article");
  assert.equal(pascalCase("modelEvent"), "ModelEvent");
  assert.equal(pascalCase("wiki-page"), "WikiPage");
  assert.equal(pascalCase("model_event"), "ModelEvent");
  assert.equal(pascalCase("3d"), "Type3d");
  const names = typeSchemaNames(
    [{ sys: { id: "link" }, name: "", fields: [] }, { sys: { id: "wiki-page" }, name: "", fields: [] }, {
      sys: { id: "wikiPage" },
      name: "",
      fields: [],
    }],
    ["Link"],
  );
  assert.deepEqual([...names.values()], ["LinkEntry", "WikiPage", "WikiPageEntry"]);
});

test("one schema per content type, its fields typed from the content type", () => {
  const doc = buildOpenApiDocument(fixture());
  const schemas = doc.components.schemas!;
  for (
    const name of [
      "Link",
      "Sys",
      "RichTextDocument",
      "Asset",
      "ContentType",
      "ContentTypeField",
      "Locale",
      "Error",
      "Entry",
      "EntryCollection",
      "AssetCollection",
      "SyncCollection",
      "Article",
      "Book",
      "ModelEvent",
    ]
  ) {
    assert.ok(schemas[name], name);
  }
  assert.deepEqual(schemas.Entry.oneOf, [
    { $ref: "#/components/schemas/Article" },
    { $ref: "#/components/schemas/Book" },
    { $ref: "#/components/schemas/ModelEvent" },
  ]);
  const fields = (schemas.Article.properties as Record<string, Schema>).fields as {
    properties: Record<string, Schema>;
    required: string[];
  };
  const p = fields.properties;
  const strip = (s: Schema) => {
    const { title: _t, description: _d, ...rest } = s;
    return rest;
  };
  assert.deepEqual(strip(p.title), { type: "string", maxLength: 256 });
  assert.deepEqual(strip(p.slug), { type: "string", pattern: "^[a-z0-9-]+$" });
  assert.deepEqual(strip(p.status), { type: "string", enum: ["draft", "live"] });
  assert.deepEqual(strip(p.summary), { type: "string" });
  assert.deepEqual(strip(p.body), { $ref: "#/components/schemas/RichTextDocument" });
  assert.deepEqual(strip(p.bodyMarkdown), { type: "string" });
  assert.deepEqual(strip(p.readingMinutes), { type: "integer", minimum: 0, maximum: 600 });
  assert.deepEqual(strip(p.rating), { type: "number" });
  assert.deepEqual(strip(p.featured), { type: "boolean" });
  assert.deepEqual(strip(p.date), { type: "string", format: "date-time" });
  assert.deepEqual(strip(p.extra), { type: "object" });
  assert.equal(p.cover.$ref, "#/components/schemas/Link");
  assert.equal(p.book.$ref, "#/components/schemas/Link");
  assert.match(p.book.description as string, /book/);
  assert.deepEqual(strip(p.tags), { type: "array", items: { type: "string", enum: ["news", "howto"] } });
  assert.deepEqual((p.related.items as Schema).$ref, "#/components/schemas/Link");
  assert.equal(p.gallery.maxItems, 5);
  assert.deepEqual(strip(p.attachments), { type: "array", items: { type: "object" } });
  assert.equal(p.internalNote, undefined, "an omitted field is not delivered");
  assert.equal(p.title.title, "Title");
  assert.match(p.title.description as string, /Localized/);
  assert.deepEqual(fields.required, ["title", "slug"]);
  assert.deepEqual(Object.keys(p).slice(0, 3), ["title", "slug", "status"], "fields keep the type's order");
  const event = (schemas.ModelEvent.properties as Record<string, Schema>).fields as { required: string[] };
  assert.deepEqual(event.required, ["name", "startsAt"]);
});

test("the schemas are valid JSON Schema 2020-12 and describe real answers", () => {
  const doc = buildOpenApiDocument(fixture());
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ $id: "https://openapi.test/doc.json", components: doc.components });
  const validator = (name: string) =>
    ajv.compile({ $ref: `https://openapi.test/doc.json#/components/schemas/${name}` });
  const sys = (type: string, contentType?: string) => ({
    id: `${contentType}.x`,
    type,
    space: { sys: { type: "Link", linkType: "Space", id: "demo" } },
    environment: { sys: { type: "Link", linkType: "Environment", id: "master" } },
    ...(contentType
      ? { contentType: { sys: { type: "Link", linkType: "ContentType", id: contentType } } }
      : {}),
    createdAt: "2024-01-01T00:00:00Z",
    updatedAt: "2024-01-02T00:00:00Z",
    revision: 3,
    locale: "en-US",
  });
  const article = {
    sys: sys("Entry", "article"),
    fields: {
      title: "Hello",
      slug: "hello",
      status: "live",
      body: {
        nodeType: "document",
        data: {},
        content: [{
          nodeType: "paragraph",
          data: {},
          content: [{ nodeType: "text", value: "Hi", marks: [{ type: "bold" }], data: {} }],
        }],
      },
      readingMinutes: 4,
      tags: ["news"],
      cover: { sys: { type: "Link", linkType: "Asset", id: "a1" } },
      related: [{ sys: { type: "Link", linkType: "Entry", id: "book.x" } }],
    },
  };
  const book = { sys: sys("Entry", "book"), fields: { title: "A book", pages: 200 } };
  const entry = validator("Entry");
  assert.ok(entry(article), JSON.stringify(entry.errors));
  assert.ok(entry(book), JSON.stringify(entry.errors));
  assert.ok(
    !entry({ ...article, fields: { ...article.fields, status: "archived" } }),
    "a choice outside `in`",
  );
  assert.ok(
    !entry({ ...article, fields: { ...article.fields, readingMinutes: "4" } }),
    "an Integer as a string",
  );
  assert.ok(
    !entry({ sys: sys("Entry", "modelEvent"), fields: { name: "Launch" } }),
    "a required field missing",
  );
  const collection = validator("EntryCollection");
  const page = { sys: { type: "Array" }, total: 2, skip: 0, limit: 100, items: [article, book] };
  assert.ok(
    collection({
      ...page,
      includes: { Entry: [book], Asset: [] },
      errors: [{
        sys: { id: "notResolvable", type: "error" },
        details: { type: "Link", linkType: "Entry", id: "x" },
      }],
    }),
    JSON.stringify(collection.errors),
  );
  const asset = validator("Asset");
  assert.ok(
    asset({
      sys: sys("Asset"),
      fields: {
        title: "cover",
        description: "",
        file: {
          url: "//example.com/api/media/demo/a1/h/cover.jpg",
          details: { size: 10, image: { width: 2, height: 1 } },
          fileName: "cover.jpg",
          contentType: "image/jpeg",
        },
      },
    }),
    JSON.stringify(asset.errors),
  );
  const sync = validator("SyncCollection");
  assert.ok(
    sync({
      sys: { type: "Array" },
      items: [
        { sys: sys("Entry", "book"), fields: { title: { "en-US": "A book", de: "Ein Buch" } } },
        { sys: { id: "book.gone", type: "DeletedEntry", deletedAt: "2024-01-03T00:00:00Z" } },
      ],
      nextSyncUrl: "http://localhost:8000/api/content/spaces/demo/environments/master/sync?sync_token=t",
    }),
    JSON.stringify(sync.errors),
  );
  const error = validator("Error");
  assert.ok(
    error({
      sys: { type: "Error", id: "NotFound" },
      message: "nope",
      details: { type: "Entry", id: "x" },
      requestId: "r",
    }),
  );
  assert.ok(!error({ sys: { type: "Error", id: "Teapot" }, message: "nope" }));
  for (const name of Object.keys(doc.components.schemas!)) validator(name);
});

test("a site without content types or locales still builds a valid document", async () => {
  const doc = buildOpenApiDocument(fixture({ contentTypes: [], locales: [] }));
  await validate(doc);
  assert.equal(param(doc, `${ENV}/entries`, "content_type")!.schema.enum, undefined);
  assert.deepEqual(param(doc, `${ENV}/entries`, "locale")!.schema.enum, ["*"]);
});

test("the document is plain JSON and the same for the same input", () => {
  const a = buildOpenApiDocument(fixture());
  assert.deepEqual(JSON.parse(JSON.stringify(a)), a);
  assert.equal(JSON.stringify(buildOpenApiDocument(fixture())), JSON.stringify(a));
});

function pick(obj: object, ...keys: string[]) {
  const o = obj as Record<string, unknown>;
  return Object.fromEntries(keys.filter((k) => k in o).map((k) => [k, o[k]]));
}
