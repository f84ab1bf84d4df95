// Analytics Events and Analytics Capture: the site's PostHog-compatible routes under /api/events
// (functions/content/routes/analytics.ts), with PostHog's error envelope.
import { errorRefs, errorResponses, type ErrorRow, json, jsonResponse, pathParam, queryParam, RETRY_AFTER } from "../builders.ts";
import { ref } from "../schemas.ts";
import type { OpenApiSection, Operation, Parameter, RequestBody, Schema } from "../types.ts";
import { FLAG_KEY } from "../../site/analytics-config.ts";

export const ANALYTICS_EVENTS_TAG = "Analytics Events";
export const ANALYTICS_CAPTURE_TAG = "Analytics Capture";
const GROUP = "Analytics API";

const ERRORS: ErrorRow[] = [
  {
    status: 400,
    name: "AnalyticsInvalidPayload",
    description:
      "validation_error: `no_data` (nothing sent), `invalid_payload` (not JSON, bad compression, an event without " +
      "`event` or `distinct_id`, a bad uuid, timestamp or sent_at, properties that are not an object, nesting past 64 " +
      "levels, more than 20 MB), `invalid_token` (a malformed token in a config address). `attr` names the field.",
    example: {
      type: "validation_error",
      code: "invalid_payload",
      detail: 'Invalid payload: All events must have the event field "distinct_id"!',
      attr: "distinct_id",
    },
  },
  {
    status: 401,
    name: "AnalyticsUnauthorized",
    description: "authentication_error: `missing_api_key` (no token) or `invalid_api_key` (not the site's token).",
    example: {
      type: "authentication_error",
      code: "invalid_api_key",
      detail: "Project API key invalid. You can find your project API key in PostHog project settings.",
      attr: null,
    },
  },
  {
    status: 404,
    name: "AnalyticsNotFound",
    description: "invalid_request `not_found`: an unknown route under /api/events, or a config for another token.",
    example: { type: "invalid_request", code: "not_found", detail: "Not found.", attr: null },
  },
  {
    status: 405,
    name: "AnalyticsMethodNotAllowed",
    description: "invalid_request `method_not_allowed`: the route does not take this method.",
    example: { type: "invalid_request", code: "method_not_allowed", detail: 'Method "PUT" not allowed.', attr: null },
  },
  {
    status: 429,
    name: "AnalyticsRateLimited",
    description: "`rate_limit_exceeded`: too many requests from this address; Retry-After says when to try again.",
    example: { type: "validation_error", code: "rate_limit_exceeded", detail: "Rate limit exceeded", attr: null },
    headers: { "Retry-After": RETRY_AFTER },
  },
];

const string = { type: "string" };
const dateTime = { type: "string", format: "date-time" };
const properties: Schema = {
  type: "object",
  description: "Any JSON properties. `$set` and `$set_once` update the person; `token` and `distinct_id` may sit here.",
  additionalProperties: true,
};

function schemas(): Record<string, Schema> {
  return {
    AnalyticsEvent: {
      type: "object",
      description:
        "One event in the capture API's documented form. The token may instead be in the query (`token`) or in " +
        "properties.token; the distinct id may be `$distinct_id` or properties.distinct_id.",
      required: ["event"],
      properties: {
        api_key: { type: "string", description: "The site's analytics token (site.yaml analytics.token)." },
        event: { type: "string", minLength: 1, description: "The event's name (kept to 200 characters)." },
        distinct_id: {
          type: ["string", "number"],
          description: "Who did it: a visitor's anonymous id or a person's id (kept to 200 characters).",
        },
        properties,
        timestamp: { ...dateTime, description: "When it happened (ISO 8601); corrected by sent_at for the sender's clock." },
        uuid: { type: "string", format: "uuid", description: "The event's id: an event sent again with it is stored once." },
        $set: { type: "object", additionalProperties: true },
        $set_once: { type: "object", additionalProperties: true },
      },
    },
    AnalyticsBatch: {
      type: "object",
      description: "Several events in one request, as the server libraries (posthog-node, posthog-python) send them.",
      required: ["api_key", "batch"],
      properties: {
        api_key: { type: "string" },
        batch: { type: "array", minItems: 1, items: ref("AnalyticsEvent") },
        sent_at: { ...dateTime, description: "When the batch left the sender, to correct its clock." },
        historical_migration: { type: "boolean" },
      },
    },
    VendorEvent: {
      type: "object",
      description: "An event as posthog-js sends it: the token and distinct id inside properties.",
      required: ["event", "properties"],
      properties: {
        event: { type: "string", minLength: 1 },
        properties: {
          ...properties,
          properties: {
            token: { type: "string" },
            distinct_id: { type: ["string", "number"] },
            $lib: { type: "string" },
            $current_url: { type: "string" },
          },
        },
        timestamp: dateTime,
        uuid: { type: "string", format: "uuid" },
        offset: { type: "integer", description: "Milliseconds between the event and the send; wins over timestamp." },
      },
    },
    VendorBatch: {
      type: "array",
      description: "posthog-js's batch: a list of events, usually gzip-compressed (`?compression=gzip-js`).",
      minItems: 1,
      items: ref("VendorEvent"),
    },
    CaptureResponse: {
      type: "object",
      required: ["status"],
      properties: { status: { const: 1 } },
    },
    FlagsRequest: {
      type: "object",
      required: ["distinct_id"],
      properties: {
        token: { type: "string", description: "The site's analytics token (or api_key)." },
        api_key: string,
        distinct_id: { type: ["string", "number"] },
        groups: { type: "object", additionalProperties: true },
        person_properties: { type: "object", additionalProperties: true },
        group_properties: { type: "object", additionalProperties: true },
      },
    },
    FlagDetail: {
      type: "object",
      required: ["key", "enabled", "variant", "reason", "metadata"],
      properties: {
        key: { type: "string", pattern: FLAG_KEY.source },
        enabled: { type: "boolean" },
        variant: { type: ["string", "null"] },
        reason: {
          type: "object",
          required: ["code", "condition_index"],
          properties: {
            code: { type: "string", enum: ["condition_match", "out_of_rollout_bound", "no_condition_match"] },
            condition_index: { type: ["integer", "null"] },
            description: string,
          },
        },
        metadata: {
          type: "object",
          required: ["id", "version"],
          properties: {
            id: { type: "integer" },
            version: { type: "integer" },
            description: { type: ["string", "null"] },
            payload: { type: ["string", "null"], description: "The answer's payload as JSON text." },
          },
        },
      },
    },
    FlagsResponse: {
      type: "object",
      description:
        "Without `v` (or v=1): featureFlags (flag key -> true, false or the variant) and featureFlagPayloads (JSON " +
        "text per enabled flag with a payload). With v=2: flags, each flag's details. With config=true the remote " +
        "config's fields come along.",
      required: ["errorsWhileComputingFlags", "requestId"],
      properties: {
        featureFlags: { type: "object", additionalProperties: { type: ["boolean", "string"] } },
        featureFlagPayloads: { type: "object", additionalProperties: { type: "string" } },
        flags: { type: "object", additionalProperties: ref("FlagDetail") },
        errorsWhileComputingFlags: { type: "boolean" },
        requestId: { type: "string", format: "uuid" },
      },
      additionalProperties: true,
    },
    RemoteConfig: {
      type: "object",
      description: "What the site's analytics offers a client: events go to /e/; replay, heatmaps and surveys are off.",
      required: ["token", "supportedCompression", "hasFeatureFlags"],
      properties: {
        token: string,
        supportedCompression: { type: "array", items: { type: "string", enum: ["gzip", "gzip-js"] } },
        hasFeatureFlags: { type: "boolean" },
        analytics: { type: "object", properties: { endpoint: string } },
        sessionRecording: { const: false },
        heatmaps: { const: false },
        surveys: { const: false },
        siteApps: { type: "array", items: {} },
      },
      additionalProperties: true,
    },
    AnalyticsError: {
      type: "object",
      description: "PostHog's error envelope.",
      required: ["type", "code", "detail", "attr"],
      properties: {
        type: { type: "string", enum: ["validation_error", "authentication_error", "invalid_request", "server_error"] },
        code: { type: "string" },
        detail: { type: "string" },
        attr: { type: ["string", "null"] },
      },
    },
  };
}

/** The ways a capture or flags body may arrive: JSON, gzip (raw bytes), or a base64 `data=` form. */
function payloadBody(schema: Schema, description: string): RequestBody {
  return {
    required: true,
    description:
      `${description} The body may also be gzip bytes (Content-Encoding: gzip, or ?compression=gzip-js with ` +
      "Content-Type text/plain), or a form whose `data` field holds base64 JSON (?compression=base64).",
    content: {
      ...json(schema),
      "text/plain": { schema: { type: "string", description: "JSON, or gzip bytes with ?compression=gzip-js." } },
      "application/x-www-form-urlencoded": {
        schema: {
          type: "object",
          required: ["data"],
          properties: {
            data: { type: "string", description: "Base64 JSON." },
            compression: { type: "string", enum: ["base64"] },
            api_key: string,
          },
        },
      },
    },
  };
}

const captureParameters = (): Parameter[] => [
  queryParam("compression", "How the body is compressed.", { type: "string", enum: ["gzip", "gzip-js", "base64"] }),
  queryParam("_", "When the request left the sender, in milliseconds (posthog-js): corrects the sender's clock.", {
    type: "integer",
  }),
  queryParam("ver", "The SDK's version (ignored).", string),
  queryParam("token", "The site's analytics token, when the body does not carry it.", string),
];

function capture(operationId: string, summary: string, tag: string, body: Schema, description: string): Operation {
  return {
    operationId,
    summary,
    description,
    tags: [tag],
    security: [],
    parameters: captureParameters(),
    requestBody: payloadBody(body, "One event, a list of events, or a batch object."),
    responses: {
      "200": jsonResponse("Stored (an event whose uuid was already stored is skipped).", "CaptureResponse"),
      ...errorRefs(ERRORS, 400, 401, 405, 429),
    },
  };
}

/** The same request as a GET: the payload in `?data=` (base64 or plain JSON), as PostHog serves it too. */
function byQuery(post: Operation): Operation {
  const { requestBody: _body, ...rest } = post;
  return {
    ...rest,
    operationId: `${post.operationId}ByQuery`,
    summary: `${post.summary} (GET ?data=)`,
    description: `${post.description} Sent as a GET, the payload is the \`data\` query parameter: base64 JSON or JSON.`,
    parameters: [queryParam("data", "The payload: base64 JSON, or JSON.", string, true), ...(post.parameters ?? [])],
  };
}

const anyEvents: Schema = {
  oneOf: [ref("AnalyticsEvent"), ref("AnalyticsBatch"), ref("VendorBatch")],
};

const TOKEN_NOTE =
  "No key: requests carry the site's analytics token (site.yaml analytics.token, PostHog's project API key) as " +
  "api_key or token. Errors use PostHog's envelope { type, code, detail, attr }.";

export const analyticsSection: OpenApiSection = {
  name: "analytics",
  schemaNames: Object.keys(schemas()),
  tags: [
    {
      name: ANALYTICS_EVENTS_TAG,
      group: GROUP,
      description:
        "The site's analytics events, compatible with PostHog's capture API: send one event or a batch to " +
        `/api/events. Events are validated and stored; only staff read them. ${TOKEN_NOTE}`,
    },
    {
      name: ANALYTICS_CAPTURE_TAG,
      group: GROUP,
      description:
        "The routes PostHog's SDKs call when given `{base_url}/api/events` as their host: /e/ (posthog-js), /batch/ " +
        "(server libraries), /flags/ (feature flags from site.yaml) and the remote config. Each answers with or " +
        `without its trailing slash (the SDKs send /e/, /batch/ and /flags/). ${TOKEN_NOTE}`,
    },
  ],
  paths() {
    const config = (operationId: string, summary: string, mediaType: string, schema: Schema): Operation => ({
      operationId,
      summary,
      description: "The site's remote config for its token. A malformed token is 400, another site's token 404.",
      tags: [ANALYTICS_CAPTURE_TAG],
      security: [],
      responses: {
        "200": {
          description: "The remote config.",
          headers: {
            "Cache-Control": { description: "`public, max-age=300`.", schema: string },
          },
          content: { [mediaType]: { schema } },
        },
        ...errorRefs(ERRORS, 400, 404, 405, 429),
      },
    });
    const token = pathParam("token", "The site's analytics token.", { type: "string", pattern: "^[A-Za-z0-9_-]{1,200}$" });
    const withGet = (post: Operation) => ({ post, get: byQuery(post) });
    return {
      "/api/events": withGet(capture(
          "captureEvents",
          "Capture events",
          ANALYTICS_EVENTS_TAG,
          anyEvents,
          "Stores one event ({ api_key, event, distinct_id, properties, timestamp }), a list, or { api_key, batch }. " +
            "The whole request is refused if any event is.",
        ),
      ),
      "/api/events/e": withGet(capture(
          "captureSdkEvents",
          "Capture events (posthog-js)",
          ANALYTICS_CAPTURE_TAG,
          { oneOf: [ref("VendorEvent"), ref("VendorBatch"), ref("AnalyticsBatch")] },
          "Where posthog-js sends events: a list of events with the token in properties, usually gzip-compressed.",
        ),
      ),
      "/api/events/batch": withGet(capture(
          "captureBatch",
          "Capture a batch",
          ANALYTICS_CAPTURE_TAG,
          ref("AnalyticsBatch"),
          "Where posthog-node and posthog-python send { api_key, batch: [...], sent_at }.",
        ),
      ),
      "/api/events/flags": withGet({
          operationId: "evaluateFlags",
          summary: "Evaluate feature flags",
          description:
            "The site's flags (site.yaml analytics.flags) for a distinct id. A rollout or a variant is chosen by " +
            "PostHog's hash of the flag key and the distinct id, so a person keeps their answer.",
          tags: [ANALYTICS_CAPTURE_TAG],
          security: [],
          parameters: [
            queryParam("v", "2 answers each flag's details (`flags`); otherwise featureFlags and featureFlagPayloads.", {
              type: "integer",
              minimum: 1,
            }),
            queryParam("config", "`true` adds the remote config's fields.", { type: "boolean" }),
            queryParam("compression", "How the body is compressed.", { type: "string", enum: ["gzip", "gzip-js", "base64"] }),
          ],
          requestBody: payloadBody(ref("FlagsRequest"), "The token and the distinct id."),
          responses: {
            "200": jsonResponse("The flags.", "FlagsResponse"),
            ...errorRefs(ERRORS, 400, 401, 405, 429),
          },
      }),
      "/api/events/array/{token}/config.js": {
        parameters: [token],
        get: config("getRemoteConfigScript", "Get the remote config script", "application/javascript", {
          type: "string",
          description: "A script that sets window._POSTHOG_REMOTE_CONFIG[token] = { config, siteApps }.",
        }),
      },
      "/api/events/array/{token}/config": {
        parameters: [token],
        get: config("getRemoteConfig", "Get the remote config", "application/json", ref("RemoteConfig")),
      },
    };
  },
  components() {
    return { schemas: schemas(), responses: errorResponses("AnalyticsError", ERRORS) };
  },
};
