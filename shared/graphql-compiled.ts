// Runs GraphQL documents compiled once (graphql-jit) instead of through graphql-js's execute, which walks
// the document's selections again for every field of every answer: a page of 100 entries or 250
// products answers thousands of fields. The compiled query calls the same resolvers with the same
// context, so batching (one query per level) is unchanged. Used by the content and storefront APIs.
import { type DocumentNode, execute, type ExecutionResult, type GraphQLSchema } from "graphql";
import { type CompiledQuery, compileQuery, type CompilerOptions, isCompiledQuery } from "graphql-jit";

type Run = (root: unknown, context: unknown, variables: Record<string, unknown>) =>
  | ExecutionResult
  | Promise<ExecutionResult>;

/** Per schema and document (both kept by their callers' caches), each operation's compiled run. */
const compiled = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, Run>>>();

/**
 * The compiled run of a validated document's operation, made at its first use. `options` go to
 * graphql-jit: a schema is always run with the same ones (the compiled runs are kept per schema).
 */
export function compiledRun(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string,
  options?: Partial<CompilerOptions>,
): Run {
  let documents = compiled.get(schema);
  if (!documents) compiled.set(schema, documents = new WeakMap());
  let operations = documents.get(document);
  if (!operations) documents.set(document, operations = new Map());
  const name = operationName ?? "";
  let run = operations.get(name);
  if (!run) {
    run = compile(schema, document, operationName, options) ??
      ((root, context, variables) =>
        execute({
          schema,
          document,
          operationName,
          rootValue: root,
          contextValue: context,
          variableValues: variables,
        }));
    operations.set(name, run);
  }
  return run;
}

/**
 * graphql-jit's compiled query, or undefined where it cannot compile: the document was validated, so
 * that means a runtime that refuses generated code (new Function) or a gap in graphql-jit, and
 * graphql-js's execute answers instead, as it did before.
 */
function compile(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string,
  options?: Partial<CompilerOptions>,
): Run | undefined {
  try {
    const made = compileQuery(schema, document, operationName, options);
    if (!isCompiledQuery(made)) return undefined;
    const query = made as CompiledQuery;
    return (root, context, variables) => query.query(root, context, variables);
  } catch {
    return undefined;
  }
}
