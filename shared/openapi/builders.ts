// Small constructors the API sections share, so each section reads as its spec table: parameters,
// JSON bodies and answers, and each API's error answers built from one table of its error envelope.
import { ref } from "./schemas.ts";
import type { Header, MediaType, Parameter, Reference, RequestBody, Response, Schema } from "./types.ts";

export const JSON_TYPE = "application/json";

export const json = (schema: Schema, example?: unknown): Record<string, MediaType> => ({
  [JSON_TYPE]: example === undefined ? { schema } : { schema, example },
});

export function pathParam(name: string, description: string, schema: Schema = { type: "string" }): Parameter {
  return { name, in: "path", required: true, description, schema };
}

export function queryParam(
  name: string,
  description: string,
  schema: Schema = { type: "string" },
  required = false,
): Parameter {
  return required ? { name, in: "query", required, description, schema } : { name, in: "query", description, schema };
}

export function headerParam(name: string, description: string, schema: Schema = { type: "string" }, required = false): Parameter {
  return required ? { name, in: "header", required, description, schema } : { name, in: "header", description, schema };
}

/** A JSON request body of a named schema (or an inline one). */
export function jsonBody(schema: string | Schema, description?: string, required = true): RequestBody {
  const body: RequestBody = { required, content: json(typeof schema === "string" ? ref(schema) : schema) };
  if (description) body.description = description;
  return body;
}

/** A JSON answer of a named schema (or an inline one). */
export function jsonResponse(
  description: string,
  schema: string | Schema,
  headers?: Record<string, Header | Reference>,
): Response {
  const response: Response = { description, content: json(typeof schema === "string" ? ref(schema) : schema) };
  if (headers) response.headers = headers;
  return response;
}

export const noContent = (description: string): Response => ({ description });

/** One row of an API's error table: the answer's status, its components.responses name, and an example body. */
export interface ErrorRow {
  status: number;
  name: string;
  description: string;
  example: unknown;
  headers?: Record<string, Header | Reference>;
}

/** components.responses for an API's error table, every answer in the API's own envelope schema. */
export function errorResponses(
  schema: string,
  rows: ErrorRow[],
  mediaType = JSON_TYPE,
): Record<string, Response> {
  return Object.fromEntries(rows.map((row) => {
    const response: Response = {
      description: row.description,
      content: { [mediaType]: { schema: ref(schema), example: row.example } },
    };
    if (row.headers) response.headers = row.headers;
    return [row.name, response];
  }));
}

/** The `responses` entries referring to the error answers of the given statuses. */
export function errorRefs(rows: ErrorRow[], ...statuses: number[]): Record<string, Reference> {
  const out: Record<string, Reference> = {};
  for (const status of statuses) {
    const row = rows.find((r) => r.status === status);
    if (!row) throw new Error(`no error answer for status ${status}`);
    out[String(status)] = { $ref: `#/components/responses/${row.name}` };
  }
  return out;
}

/** Retry-After on a 429, as every API sends it. */
export const RETRY_AFTER: Header = {
  description: "Seconds to wait before trying again.",
  schema: { type: "integer", minimum: 0 },
};
