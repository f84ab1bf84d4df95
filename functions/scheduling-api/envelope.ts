// The only code that builds the scheduling API's bodies: { status: "success", data } and
// { status: "error", error: { code, message, details? } }. Handlers throw SchedulingError; the app's
// onError turns anything thrown into this envelope, so no stack trace or plain-text error leaves.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { BodyNotUtf8, RequestTooLarge } from "../../shared/http.ts";

export type SchedulingErrorCode =
  | "BAD_REQUEST"
  | "UNAUTHORIZED"
  | "PAYMENT_REQUIRED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "CONFLICT"
  | "PAYLOAD_TOO_LARGE"
  | "TOO_MANY_REQUESTS"
  | "INTERNAL_SERVER_ERROR"
  | "BAD_GATEWAY"
  | "SERVICE_UNAVAILABLE";

const STATUS: Record<SchedulingErrorCode, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  PAYMENT_REQUIRED: 402,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_SERVER_ERROR: 500,
  BAD_GATEWAY: 502,
  SERVICE_UNAVAILABLE: 503,
};

/** details.code values the spec names */
export type DetailsCode = "guest" | "not-included" | "over" | "unpaid" | "taken" | "too-soon";

export class SchedulingError extends Error {
  readonly status: number;
  constructor(
    readonly code: SchedulingErrorCode,
    message: string,
    readonly details?: Record<string, unknown> & { code?: DetailsCode | string },
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = STATUS[code];
  }
}

/** The sessions module is off: every /book address and the API are 404 (the pages answer theirs in HTML). */
export class SessionsOff extends SchedulingError {
  constructor(headers: Record<string, string> = {}) {
    super("NOT_FOUND", "Sessions are switched off for this site.", undefined, headers);
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>) =>
  new SchedulingError("BAD_REQUEST", message, details);
export const notFound = (what: string) => new SchedulingError("NOT_FOUND", `${what} not found`);
export const forbidden = (message: string, details?: Record<string, unknown>) =>
  new SchedulingError("FORBIDDEN", message, details);
export const methodNotAllowed = (message: string) => new SchedulingError("METHOD_NOT_ALLOWED", message);

export function success(
  c: Context,
  data: unknown,
  status: 200 | 201 = 200,
  extra: Record<string, unknown> = {},
) {
  return c.json({ status: "success", data, ...extra }, status);
}

/** Cal's list pagination block, beside data (harmless for callers that ignore it). */
export function pagination(total: number, take: number, skip: number) {
  const returned = Math.max(0, Math.min(take, total - skip));
  return {
    totalItems: total,
    remainingItems: Math.max(0, total - skip - returned),
    returnedItems: returned,
    itemsPerPage: take,
    currentPage: Math.floor(skip / take) + 1,
    totalPages: Math.max(1, Math.ceil(total / take)),
    hasNextPage: skip + returned < total,
    hasPreviousPage: skip > 0,
  };
}

export function errorResponse(failure: SchedulingError, path: string, requestId = ""): Response {
  const body = {
    status: "error",
    timestamp: new Date().toISOString(),
    path,
    error: {
      code: failure.code,
      message: failure.message,
      ...(failure.details === undefined ? {} : { details: failure.details }),
    },
    ...(requestId ? { requestId } : {}),
  };
  return new Response(JSON.stringify(body), {
    status: failure.status,
    headers: { "content-type": "application/json", ...failure.headers },
  });
}

/** onError for the scheduling app. */
export function schedulingErrorHandler(error: Error, c: Context): Response {
  const requestId = (c.get("requestId") as string | undefined) ?? "";
  let failure: SchedulingError;
  if (error instanceof SchedulingError) failure = error;
  else if (error instanceof RequestTooLarge) failure = new SchedulingError("PAYLOAD_TOO_LARGE", error.message);
  else if (error instanceof BodyNotUtf8) failure = badRequest(error.message);
  else if (error instanceof SyntaxError) failure = badRequest("The body is not valid JSON.");
  else if (error instanceof HTTPException && error.status < 500) {
    failure = new SchedulingError(
      error.status === 404 ? "NOT_FOUND" : error.status === 401 ? "UNAUTHORIZED" : "BAD_REQUEST",
      error.message || "Bad request",
    );
  } else {
    console.error(`scheduling: request ${requestId} failed:`, error);
    failure = new SchedulingError("INTERNAL_SERVER_ERROR", "Internal server error.");
  }
  return errorResponse(failure, c.req.path, requestId);
}
