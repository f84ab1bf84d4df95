// The only code that builds the analytics API's error bodies: PostHog's own shape (the one its Django
// capture and its flags service answer), { type, code, detail, attr }. Handlers throw AnalyticsError;
// the analytics routes' onError turns anything thrown into this envelope.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";

export type AnalyticsErrorType =
  | "validation_error"
  | "authentication_error"
  | "invalid_request"
  | "throttled_error"
  | "server_error";

export class AnalyticsError extends Error {
  constructor(
    readonly status: 400 | 401 | 404 | 405 | 413 | 429 | 500 | 503,
    readonly type: AnalyticsErrorType,
    readonly code: string,
    detail: string,
    readonly attr: string | null = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

/** 400: the body could not be read as events (PostHog's `invalid_payload`). */
export const invalidPayload = (detail: string, attr: string | null = null) =>
  new AnalyticsError(400, "validation_error", "invalid_payload", detail, attr);

export const noData = () =>
  new AnalyticsError(
    400,
    "validation_error",
    "no_data",
    "No data found. Make sure to use a POST request when sending the payload in the body of the request.",
  );

export const missingApiKey = () =>
  new AnalyticsError(
    401,
    "authentication_error",
    "missing_api_key",
    "API key not provided. You can find your project API key in PostHog project settings.",
  );

export const invalidApiKey = () =>
  new AnalyticsError(
    401,
    "authentication_error",
    "invalid_api_key",
    "Project API key invalid. You can find your project API key in PostHog project settings.",
  );

export const notFound = () => new AnalyticsError(404, "invalid_request", "not_found", "Not found.");

export const methodNotAllowed = (method: string) =>
  new AnalyticsError(405, "invalid_request", "method_not_allowed", `Method "${method}" not allowed.`);

export function errorBody(error: AnalyticsError) {
  return { type: error.type, code: error.code, detail: error.message, attr: error.attr };
}

/** onError for the analytics routes: every failure leaves in PostHog's envelope, never a stack trace. */
export function analyticsErrorHandler(error: Error, c: Context): Response {
  let failure: AnalyticsError;
  if (error instanceof AnalyticsError) failure = error;
  else if (error instanceof HTTPException && error.status < 500) {
    failure = invalidPayload(error.message || "Malformed request.");
  } else {
    console.error(`analytics: request ${c.get("requestId") ?? ""} failed:`, error);
    failure = new AnalyticsError(
      503,
      "server_error",
      "server_error",
      "Unable to store event. Please try again. If you are the owner of this app you can check the logs for further details.",
    );
  }
  return new Response(JSON.stringify(errorBody(failure)), {
    status: failure.status,
    headers: { "content-type": "application/json", ...failure.headers },
  });
}
