// The protocol server's one error translator: every failure leaves as an XRPC error body
// `{ error, message }` with the status the real clients expect for that name (reference §1, §10).
import type { Context } from "hono";
import { BodyNotUtf8, RequestTooLarge } from "../../../shared/http.ts";

export class XrpcError extends Error {
  constructor(readonly status: number, readonly error: string, message: string) {
    super(message);
  }
}

export const invalidRequest = (message: string) => new XrpcError(400, "InvalidRequest", message);
/** a lexicon-declared "not found" name (RecordNotFound, HandleNotFound, ...): 400, never 404 */
export const notFound = (name: string, message: string) => new XrpcError(400, name, message);
export const invalidRecord = (message: string) => new XrpcError(400, "InvalidRecord", message);
export const invalidSwap = (message: string) => new XrpcError(400, "InvalidSwap", message);
export const expiredToken = () => new XrpcError(400, "ExpiredToken", "Token has expired");
export const invalidToken = (message: string) => new XrpcError(400, "InvalidToken", message);
export const authRequired = (message = "Authentication Required") =>
  new XrpcError(401, "AuthenticationRequired", message);
export const forbidden = (message: string) => new XrpcError(403, "Forbidden", message);
export const payloadTooLarge = (message: string) => new XrpcError(413, "PayloadTooLarge", message);
export const methodNotImplemented = (message = "Method Not Implemented") =>
  new XrpcError(501, "MethodNotImplemented", message);

/** SQLSTATE the community triggers raise when the database refuses a write (migration network_community) */
const DATABASE_REFUSAL = "NW400";

export function xrpcErrorBody(error: unknown): { status: number; body: { error: string; message: string } } {
  if (error instanceof XrpcError) {
    return { status: error.status, body: { error: error.error, message: error.message } };
  }
  if (error instanceof RequestTooLarge) {
    return { status: 413, body: { error: "PayloadTooLarge", message: error.message } };
  }
  if (error instanceof BodyNotUtf8) return { status: 400, body: { error: "InvalidRequest", message: error.message } };
  const code = (error as { code?: unknown })?.code;
  if (code === DATABASE_REFUSAL) {
    return { status: 400, body: { error: "InvalidRecord", message: (error as Error).message } };
  }
  console.error("network:", error);
  return { status: 500, body: { error: "InternalServerError", message: "Internal Server Error" } };
}

/** Hono's onError for the whole function. */
export function xrpcErrorHandler(error: Error, c: Context): Response {
  const { status, body } = xrpcErrorBody(error);
  return c.json(body, status as 400);
}
