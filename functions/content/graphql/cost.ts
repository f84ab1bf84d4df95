// What a query asks before it runs: its complexity (Contentful's rule: the most entities it could return),
// whether it reads drafts (preview: true anywhere), and collection arguments out of range.
//
// Complexity: a collection counts its limit (default 100; a link list's size validation caps it), times
// the counts of the collections above it; a single linked entity counts 1, times the same. So
//   articleCollection(limit: 100) { items { relatedCollection(limit: 10) { items { cover { url } } } } }
// costs 100 + 100×10 + 100×10×1 = 2100. Rich-text link lists hold what the document names, unknown
// before the read: each counts like one linked entity per parent.
import {
  type DocumentNode,
  type FragmentDefinitionNode,
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  type GraphQLCompositeType,
  GraphQLIncludeDirective,
  type GraphQLNamedType,
  type GraphQLSchema,
  GraphQLSkipDirective,
  isCompositeType,
  isInterfaceType,
  isLeafType,
  isObjectType,
  isUnionType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";
import type { SchemaPlan } from "./plan.ts";

/** Whether a selection is in the answer: not dropped by @skip(if: true) or @include(if: false). */
export function included(node: Parameters<typeof getDirectiveValues>[1], variables: Record<string, unknown>): boolean {
  return getDirectiveValues(GraphQLSkipDirective, node, variables)?.if !== true &&
    getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false;
}

export const MAXIMUM_COST = 11_000;
export const MAXIMUM_LIMIT = 1000;

export interface Analysis {
  cost: number;
  preview: boolean;
  /** collection arguments out of range */
  problems: string[];
  /**
   * a leaf or rich text field is given an argument (its own locale, an image transform): it needs its
   * resolver (resolvers.ts reads those fields as properties otherwise)
   */
  leafArguments: boolean;
}

function isCollection(type: GraphQLNamedType): boolean {
  return isObjectType(type) && type.name.endsWith("Collection") && "items" in type.getFields();
}

/** Entries and assets: the Entry interface, its types, the link unions, Asset. */
function isEntity(type: GraphQLNamedType, schema: GraphQLSchema): boolean {
  if (type.name === "Asset" || type.name === "Entry" || isUnionType(type)) return true;
  const entry = schema.getType("Entry");
  return isObjectType(type) && isInterfaceType(entry) && type.getInterfaces().includes(entry);
}

export function analyze(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
  plan: Pick<SchemaPlan, "maxItems" | "richTextTypes">,
): Analysis {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const analysis: Analysis = { cost: 0, preview: false, problems: [], leafArguments: false };
  const walk = (
    selections: SelectionSetNode | undefined,
    parent: GraphQLCompositeType,
    multiplier: number,
  ) => {
    for (const selection of selections?.selections ?? []) {
      if (!included(selection, variables)) continue;
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
        if (type && isCompositeType(type)) walk(selection.selectionSet, type, multiplier);
        continue;
      }
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        const type = fragment && schema.getType(fragment.typeCondition.name.value);
        if (fragment && type && isCompositeType(type)) walk(fragment.selectionSet, type, multiplier);
        continue;
      }
      if (isUnionType(parent)) continue; // only __typename is selectable on a union
      const field = parent.getFields()[selection.name.value];
      if (!field) continue; // __typename
      const args = getArgumentValues(field, selection, variables);
      if (args.preview === true) analysis.preview = true;
      const type = getNamedType(field.type);
      if (selection.arguments?.length && (isLeafType(type) || plan.richTextTypes.has(type.name))) {
        analysis.leafArguments = true;
      }
      let below = multiplier;
      if (isCollection(type)) {
        const limit = typeof args.limit === "number" ? args.limit : 100;
        if (limit < 0 || limit > MAXIMUM_LIMIT) {
          analysis.problems.push(`${field.name}: limit must be from 0 to ${MAXIMUM_LIMIT}, not ${limit}`);
        }
        if (typeof args.skip === "number" && args.skip < 0) {
          analysis.problems.push(`${field.name}: skip must be 0 or more, not ${args.skip}`);
        }
        const max = plan.maxItems.get(`${parent.name}.${field.name}`);
        below = multiplier * Math.max(0, Math.min(limit, max ?? limit));
        analysis.cost += below;
      } else if (isEntity(type, schema) && !isCollection(parent)) {
        analysis.cost += multiplier; // items of a collection were counted with the collection
      }
      if (isCompositeType(type)) walk(selection.selectionSet, type, below);
    }
  };
  const root = schema.getQueryType();
  if (root) walk(operation.selectionSet, root, 1);
  return analysis;
}
