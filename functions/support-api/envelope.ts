// The only code that builds the support API's bodies: errors `{ error, errors: [message] }` (the spec's
// support envelope) and the list shapes Chatwoot's clients read. Handlers throw SupportError; the app's
// onError turns anything thrown into this envelope, so no stack trace or plain-text error leaves.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";

export type SupportStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 422 | 429 | 500;

export class SupportError extends Error {
  constructor(
    readonly status: SupportStatus,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new SupportError(400, message);
export const unauthorized = (message: string) => new SupportError(401, message);
export const forbidden = (message: string) => new SupportError(403, message);
export const notFound = (what: string) => new SupportError(404, `${what} not found.`);
export const methodNotAllowed = (method: string) => new SupportError(405, `The method ${method} is not allowed.`);
export const unprocessable = (message: string) => new SupportError(422, message);
/** A guard or the rate limit: 429 with Retry-After (whole seconds, at least one). */
export const tooMany = (message: string, retryAfterSeconds: number) =>
  new SupportError(429, message, { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))) });

export function errorResponse(failure: SupportError): Response {
  return new Response(JSON.stringify({ error: failure.message, errors: [failure.message] }), {
    status: failure.status,
    headers: { "content-type": "application/json; charset=utf-8", ...failure.headers },
  });
}

/** onError for the support app. */
export function supportErrorHandler(error: Error, c: Context): Response {
  let failure: SupportError;
  if (error instanceof SupportError) failure = error;
  else if (error instanceof SyntaxError) failure = badRequest("The body is not valid JSON.");
  else if (error instanceof HTTPException && error.status < 500) {
    failure = new SupportError(error.status === 404 ? 404 : error.status === 401 ? 401 : 400, error.message || "Bad request.");
  } else {
    console.error(`support: request ${c.get("requestId") ?? ""} failed:`, error);
    failure = new SupportError(500, "Internal server error.");
  }
  return errorResponse(failure);
}

// ---- list bodies ------------------------------------------------------------------------------------

/** `{ payload }` (one contact, a contact's conversations, the inboxes). */
export const payloadBody = <T>(payload: T) => ({ payload });

/** The conversation list: `{ data: { meta: { counts }, payload } }`. */
export function conversationListBody(meta: Record<string, number>, payload: unknown[]) {
  return { data: { meta, payload } };
}

/** The contact list: `{ meta: { count, current_page }, payload }`. */
export function contactListBody(count: number, page: number, payload: unknown[]) {
  return { meta: { count, current_page: page }, payload };
}

/** A conversation's messages: `{ meta, payload }`. */
export function messageListBody(meta: Record<string, unknown>, payload: unknown[]) {
  return { meta, payload };
}

/** The webhooks list `{ payload: { webhooks } }` and one webhook `{ payload: { webhook } }`. */
export const webhookListBody = (webhooks: unknown[]) => ({ payload: { webhooks } });
export const webhookBody = (webhook: unknown) => ({ payload: { webhook } });
