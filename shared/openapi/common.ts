// Pieces every content API operation shares: media types, response headers, error responses, the
// path parameters and the security requirements. Sections name them by reference so each is written once.
import { ref } from "./schemas.ts";
import type {
  Components,
  Header,
  HttpMethod,
  Operation,
  Parameter,
  PathItem,
  Reference,
  Response,
  SectionContext,
  SecurityRequirement,
} from "./types.ts";

export const DELIVERY_MEDIA_TYPE = "application/vnd.contentful.delivery.v1+json";
export const CONTENT_CACHE_CONTROL = "public, max-age=60, s-maxage=300, stale-while-revalidate=600";
export const IMAGE_CACHE_CONTROL = "public, max-age=31536000, immutable";

export const headerRef = (name: string): Reference => ({ $ref: `#/components/headers/${name}` });
export const responseRef = (name: string): Reference => ({ $ref: `#/components/responses/${name}` });
export const parameterRef = (name: string): Reference => ({ $ref: `#/components/parameters/${name}` });

const RATE_LIMIT_HEADERS = [
  ["X-Contentful-RateLimit-Hour-Limit", "Requests allowed per hour (36 000)."],
  ["X-Contentful-RateLimit-Hour-Remaining", "Requests left in the current hour."],
  ["X-Contentful-RateLimit-Second-Limit", "Requests allowed per second (78)."],
  ["X-Contentful-RateLimit-Second-Remaining", "Requests left in the current second."],
  ["X-Contentful-RateLimit-Reset", "Seconds until the limit that was reached resets."],
] as const;

/** The headers a content API answer carries (spec: "Response headers on the content API"). */
export function contentHeaders(): Record<string, Header> {
  const headers: Record<string, Header> = {
    ETag: {
      description: "Identifies this answer; send it back in If-None-Match to get 304 while it is unchanged.",
      schema: { type: "string" },
    },
    "Cache-Control": {
      description:
        `Content answers: \`${CONTENT_CACHE_CONTROL}\`; image answers: \`${IMAGE_CACHE_CONTROL}\`.`,
      schema: { type: "string" },
    },
    "X-Contentful-Request-Id": {
      description: "The request's id (also the error body's requestId).",
      schema: { type: "string" },
    },
    "Retry-After": {
      description: "Seconds to wait before retrying.",
      schema: { type: "integer", minimum: 0 },
    },
  };
  for (const [name, description] of RATE_LIMIT_HEADERS) {
    headers[name] = { description, schema: { type: "integer", minimum: 0 } };
  }
  return headers;
}

/** Headers of a successful content answer. */
export function successHeaders(opts: { etag?: boolean } = {}): Record<string, Reference> {
  const names = [
    ...(opts.etag === false ? [] : ["ETag"]),
    "Cache-Control",
    "X-Contentful-Request-Id",
    ...RATE_LIMIT_HEADERS.map(([name]) => name),
  ];
  return Object.fromEntries(names.map((name) => [name, headerRef(name)]));
}

/** A 200 answer in the delivery media type. */
export const MANAGEMENT_MEDIA_TYPE = "application/vnd.contentful.management.v1+json";

/**
 * A 200 answer in the delivery media type; `managed` names the management shape the same route answers
 * when asked with the management media type under a management key.
 */
export function okResponse(
  description: string,
  schema: string,
  opts: { etag?: boolean; managed?: string } = {},
): Response {
  const content: Response["content"] = { [DELIVERY_MEDIA_TYPE]: { schema: ref(schema) } };
  if (opts.managed) content[MANAGEMENT_MEDIA_TYPE] = { schema: ref(opts.managed) };
  return { description, headers: successHeaders(opts), content };
}

const errorContent = (example: { id: string; message: string; details?: unknown }) => ({
  [DELIVERY_MEDIA_TYPE]: {
    schema: ref("Error"),
    example: {
      sys: { type: "Error", id: example.id },
      message: example.message,
      ...(example.details ? { details: example.details } : {}),
      requestId: "4c5f2a0e-0000-0000-0000-000000000000",
    },
  },
});
const errorHeaders = { "X-Contentful-Request-Id": headerRef("X-Contentful-Request-Id") };

/** components.responses for the content API: 304 and the error answers (spec: "Errors", Content API). */
export function contentResponses(): Record<string, Response> {
  return {
    NotModified: {
      description: "Not modified: the If-None-Match header named the current ETag.",
      headers: { ETag: headerRef("ETag"), "Cache-Control": headerRef("Cache-Control") },
    },
    BadQuery: {
      description:
        "BadQuery (an argument out of range, a field filter or order without content_type, an unknown locale, " +
        "a sync token the service did not issue) or InvalidQuery (an unknown content type, with details.errors[0].name " +
        "`unknownContentType`; an unsupported operator such as [near] or [within]).",
      headers: errorHeaders,
      content: errorContent({
        id: "BadQuery",
        message:
          "The query you sent was invalid. Probably a filter or ordering specification is not applicable to the type of a field.",
      }),
    },
    AccessTokenInvalid: {
      description: "AccessTokenInvalid: no key where delivery is private, or a revoked or unknown key.",
      headers: errorHeaders,
      content: errorContent({
        id: "AccessTokenInvalid",
        message: "The access token you sent could not be found or is invalid.",
      }),
    },
    AccessDenied: {
      description:
        "AccessDenied: the key's kind does not allow this request (for example drafts under a delivery key).",
      headers: errorHeaders,
      content: errorContent({ id: "AccessDenied", message: "The key you sent does not allow this request." }),
    },
    NotFound: {
      description:
        "NotFound: the space, environment, entry, asset, content type or route is unknown; details { type, id } name what.",
      headers: errorHeaders,
      content: errorContent({
        id: "NotFound",
        message: "The resource could not be found.",
        details: { type: "Entry", id: "article.missing" },
      }),
    },
    RateLimitExceeded: {
      description: "RateLimitExceeded: too many requests; X-Contentful-RateLimit-Reset says when to retry.",
      headers: {
        ...errorHeaders,
        "X-Contentful-RateLimit-Reset": { ...headerRef("X-Contentful-RateLimit-Reset") },
        "Retry-After": headerRef("Retry-After"),
      },
      content: errorContent({
        id: "RateLimitExceeded",
        message: "You have exceeded the rate limit. Please retry later.",
      }),
    },
  };
}

/** The error answers of a read: 400, 401, 403, 404, 429. */
export function readErrors(): Record<string, Reference> {
  return {
    "400": responseRef("BadQuery"),
    "401": responseRef("AccessTokenInvalid"),
    "403": responseRef("AccessDenied"),
    "404": responseRef("NotFound"),
    "429": responseRef("RateLimitExceeded"),
  };
}

/** components.parameters shared by the content API's paths. */
export function contentParameters(ctx: SectionContext): Record<string, Parameter> {
  const { space } = ctx.input;
  return {
    space: {
      name: "space",
      in: "path",
      required: true,
      description:
        "The space id (configuration api.space, by default the site's slug). Another id answers NotFound.",
      schema: { type: "string", enum: [space], default: space },
      example: space,
    },
    environment: {
      name: "environment",
      in: "path",
      required: true,
      description: "The environment: only `master`. Another answers NotFound. The segment may be left out.",
      schema: { type: "string", enum: ["master"], default: "master" },
    },
    entry_id: {
      name: "entry_id",
      in: "path",
      required: true,
      description: "The entry's id: `<contentType>.<record path with / replaced by .>`.",
      schema: { type: "string" },
      example: "article.hello-world",
    },
    asset_id: {
      name: "asset_id",
      in: "path",
      required: true,
      description: "The asset's id (a hash of the file's address).",
      schema: { type: "string" },
    },
    content_type_id: {
      name: "content_type_id",
      in: "path",
      required: true,
      description: "The content type's id (the model's singular in camelCase).",
      schema: ctx.typeIds.length ? { type: "string", enum: [...ctx.typeIds] } : { type: "string" },
    },
    ifNoneMatch: {
      name: "If-None-Match",
      in: "header",
      description: "An ETag from an earlier answer; an unchanged answer is then 304 without a body.",
      schema: { type: "string" },
    },
  };
}

/**
 * Security for a content read: the bearer key or the access_token query parameter; with api.public (the
 * default) no key is needed either.
 */
export function deliverySecurity(ctx: SectionContext): SecurityRequirement[] {
  const keyed: SecurityRequirement[] = [{ key: [] }, { access_token: [] }];
  return ctx.deliveryPublic ? [...keyed, {}] : keyed;
}

/** components.securitySchemes: `key` is the bearer key (spec); `access_token` names the same key in the query. */
export function contentSecuritySchemes(): Components["securitySchemes"] {
  return {
    key: {
      type: "http",
      scheme: "bearer",
      bearerFormat: "pk_<kind>_<32 base62>",
      description:
        "An API key in `Authorization: Bearer <API_KEY>` (delivery, preview or management kind for the content API). " +
        "The same key may instead be sent as the `access_token` query parameter.",
    },
    access_token: {
      type: "apiKey",
      in: "query",
      name: "access_token",
      description: "The API key as a query parameter, instead of the Authorization header.",
    },
  };
}

/** An operation answering with a cacheable read: 200 (ETag), 304, and the read errors. */
export function readOperation(
  ctx: SectionContext,
  op: Omit<Operation, "responses"> & { ok: { description: string; schema: string; managed?: string } },
): Operation {
  const { ok, ...rest } = op;
  return {
    ...rest,
    parameters: [...(rest.parameters ?? []), parameterRef("ifNoneMatch")],
    security: rest.security ?? deliverySecurity(ctx),
    responses: {
      "200": okResponse(ok.description, ok.schema, { managed: ok.managed }),
      "304": responseRef("NotModified"),
      ...readErrors(),
    },
  };
}

/** The delivery base with the environment segment, and the short form without it (spec: "Content API: addresses"). */
export const ENVIRONMENT_BASE = "/api/content/spaces/{space}/environments/{environment}";
export const SPACE_BASE = "/api/content/spaces/{space}";

/**
 * A route the content API answers under both bases: `${ENVIRONMENT_BASE}${sub}` and `${SPACE_BASE}${sub}`.
 * `operations` are built once; the short form's operationIds get a `WithoutEnvironment` suffix.
 */
export function bothBases(
  sub: string,
  operations: Partial<Record<HttpMethod, Operation>>,
  pathParameters: (Parameter | Reference)[] = [],
): Record<string, PathItem> {
  const short: Partial<Record<HttpMethod, Operation>> = {};
  for (const [method, op] of Object.entries(operations) as [HttpMethod, Operation][]) {
    short[method] = {
      ...structuredClone(op),
      operationId: `${op.operationId}WithoutEnvironment`,
      summary: `${op.summary} (environment omitted)`,
    };
  }
  return {
    [`${ENVIRONMENT_BASE}${sub}`]: {
      parameters: [parameterRef("space"), parameterRef("environment"), ...pathParameters],
      ...operations,
    },
    [`${SPACE_BASE}${sub}`]: { parameters: [parameterRef("space"), ...pathParameters], ...short },
  };
}

/** A read the content API answers under both bases (see bothBases). */
export function underBothBases(
  sub: string,
  make: () => Operation,
  pathParameters: (Parameter | Reference)[] = [],
): Record<string, PathItem> {
  return bothBases(sub, { get: make() }, pathParameters);
}
