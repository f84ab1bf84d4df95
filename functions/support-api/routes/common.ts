// Pieces every support route uses: the body reader and path numbers, answering in the desk's envelope.
import type { Context, MiddlewareHandler } from "hono";
import { readJsonObject, readUpTo } from "../../../shared/http.ts";
import { jsonPathText, jsonProblem, unstorableUrlText } from "../../../shared/input-text.ts";
import { badRequest, notFound, SupportError } from "../envelope.ts";
import { type MessageInput, readMessageForm } from "../attachments.ts";

/** The most a JSON body may carry (Chatwoot's own limit on a JSON request is about this). */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

/**
 * A JSON object body ({} when empty) of at most 1 MB (413), with text Postgres cannot hold refused (400),
 * and bytes that are not UTF-8 refused too (400) rather than kept as replacement characters.
 */
export async function readBody(c: Context): Promise<Record<string, unknown>> {
  const bytes = await readUpTo(c.req.raw.body, MAX_JSON_BODY_BYTES);
  if (!bytes) throw new SupportError(413, "The body is larger than 1 MB.");
  // readJsonObject refuses bytes that are not UTF-8 as well as text that is not JSON
  const body = await readJsonObject(new Request(c.req.url, { method: "POST", body: bytes as BodyInit }), badRequest);
  const problem = jsonProblem(body);
  if (problem) throw badRequest(`${jsonPathText(problem.path) || "The body"} ${problem.why}.`);
  return body;
}

/** A path id: a positive whole number, else the resource is not found. */
export function idParam(c: Context, name: string, what: string): number {
  const text = c.req.param(name) ?? "";
  if (!/^\d{1,15}$/.test(text) || Number(text) < 1) throw notFound(what);
  return Number(text);
}

/** A path or query holding text Postgres cannot hold names nothing: refused before any route runs. */
export const refuseUnstorableText: MiddlewareHandler = async (c, next) => {
  const unstorable = unstorableUrlText(c.req.url);
  if (unstorable?.path) throw notFound("Route");
  if (unstorable?.parameter !== undefined) {
    throw badRequest(`The query parameter ${JSON.stringify(unstorable.parameter)} is not acceptable.`);
  }
  await next();
};

/** A message body: a form with files (as Chatwoot's clients post them), else a JSON object. */
export async function readMessageInput(c: Context): Promise<MessageInput> {
  return await readMessageForm(c.req.raw) ?? { fields: await readBody(c), files: [] };
}
