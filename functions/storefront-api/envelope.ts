// The only code that builds the Store API's error bodies: { errors: [ { message, extensions? } ] }
// (spec: Store API errors). Handlers throw StoreError; the app's onError turns anything thrown into
// this shape, so no client ever sees a stack trace or a plain-text error.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { BodyNotUtf8, MAX_REQUEST_BODY_BYTES, readBodyText, RequestTooLarge } from "../../shared/http.ts";
import { unstorablePath } from "./domain/input.ts";

export class StoreError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    readonly headers: Record<string, string> = {},
    /** more members of the body (the sign-in intent of a checkout a guest may not make) */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string, code = "BAD_REQUEST") => new StoreError(400, message, code);
export const notFound = (message = "Not Found") => new StoreError(404, message, "NOT_FOUND");

export function errorBody(error: StoreError) {
  return {
    errors: [{ message: error.message, ...(error.code ? { extensions: { code: error.code } } : {}) }],
    ...error.extra,
  };
}

/** The most a request body may hold (a GraphQL request with its variables, a bag, an event): every API's. */
export const MAX_BODY_BYTES = MAX_REQUEST_BODY_BYTES;

export const tooLarge = () =>
  new StoreError(413, `The request body is larger than ${MAX_BODY_BYTES / 1024 / 1024} MB.`, "PAYLOAD_TOO_LARGE");

/** A request's body as text, read no further than MAX_BODY_BYTES (a 413 beyond). */
export async function bodyText(request: Request): Promise<string> {
  try {
    return await readBodyText(request);
  } catch (error) {
    if (error instanceof RequestTooLarge) throw tooLarge();
    if (error instanceof BodyNotUtf8) throw badRequest(error.message);
    throw error;
  }
}

/** Refuses a parsed JSON value holding a string Postgres cannot keep (domain/input.ts) as the store's 400. */
export function checkStorable(value: unknown): void {
  const path = unstorablePath(value);
  if (path) {
    throw badRequest(
      `The text at ${
        path.slice(0, 200)
      } holds a NUL character or a lone surrogate, which the store cannot keep.`,
    );
  }
}

/** A route's JSON body (undefined when empty); a body that is not JSON is the store's 400. */
export async function jsonBody(request: Request): Promise<any> {
  const text = await bodyText(request);
  if (text.trim() === "") return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw badRequest("The body is not JSON.");
  }
  checkStorable(body);
  return body;
}

/** JSON answers of the API: always application/json (the clients refuse anything else on a 2xx). */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return jsonText(JSON.stringify(body), status, headers);
}

/** A JSON answer already serialised (a kept answer). */
export function jsonText(text: string, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(text, {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

export function storeErrorHandler(error: Error, c: Context): Response {
  let failure: StoreError;
  if (error instanceof StoreError) failure = error;
  else if (error instanceof HTTPException && error.status < 500) {
    failure = new StoreError(
      error.status,
      error.message || "Bad Request",
      error.status === 404 ? "NOT_FOUND" : "BAD_REQUEST",
    );
  } else {
    console.error(`storefront-api: request ${c.get("requestId") ?? ""} failed:`, error);
    failure = new StoreError(
      500,
      "Internal error. Looks like something went wrong on our end.",
      "INTERNAL_SERVER_ERROR",
    );
  }
  return json(errorBody(failure), failure.status, failure.headers);
}

/** A pass-through target that is not deployed answers 404 in that API's own style. */
export function targetNotFound(target: "support" | "forms" | "content", requestId: string): Response {
  if (target === "support") return json({ error: "Resource could not be found" }, 404);
  if (target === "forms") {
    return json({ code: "NOT_FOUND", description: "The requested resource was not found." }, 404);
  }
  return new Response(
    JSON.stringify({
      sys: { type: "Error", id: "NotFound" },
      message: "The resource could not be found.",
      requestId,
    }),
    { status: 404, headers: { "content-type": "application/vnd.contentful.delivery.v1+json" } },
  );
}
