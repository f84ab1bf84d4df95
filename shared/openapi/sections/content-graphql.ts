// Content GraphQL: POST and GET on the GraphQL address (spec "GraphQL (content)"). The schema is generated
// from the content types; the operation's description lists the query fields it has for this site.
import { deliverySecurity, parameterRef } from "../common.ts";
import { json, jsonBody, queryParam } from "../builders.ts";
import { ref } from "../schemas.ts";
import type { OpenApiSection, Operation, Response, SectionContext } from "../types.ts";

export const CONTENT_GRAPHQL_TAG = "Content GraphQL";
export const GRAPHQL_PATH = "/api/content/content/v1/spaces/{space}/environments/{environment}";
/** The codes under errors[].extensions.contentful.code (spec). */
export const GRAPHQL_ERROR_CODES = ["INVALID_QUERY", "TOO_COMPLEX_QUERY", "ACCESS_DENIED", "ACCESS_TOKEN_INVALID"];
export const GRAPHQL_COMPLEXITY_LIMIT = 11_000;

const SCHEMA_NAMES = ["GraphQLRequest", "GraphQLResponse", "GraphQLError"];

function graphqlError(code: string, message: string) {
  return { errors: [{ message, extensions: { contentful: { code, requestId: "4c5f2a0e" } } }] };
}

const answer = (description: string, example?: unknown): Response => ({
  description,
  content: json(ref("GraphQLResponse"), example),
});

/** The query fields the generated schema has for the site's content types. */
function queryFields(ctx: SectionContext): string {
  const perType = ctx.typeIds.map((id) => `\`${id}(id, preview, locale)\`, \`${id}Collection(skip, limit, preview, locale, where, order)\``);
  return [
    ...perType,
    "`asset(id)`",
    "`assetCollection(where, order)`",
    "`entryCollection(where)`",
  ].join(", ");
}

function operation(ctx: SectionContext, method: "post" | "get"): Operation {
  const op: Operation = {
    operationId: method === "post" ? "graphqlQuery" : "graphqlQueryGet",
    summary: method === "post" ? "Run a GraphQL query" : "Run a GraphQL query (GET)",
    description: [
      "The content as GraphQL, generated from the content types. Query fields: " + queryFields(ctx) + ".",
      "Every type has sys { id spaceId environmentId publishedAt firstPublishedAt publishedVersion locale }, metadata " +
      "{ tags concepts }, linkedFrom and its fields; a list of links is `<Type><Field>Collection`, rich text is " +
      "`{ json links { entries { block inline hyperlink } assets { block hyperlink } } }`. Filters `<f>`, `_not`, `_in`, " +
      "`_not_in`, `_exists`, `_contains`, `_not_contains`, `_gt`, `_gte`, `_lt`, `_lte`, `_contains_all`, `_contains_some`, " +
      "`_contains_none`, nested link filters, `sys`, `AND`, `OR`; orders `<f>_ASC`/`_DESC` and sys_id, sys_publishedAt, " +
      "sys_firstPublishedAt, sys_publishedVersion. Asset.url(transform: { width, height, quality, cornerRadius, " +
      "resizeStrategy, resizeFocus, backgroundColor, format }) maps to the image door.",
      `\`preview: true\` needs a preview key (ACCESS_DENIED, 403). A query whose complexity exceeds ${GRAPHQL_COMPLEXITY_LIMIT} ` +
      "is TOO_COMPLEX_QUERY; a malformed one INVALID_QUERY, and so is a mutation or subscription (only queries are " +
      "answered), a string holding the NUL character, a DateTime outside years 0001 to 9999, or a body over 1 MB. " +
      "The codes are under errors[].extensions.contentful.code.",
    ].join("\n\n"),
    tags: [CONTENT_GRAPHQL_TAG],
    security: deliverySecurity(ctx),
    responses: {
      "200": answer("The data, and errors for the parts that failed."),
      "400": answer("INVALID_QUERY or TOO_COMPLEX_QUERY.", graphqlError("INVALID_QUERY", "Cannot query field \"nope\" on type \"Query\".")),
      "401": answer("ACCESS_TOKEN_INVALID: no key where delivery is private, or a revoked key.", graphqlError("ACCESS_TOKEN_INVALID", "The access token you sent could not be found or is invalid.")),
      "403": answer("ACCESS_DENIED: preview asked without a preview key.", graphqlError("ACCESS_DENIED", "Preview requires a preview key.")),
      "404": { $ref: "#/components/responses/NotFound" },
      "429": { $ref: "#/components/responses/RateLimitExceeded" },
    },
  };
  if (method === "post") op.requestBody = jsonBody("GraphQLRequest");
  else {
    op.parameters = [
      queryParam("query", "The GraphQL document.", { type: "string" }, true),
      queryParam("variables", "The variables, as JSON.", { type: "string" }),
      queryParam("operationName", "Which operation of the document to run.", { type: "string" }),
    ];
  }
  return op;
}

export const contentGraphqlSection: OpenApiSection = {
  name: "content graphql",
  schemaNames: SCHEMA_NAMES,
  tags: [{
    name: CONTENT_GRAPHQL_TAG,
    group: "Content API",
    description: "The content API as GraphQL (POST, or GET with ?query=), under the same keys as delivery and preview.",
  }],
  paths(ctx) {
    return {
      [GRAPHQL_PATH]: {
        parameters: [parameterRef("space"), parameterRef("environment")],
        post: operation(ctx, "post"),
        get: operation(ctx, "get"),
      },
    };
  },
  components() {
    return {
      schemas: {
        GraphQLRequest: {
          type: "object",
          required: ["query"],
          properties: {
            query: { type: "string" },
            variables: { type: ["object", "null"], additionalProperties: true },
            operationName: { type: ["string", "null"] },
          },
        },
        GraphQLError: {
          type: "object",
          required: ["message"],
          properties: {
            message: { type: "string" },
            locations: {
              type: "array",
              items: { type: "object", properties: { line: { type: "integer" }, column: { type: "integer" } } },
            },
            path: { type: "array", items: { type: ["string", "integer"] } },
            extensions: {
              type: "object",
              properties: {
                contentful: {
                  type: "object",
                  properties: { code: { type: "string", enum: GRAPHQL_ERROR_CODES }, requestId: { type: "string" } },
                },
              },
            },
          },
        },
        GraphQLResponse: {
          type: "object",
          properties: {
            data: { type: ["object", "null"], additionalProperties: true },
            errors: { type: "array", items: ref("GraphQLError") },
          },
        },
      },
    };
  },
};
