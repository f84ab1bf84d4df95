// POST and GET /api/<any version>/graphql.json (and /graphql, which shopify-buy posts to): the request
// shape is checked here (400 when it is not a GraphQL request); everything about the query itself is a
// GraphQL answer with HTTP 200.
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import type { AnswerCache } from "../../../shared/answer-cache.ts";
import { CATALOG_SCOPE, type StoreEnv } from "../access.ts";
import { badRequest, bodyText, json, jsonText, MAX_BODY_BYTES, StoreError, tooLarge } from "../envelope.ts";
import { createStoreContext } from "../graphql/context.ts";
import { type GraphQLRequest, inContextOf, prepare, readsCatalogOnly, run } from "../graphql/execute.ts";
import { acceptedLanguage, requestLocales } from "../domain/shop.ts";

async function readRequest(c: Context<StoreEnv>): Promise<GraphQLRequest> {
  if (c.req.method === "GET") {
    const query = c.req.query("query");
    if (!query) throw badRequest("A GraphQL request needs a query: ?query=...");
    const variables = c.req.query("variables");
    if (query.length + (variables?.length ?? 0) > MAX_BODY_BYTES) throw tooLarge();
    let parsed: unknown;
    try {
      parsed = variables ? JSON.parse(variables) : undefined;
    } catch {
      throw badRequest("The variables parameter is not JSON.");
    }
    return checked({ query, variables: parsed, operationName: c.req.query("operationName") ?? undefined });
  }
  const type = c.req.header("content-type") ?? "";
  const text = await bodyText(c.req.raw);
  // Shopify also takes the bare query as application/graphql
  if (type.includes("application/graphql")) return checked({ query: text });
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    throw badRequest("The body is not JSON.");
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    throw badRequest("The body must be a JSON object.");
  }
  return checked({
    query: body.query,
    variables: body.variables ?? undefined,
    operationName: body.operationName ?? undefined,
  });
}

function checked(request: { query: unknown; variables?: unknown; operationName?: unknown }): GraphQLRequest {
  if (typeof request.query !== "string" || request.query.trim() === "") {
    throw badRequest("The body has no query.");
  }
  if (
    request.variables !== undefined &&
    (typeof request.variables !== "object" || Array.isArray(request.variables) || request.variables === null)
  ) {
    throw badRequest("variables must be a JSON object.");
  }
  if (request.operationName !== undefined && typeof request.operationName !== "string") {
    throw badRequest("operationName must be a string.");
  }
  return request as GraphQLRequest;
}

export function graphqlHandler(ctx: FunctionContext, answers: AnswerCache) {
  return async (c: Context<StoreEnv>) => {
    const request = await readRequest(c);
    const prepared = prepare(request);
    if ("errors" in prepared) return json({ errors: prepared.errors });
    // GraphQL over HTTP: a GET must not change anything
    if (c.req.method === "GET" && prepared.operation.operation === "mutation") {
      throw new StoreError(405, "Mutations are not allowed over GET; use POST.", "METHOD_NOT_ALLOWED", {
        Allow: "POST",
      });
    }
    const site = c.get("site");
    const context = inContextOf(prepared.document, request.operationName, request.variables ?? {});
    const locales = requestLocales(
      site,
      context.language ?? acceptedLanguage(site, c.req.header("accept-language")),
    );
    const country = context.country ?? null;
    // a catalog read's answer is the same for every key until the catalog changes: kept per its version
    const keeping = readsCatalogOnly(prepared.document, prepared.operation)
      ? {
        version: c.get("catalogVersion"),
        key: JSON.stringify([
          request.query,
          request.variables ?? null,
          request.operationName ?? null,
          locales,
          country,
        ]),
      }
      : undefined;
    const kept = keeping && answers.get(CATALOG_SCOPE, keeping.version, keeping.key);
    if (kept) return jsonText(kept.body);
    const store = createStoreContext({
      sql: ctx.sql,
      clock: ctx.clock,
      site,
      publicUrl: ctx.config.publicUrl,
      keyId: c.get("keyId"),
      locales,
      country,
    });
    const result = await run(prepared.document, request, store);
    const text = JSON.stringify(result);
    // an answer with errors (a bad argument, an internal failure) is not kept: the next request tries again
    if (keeping && !result.errors?.length) {
      answers.put(CATALOG_SCOPE, keeping.version, keeping.key, {
        body: text,
        etag: "",
        contentType: "application/json",
      });
    }
    return jsonText(text);
  };
}
