// What a query reaches through links from the entries at one place of it: for each entry type, the link
// fields it selects there (single links, link lists with their skip and limit, rich text's link lists)
// and, below the entries those fields link to, the same again. resolvers.ts reads these entries and assets
// level by level before the query walks them, one statement per level and kind as REST's include does,
// so that every link field then resolves at once, without a promise per field.
//
// Pure: a selection in, a plan out; kept per query text and variables (the root field's node is the
// document's, which execute.ts keeps). A link field given arguments other than skip and limit (preview,
// locale, where, order) is left out: its resolver reads what it needs, as before; so is anything the plan
// does not follow (fragments on a collection type, say). Leaving a field out costs a read at its level,
// never a wrong answer: the resolvers stay the only source of the data.
import {
  type FieldNode,
  type FragmentDefinitionNode,
  getArgumentValues,
  getNamedType,
  type GraphQLSchema,
  isAbstractType,
  isObjectType,
  Kind,
  type SelectionNode,
  type SelectionSetNode,
} from "graphql";
import { included } from "./cost.ts";
import type { FieldPlan, SchemaPlan, TypePlan } from "./plan.ts";

/** Rich text's link lists: the field names of <Type><Field>Entries and ...Assets, and the node types each lists. */
export const RICH_TEXT_LINKS = {
  Entry: { inline: "embedded-entry-inline", hyperlink: "entry-hyperlink", block: "embedded-entry-block" },
  Asset: { hyperlink: "asset-hyperlink", block: "embedded-asset-block" },
} as const;

export type Step =
  | { kind: "entry"; id: string; next?: Reach }
  | { kind: "asset"; id: string }
  | { kind: "entries"; id: string; skip: number; limit: number; next?: Reach }
  | { kind: "assets"; id: string; skip: number; limit: number }
  | { kind: "richText"; id: string; linkType: "Entry" | "Asset"; nodeType: string; next?: Reach };

/** Entry type name → the steps out of an entry of that type at this place. */
export type Reach = Map<string, Step[]>;

export interface ReachInput {
  schema: GraphQLSchema;
  plan: SchemaPlan;
  fragments: Record<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
}

const kept = new WeakMap<FieldNode, Map<string, Reach | undefined>>();

/**
 * What a root field's items reach (undefined where nothing): `field` is the collection field's node, whose
 * `items` hold entries of `types` (type names).
 */
export function reachOfCollection(input: ReachInput, field: FieldNode, types: string[]): Reach | undefined {
  let byVariables = kept.get(field);
  if (!byVariables) kept.set(field, byVariables = new Map());
  const key = JSON.stringify(input.variables);
  if (byVariables.has(key)) return byVariables.get(key);
  const reach = new Planner(input).below(itemsOf(input, field.selectionSet), types);
  byVariables.set(key, reach);
  if (byVariables.size > 20) byVariables.delete(byVariables.keys().next().value!);
  return reach;
}

/** The selections of a collection's `items` fields (every alias of it). */
function itemsOf(input: ReachInput, selections: SelectionSetNode | undefined): SelectionNode[] {
  return (selections?.selections ?? []).flatMap((s) =>
    s.kind === Kind.FIELD && s.name.value === "items" && included(s, input.variables) ? s.selectionSet?.selections ?? [] : []
  );
}


class Planner {
  private byTypeName: Map<string, TypePlan>;

  constructor(private input: ReachInput) {
    this.byTypeName = new Map(input.plan.types.map((t) => [t.typeName, t]));
  }

  /** The reach of `selections` over entries of `types`; undefined where it reaches nothing. */
  below(selections: readonly SelectionNode[], types: string[]): Reach | undefined {
    const reach: Reach = new Map();
    this.walk(selections, types, reach);
    return reach.size ? reach : undefined;
  }

  /** The concrete types a type name stands for (itself, or an interface's or union's members). */
  private concrete(name: string): string[] {
    const type = this.input.schema.getType(name);
    if (type && isAbstractType(type)) return this.input.schema.getPossibleTypes(type).map((t) => t.name);
    return type ? [name] : [];
  }

  private walk(selections: readonly SelectionNode[], types: string[], reach: Reach) {
    for (const selection of selections) {
      if (!included(selection, this.input.variables)) continue;
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition?.name.value;
        const narrowed = condition ? types.filter((t) => this.concrete(condition).includes(t)) : types;
        this.walk(selection.selectionSet.selections, narrowed, reach);
      } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = this.input.fragments[selection.name.value];
        if (!fragment) continue;
        const concrete = this.concrete(fragment.typeCondition.name.value);
        this.walk(fragment.selectionSet.selections, types.filter((t) => concrete.includes(t)), reach);
      } else {
        for (const typeName of types) {
          const steps = this.steps(typeName, selection);
          if (!steps.length) continue;
          const into = reach.get(typeName);
          if (into) into.push(...steps);
          else reach.set(typeName, steps);
        }
      }
    }
  }

  /** The steps of one field selected on an entry of `typeName`. */
  private steps(typeName: string, selection: FieldNode): Step[] {
    const type = this.byTypeName.get(typeName);
    const name = selection.name.value;
    const plan = type?.fields.find((f) => ("name" in f ? f.name : f.id) === name);
    if (!type || !plan || plan.kind === "value") return [];
    const given = (selection.arguments ?? []).map((a) => a.name.value);
    if (given.some((a) => a !== "skip" && a !== "limit")) return []; // its resolver reads its arguments
    switch (plan.kind) {
      case "entry":
        return [{ kind: "entry", id: plan.id, next: this.targets(typeName, name, selection.selectionSet?.selections ?? []) }];
      case "asset":
        return [{ kind: "asset", id: plan.id }];
      case "entries": {
        const { skip, limit } = this.page(typeName, selection);
        const next = this.targets(typeName, name, itemsOf(this.input, selection.selectionSet), "items");
        return [{ kind: "entries", id: plan.id, skip, limit, next }];
      }
      case "assets":
        return [{ kind: "assets", id: plan.id, ...this.page(typeName, selection) }];
      case "richText":
        return this.richText(plan, selection);
    }
  }

  /** skip and limit as the resolver gets them (defaults included). */
  private page(typeName: string, selection: FieldNode): { skip: number; limit: number } {
    const parent = this.input.schema.getType(typeName);
    const field = isObjectType(parent) ? parent.getFields()[selection.name.value] : undefined;
    const args = field ? getArgumentValues(field, selection, this.input.variables) : {};
    return { skip: Number(args.skip ?? 0), limit: Number(args.limit ?? 100) };
  }

  /** The reach below a link field's targets: its type's concrete members (of a collection, its items'). */
  private targets(typeName: string, field: string, selections: readonly SelectionNode[], items?: "items") {
    const parent = this.input.schema.getType(typeName);
    let type = isObjectType(parent) ? getNamedType(parent.getFields()[field]?.type) : undefined;
    if (items && isObjectType(type)) type = getNamedType(type.getFields().items?.type);
    return type ? this.below(selections, this.concrete(type.name)) : undefined;
  }

  /** `links { entries { block { ... } } assets { hyperlink { ... } } }` and the like, every alias of each. */
  private richText(plan: Extract<FieldPlan, { kind: "richText" }>, selection: FieldNode): Step[] {
    const steps: Step[] = [];
    const fields = (node: FieldNode | undefined, name?: string) =>
      (node?.selectionSet?.selections ?? []).filter((s): s is FieldNode =>
        s.kind === Kind.FIELD && (name === undefined || s.name.value === name) && included(s, this.input.variables)
      );
    for (const links of fields(selection, "links")) {
      for (const [list, linkType] of [["entries", "Entry"], ["assets", "Asset"]] as const) {
        for (const kinds of fields(links, list)) {
          for (const field of fields(kinds)) {
            const nodeType = (RICH_TEXT_LINKS[linkType] as Record<string, string>)[field.name.value];
            if (!nodeType) continue; // __typename
            const next = linkType === "Entry"
              ? this.below(field.selectionSet?.selections ?? [], this.concrete("Entry"))
              : undefined;
            steps.push({ kind: "richText", id: plan.id, linkType, nodeType, next });
          }
        }
      }
    }
    return steps;
  }
}
