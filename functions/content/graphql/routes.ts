// The GraphQL address of the content API, mounted by app.ts at /content/v1/spaces/:space:
//   POST .../environments/master   { query, variables, operationName } (JSON, or form-encoded)
//   GET  .../environments/master   ?query=&variables=<json>&operationName=
// (and the same without /environments/master, as Contentful answers). Keys as for delivery: Bearer or
// access_token, same rate limits; errors leave in the GraphQL envelope (graphql/envelope.ts).
import { type Context, Hono } from "hono";
import type { AnswerCache, KeptAnswer } from "../../../shared/answer-cache.ts";
import type { FunctionContext } from "../../../shared/context.ts";
import { readBodyText } from "../../../shared/http.ts";
import { defaultLocale } from "../../../shared/site.ts";
import { answerScope, contentAccess, type ContentEnv } from "../access.ts";
import { shapeContext, spaceOf } from "../routes/delivery.ts";
import { answerBody, graphqlErrorHandler, GraphqlFailure } from "./envelope.ts";
import { type GraphqlRequest, runGraphql } from "./execute.ts";

function invalid(message: string): GraphqlFailure {
  return new GraphqlFailure("INVALID_QUERY", message);
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw invalid(`${what} is not JSON.`);
  }
}

/** The request's query, variables and operation name, from the query string (GET) or the body (POST). */
async function readRequest(c: Context<ContentEnv>): Promise<GraphqlRequest> {
  let raw: Record<string, unknown>;
  if (c.req.method === "GET" || c.req.method === "HEAD") {
    raw = Object.fromEntries(new URL(c.req.url).searchParams);
  } else {
    const text = await readBodyText(c.req.raw);
    if ((c.req.header("content-type") ?? "").includes("application/x-www-form-urlencoded")) {
      raw = Object.fromEntries(new URLSearchParams(text));
    } else {
      const body = parseJson(text, "The body");
      if (!body || typeof body !== "object" || Array.isArray(body)) {
        throw invalid("The body must be a JSON object.");
      }
      raw = body as Record<string, unknown>;
    }
  }
  const { query, operationName } = raw;
  let { variables } = raw;
  if (typeof query !== "string" || query.trim() === "") throw invalid("The request has no query.");
  if (typeof variables === "string") {
    variables = variables.trim() === "" ? undefined : parseJson(variables, "variables");
  }
  if (
    variables !== undefined && variables !== null &&
    (typeof variables !== "object" || Array.isArray(variables))
  ) {
    throw invalid("variables must be a JSON object.");
  }
  if (operationName !== undefined && operationName !== null && typeof operationName !== "string") {
    throw invalid("operationName must be a string.");
  }
  return {
    query,
    variables: (variables ?? undefined) as Record<string, unknown> | undefined,
    operationName: (operationName ?? undefined) as string | undefined,
  };
}

/**
 * What a GraphQL answer is kept under: what the caller's key may read (the stage is the scope, gated
 * bodies here) and the request itself. The same query reads the same data, so its answer changes only
 * when content does, as delivery's REST answers.
 */
function answerKey(c: Context<ContentEnv>, request: GraphqlRequest): string {
  const reach = c.get("access").gated ? "gated" : "open";
  return `graphql ${reach} ${
    JSON.stringify([request.query, request.variables ?? null, request.operationName ?? null])
  }`;
}

/**
 * Where a kept answer names its request: an answer with errors (a link that does not resolve, a field
 * the key may not read) is as cacheable as one without, but each error carries the id of the request
 * that got it. The kept copy holds this marker instead (random, so no content can spell it), and each
 * request that takes the copy puts in its own id.
 */
const KEPT_REQUEST_ID = JSON.stringify(`\u0001request-${crypto.randomUUID()}\u0001`).slice(1, -1);
const idInJson = (requestId: string) => JSON.stringify(requestId).slice(1, -1);

const sendGraphql = (answer: KeptAnswer, requestId: string) =>
  new Response(
    answer.body.includes(KEPT_REQUEST_ID)
      ? answer.body.replaceAll(KEPT_REQUEST_ID, idInJson(requestId))
      : answer.body,
    { headers: { "Content-Type": answer.contentType } },
  );

export function graphqlRoutes(ctx: FunctionContext, answers: AnswerCache): Hono<ContentEnv> {
  const app = new Hono<ContentEnv>({ strict: false });
  app.onError(graphqlErrorHandler);
  app.use("*", contentAccess(ctx));

  const answer = async (c: Context<ContentEnv>) => {
    const space = c.req.param("space");
    if (space !== spaceOf(c)) {
      throw new GraphqlFailure(
        "UNKNOWN_SPACE",
        `Query cannot be executed. The space '${space}' does not exist.`,
        {
          type: "Space",
          id: space,
        },
      );
    }
    const environment = c.req.param("environment");
    if (environment !== undefined && environment !== "master") {
      throw new GraphqlFailure(
        "UNKNOWN_ENVIRONMENT",
        `Query cannot be executed. The environment '${environment}' does not exist.`,
        { type: "Environment", id: environment },
      );
    }
    const request = await readRequest(c);
    const access = c.get("access");
    // answers are kept per version of the stage, as delivery's (routes/delivery.ts)
    const keeping = access.answerVersion === undefined
      ? undefined
      : { scope: answerScope(access.stage), version: access.answerVersion, key: answerKey(c, request) };
    const kept = keeping && answers.get(keeping.scope, keeping.version, keeping.key);
    if (kept) return sendGraphql(kept, c.get("requestId"));
    const site = c.get("site");
    const result = await runGraphql({
      db: ctx.sql,
      site,
      access,
      shape: await shapeContext(ctx, c, defaultLocale(site).code),
      publicUrl: ctx.config.publicUrl,
    }, request);
    const requestId = c.get("requestId");
    const body = answerBody(result, requestId);
    const text = JSON.stringify(body);
    // an internal failure is never kept: the next request tries again
    const internal = body.errors?.some((e) => e.extensions.contentful.code === "INTERNAL_SERVER_ERROR");
    if (keeping && !internal) {
      const keptText = body.errors ? text.replaceAll(idInJson(requestId), KEPT_REQUEST_ID) : text;
      answers.put(keeping.scope, keeping.version, keeping.key, {
        body: keptText,
        etag: "",
        contentType: "application/json",
      });
    }
    return sendGraphql({ body: text, etag: "", contentType: "application/json" }, requestId);
  };
  const addresses = ["/", "/environments/:environment"];
  app.on(["GET", "POST"], addresses, answer);
  app.on(["PUT", "PATCH", "DELETE"], addresses, (c) => {
    throw new GraphqlFailure(
      "METHOD_NOT_ALLOWED",
      `${c.req.method} is not accepted here: send the query with POST or GET.`,
    );
  });
  app.all("*", () => {
    throw new GraphqlFailure("NOT_FOUND", "The resource could not be found.");
  });
  return app;
}
