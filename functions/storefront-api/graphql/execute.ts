// Runs one GraphQL request: parse (bounded), validate (cached per document), check depth and cost,
// execute. Faults in the query come back as GraphQL errors (HTTP 200); an unexpected failure inside a
// resolver is masked as INTERNAL_SERVER_ERROR and logged, never shown.
import { makeExecutableSchema } from "@graphql-tools/schema";
import {
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  type GraphQLFormattedError,
  type GraphQLSchema,
  Kind,
  type OperationDefinitionNode,
  validate,
} from "graphql";
import { StoreInputError } from "../domain/errors.ts";
import { unstorablePath } from "../domain/input.ts";
import { compiledRun } from "../../../shared/graphql-compiled.ts";
import { DOCUMENT_LIMITS, parseBounded, unstorableStringLiteral } from "../../../shared/graphql-input.ts";
import { limitErrors, measure } from "./limits.ts";
import { resolvers } from "./resolvers.ts";
import { typeDefs } from "./schema.ts";
import type { StoreContext } from "./context.ts";

let built: GraphQLSchema | undefined;
export function storefrontSchema(): GraphQLSchema {
  built ??= makeExecutableSchema({ typeDefs, resolvers: resolvers as never });
  return built;
}

/**
 * documents are parsed and validated once; the same query text (a client's fixed documents) reuses it.
 * `unstorable`: a string literal in it holds what Postgres cannot keep (domain/input.ts).
 */
const documents = new Map<
  string,
  { document?: DocumentNode; errors?: readonly GraphQLError[]; unstorable?: boolean }
>();
const DOCUMENT_CACHE = 500;
/** a query document larger than this is refused before parsing */
export const MAX_QUERY_BYTES = DOCUMENT_LIMITS.size;

function prepared(schema: GraphQLSchema, query: string) {
  let entry = documents.get(query);
  if (entry) return entry;
  const parsed = parseBounded(query);
  if ("error" in parsed) entry = { errors: [withCode(parsed.error, "GRAPHQL_PARSE_FAILED")] };
  else {
    const errors = validate(schema, parsed.document);
    entry = errors.length
      ? { errors: errors.map((e) => withCode(e, "GRAPHQL_VALIDATION_FAILED")) }
      : { document: parsed.document, unstorable: unstorableStringLiteral(parsed.document) !== undefined };
  }
  if (documents.size >= DOCUMENT_CACHE) documents.delete(documents.keys().next().value!);
  documents.set(query, entry);
  return entry;
}

function withCode(error: GraphQLError, code: string): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { ...error.extensions, code },
  });
}

export interface GraphQLRequest {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

export interface GraphQLResponse {
  data?: unknown;
  errors?: GraphQLFormattedError[];
  extensions?: Record<string, unknown>;
}

/** The operation a request runs (by operationName, or the only one). */
function operationOf(document: DocumentNode, name?: string): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode =>
    d.kind === Kind.OPERATION_DEFINITION
  );
  if (name) return operations.find((o) => o.name?.value === name);
  return operations.length === 1 ? operations[0] : undefined;
}

/**
 * The query root's fields that read only the catalog: published records and the site's settings, which
 * bump the `content:published` answer version whenever they change. An answer made of these alone may
 * be kept (routes/graphql.ts). `node`/`nodes` name products, variants and collections only. `cart`
 * changes with every line added, so a query asking for it (or anything not listed) is answered afresh.
 */
const CATALOG_ROOT_FIELDS = new Set([
  "__typename",
  "shop",
  "product",
  "productByHandle",
  "products",
  "productRecommendations",
  "productTags",
  "productTypes",
  "collection",
  "collectionByHandle",
  "collections",
  "localization",
  "publicApiVersions",
  "node",
  "nodes",
]);

/** Whether the operation is a query whose root fields (through fragments too) all read the catalog alone. */
export function readsCatalogOnly(document: DocumentNode, operation: OperationDefinitionNode): boolean {
  if (operation.operation !== "query") return false;
  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  );
  const catalogOnly = (selections: OperationDefinitionNode["selectionSet"]["selections"]): boolean =>
    selections.every((selection) => {
      if (selection.kind === Kind.FIELD) return CATALOG_ROOT_FIELDS.has(selection.name.value);
      if (selection.kind === Kind.INLINE_FRAGMENT) return catalogOnly(selection.selectionSet.selections);
      // validation has ruled out unknown and cyclic spreads
      const fragment = fragments.get(selection.name.value);
      return fragment !== undefined && catalogOnly(fragment.selectionSet.selections);
    });
  return catalogOnly(operation.selectionSet.selections);
}

/** Reads @inContext(language:, country:) off the operation (the locale and country of the answer). */
export function inContextOf(
  document: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown>,
): { language?: string; country?: string } {
  const operation = operationOf(document, operationName);
  const directive = operation?.directives?.find((d) => d.name.value === "inContext");
  const out: { language?: string; country?: string } = {};
  for (const arg of directive?.arguments ?? []) {
    const value = arg.value.kind === Kind.ENUM
      ? arg.value.value
      : arg.value.kind === Kind.VARIABLE
      ? variables[arg.value.name.value]
      : undefined;
    if (typeof value === "string" && (arg.name.value === "language" || arg.name.value === "country")) {
      out[arg.name.value] = value;
    }
  }
  return out;
}

export function formatError(error: GraphQLError): GraphQLFormattedError {
  const original = error.originalError;
  if (original && !(original instanceof GraphQLError)) {
    if (original instanceof StoreInputError) {
      return {
        message: original.message,
        locations: error.locations,
        path: error.path,
        extensions: { code: original.code },
      };
    }
    console.error("storefront-api: resolver failed:", original);
    return {
      message: "Internal error. Looks like something went wrong on our end.",
      locations: error.locations,
      path: error.path,
      extensions: { code: "INTERNAL_SERVER_ERROR" },
    };
  }
  return error.toJSON();
}

/**
 * Prepares a request: the document (or the errors that stop it), and the operation's kind. The context
 * is made by the caller once the document is known (it needs @inContext).
 */
export function prepare(request: GraphQLRequest):
  | { errors: GraphQLFormattedError[] }
  | { document: DocumentNode; operation: OperationDefinitionNode } {
  const schema = storefrontSchema();
  if (request.query.length > MAX_QUERY_BYTES) {
    return {
      errors: [{
        message: `The query is larger than ${MAX_QUERY_BYTES} bytes.`,
        extensions: { code: "MAX_QUERY_SIZE_EXCEEDED" },
      }],
    };
  }
  const entry = prepared(schema, request.query);
  if (entry.errors) return { errors: entry.errors.map((e) => e.toJSON()) };
  const document = entry.document!;
  const operation = operationOf(document, request.operationName);
  if (!operation) {
    const message = request.operationName
      ? `Unknown operation named "${request.operationName}".`
      : "Must provide operation name if query contains multiple operations.";
    return { errors: [{ message, extensions: { code: "GRAPHQL_VALIDATION_FAILED" } }] };
  }
  // refused before anything runs: such text would fail inside a query, never match, or be stored mangled
  const unstorable = entry.unstorable ? "a string argument" : unstorablePath(request.variables ?? {})
    ?.replace(/^\$/, "variables");
  if (unstorable) {
    return {
      errors: [{
        message: `The text of ${unstorable.slice(0, 200)} holds a NUL character or a lone surrogate.`,
        extensions: { code: "BAD_USER_INPUT" },
      }],
    };
  }
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
  const limits = limitErrors(measure(schema, operation, fragments, request.variables ?? {}));
  if (limits.length) return { errors: limits.map((e) => e.toJSON()) };
  return { document, operation };
}

export async function run(
  document: DocumentNode,
  request: GraphQLRequest,
  context: StoreContext,
): Promise<GraphQLResponse> {
  // every resolver and node getter returns the built-in scalars and enums in their wire form (strings,
  // booleans, numbers and enum names as they are printed)
  const result = await compiledRun(storefrontSchema(), document, request.operationName, {
    leavesInWireForm: true,
  })(
    undefined,
    context,
    request.variables ?? {},
  );
  const response: GraphQLResponse = {};
  if (result.errors?.length) response.errors = result.errors.map(formatError);
  if ("data" in result) response.data = result.data;
  return response;
}
