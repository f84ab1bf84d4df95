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
  return answerError(message, { contentful: { code, ...(details ? { details } : {}) } });
}

/**
 * A GraphQL error that is part of an answer (a link to nothing, a stored value its type cannot show), not
 * a fault of the code: its stack is its own text. The compiled query reads the stack of every error a
 * resolver gives it (to copy it onto the error it places at the path), and reading a captured stack makes
 * the runtime format it, source-mapped: about 0.1 ms an error, three of them (0.3 ms) in the bench's page
 * of 100 entries, whose demo data links to a draft entry and a missing asset.
 */
export function answerError(message: string, extensions?: Record<string, unknown>): GraphQLError {
  const error = new GraphQLError(message, extensions ? { extensions } : {});
  Object.defineProperty(error, "stack", {
    value: `GraphQLError: ${message}`,
    writable: true,
    configurable: true,
  });
  return error;
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
  if (result.errors?.length) {
    body.errors = inAnswerOrder(result.errors, result.data).map((e) => executionError(e, requestId));
  }
  return body;
}

/**
 * Errors in the order of their places in the data (its fields in the query's order, list items by
 * index). The executor records an error when its field resolves, so two links read by different queries
 * (an entry and an asset) would otherwise list their errors in the order the database answered.
 */
function inAnswerOrder(errors: readonly GraphQLError[], data: unknown): readonly GraphQLError[] {
  if (errors.length < 2) return errors;
  const place = (path: readonly (string | number)[] = []) => {
    const at: number[] = [];
    let value = data;
    for (const key of path) {
      const holder = value && typeof value === "object" ? value as Record<string | number, unknown> : undefined;
      at.push(typeof key === "number" ? key : holder ? Object.keys(holder).indexOf(key) : -1);
      value = holder?.[key];
    }
    return at;
  };
  const compare = (a: number[], b: number[]) => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
    return a.length - b.length;
  };
  const placed = errors.map((error) => ({ error, at: place(error.path) }));
  return placed.sort((a, b) => compare(a.at, b.at)).map((p) => p.error); // stable: same place, same order
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
