// The only code that builds the content API's bodies: its error envelope and its collection shape.
// Handlers throw ContentError; the app's onError turns anything thrown into this envelope.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { BodyNotUtf8, RequestTooLarge } from "../../shared/http.ts";

export const DELIVERY_MEDIA_TYPE = "application/vnd.contentful.delivery.v1+json";
export const MANAGEMENT_MEDIA_TYPE = "application/vnd.contentful.management.v1+json";

export type ContentErrorId =
  | "NotFound"
  | "BadQuery"
  | "InvalidQuery"
  | "AccessTokenInvalid"
  | "AccessDenied"
  | "VersionMismatch"
  | "ValidationFailed"
  | "RateLimitExceeded"
  | "PayloadTooLarge"
  | "BadRequest"
  | "ServerError";

const STATUS: Record<ContentErrorId, number> = {
  NotFound: 404,
  BadQuery: 400,
  InvalidQuery: 400,
  AccessTokenInvalid: 401,
  AccessDenied: 403,
  VersionMismatch: 409,
  ValidationFailed: 422,
  RateLimitExceeded: 429,
  PayloadTooLarge: 413,
  BadRequest: 405,
  ServerError: 500,
};

const DEFAULT_MESSAGE: Record<ContentErrorId, string> = {
  NotFound: "The resource could not be found.",
  BadQuery: "The query you sent was invalid.",
  InvalidQuery: "The query you sent was invalid.",
  AccessTokenInvalid: "The access token you sent could not be found or is invalid.",
  AccessDenied: "The access token you sent is not allowed to do this.",
  VersionMismatch: "The version you sent does not match the current version.",
  ValidationFailed: "Validation error",
  RateLimitExceeded: "You have exceeded the rate limit.",
  PayloadTooLarge: "The request body is too large.",
  BadRequest: "This request is not allowed.",
  ServerError: "Internal server error.",
};

export class ContentError extends Error {
  readonly status: number;
  constructor(
    readonly id: ContentErrorId,
    message?: string,
    readonly details?: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(message ?? DEFAULT_MESSAGE[id]);
    this.status = STATUS[id];
  }
}

export function notFound(type?: string, id?: string): ContentError {
  return new ContentError("NotFound", undefined, type ? { type, id } : undefined);
}

export function badQuery(message: string, details?: unknown): ContentError {
  return new ContentError("BadQuery", message, details);
}

/** Every write in git mode: the site's repository is the source of truth there. */
export function gitModeRefusal(): ContentError {
  return new ContentError(
    "BadRequest",
    "This site is in git mode: its content changes through its repository, not through the API.",
  );
}

export function errorBody(error: ContentError, requestId: string) {
  return {
    sys: { type: "Error", id: error.id },
    message: error.message,
    ...(error.details === undefined ? {} : { details: error.details }),
    requestId,
  };
}

/** onError for the content app: every failure leaves in the content envelope, never a stack trace. */
export function contentErrorHandler(error: Error, c: Context): Response {
  const requestId = (c.get("requestId") as string | undefined) ?? "";
  let failure: ContentError;
  if (error instanceof ContentError) failure = error;
  else if (error instanceof RequestTooLarge) failure = new ContentError("PayloadTooLarge", error.message);
  else if (error instanceof BodyNotUtf8) failure = new ContentError("BadQuery", error.message);
  else if (error instanceof HTTPException && error.status < 500) {
    failure = new ContentError(error.status === 404 ? "NotFound" : "BadQuery", error.message || undefined);
  } else {
    console.error(`content: request ${requestId} failed:`, error);
    failure = new ContentError("ServerError");
  }
  return new Response(JSON.stringify(errorBody(failure, requestId)), {
    status: failure.status,
    headers: { "content-type": DELIVERY_MEDIA_TYPE, ...failure.headers },
  });
}

export interface Collection<T> {
  sys: { type: "Array" };
  total: number;
  skip: number;
  limit: number;
  items: T[];
  includes?: { Entry?: unknown[]; Asset?: unknown[] };
  errors?: unknown[];
}

export function collection<T>(
  items: T[],
  page: { total: number; skip: number; limit: number },
  extra: { includes?: Collection<T>["includes"]; errors?: unknown[] } = {},
): Collection<T> {
  const body: Collection<T> = { sys: { type: "Array" }, total: page.total, skip: page.skip, limit: page.limit, items };
  if (extra.includes && (extra.includes.Entry?.length || extra.includes.Asset?.length)) {
    body.includes = {};
    if (extra.includes.Entry?.length) body.includes.Entry = extra.includes.Entry;
    if (extra.includes.Asset?.length) body.includes.Asset = extra.includes.Asset;
  }
  if (extra.errors?.length) body.errors = extra.errors;
  return body;
}
