// One GraphQL request from text to result: parse, validate, pick the operation, coerce the variables,
// weigh it (complexity, preview, collection arguments), then execute over this request's loaders.
// Anything wrong before execution fails the whole request (GraphqlFailure); errors during it are
// GraphQL errors at their paths.
import {
  type DocumentNode,
  type ExecutionResult,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  type GraphQLSchema,
  type OperationDefinitionNode,
  validate,
} from "graphql";
import { compiledRun } from "../../../shared/graphql-compiled.ts";
import { jsonPathText, jsonProblem } from "../../../shared/input-text.ts";
import { parseBounded, unstorableStringLiteral } from "../../../shared/graphql-input.ts";
import type { Db } from "../../../shared/db.ts";
import { defaultLocale, type SiteSettings } from "../../../shared/site.ts";
import type { Access } from "../access.ts";
import type { ShapeContext } from "../domain/shape.ts";
import { withheldBodies } from "../domain/entry-query.ts";
import { analyze, type Analysis, MAXIMUM_COST } from "./cost.ts";
import { GraphqlFailure } from "./envelope.ts";
import { Loaders } from "./loaders.ts";
import type { SchemaPlan } from "./plan.ts";
import { type GraphqlContext, LEAVES_SERIALIZED } from "./resolvers.ts";
import { schemaFor } from "./schema.ts";
import { RecentMap } from "../../../shared/recent-map.ts";

export interface GraphqlRequest {
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
}

function invalid(message: string, errors: readonly GraphQLError[] = []): GraphqlFailure {
  return new GraphqlFailure("INVALID_QUERY", message, undefined, {}, errors);
}

const UNSTORABLE = "may not contain the NUL character (\\u0000) or a lone surrogate";

/** The first string literal of the document that no filter could be run with (see shared/input-text.ts). */
function unstorableLiteral(document: DocumentNode): GraphQLError | undefined {
  const node = unstorableStringLiteral(document);
  return node && new GraphQLError(`A string in the query ${UNSTORABLE}.`, { nodes: node });
}

// Clients send the same few query texts again and again: parsing and validating one costs more than
// running it on a small page, so valid documents are kept per schema (the most recent 200).
const DOCUMENTS_KEPT = 200;
const documents = new WeakMap<GraphQLSchema, RecentMap<string, DocumentNode>>();

function validDocument(schema: GraphQLSchema, query: string): DocumentNode {
  let kept = documents.get(schema);
  if (!kept) documents.set(schema, kept = new RecentMap(DOCUMENTS_KEPT));
  const known = kept.get(query);
  if (known) return known;
  const parsed = parseBounded(query);
  if ("error" in parsed) throw invalid("Query cannot be parsed.", [parsed.error]);
  const document = parsed.document;
  const unstorable = unstorableLiteral(document);
  if (unstorable) throw invalid(`A string in the query ${UNSTORABLE}.`, [unstorable]);
  const problems = validate(schema, document);
  if (problems.length) throw invalid("Query does not match the schema.", problems);
  kept.set(query, document);
  return document;
}

// A query's analysis depends only on its document, operation and variables (and the schema, whose
// documents these are): clients repeat the same few requests, so it is kept beside the document, for the
// most recent 20 variable sets of each operation.
const ANALYSES_KEPT = 20;
const analyses = new WeakMap<DocumentNode, Map<string, Analysis>>();

function analysisOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
  plan: SchemaPlan,
): Analysis {
  let kept = analyses.get(document);
  if (!kept) analyses.set(document, kept = new Map());
  const key = `${operation.name?.value ?? ""}\n${JSON.stringify(variables)}`;
  let analysis = kept.get(key);
  if (!analysis) {
    analysis = analyze(schema, document, operation, variables, plan);
    kept.set(key, analysis);
    if (kept.size > ANALYSES_KEPT) kept.delete(kept.keys().next().value!);
  }
  return analysis;
}

export async function runGraphql(
  input: { db: Db; site: SiteSettings; access: Access; shape: ShapeContext; publicUrl: string },
  request: GraphqlRequest,
): Promise<ExecutionResult> {
  const { db, site, access } = input;
  const { schema, plan, leafArguments } = await schemaFor(db, site);
  const document = validDocument(schema, request.query);
  const operation = getOperationAST(document, request.operationName);
  if (!operation) {
    throw invalid(
      request.operationName
        ? `The query has no operation named '${request.operationName}'.`
        : "The query holds several operations: name the one to run (operationName).",
    );
  }
  // the schema has a query root only: refuse the others before anything runs, as a fault of the query
  if (operation.operation !== "query") {
    throw invalid(`This API answers queries only: a ${operation.operation} cannot be executed.`);
  }
  const problem = jsonProblem(request.variables ?? {});
  if (problem) throw invalid(`${jsonPathText(["variables", ...problem.path])} ${problem.why}.`);
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], request.variables ?? {});
  if (coerced.errors) throw invalid("The variables do not match the query.", coerced.errors);

  const analysis = analysisOf(schema, document, operation, coerced.coerced, plan);
  if (analysis.problems.length) {
    throw invalid(`Query arguments out of range: ${analysis.problems.join("; ")}.`);
  }
  if (analysis.preview && access.keyKind !== "preview" && access.keyKind !== "management") {
    throw new GraphqlFailure(
      "ACCESS_DENIED",
      "Query asks for preview content (preview: true): that needs a preview key.",
    );
  }
  if (analysis.cost > MAXIMUM_COST) {
    throw new GraphqlFailure(
      "TOO_COMPLEX_QUERY",
      `Query cannot be executed. The maximum allowed complexity for a query is ${MAXIMUM_COST} but it was ${analysis.cost}. Simplify the query e.g. by setting lower limits for collections.`,
      { maximumCost: MAXIMUM_COST, cost: analysis.cost },
    );
  }

  const withheld = input.shape.gated ? undefined : withheldBodies(input.shape.models);
  const contextValue: GraphqlContext = {
    db,
    plan,
    site,
    shape: input.shape,
    loaders: new Loaders(db, withheld),
    defaultLocale: defaultLocale(site).code,
    scheme: new URL(input.publicUrl).protocol,
    nodes: new WeakMap(),
    withheld,
  };
  const runOn = analysis.leafArguments ? leafArguments() : schema;
  return await compiledRun(runOn, document, request.operationName, LEAVES_SERIALIZED)(
    undefined,
    contextValue,
    request.variables ?? {},
  );
}
