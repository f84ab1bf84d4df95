// What both GraphQL APIs (content and storefront) refuse in a query's own text before running it: a string
// literal Postgres cannot hold (shared/input-text.ts), which would otherwise fail inside a query.
import { BREAK, type DocumentNode, type StringValueNode, visit } from "graphql";
import { storableText } from "./input-text.ts";

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
