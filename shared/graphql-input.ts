// What both GraphQL APIs (content and storefront) refuse in a query's own text before running it: a
// document too large, too deeply nested or of too many tokens to parse safely (graphql-js parses by
// recursion, so ten thousand nested selections or list literals exhaust the stack), and a string literal
// Postgres cannot hold (shared/input-text.ts), which would otherwise fail inside a query.
import { BREAK, type DocumentNode, GraphQLError, parse, type StringValueNode, visit } from "graphql";
import { storableText } from "./input-text.ts";

/** The bounds of a query document, checked before or while parsing it. */
export const DOCUMENT_LIMITS = {
  /** characters of the query text */
  size: 100_000,
  /** nesting of selections, list and object literals, argument and variable lists together */
  depth: 100,
  /** tokens the lexer may read */
  tokens: 20_000,
};

/**
 * The deepest nesting of `{`, `[` and `(` in a query's text, outside strings and comments: a linear
 * scan, so a document that would exhaust the parser's stack is known before the parser sees it.
 */
export function nestingDepth(query: string, stopAbove = Infinity): number {
  let depth = 0, deepest = 0;
  for (let i = 0; i < query.length; i++) {
    const char = query[i];
    if (char === "#") {
      while (i < query.length && query[i] !== "\n" && query[i] !== "\r") i++;
    } else if (char === '"') {
      if (query.startsWith('"""', i)) {
        // a block string ends at the first """ that is not escaped as \"""
        for (i += 3; i < query.length && !query.startsWith('"""', i); i++) {
          if (query.startsWith('\\"""', i)) i += 3;
        }
        i += 2;
      } else {
        for (i++; i < query.length && query[i] !== '"' && query[i] !== "\n"; i++) {
          if (query[i] === "\\") i++;
        }
      }
    } else if (char === "{" || char === "[" || char === "(") {
      deepest = Math.max(deepest, ++depth);
      if (deepest > stopAbove) return deepest;
    } else if (char === "}" || char === "]" || char === ")") {
      depth--;
    }
  }
  return deepest;
}

/** Why a document is out of bounds (in the API's words), or undefined when it may be parsed. */
export function documentOutOfBounds(query: string, limits = DOCUMENT_LIMITS): string | undefined {
  if (query.length > limits.size) return `The query is longer than ${limits.size} characters.`;
  if (nestingDepth(query, limits.depth) > limits.depth) {
    return `The query nests selections, lists or objects deeper than ${limits.depth} levels.`;
  }
  return undefined;
}

/**
 * Parses a document within DOCUMENT_LIMITS: the parser's own syntax errors come back as they are (they
 * describe the query); anything else it might throw is replaced by `refusal`, never shown.
 */
export function parseBounded(
  query: string,
  limits = DOCUMENT_LIMITS,
): { document: DocumentNode } | { error: GraphQLError } {
  const bounds = documentOutOfBounds(query, limits);
  if (bounds) return { error: new GraphQLError(bounds) };
  try {
    return { document: parse(query, { maxTokens: limits.tokens }) };
  } catch (error) {
    if (error instanceof GraphQLError) return { error };
    return { error: new GraphQLError("The query cannot be parsed.") };
  }
}

/** The first string literal of the document holding text Postgres cannot hold, or undefined. */
export function unstorableStringLiteral(document: DocumentNode): StringValueNode | undefined {
  let found: StringValueNode | undefined;
  visit(document, {
    StringValue(node) {
      if (storableText(node.value)) return undefined;
      found = node;
      return BREAK;
    },
  });
  return found;
}
