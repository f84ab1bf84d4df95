// Depth and cost limits, checked before anything runs, so no query can exhaust the server.
//
// Cost counts the objects a query may produce: every selected field returning an object counts once
// per item of the lists it sits in. A connection multiplies its selection by its page size (first or
// last, default 20), but never by more than the data can hold: a product has at most MAX_VARIANTS
// variants and MAX_IMAGES images (domain/catalog.ts keeps every product within them), a cart at most 250 lines, and the lists the site always answers empty
// count zero. So the stock queries of the real clients (shopify-buy asks for 250 variants and 250 images
// of each of 20 products in 20 collections) pass, while nesting lists inside lists to multiply work
// (products > collections > products > ...) is refused, as are too many aliases of the same fields.
//
// Some fields cost more than the objects they answer: a mutation is a transaction holding a row lock and
// a write (about a millisecond, a thousand objects' work), and a cart read prices every line of the cart
// whatever the selection asks. They carry their own weight, and an operation runs at most MAX_MUTATIONS
// mutation fields (aliases count), so no single request can do seconds of writes.
import {
  type FieldNode,
  type FragmentDefinitionNode,
  getNamedType,
  getNullableType,
  GraphQLError,
  type GraphQLField,
  GraphQLInt,
  GraphQLList,
  type GraphQLNamedType,
  type GraphQLSchema,
  isAbstractType,
  isCompositeType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  SchemaMetaFieldDef,
  type SelectionSetNode,
  TypeMetaFieldDef,
  valueFromAST,
} from "graphql";
import { CART_LIMITS } from "../domain/cart.ts";
import { DEFAULT_PAGE, MAX_PAGE } from "../domain/paging.ts";
import { MAX_IMAGES, MAX_VARIANTS } from "../domain/catalog.ts";

export const MAX_DEPTH = 15;
/** about a second of work at most: resolving one object takes a few microseconds */
export const MAX_COST = 250_000;
/** mutation fields one operation may run (Shopify's clients send one; a bag sync a few) */
export const MAX_MUTATIONS = 10;

/** Fields that weigh more than one object (see above); a mutation field weighs MUTATION_WEIGHT. */
const WEIGHTS: Record<string, number> = {
  "QueryRoot.cart": CART_LIMITS.lines,
};
const MUTATION_WEIGHT = 1000;

/** Items a list field can hold whatever is asked: the data's own bound (0 for lists always empty). */
const CAPS: Record<string, number> = {
  "Product.variants": MAX_VARIANTS,
  "Product.images": MAX_IMAGES,
  "Product.options": 10,
  "Product.sellingPlanGroups": 0,
  "ProductVariant.sellingPlanAllocations": 0,
  "Cart.lines": CART_LIMITS.lines,
  "Cart.deliveryGroups": 0,
  "CartDeliveryGroup.cartLines": 0,
  "QueryRoot.productRecommendations": 10,
};

/**
 * Introspection lists count by the schema's own sizes: all types, and the average number of fields,
 * arguments, enum values... per item (summed over every type, the average is what a query really gets).
 * Nesting `fields { type { fields ...` multiplies them like any other list.
 */
const introspectionCaps = new WeakMap<GraphQLSchema, Record<string, number>>();
function introspectionCapsOf(schema: GraphQLSchema): Record<string, number> {
  let caps = introspectionCaps.get(schema);
  if (caps) return caps;
  const types = Object.values(schema.getTypeMap());
  const avg = (pick: (t: GraphQLNamedType) => number) =>
    Math.ceil(types.reduce((n, t) => n + pick(t), 0) / types.length);
  const fieldsOf = (
    t: GraphQLNamedType,
  ) => ("getFields" in t ? Object.values((t as any).getFields()) as any[] : []);
  const fields = types.flatMap(fieldsOf);
  const avgArgs = Math.ceil(
    fields.reduce((n, f) => n + (f.args?.length ?? 0), 0) / Math.max(1, fields.length),
  );
  caps = {
    "__Schema.types": types.length,
    "__Schema.directives": schema.getDirectives().length,
    "__Type.fields": avg((t) => fieldsOf(t).length),
    "__Type.inputFields": avg((t) => ("getFields" in t && !("getInterfaces" in t) ? fieldsOf(t).length : 0)),
    "__Type.enumValues": avg((t) => ("getValues" in t ? (t as any).getValues().length : 0)),
    "__Type.interfaces": avg((t) => ("getInterfaces" in t ? (t as any).getInterfaces().length : 0)),
    "__Type.possibleTypes": avg((t) => (isAbstractType(t) ? schema.getPossibleTypes(t).length : 0)),
    "__Field.args": avgArgs,
    "__Directive.args": avgArgs,
  };
  introspectionCaps.set(schema, caps);
  return caps;
}

export interface QueryMeasure {
  depth: number;
  cost: number;
  /** mutation fields in the operation (each alias once) */
  mutations: number;
}

/** Depth and cost of the operation that will run. */
export function measure(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
): QueryMeasure {
  let depth = 0;
  let cost = 0;
  let mutations = 0;
  const intro = introspectionCapsOf(schema);
  const mutationRoot = schema.getMutationType();
  const root = operation.operation === "mutation" ? mutationRoot : schema.getQueryType();
  if (!root) return { depth, cost, mutations };

  const count = (node: FieldNode, name: string): number | undefined => {
    const arg = node.arguments?.find((a) => a.name.value === name);
    if (!arg) return undefined;
    const value = valueFromAST(arg.value, GraphQLInt, variables as Record<string, unknown>);
    return typeof value === "number" ? value : undefined;
  };
  const listLength = (node: FieldNode, name: string): number => {
    const arg = node.arguments?.find((a) => a.name.value === name);
    if (!arg) return 0;
    const value = valueFromAST(arg.value, new GraphQLList(GraphQLInt), {}) ?? undefined;
    if (arg.value.kind === Kind.LIST) return arg.value.values.length;
    if (arg.value.kind === Kind.VARIABLE) {
      const v = variables[arg.value.name.value];
      return Array.isArray(v) ? v.length : 1;
    }
    return Array.isArray(value) ? value.length : 1;
  };

  const walk = (
    set: SelectionSetNode,
    type: GraphQLNamedType,
    level: number,
    multiplier: number,
    seen: Set<string>,
  ) => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments[selection.name.value];
        // a fragment spread inside itself is refused by validation; guard anyway
        if (!fragment || seen.has(fragment.name.value)) continue;
        const on = schema.getType(fragment.typeCondition.name.value) ?? type;
        walk(fragment.selectionSet, on, level, multiplier, new Set([...seen, fragment.name.value]));
        continue;
      }
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const on = selection.typeCondition
          ? schema.getType(selection.typeCondition.name.value) ?? type
          : type;
        walk(selection.selectionSet, on, level, multiplier, seen);
        continue;
      }
      const name = selection.name.value;
      if (name === "__typename") continue;
      const field = name === "__schema"
        ? SchemaMetaFieldDef
        : name === "__type"
        ? TypeMetaFieldDef
        : fieldOf(type, name);
      depth = Math.max(depth, level);
      if (!field) continue;
      const key = `${type.name}.${name}`;
      if (type === mutationRoot) {
        mutations += 1;
        cost += MUTATION_WEIGHT * multiplier;
      } else if (WEIGHTS[key]) cost += WEIGHTS[key] * multiplier;
      const named = getNamedType(field.type);
      if (!isCompositeType(named) || !selection.selectionSet) continue;
      cost += multiplier;
      let inner = multiplier;
      if (named.name.endsWith("Connection")) {
        const size = Math.min(
          count(selection, "first") ?? count(selection, "last") ?? DEFAULT_PAGE,
          MAX_PAGE,
        );
        inner = multiplier * Math.min(Math.max(size, 0), CAPS[key] ?? MAX_PAGE);
      } else if (key === "QueryRoot.nodes") {
        inner = multiplier * listLength(selection, "ids");
      } else if (getNullableType(field.type) instanceof GraphQLList) {
        inner = multiplier * (CAPS[key] ?? intro[key] ?? 1);
      }
      walk(selection.selectionSet, named, level + 1, inner, seen);
    }
  };
  walk(operation.selectionSet, root, 1, 1, new Set());
  return { depth, cost, mutations };
}

function fieldOf(type: GraphQLNamedType, name: string): GraphQLField<unknown, unknown> | undefined {
  if (isObjectType(type) || (isAbstractType(type) && "getFields" in type)) {
    return (type as { getFields(): Record<string, GraphQLField<unknown, unknown>> }).getFields()[name];
  }
  return undefined;
}

/** The GraphQL errors for a query over the limits (none when within). */
export function limitErrors(m: QueryMeasure): GraphQLError[] {
  const errors: GraphQLError[] = [];
  if (m.depth > MAX_DEPTH) {
    errors.push(
      new GraphQLError(`Query has depth of ${m.depth}, which exceeds max depth of ${MAX_DEPTH}`, {
        extensions: { code: "MAX_DEPTH_EXCEEDED", depth: m.depth, maxDepth: MAX_DEPTH },
      }),
    );
  }
  if (m.cost > MAX_COST) {
    errors.push(
      new GraphQLError(`Query has complexity of ${m.cost}, which exceeds max complexity of ${MAX_COST}`, {
        extensions: { code: "MAX_COMPLEXITY_EXCEEDED", cost: m.cost, maxCost: MAX_COST },
      }),
    );
  }
  if (m.mutations > MAX_MUTATIONS) {
    errors.push(
      new GraphQLError(
        `The operation has ${m.mutations} mutation fields, which exceeds the maximum of ${MAX_MUTATIONS} per request; none of them ran.`,
        {
          extensions: { code: "MAX_MUTATIONS_EXCEEDED", mutations: m.mutations, maxMutations: MAX_MUTATIONS },
        },
      ),
    );
  }
  return errors;
}
