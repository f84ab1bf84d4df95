// The whole document (spec "Generated OpenAPI document") with every module on and with each switched
// off: every tag, tag group and API path of the three spec files, each API's own error envelope, every
// listed component schema, valid by swagger-parser and by `redocly lint` with no error; and the analytics
// schemas describe what the analytics routes really accept and answer.
import assert from "node:assert/strict";
import SwaggerParser from "@apidevtools/swagger-parser";
import { Ajv2020 } from "ajv/dist/2020.js";
import { test } from "../../helpers/test.ts";
import {
  buildOpenApiDocument,
  type ModuleName,
  type OpenApiDocument,
  type OpenApiInput,
  type Operation,
} from "../../../shared/openapi/document.ts";
import {
  errorBody,
  invalidApiKey,
  missingApiKey,
  noData,
} from "../../../functions/content/analytics/envelope.ts";
import { flagsResponse, remoteConfig } from "../../../functions/content/analytics/flags.ts";
import { parseAnalyticsConfig } from "../../../shared/site/analytics-config.ts";
import { lintErrors, redoclyLint } from "./lint.ts";

const ALL_ON: Record<ModuleName, boolean> = {
  api: true,
  forms: true,
  sessions: true,
  store: true,
  support: true,
  network: true,
};

function input(modules: Partial<Record<ModuleName, boolean>> = ALL_ON): OpenApiInput {
  return {
    site: { name: "Demo Site", slug: "demo" },
    space: "demo",
    publicUrl: "https://demo.sitewire.dev",
    functionsUrl: "https://functions.sitewire.dev",
    modules,
    contentTypes: [
      {
        sys: { id: "article" },
        name: "Article",
        fields: [
          { id: "title", name: "Title", type: "Symbol", required: true },
          { id: "body", name: "Body", type: "RichText" },
        ],
      },
      { sys: { id: "modelEvent" }, name: "Event", fields: [{ id: "name", name: "Name", type: "Symbol" }] },
    ],
    locales: [{ code: "en-US", name: "English", default: true, fallbackCode: null }],
  };
}

const full = buildOpenApiDocument(input());

function operation(doc: OpenApiDocument, method: string, path: string): Operation {
  const op = doc.paths[path]?.[method as "get"];
  assert.ok(op, `${method.toUpperCase()} ${path} is described`);
  return op;
}

const TAGS: [string, string[]][] = [
  ["Content API", [
    "Content Delivery",
    "Content Management",
    "Content Sync",
    "Content GraphQL",
    "Content Images",
  ]],
  ["Forms API", ["Forms", "Responses", "Webhooks", "Insights"]],
  ["Scheduling API", ["Event Types", "Slots", "Bookings", "Schedules", "Scheduling Webhooks"]],
  ["Store API", ["Storefront"]],
  ["Support API", ["Client", "Conversations", "Contacts", "Support Webhooks"]],
  ["Analytics API", ["Analytics Events", "Analytics Capture"]],
];

test("with every module on: every tag of the spec, grouped in the spec's order (the network after them)", () => {
  assert.deepEqual(
    full["x-tagGroups"].map((g) => [g.name, g.tags]),
    [...TAGS, ["Network API", ["Network"]]],
  );
  for (const group of full["x-tagGroups"]) {
    for (const tag of group.tags) {
      assert.ok(full.tags.find((t) => t.name === tag)?.description, `${tag} is declared with a description`);
    }
  }
});

/** Every route of the three spec files, by API (paths as the site serves them publicly). */
const ROUTES: Record<string, [string, string][]> = {
  content: [
    ["get", "/api/content/spaces/{space}/environments/{environment}/entries"],
    ["post", "/api/content/spaces/{space}/environments/{environment}/entries"],
    ["put", "/api/content/spaces/{space}/environments/{environment}/entries/{entry_id}"],
    ["delete", "/api/content/spaces/{space}/environments/{environment}/entries/{entry_id}"],
    ["put", "/api/content/spaces/{space}/environments/{environment}/entries/{entry_id}/published"],
    ["delete", "/api/content/spaces/{space}/environments/{environment}/entries/{entry_id}/published"],
    ["put", "/api/content/spaces/{space}/environments/{environment}/entries/{entry_id}/archived"],
    ["delete", "/api/content/spaces/{space}/environments/{environment}/entries/{entry_id}/archived"],
    ["post", "/api/content/spaces/{space}/environments/{environment}/assets"],
    ["put", "/api/content/spaces/{space}/environments/{environment}/assets/{asset_id}"],
    ["delete", "/api/content/spaces/{space}/environments/{environment}/assets/{asset_id}"],
    [
      "put",
      "/api/content/spaces/{space}/environments/{environment}/assets/{asset_id}/files/{locale}/process",
    ],
    ["put", "/api/content/spaces/{space}/environments/{environment}/assets/{asset_id}/published"],
    ["delete", "/api/content/spaces/{space}/environments/{environment}/assets/{asset_id}/published"],
    ["put", "/api/content/spaces/{space}/environments/{environment}/assets/{asset_id}/archived"],
    ["delete", "/api/content/spaces/{space}/environments/{environment}/assets/{asset_id}/archived"],
    ["post", "/api/content/spaces/{space}/uploads"],
    ["get", "/api/content/spaces/{space}/uploads/{upload_id}"],
    ["delete", "/api/content/spaces/{space}/uploads/{upload_id}"],
    ["post", "/api/content/spaces/{space}/environments/{environment}/uploads"],
    ["get", "/api/content/spaces/{space}/environments/{environment}/uploads/{upload_id}"],
    ["delete", "/api/content/spaces/{space}/environments/{environment}/uploads/{upload_id}"],
    ["post", "/api/content/spaces/{space}/environments/{environment}/content_types"],
    ["put", "/api/content/spaces/{space}/environments/{environment}/content_types/{content_type_id}"],
    ["delete", "/api/content/spaces/{space}/environments/{environment}/content_types/{content_type_id}"],
    [
      "put",
      "/api/content/spaces/{space}/environments/{environment}/content_types/{content_type_id}/published",
    ],
    [
      "delete",
      "/api/content/spaces/{space}/environments/{environment}/content_types/{content_type_id}/published",
    ],
    ["post", "/api/content/spaces/{space}/environments/{environment}/locales"],
    ["put", "/api/content/spaces/{space}/environments/{environment}/locales/{locale_id}"],
    ["delete", "/api/content/spaces/{space}/environments/{environment}/locales/{locale_id}"],
    ["get", "/api/content/spaces/{space}/webhook_definitions"],
    ["post", "/api/content/spaces/{space}/webhook_definitions"],
    ["get", "/api/content/spaces/{space}/webhook_definitions/{webhook_id}"],
    ["put", "/api/content/spaces/{space}/webhook_definitions/{webhook_id}"],
    ["delete", "/api/content/spaces/{space}/webhook_definitions/{webhook_id}"],
    ["post", "/api/content/sweep-uploads"],
    ["post", "/api/content/sweep-image-cache"],
    ["post", "/api/content/webhooks/deliver"],
    ["post", "/api/content/repository/push"],
    ["post", "/api/content/content/v1/spaces/{space}/environments/{environment}"],
    ["get", "/api/content/content/v1/spaces/{space}/environments/{environment}"],
    ["get", "/api/media/{space}/{asset_id}/{hash}/{file}"],
    ["get", "/api"],
  ],
  analytics: [
    ["post", "/api/events"],
    ["get", "/api/events"],
    ["post", "/api/events/e"],
    ["get", "/api/events/e"],
    ["post", "/api/events/batch"],
    ["get", "/api/events/batch"],
    ["post", "/api/events/flags"],
    ["get", "/api/events/flags"],
    ["get", "/api/events/array/{token}/config.js"],
  ],
  forms: [
    ["get", "/api/me"],
    ["get", "/api/workspaces"],
    ["get", "/api/workspaces/default"],
    ["get", "/api/forms"],
    ["post", "/api/forms"],
    ["get", "/api/forms/{form_id}"],
    ["put", "/api/forms/{form_id}"],
    ["patch", "/api/forms/{form_id}"],
    ["delete", "/api/forms/{form_id}"],
    ["get", "/api/forms/{form_id}/responses"],
    ["delete", "/api/forms/{form_id}/responses"],
    ["get", "/api/forms/{form_id}/responses/{token}/fields/{ref}/files/{filename}"],
    ["get", "/api/forms/{form_id}/webhooks"],
    ["get", "/api/forms/{form_id}/webhooks/{tag}"],
    ["put", "/api/forms/{form_id}/webhooks/{tag}"],
    ["delete", "/api/forms/{form_id}/webhooks/{tag}"],
    ["get", "/api/insights/{form_id}/summary"],
  ],
  sessions: [
    ["get", "/api/scheduling/v2/me"],
    ["get", "/api/scheduling/v2/event-types"],
    ["get", "/api/scheduling/v2/event-types/{event_type}"],
    ["get", "/api/scheduling/v2/slots"],
    ["get", "/api/scheduling/v2/bookings"],
    ["post", "/api/scheduling/v2/bookings"],
    ["get", "/api/scheduling/v2/bookings/{uid}"],
    ["post", "/api/scheduling/v2/bookings/{uid}/reschedule"],
    ["post", "/api/scheduling/v2/bookings/{uid}/cancel"],
    ["post", "/api/scheduling/v2/bookings/{uid}/confirm"],
    ["post", "/api/scheduling/v2/bookings/{uid}/decline"],
    ["get", "/api/scheduling/v2/schedules"],
    ["get", "/api/scheduling/v2/schedules/{schedule_id}"],
    ["get", "/api/scheduling/v2/ooo"],
    ["get", "/api/scheduling/v2/webhooks"],
    ["post", "/api/scheduling/v2/webhooks"],
    ["get", "/api/scheduling/v2/webhooks/{webhook_id}"],
    ["patch", "/api/scheduling/v2/webhooks/{webhook_id}"],
    ["delete", "/api/scheduling/v2/webhooks/{webhook_id}"],
  ],
  store: [
    ["post", "/api/store/api/{version}/graphql.json"],
    ["get", "/api/store/api/{version}/graphql.json"],
    ["post", "/api/{version}/graphql.json"],
    ["get", "/api/{version}/graphql.json"],
    ["get", "/api/store/carts/{token}"],
    ["get", "/api/carts/{token}"],
  ],
  support: [
    ["post", "/api/desk/public/api/desk/api/v1/inboxes/{inbox}/contacts"],
    ["get", "/api/desk/public/api/desk/api/v1/inboxes/{inbox}/contacts/{source_id}"],
    ["patch", "/api/desk/public/api/desk/api/v1/inboxes/{inbox}/contacts/{source_id}"],
    ["get", "/api/desk/public/api/desk/api/v1/inboxes/{inbox}/contacts/{source_id}/conversations"],
    ["post", "/api/desk/public/api/desk/api/v1/inboxes/{inbox}/contacts/{source_id}/conversations"],
    [
      "get",
      "/api/desk/public/api/desk/api/v1/inboxes/{inbox}/contacts/{source_id}/conversations/{conversation_id}",
    ],
    [
      "get",
      "/api/desk/public/api/desk/api/v1/inboxes/{inbox}/contacts/{source_id}/conversations/{conversation_id}/messages",
    ],
    [
      "post",
      "/api/desk/public/api/desk/api/v1/inboxes/{inbox}/contacts/{source_id}/conversations/{conversation_id}/messages",
    ],
    [
      "post",
      "/api/desk/public/api/desk/api/v1/inboxes/{inbox}/contacts/{source_id}/conversations/{conversation_id}/toggle_typing",
    ],
    [
      "post",
      "/api/desk/public/api/desk/api/v1/inboxes/{inbox}/contacts/{source_id}/conversations/{conversation_id}/update_last_seen",
    ],
    [
      "post",
      "/api/desk/public/api/desk/api/v1/inboxes/{inbox}/contacts/{source_id}/conversations/{conversation_id}/toggle_status",
    ],
    ["get", "/api/desk/api/v1/accounts/{account}/conversations"],
    ["get", "/api/desk/api/v1/accounts/{account}/conversations/{conversation_id}"],
    ["get", "/api/desk/api/v1/accounts/{account}/conversations/{conversation_id}/messages"],
    ["post", "/api/desk/api/v1/accounts/{account}/conversations/{conversation_id}/messages"],
    ["post", "/api/desk/api/v1/accounts/{account}/conversations/{conversation_id}/toggle_status"],
    ["post", "/api/desk/api/v1/accounts/{account}/conversations/{conversation_id}/assignments"],
    ["get", "/api/desk/api/v1/accounts/{account}/contacts"],
    ["get", "/api/desk/api/v1/accounts/{account}/contacts/{contact_id}"],
    ["get", "/api/desk/api/v1/accounts/{account}/contacts/{contact_id}/conversations"],
    ["get", "/api/desk/api/v1/accounts/{account}/inboxes"],
    ["get", "/api/desk/api/v1/accounts/{account}/agents"],
    ["get", "/api/desk/api/v1/profile"],
    ["get", "/api/desk/api/v1/accounts/{account}/webhooks"],
    ["post", "/api/desk/api/v1/accounts/{account}/webhooks"],
    ["patch", "/api/desk/api/v1/accounts/{account}/webhooks/{webhook_id}"],
    ["delete", "/api/desk/api/v1/accounts/{account}/webhooks/{webhook_id}"],
    ["get", "/api/desk/packs/js/sdk.js"],
  ],
  network: [
    ["get", "/xrpc/{nsid}"],
    ["post", "/xrpc/{nsid}"],
    ["get", "/.well-known/atproto-did"],
    ["get", "/.well-known/did.json"],
    ["get", "/account/network"],
  ],
};

test("every route of the six APIs is described while its module is on", () => {
  for (const [api, routes] of Object.entries(ROUTES)) {
    for (const [method, path] of routes) operation(full, method, `${path}`).operationId;
    assert.ok(routes.length, api);
  }
});

/** The statuses each management route answers (probed over HTTP): a missing one fails here. */
const MANAGEMENT_STATUSES: [string, string, string[]][] = [
  ["post", "/entries", ["201", "400", "401", "403", "405", "409", "422", "429"]],
  ["put", "/entries/{entry_id}", ["200", "201", "400", "404", "409", "422"]],
  ["delete", "/entries/{entry_id}", ["204", "400", "404", "409"]],
  ["put", "/entries/{entry_id}/published", ["200", "400", "404", "409", "422"]],
  ["delete", "/entries/{entry_id}/published", ["200", "400", "404", "409"]],
  ["post", "/assets", ["201", "400", "422"]],
  ["put", "/assets/{asset_id}", ["200", "201", "400", "404", "409", "422"]],
  ["delete", "/assets/{asset_id}", ["204", "404", "409"]],
  ["put", "/assets/{asset_id}/files/{locale}/process", ["204", "404", "409", "422"]],
  ["put", "/assets/{asset_id}/published", ["200", "404", "409", "422"]],
  ["delete", "/assets/{asset_id}/published", ["400", "404"]],
  ["post", "/uploads", ["201", "400"]],
  ["get", "/uploads/{upload_id}", ["200", "401", "403", "404"]],
  ["delete", "/uploads/{upload_id}", ["204", "404"]],
  ["put", "/content_types/{content_type_id}", ["401", "403", "405"]],
  ["put", "/entries/{entry_id}/archived", ["401", "403", "405"]],
  ["delete", "/assets/{asset_id}/archived", ["401", "403", "405"]],
  ["post", "/locales", ["401", "403", "405"]],
];

test("the management routes document every status they answer, under both bases", () => {
  for (const [method, sub, statuses] of MANAGEMENT_STATUSES) {
    for (
      const base of ["/api/content/spaces/{space}/environments/{environment}", "/api/content/spaces/{space}"]
    ) {
      const answered = Object.keys(operation(full, method, `${base}${sub}`).responses);
      for (const status of statuses) {
        assert.ok(answered.includes(status), `${method.toUpperCase()} ${base}${sub}: ${status}`);
      }
    }
  }
  const space = "/api/content/spaces/{space}";
  for (
    const [method, path, statuses] of [
      ["get", `${space}/webhook_definitions`, ["200", "400"]],
      ["post", `${space}/webhook_definitions`, ["201", "400", "422"]],
      ["put", `${space}/webhook_definitions/{webhook_id}`, ["200", "400", "404", "405", "409", "422"]],
      ["delete", `${space}/webhook_definitions/{webhook_id}`, ["204", "404", "405", "409"]],
      ["post", "/api/content/sweep-uploads", ["200", "400", "401"]],
    ] as [string, string, string[]][]
  ) {
    const answered = Object.keys(operation(full, method, path).responses);
    for (const status of statuses) {
      assert.ok(answered.includes(status), `${method.toUpperCase()} ${path}: ${status}`);
    }
  }
  // reads of management things are never refused for git mode
  assert.equal(operation(full, "get", `${space}/uploads/{upload_id}`).responses["405"], undefined);
  assert.equal(
    operation(full, "get", `${space}/webhook_definitions/{webhook_id}`).responses["405"],
    undefined,
  );
});

test("the API page tells contentful-management users to set hostUpload", () => {
  const tag = full.tags.find((t) => t.name === "Content Management")!;
  assert.match(tag.description!, /`hostUpload` equal to\s+`host`/);
  assert.match(
    operation(full, "post", "/api/content/spaces/{space}/environments/{environment}/uploads").description!,
    /hostUpload/,
  );
});

test("the bookings list documents every filter and sort the scheduling function reads, and cancel its body", () => {
  const names = operation(full, "get", "/api/scheduling/v2/bookings").parameters!
    .map((p) => "name" in p ? p.name : undefined);
  for (
    const name of [
      "status",
      "attendeeEmail",
      "attendeeName",
      "bookingUid",
      "eventTypeId",
      "eventTypeIds",
      "eventTypeSlug",
      "teamId",
      "teamsIds",
      "afterStart",
      "beforeEnd",
      "afterCreatedAt",
      "beforeCreatedAt",
      "afterUpdatedAt",
      "beforeUpdatedAt",
      "sortStart",
      "sortEnd",
      "sortCreated",
      "sortUpdatedAt",
      "take",
      "skip",
    ]
  ) assert.ok(names.includes(name), name);
  const cancel = full.components!.schemas!.BookingCancel as { properties: Record<string, unknown> };
  assert.deepEqual(Object.keys(cancel.properties).sort(), [
    "cancelSubsequentBookings",
    "cancellationReason",
    "seatUid",
  ]);
});

test("the capture routes take GET ?data= as PostHog serves it", () => {
  for (const path of ["/api/events", "/api/events/e", "/api/events/batch", "/api/events/flags"]) {
    const get = operation(full, "get", path);
    assert.equal(get.requestBody, undefined, path);
    assert.ok(
      get.parameters!.some((p) => "name" in p && p.name === "data" && p.in === "query" && p.required),
      path,
    );
    assert.deepEqual(Object.keys(get.responses), Object.keys(operation(full, "post", path).responses), path);
  }
});

test("each module switched off takes its API's tags, paths and schemas out, and nothing else", () => {
  const gated: [ModuleName, string, string][] = [
    ["forms", "forms", "FormsError"],
    ["sessions", "sessions", "SchedulingError"],
    ["store", "store", "StoreError"],
    ["support", "support", "SupportError"],
    ["network", "network", "XrpcError"],
  ];
  for (const [module, api, schema] of gated) {
    const doc = buildOpenApiDocument(input({ ...ALL_ON, [module]: false }));
    for (const [, path] of ROUTES[api]) assert.equal(doc.paths[path], undefined, `${module} off: ${path}`);
    assert.equal(doc.components.schemas![schema], undefined, `${module} off: ${schema}`);
    assert.equal(
      Object.keys(doc.paths).length,
      Object.keys(full.paths).length - new Set(ROUTES[api].map(([, p]) => p)).size,
    );
  }
  const noApi = buildOpenApiDocument(input({ ...ALL_ON, api: false }));
  assert.equal(noApi.paths["/api/store/carts/{token}"], undefined, "the store also needs the api module");
  assert.ok(noApi.paths["/api/forms"], "the forms section follows the forms switch");
});

test("each API answers errors in its own envelope schema", () => {
  const errorSchema = (method: string, path: string, status: string) => {
    const response = operation(full, method, path).responses[status] as {
      $ref?: string;
      content?: Record<string, { schema: { $ref: string } }>;
    };
    const resolved = response.$ref ? full.components.responses![response.$ref.split("/").pop()!] : response;
    return Object.values(resolved.content!)[0].schema.$ref.split("/").pop();
  };
  assert.equal(
    errorSchema("get", "/api/content/spaces/{space}/environments/{environment}/entries", "400"),
    "Error",
  );
  assert.equal(
    errorSchema("post", "/api/content/spaces/{space}/environments/{environment}/entries", "422"),
    "Error",
  );
  assert.equal(
    errorSchema("post", "/api/content/content/v1/spaces/{space}/environments/{environment}", "400"),
    "GraphQLResponse",
  );
  assert.equal(errorSchema("get", "/api/forms/{form_id}", "404"), "FormsError");
  assert.equal(errorSchema("post", "/api/scheduling/v2/bookings", "402"), "SchedulingError");
  assert.equal(errorSchema("post", "/api/store/api/{version}/graphql.json", "401"), "StoreError");
  assert.equal(
    errorSchema(
      "post",
      "/api/desk/api/v1/accounts/{account}/conversations/{conversation_id}/messages",
      "422",
    ),
    "SupportError",
  );
  assert.equal(errorSchema("post", "/api/events/batch", "401"), "AnalyticsError");
  assert.equal(errorSchema("post", "/xrpc/{nsid}", "501"), "XrpcError");
});

test("every error answer's example is valid against its own schema, in every API", () => {
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  ajv.addSchema({ $id: "https://openapi.test/full.json", components: full.components });
  let checked = 0;
  for (const [name, response] of Object.entries(full.components.responses!)) {
    for (const media of Object.values(response.content ?? {})) {
      if (media.example === undefined || !media.schema) continue;
      const ref = (media.schema as { $ref: string }).$ref.split("/").pop();
      const validate = ajv.compile({ $ref: `https://openapi.test/full.json#/components/schemas/${ref}` });
      assert.ok(validate(media.example), `${name}: ${JSON.stringify(validate.errors)}`);
      checked++;
    }
  }
  assert.ok(checked >= 30, `${checked} examples checked`);
});

test("components: the key is the bearer scheme, and every schema the spec lists is there", () => {
  assert.deepEqual([full.components.securitySchemes!.key.type, full.components.securitySchemes!.key.scheme], [
    "http",
    "bearer",
  ]);
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
      "AnalyticsEvent",
      "AnalyticsBatch",
      "VendorEvent",
      "VendorBatch",
      "FlagsResponse",
      "Article",
      "ModelEvent",
    ]
  ) {
    assert.ok(full.components.schemas![name], name);
  }
});

test("GraphQL is POST and GET, and its description names the query fields of the site's types", () => {
  const post = operation(full, "post", "/api/content/content/v1/spaces/{space}/environments/{environment}");
  const get = operation(full, "get", "/api/content/content/v1/spaces/{space}/environments/{environment}");
  assert.ok(post.requestBody);
  assert.ok(get.parameters!.some((p) => "name" in p && p.name === "query" && p.required));
  for (
    const field of [
      "`article(id, preview, locale)`",
      "`modelEventCollection(",
      "`assetCollection(",
      "`entryCollection(",
    ]
  ) {
    assert.ok(post.description!.includes(field), field);
  }
  assert.match(post.description!, /11000/);
  assert.match(post.description!, /mutation or subscription/);
});

test("the served analytics routes are the spec's, with or without the trailing slash the SDKs send", () => {
  const spec = [
    "/api/events",
    "/api/events/e/",
    "/api/events/batch/",
    "/api/events/flags/",
    "/api/events/array/{token}/config.js",
  ];
  for (const path of spec) assert.ok(full.paths[path.replace(/\/$/, "")], path);
});

test("the analytics schemas describe what the routes accept and answer", async () => {
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  ajv.addSchema({ $id: "https://openapi.test/a.json", components: full.components });
  const valid = (name: string, value: unknown) => {
    const validate = ajv.compile({ $ref: `https://openapi.test/a.json#/components/schemas/${name}` });
    assert.ok(validate(value), `${name}: ${JSON.stringify(validate.errors)} for ${JSON.stringify(value)}`);
  };
  const invalid = (name: string, value: unknown) =>
    assert.ok(!ajv.compile({ $ref: `https://openapi.test/a.json#/components/schemas/${name}` })(value), name);
  valid("AnalyticsEvent", {
    api_key: "phc_x",
    event: "signed up",
    distinct_id: "u1",
    properties: { plan: "pro" },
    timestamp: "2026-01-01T00:00:00Z",
  });
  invalid("AnalyticsEvent", { api_key: "phc_x", distinct_id: "u1" });
  valid("AnalyticsBatch", {
    api_key: "phc_x",
    batch: [{ event: "a", distinct_id: "u1" }],
    sent_at: "2026-01-01T00:00:00Z",
  });
  invalid("AnalyticsBatch", { api_key: "phc_x", batch: [] });
  valid("VendorBatch", [{
    event: "$pageview",
    properties: { token: "phc_x", distinct_id: "u1", $lib: "web" },
    uuid: crypto.randomUUID(),
  }]);
  for (const error of [noData(), missingApiKey(), invalidApiKey()]) valid("AnalyticsError", errorBody(error));
  const analytics = parseAnalyticsConfig({
    token: "phc_x",
    flags: { on: true, ab: { variants: { a: 50, b: 50 }, payloads: { a: { x: 1 } } }, some: { rollout: 10 } },
  }, (why) => {
    throw new Error(why);
  });
  for (const version of [1, 2]) {
    valid(
      "FlagsResponse",
      await flagsResponse(
        analytics,
        { distinctId: "u1", version, withConfig: version === 2 },
        crypto.randomUUID(),
      ),
    );
  }
  valid("RemoteConfig", remoteConfig(analytics, "phc_x"));
});

test("with every module on the document is valid OpenAPI 3.1 by swagger-parser", async () => {
  await SwaggerParser.validate(structuredClone(full) as never);
  await SwaggerParser.validate(structuredClone(buildOpenApiDocument(input({ api: true }))) as never);
});

test("redocly lint (recommended rules) finds no error, with every module on or only the api module", async () => {
  for (const doc of [full, buildOpenApiDocument(input({ api: true }))]) {
    const report = await redoclyLint(doc);
    assert.deepEqual(lintErrors(report), []);
    assert.equal(report.totals.errors, 0);
  }
});
