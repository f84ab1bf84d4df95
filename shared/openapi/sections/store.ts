// The Store API (Shopify Storefront-compatible GraphQL; spec content-and-store.md "Store API"), described
// from the spec; the storefront-api engineer refines this section.
import { errorRefs, errorResponses, type ErrorRow, jsonBody, jsonResponse, pathParam, queryParam, RETRY_AFTER } from "../builders.ts";
import type { OpenApiSection, Operation, Schema, SecurityRequirement } from "../types.ts";

export const STOREFRONT_TAG = "Storefront";
const GROUP = "Store API";

const ERRORS: ErrorRow[] = [
  { status: 400, name: "StoreBadRequest", description: "A body that is not JSON or has no query.", example: { errors: [{ message: "Parameter Missing or Invalid" }] } },
  { status: 401, name: "StoreUnauthorized", description: "No token, or a revoked one.", example: { errors: [{ message: "[API] Invalid API key or access token (unrecognized login or wrong password)" }] } },
  { status: 403, name: "StoreForbidden", description: "A key of another kind.", example: { errors: [{ message: "This key cannot use the Storefront API." }] } },
  { status: 404, name: "StoreNotFound", description: "No cart with this token.", example: { errors: [{ message: "Not Found" }] } },
  { status: 429, name: "StoreTooManyRequests", description: "Too many requests; Retry-After says when to try again.", example: { errors: [{ message: "Throttled" }] }, headers: { "Retry-After": RETRY_AFTER } },
];

const security: SecurityRequirement[] = [{ storefrontToken: [] }, { key: [] }];
const string = { type: "string" };

const QUERY_ROOT =
  "QueryRoot: shop; product(id, handle); productByHandle(handle); products(first, after, last, before, reverse, sortKey, " +
  "query); collection(id, handle); collectionByHandle(handle); collections(first, after, reverse, sortKey, query); " +
  "cart(id); node(id); nodes(ids); productRecommendations(productId, productHandle); localization. Mutations: " +
  "cartCreate, cartLinesAdd, cartLinesUpdate, cartLinesRemove, cartBuyerIdentityUpdate, cartAttributesUpdate, " +
  "cartNoteUpdate. Connections carry edges, nodes and pageInfo; `first` is at most 250 (default 20). Prices are " +
  "recomputed from the catalog on every read; a fault in the query itself is 200 with GraphQL errors; cart rule " +
  "refusals are userErrors (INVALID_MERCHANDISE_LINE, QUANTITY_MUST_BE_POSITIVE, INVALID).";

function graphql(operationId: string, method: "post" | "get", summary: string): Operation {
  const op: Operation = {
    operationId,
    summary,
    description: QUERY_ROOT,
    tags: [STOREFRONT_TAG],
    security,
    responses: {
      "200": jsonResponse("The data, and GraphQL errors for the parts that failed.", "StorefrontResponse"),
      ...errorRefs(ERRORS, 400, 401, 403, 429),
    },
  };
  if (method === "post") op.requestBody = jsonBody("StorefrontRequest");
  else {
    op.parameters = [
      queryParam("query", "The GraphQL document.", string, true),
      queryParam("variables", "The variables, as JSON.", string),
    ];
  }
  return op;
}

function handoff(operationId: string, summary: string): Operation {
  return {
    operationId,
    summary,
    description: "A cart made through the API, for the site's checkout page (/cart/c/<token>). No key: the token is the secret.",
    tags: [STOREFRONT_TAG],
    security: [],
    responses: { "200": jsonResponse("The cart's lines.", "CartHandoff"), ...errorRefs(ERRORS, 404, 429) },
  };
}

function schemas(): Record<string, Schema> {
  return {
    StoreError: {
      type: "object",
      description: "The Store API's error body (outside GraphQL).",
      required: ["errors"],
      properties: { errors: { type: "array", items: { type: "object", required: ["message"], properties: { message: string } } } },
    },
    StorefrontRequest: {
      type: "object",
      required: ["query"],
      properties: { query: string, variables: { type: ["object", "null"], additionalProperties: true }, operationName: { type: ["string", "null"] } },
    },
    StorefrontResponse: {
      type: "object",
      properties: {
        data: { type: ["object", "null"], additionalProperties: true },
        errors: { type: "array", items: { type: "object", properties: { message: string, extensions: { type: "object", additionalProperties: true } } } },
      },
    },
    CartHandoff: {
      type: "object",
      required: ["lines", "checkoutUrl", "guestMayBuy"],
      properties: {
        lines: {
          type: "array",
          items: {
            type: "object",
            properties: {
              sku: string,
              variant: { type: ["string", "null"] },
              quantity: { type: "integer", minimum: 1 },
              kind: string,
              name: string,
              label: string,
              unit_amount: { type: "integer" },
              currency: string,
              image: { type: ["string", "null"] },
              handle: string,
            },
          },
        },
        buyerIdentity: { type: "object", properties: { email: { type: ["string", "null"] }, phone: { type: ["string", "null"] }, countryCode: { type: ["string", "null"] } } },
        checkoutUrl: { type: "string", format: "uri" },
        guestMayBuy: {
          type: "boolean",
          description: "A guest may check out every line (printed books and downloads only); otherwise the sign-in with intent `buy` comes first.",
        },
      },
    },
  };
}

export const storeSection: OpenApiSection = {
  name: "store",
  requires: ["store", "api"],
  schemaNames: Object.keys(schemas()),
  tags: [{
    name: STOREFRONT_TAG,
    group: GROUP,
    description:
      "The site's sellable items as a Shopify Storefront-compatible GraphQL API, with carts and a cart handoff. " +
      "Send a storefront key as X-Shopify-Storefront-Access-Token or a bearer. Any `<version>` segment is accepted " +
      "(the examples assume 2024-10); introspection is on.",
  }],
  paths() {
    // an example on the parameter itself: the reference page writes the address with it, not with a gap
    const version = {
      ...pathParam("version", "Any API version, such as 2024-10.", { type: "string", example: "2024-10" }),
      example: "2024-10",
    };
    const token = pathParam("token", "The cart's token.");
    return {
      "/api/store/api/{version}/graphql.json": {
        parameters: [version],
        post: graphql("storefrontGraphql", "post", "Run a storefront query"),
        get: graphql("storefrontGraphqlGet", "get", "Run a storefront query (GET)"),
      },
      "/api/{version}/graphql.json": {
        parameters: [version],
        post: graphql("storefrontGraphqlShort", "post", "Run a storefront query (short address)"),
        get: graphql("storefrontGraphqlShortGet", "get", "Run a storefront query (short address, GET)"),
      },
      "/api/store/carts/{token}": { parameters: [token], get: handoff("getCartHandoff", "Get a cart for checkout") },
      "/api/carts/{token}": { parameters: [token], get: handoff("getCartHandoffShort", "Get a cart for checkout (short address)") },
    };
  },
  components() {
    return {
      schemas: schemas(),
      responses: errorResponses("StoreError", ERRORS),
      securitySchemes: {
        storefrontToken: {
          type: "apiKey",
          in: "header",
          name: "X-Shopify-Storefront-Access-Token",
          description: "A storefront key.",
        },
      },
    };
  },
};

