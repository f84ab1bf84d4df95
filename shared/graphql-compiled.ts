// Runs GraphQL documents compiled once (graphql-jit) instead of through graphql-js's execute, which walks
// the document's selections again for every field of every answer: a page of 100 entries or 250
// products answers thousands of fields. The compiled query calls the same resolvers with the same
// context, so batching (one query per level) is unchanged. Used by the content and storefront APIs.
import {
  type DocumentNode,
  execute,
  type ExecutionResult,
  getNamedType,
  getOperationAST,
  type GraphQLInputObjectType,
  type GraphQLInputType,
  type GraphQLSchema,
  isInputObjectType,
  typeFromAST,
} from "graphql";
import { type CompiledQuery, compileQuery, isCompiledQuery } from "graphql-jit";

type Run = (root: unknown, context: unknown, variables: Record<string, unknown>) =>
  | ExecutionResult
  | Promise<ExecutionResult>;

/** Per schema and document (both kept by their callers' caches), each operation's compiled run. */
const compiled = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, Run>>>();

export interface CompileOptions {
  /**
   * The resolvers hand the built-in scalars (String, Int, Float, Boolean, ID) and enums over already in
   * their wire form, so the compiled query copies them instead of passing each through its type's
   * serializer. Each such call built its error's locations and path up front, whether or not it failed:
   * a page of 250 products has some 20,000 leaves. Custom scalars are serialized as before. A schema
   * whose resolvers may return, say, a number for a String must leave this off.
   */
  leavesInWireForm?: boolean;
}

/**
 * The compiled run of a validated document's operation, made at its first use (with the options of that
 * first call: a schema's caller passes the same ones every time).
 */
export function compiledRun(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string,
  options: CompileOptions = {},
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
  operationName: string | undefined,
  options: CompileOptions,
): Run | undefined {
  if (takesRecursiveInput(schema, document, operationName)) return undefined;
  try {
    const made = compileQuery(schema, document, operationName, {
      disableLeafSerialization: options.leavesInWireForm ?? false,
    });
    if (!isCompiledQuery(made)) return undefined;
    const query = made as CompiledQuery;
    return (root, context, variables) => query.query(root, context, variables);
  } catch {
    return undefined;
  }
}

/**
 * Whether the operation has a variable of an input type that holds itself (a filter's AND and OR lists):
 * graphql-jit's compiled variable parsing recurses through such a type without end, so compiling the
 * query took every byte of the heap (graphql-jit issue 81). graphql-js coerces those variables instead.
 */
function takesRecursiveInput(schema: GraphQLSchema, document: DocumentNode, operationName?: string): boolean {
  const operation = getOperationAST(document, operationName);
  const done = new Set<GraphQLInputObjectType>();
  const open = new Set<GraphQLInputObjectType>();
  const reachesItself = (type: GraphQLInputType | undefined): boolean => {
    const named = type && getNamedType(type);
    if (!named || !isInputObjectType(named) || done.has(named)) return false;
    if (open.has(named)) return true;
    open.add(named);
    const found = Object.values(named.getFields()).some((field) => reachesItself(field.type));
    open.delete(named);
    done.add(named);
    return found;
  };
  return (operation?.variableDefinitions ?? []).some((definition) =>
    reachesItself(typeFromAST(schema, definition.type) as GraphQLInputType | undefined)
  );
}
