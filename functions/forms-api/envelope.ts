// The only code that builds the Forms API's bodies: its error envelope { code, description, details? }
// and its list shape { total_items, page_count, items }. Handlers throw FormsError; the app's onError
// turns anything thrown into this envelope (always JSON: the Typeform client reads `code` and
// `description` from the body, it never sees the status).
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { BodyNotUtf8, RequestTooLarge } from "../../shared/http.ts";
import { ArgumentError } from "./domain/arguments.ts";
import { DefinitionError } from "./domain/definition.ts";
import { DocumentError } from "./domain/document.ts";
import { AnswerError } from "./domain/responses.ts";

export type FormsErrorCode =
  | "AUTHENTICATION_FAILED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "BAD_REQUEST"
  | "VALIDATION_ERROR"
  | "METHOD_NOT_ALLOWED"
  | "TOO_MANY_REQUESTS"
  | "PAYLOAD_TOO_LARGE"
  | "INTERNAL_SERVER_ERROR";

const STATUS: Record<FormsErrorCode, number> = {
  AUTHENTICATION_FAILED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  BAD_REQUEST: 400,
  VALIDATION_ERROR: 400,
  METHOD_NOT_ALLOWED: 405,
  TOO_MANY_REQUESTS: 429,
  PAYLOAD_TOO_LARGE: 413,
  INTERNAL_SERVER_ERROR: 500,
};

export interface ErrorDetail {
  code: string;
  description: string;
  field?: string;
  in?: "body" | "query" | "path" | "header";
}

export class FormsError extends Error {
  readonly status: number;
  constructor(
    readonly code: FormsErrorCode,
    readonly description: string,
    readonly details?: ErrorDetail[],
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.status = STATUS[code];
  }
}

export const notFound = (what = "The resource could not be found.") => new FormsError("NOT_FOUND", what);

/** An argument or body problem: VALIDATION_ERROR naming the argument. */
export function invalid(description: string, field?: string, where: ErrorDetail["in"] = "query"): FormsError {
  return new FormsError(
    "VALIDATION_ERROR",
    description,
    field ? [{ code: "VALIDATION_ERROR", description, field, in: where }] : undefined,
  );
}

export function errorBody(error: FormsError) {
  return {
    code: error.code,
    description: error.description,
    ...(error.details?.length ? { details: error.details } : {}),
  };
}

export function errorResponse(error: FormsError, requestId?: string): Response {
  return new Response(JSON.stringify(errorBody(error)), {
    status: error.status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      ...(requestId ? { "X-Request-Id": requestId } : {}),
      ...error.headers,
    },
  });
}

/** The one translator of the domain's typed errors into the envelope. */
export function fromDomainError(error: unknown): FormsError | undefined {
  if (error instanceof FormsError) return error;
  if (error instanceof RequestTooLarge) return new FormsError("PAYLOAD_TOO_LARGE", error.message);
  if (error instanceof BodyNotUtf8) return invalid(error.message, "body", "body");
  if (error instanceof ArgumentError) return invalid(error.message, error.argument, error.where);
  if (error instanceof AnswerError) return invalid(error.message, error.ref, "body");
  if (error instanceof DefinitionError || error instanceof DocumentError) {
    const field = error instanceof DefinitionError && error.path.length ? error.path.join(".") : undefined;
    return error.kind === "unsupported"
      ? new FormsError(
        "BAD_REQUEST",
        error.message,
        field ? [{ code: "BAD_REQUEST", description: error.message, field, in: "body" }] : undefined,
      )
      : invalid(error.message, field, "body");
  }
  return undefined;
}

/** onError for the forms app: every failure leaves in the forms envelope, never a stack trace. */
export function formsErrorHandler(error: Error, c: Context): Response {
  const requestId = c.get("requestId") as string | undefined;
  let failure: FormsError;
  const known = fromDomainError(error);
  if (known) failure = known;
  else if (error instanceof HTTPException && error.status < 500) {
    failure = new FormsError(
      error.status === 404 ? "NOT_FOUND" : "BAD_REQUEST",
      error.message || "Bad request.",
    );
  } else {
    console.error(`forms-api: request ${requestId ?? ""} failed:`, error);
    failure = new FormsError("INTERNAL_SERVER_ERROR", "Something went wrong on our side.");
  }
  const response = errorResponse(failure, requestId);
  // CORS must survive errors too (the middleware's headers were set on the response it never saw)
  response.headers.set("access-control-allow-origin", "*");
  return response;
}

export interface ListBody<T> {
  total_items: number;
  page_count: number;
  items: T[];
}

export function listBody<T>(items: T[], total: number, pageSize: number): ListBody<T> {
  return { total_items: total, page_count: Math.ceil(total / pageSize), items };
}
