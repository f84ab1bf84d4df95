// The only code that builds the GraphQL API's bodies: `{ data?, errors? }`, each error carrying its code,
// the request id and any details under extensions.contentful, as Contentful's GraphQL API answers. A
// failure of the whole request (key, query, complexity) has its own HTTP status and no data; a failure
// at one path (unknown locale, unresolvable link) leaves the rest of the data and answers 200.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { GraphQLError } from "graphql";
import { presentedToken } from "../../../shared/gate.ts";
import { BodyNotUtf8, RequestTooLarge } from "../../../shared/http.ts";
import { ContentError, type ContentErrorId } from "../envelope.ts";

const STATUS = {
  ACCESS_TOKEN_MISSING: 401,
  ACCESS_TOKEN_INVALID: 401,
  ACCESS_DENIED: 403,
  NOT_FOUND: 404,
  UNKNOWN_SPACE: 404,
  UNKNOWN_ENVIRONMENT: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  INVALID_QUERY: 400,
  TOO_COMPLEX_QUERY: 400,
  COLLIDING_TYPE_NAMES: 422,
  COLLIDING_FIELD_NAMES: 422,
  RESERVED_FIELD_NAME: 422,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_SERVER_ERROR: 500,
  // errors at one path of an answer that otherwise stands
  UNKNOWN_LOCALE: 200,
  UNRESOLVABLE_LINK: 200,
  UNEXPECTED_LINKED_CONTENT_TYPE: 200,
} as const;

export type GraphqlCode = keyof typeof STATUS;

/** A failure of the whole request; the onError below turns it into the envelope. */
export class GraphqlFailure extends Error {
  readonly status: number;
  constructor(
    readonly code: GraphqlCode,
    message: string,
    readonly details?: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
    /** the parser's or validator's own errors, kept for their locations */
    readonly errors: readonly GraphQLError[] = [],
  ) {
    super(message);
    this.status = STATUS[code];
  }
}

/** An error at one path of the answer (null there, the rest of the data kept). */
export function pathError(
  code: GraphqlCode,
  message: string,
  details?: Record<string, unknown>,
): GraphQLError {
  return new GraphQLError(message, { extensions: { contentful: { code, ...(details ? { details } : {}) } } });
}

interface WireError {
  message: string;
  locations?: readonly { line: number; column: number }[];
  path?: readonly (string | number)[];
  extensions: { contentful: { code: string; requestId: string; details?: unknown } };
}

function wireError(
  message: string,
  code: string,
  requestId: string,
  extra: { details?: unknown; locations?: WireError["locations"]; path?: WireError["path"] } = {},
): WireError {
  const contentful: WireError["extensions"]["contentful"] = { code, requestId };
  if (extra.details !== undefined) contentful.details = extra.details;
  return {
    message,
    ...(extra.locations?.length ? { locations: extra.locations } : {}),
    ...(extra.path?.length ? { path: extra.path } : {}),
    extensions: { contentful },
  };
}

/** An execution error as the wire shows it; anything unexpected keeps its message off the wire. */
function executionError(error: GraphQLError, requestId: string): WireError {
  const own = (error.extensions?.contentful ?? undefined) as { code?: string; details?: unknown } | undefined;
  const original = error.originalError;
  let code = own?.code;
  let message = error.message;
  if (!code) {
    if (original instanceof ContentError && original.status < 500) code = "INVALID_QUERY";
    else if (original && !(original instanceof GraphQLError)) {
      console.error(`content graphql: request ${requestId} failed at ${error.path?.join(".")}:`, original);
      code = "INTERNAL_SERVER_ERROR";
      message = "Internal server error.";
    } else code = "INVALID_QUERY";
  }
  return wireError(message, code, requestId, {
    details: own?.details,
    locations: error.locations,
    path: error.path,
  });
}

export function answerBody(result: { data?: unknown; errors?: readonly GraphQLError[] }, requestId: string) {
  const body: { data?: unknown; errors?: WireError[] } = {};
  if (result.data !== undefined) body.data = result.data;
  if (result.errors?.length) body.errors = result.errors.map((e) => executionError(e, requestId));
  return body;
}

export function failureBody(failure: GraphqlFailure, requestId: string) {
  const errors = failure.errors.length
    ? failure.errors.map((e) =>
      wireError(e.message, failure.code, requestId, { details: failure.details, locations: e.locations })
    )
    : [wireError(failure.message, failure.code, requestId, { details: failure.details })];
  return { errors };
}

const FROM_CONTENT_ERROR: Partial<Record<ContentErrorId, GraphqlCode>> = {
  AccessTokenInvalid: "ACCESS_TOKEN_INVALID",
  AccessDenied: "ACCESS_DENIED",
  RateLimitExceeded: "RATE_LIMIT_EXCEEDED",
  NotFound: "NOT_FOUND",
  BadQuery: "INVALID_QUERY",
  InvalidQuery: "INVALID_QUERY",
  PayloadTooLarge: "PAYLOAD_TOO_LARGE",
};

/** onError of the GraphQL routes: admission's ContentErrors and everything else leave in this envelope. */
export function graphqlErrorHandler(error: Error, c: Context): Response {
  const requestId = (c.get("requestId") as string | undefined) ?? "";
  let failure: GraphqlFailure;
  if (error instanceof GraphqlFailure) failure = error;
  else if (error instanceof RequestTooLarge) failure = new GraphqlFailure("PAYLOAD_TOO_LARGE", error.message);
  else if (error instanceof BodyNotUtf8) failure = new GraphqlFailure("INVALID_QUERY", error.message);
  else if (error instanceof ContentError) {
    let code = FROM_CONTENT_ERROR[error.id] ?? "INTERNAL_SERVER_ERROR";
    if (code === "ACCESS_TOKEN_INVALID" && !presentedToken(c.req.raw)) code = "ACCESS_TOKEN_MISSING";
    if (code === "INTERNAL_SERVER_ERROR") {
      console.error(`content graphql: request ${requestId} failed:`, error);
    }
    failure = new GraphqlFailure(code, error.message, undefined, error.headers);
  } else if (error instanceof HTTPException && error.status < 500) {
    failure = new GraphqlFailure(
      error.status === 404 ? "NOT_FOUND" : "INVALID_QUERY",
      error.message || "Bad request.",
    );
  } else {
    console.error(`content graphql: request ${requestId} failed:`, error);
    failure = new GraphqlFailure("INTERNAL_SERVER_ERROR", "Internal server error.");
  }
  return new Response(JSON.stringify(failureBody(failure, requestId)), {
    status: failure.status,
    headers: { "content-type": "application/json", ...failure.headers },
  });
}
