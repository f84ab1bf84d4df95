// Plans the GraphQL schema from the content types (reference/content.md §10): the SDL text, and beside it
// the dictionaries the resolvers read instead of parsing names back (which input field is which filter,
// which enum value is which order). Pure: models in, plan out.
//
// Per content type `blogPost` (type BlogPost):
//   type BlogPost implements Entry { sys contentfulMetadata metadata linkedFrom <fields> }
//   type BlogPostCollection { total skip limit items }, input BlogPostFilter, enum BlogPostOrder,
//   type BlogPostLinkingCollections { entryCollection <type>Collection... } (the types that may link here)
//   Query.blogPost(id, preview, locale), Query.blogPostCollection(skip, limit, preview, locale, where, order)
// Fields: Symbol/Text String, Integer Int, Number Float, Boolean, Date DateTime, Object JSON, Array of
// Symbol [String]; a link to one allowed type is that type, to several a union <Type><Field>, to any the
// Entry interface; a list of links is <field>Collection; rich text is <Type><Field> { json links }.
import { fieldLinkContentTypes } from "../../../shared/site/models.ts";
import type { ContentModel, ContentTypeField } from "../domain/content-types.ts";
import { type FilterTarget, type Operator, type Order, valueKindOf } from "../domain/entry-query.ts";
import { GraphqlFailure } from "./envelope.ts";
import { checkFieldNames, queryNameOf, typeNameOf, TypeNames, upperFirst } from "./names.ts";

export type FieldPlan =
  | { kind: "value"; id: string; scalar: string }
  | { kind: "entry"; id: string; types?: string[]; single?: TypePlan; union?: string }
  | { kind: "asset"; id: string }
  | { kind: "entries"; id: string; name: string; types?: string[]; single?: TypePlan; union?: string }
  | { kind: "assets"; id: string; name: string }
  | { kind: "richText"; id: string; typeName: string };

export interface TypePlan {
  model: ContentModel;
  typeName: string;
  queryName: string;
  fields: FieldPlan[];
  /** the content types whose entries may link to this one (their <type>Collection in linkedFrom) */
  linkedFrom: TypePlan[];
}

export type FilterSpec =
  | { kind: "leaf"; target: FilterTarget; op: Operator; negate?: boolean; scale?: number }
  | { kind: "text"; field: string; negate?: boolean }
  | { kind: "nested"; field: string; list: boolean; contentTypes: string[]; type: string }
  | { kind: "object"; type: string }
  | { kind: "and" | "or"; type: string };

export interface SchemaPlan {
  types: TypePlan[];
  byModel: Map<string, TypePlan>;
  /** input type → input field → what it filters */
  filters: Map<string, Map<string, FilterSpec>>;
  /** order enum → value → the order */
  orders: Map<string, Map<string, Order>>;
  /** `<Type>.<field>Collection` → the size validation's maximum (the complexity counts no more) */
  maxItems: Map<string, number>;
  /** the types whose entries may link to an asset */
  assetLinkedFrom: TypePlan[];
  /** the types of rich text fields (`<Type><Field>`): read as their entries' properties, as leaves are */
  richTextTypes: Set<string>;
  sdl: string;
}

const COLLECTION_ARGS = "skip: Int = 0, limit: Int = 100, preview: Boolean, locale: String";

const COMMON_SDL = `
scalar DateTime
scalar JSON
"an image dimension in pixels, 1 to 4000"
scalar Dimension
"an image quality, 1 to 100"
scalar Quality
"a colour as rgb:rrggbb (or #rrggbb)"
scalar HexColor

type Sys {
  id: String!
  spaceId: String!
  environmentId: String!
  publishedAt: DateTime
  firstPublishedAt: DateTime
  publishedVersion: Int
  locale: String
}

type ContentfulTag { id: String name: String }
type TaxonomyConcept { id: String }
type ContentfulMetadata { tags: [ContentfulTag]! concepts: [TaxonomyConcept]! }

interface Entry {
  sys: Sys!
  contentfulMetadata: ContentfulMetadata!
  metadata: ContentfulMetadata!
}

type EntryCollection { total: Int! skip: Int! limit: Int! items: [Entry]! }

enum ImageResizeStrategy { FIT PAD FILL SCALE CROP THUMB }
enum ImageResizeFocus { CENTER TOP TOP_RIGHT RIGHT BOTTOM_RIGHT BOTTOM BOTTOM_LEFT LEFT TOP_LEFT FACE FACES }
enum ImageFormat { JPG JPG_PROGRESSIVE PNG PNG8 WEBP AVIF }

input ImageTransformOptions {
  width: Dimension
  height: Dimension
  quality: Quality
  "a radius in pixels; -1 rounds the image into a circle or an ellipse"
  cornerRadius: Int
  resizeStrategy: ImageResizeStrategy
  resizeFocus: ImageResizeFocus
  backgroundColor: HexColor
  format: ImageFormat
}

type Asset {
  sys: Sys!
  contentfulMetadata: ContentfulMetadata!
  metadata: ContentfulMetadata!
  title(locale: String): String
  description(locale: String): String
  contentType(locale: String): String
  fileName(locale: String): String
  size(locale: String): Int
  url(transform: ImageTransformOptions, locale: String): String
  width(locale: String): Int
  height(locale: String): Int
  linkedFrom(allowedLocales: [String]): AssetLinkingCollections
}

type AssetCollection { total: Int! skip: Int! limit: Int! items: [Asset]! }
`;

/** Types this plan defines under reserved names (content types may not take them). */
const BUILTIN = new Set([
  "Query",
  "SysFilter",
  "EntryFilter",
  "EntryOrder",
  "AssetFilter",
  "AssetOrder",
  "AssetLinkingCollections",
]);

type Family = "string" | "number" | "boolean";

/** The filters of one value: [input field, GraphQL type, spec]. */
function family(
  name: string,
  scalar: string,
  target: FilterTarget,
  kind: Family,
): [string, string, FilterSpec][] {
  const leaf = (op: Operator, negate?: boolean): FilterSpec => ({
    kind: "leaf",
    target,
    op,
    ...(negate ? { negate } : {}),
  });
  const rows: [string, string, FilterSpec][] = [
    [name, scalar, leaf("eq")],
    [`${name}_not`, scalar, leaf("ne")],
    [`${name}_exists`, "Boolean", leaf("exists")],
  ];
  if (kind === "boolean") return rows;
  rows.push([`${name}_in`, `[${scalar}]`, leaf("in")], [`${name}_not_in`, `[${scalar}]`, leaf("nin")]);
  if (kind === "string") {
    rows.push([`${name}_contains`, scalar, leaf("match")], [
      `${name}_not_contains`,
      scalar,
      leaf("match", true),
    ]);
  } else {
    for (const op of ["gt", "gte", "lt", "lte"] as const) rows.push([`${name}_${op}`, scalar, leaf(op)]);
  }
  return rows;
}

/** Input type SysFilter: publishedAt is sys.updatedAt, firstPublishedAt sys.createdAt, version revision×2. */
function sysFilters(): [string, string, FilterSpec][] {
  return [
    ...family("id", "String", { kind: "sys", field: "id" }, "string"),
    ...family("publishedAt", "DateTime", { kind: "sys", field: "updatedAt" }, "number"),
    ...family("firstPublishedAt", "DateTime", { kind: "sys", field: "createdAt" }, "number"),
    ...family("publishedVersion", "Float", { kind: "sys", field: "revision" }, "number").map(
      (
        [name, type, spec],
      ): [string, string, FilterSpec] => [
        name,
        type,
        spec.kind === "leaf" && spec.op !== "exists" ? { ...spec, scale: 0.5 } : spec,
      ],
    ),
  ];
}

const SYS_ORDERS: [string, Order["target"]][] = [
  ["sys_id", { kind: "sys", field: "id" }],
  ["sys_publishedAt", { kind: "sys", field: "updatedAt" }],
  ["sys_firstPublishedAt", { kind: "sys", field: "createdAt" }],
  ["sys_publishedVersion", { kind: "sys", field: "revision" }],
];

const ASSET_FIELDS = [
  ["title", "String", "string"],
  ["description", "String", "string"],
  ["contentType", "String", "string"],
  ["fileName", "String", "string"],
  ["size", "Int", "number"],
  ["width", "Int", "number"],
  ["height", "Int", "number"],
  ["url", "String", "string"],
] as const;

function sizeMax(field: ContentTypeField): number | undefined {
  const size = field.validations?.find((v) => v.size && typeof v.size === "object")?.size as
    | { max?: unknown }
    | undefined;
  return typeof size?.max === "number" && size.max >= 0 ? size.max : undefined;
}

function scalarOf(field: ContentTypeField): string {
  switch (field.type) {
    case "Symbol":
    case "Text":
      return "String";
    case "Integer":
      return "Int";
    case "Number":
      return "Float";
    case "Boolean":
      return "Boolean";
    case "Date":
      return "DateTime";
    case "Array":
      return field.items?.type === "Symbol" ? "[String]" : "JSON";
    default:
      return "JSON";
  }
}

function familyOf(field: ContentTypeField): { scalar: string; kind: Family } | undefined {
  switch (field.type) {
    case "Symbol":
    case "Text":
      return { scalar: "String", kind: "string" };
    case "Integer":
      return { scalar: "Int", kind: "number" };
    case "Number":
      return { scalar: "Float", kind: "number" };
    case "Date":
      return { scalar: "DateTime", kind: "number" };
    case "Boolean":
      return { scalar: "Boolean", kind: "boolean" };
  }
}

/** The filters of a field that need no other type (everything but the nested link filters). */
function fieldFilters(field: ContentTypeField): [string, string, FilterSpec][] {
  const target: FilterTarget = { kind: "field", field: field.id, valueKind: valueKindOf(field) };
  const exists = (
    name: string,
  ): [string, string, FilterSpec] => [name, "Boolean", { kind: "leaf", target, op: "exists" }];
  const scalar = familyOf(field);
  if (scalar) return family(field.id, scalar.scalar, target, scalar.kind);
  if (field.type === "RichText") {
    return [
      exists(`${field.id}_exists`),
      [`${field.id}_contains`, "String", { kind: "text", field: field.id }],
      [`${field.id}_not_contains`, "String", { kind: "text", field: field.id, negate: true }],
    ];
  }
  if (field.type === "Array" && field.items?.type === "Symbol") {
    return [
      exists(`${field.id}_exists`),
      [`${field.id}_contains_all`, "[String]", { kind: "leaf", target, op: "all" }],
      [`${field.id}_contains_some`, "[String]", { kind: "leaf", target, op: "in" }],
      [`${field.id}_contains_none`, "[String]", { kind: "leaf", target, op: "nin" }],
    ];
  }
  if (field.type === "Array" && field.items?.type === "Link") return [exists(`${field.id}Collection_exists`)];
  return [exists(`${field.id}_exists`)]; // Object, a single Link
}

/** Orders: fields of type Symbol, Integer, Number, Date and Boolean (not Text, links, lists, JSON). */
function orderable(field: ContentTypeField): boolean {
  return ["Symbol", "Integer", "Number", "Date", "Boolean"].includes(field.type);
}

class Planner {
  private names = new TypeNames();
  private sdl: string[] = [COMMON_SDL];
  readonly filters = new Map<string, Map<string, FilterSpec>>();
  readonly orders = new Map<string, Map<string, Order>>();
  readonly maxItems = new Map<string, number>();
  private nested = new Map<string, string>();

  constructor(readonly types: TypePlan[], readonly byModel: Map<string, TypePlan>) {}

  define(kind: string, name: string, owner: string, body: string, head = "") {
    this.names.claim(name, owner, BUILTIN.has(name));
    this.sdl.push(`${kind} ${name}${head} ${body}`);
  }

  input(name: string, owner: string, rows: [string, string, FilterSpec][]) {
    const specs = new Map<string, FilterSpec>();
    for (const [field, , spec] of rows) {
      if (specs.has(field)) {
        throw new GraphqlFailure(
          "COLLIDING_FIELD_NAMES",
          `Schema generation failed. Two filters of ${owner} would both be named '${field}'.`,
          { typeName: name, fieldName: field },
        );
      }
      specs.set(field, spec);
    }
    this.filters.set(name, specs);
    this.define(
      "input",
      name,
      owner,
      `{\n${rows.map(([field, type]) => `  ${field}: ${type}`).join("\n")}\n}`,
    );
  }

  order(name: string, owner: string, rows: [string, Order["target"]][]) {
    const values = new Map<string, Order>();
    for (const [prefix, target] of rows) {
      values.set(`${prefix}_ASC`, { target, descending: false });
      values.set(`${prefix}_DESC`, { target, descending: true });
    }
    this.orders.set(name, values);
    this.define("enum", name, owner, `{ ${[...values.keys()].join(" ")} }`);
  }

  text(): string {
    return this.sdl.join("\n\n");
  }

  /** Cf<Type>NestedFilter: a linked entry's own filters, one level deep (no further link filters). */
  nestedFilter(targets: TypePlan[], owner: TypePlan, field: ContentTypeField): string {
    const name = targets.length === 1
      ? `Cf${targets[0].typeName}NestedFilter`
      : `Cf${owner.typeName}${upperFirst(field.id)}MultiTypeNestedFilter`;
    if (this.nested.has(name)) return name;
    this.nested.set(name, name);
    // several types: the fields they all have, alike
    const [first, ...rest] = targets;
    const shared = first.model.fields.filter((f) =>
      rest.every((t) =>
        t.model.fields.some((g) => g.id === f.id && scalarOf(g) === scalarOf(f) && g.type === f.type)
      )
    );
    this.input(name, `the link field ${owner.model.id}.${field.id}`, [
      ["sys", "SysFilter", { kind: "object", type: "SysFilter" }],
      ...shared.flatMap(fieldFilters),
      ["AND", `[${name}]`, { kind: "and", type: name }],
      ["OR", `[${name}]`, { kind: "or", type: name }],
    ]);
    return name;
  }
}

/** The schema plan of a site's content types. Throws GraphqlFailure for colliding or reserved names. */
export function planSchema(models: ContentModel[]): SchemaPlan {
  const types: TypePlan[] = models.map((model) => {
    const typeName = typeNameOf(model.id);
    return { model, typeName, queryName: queryNameOf(typeName), fields: [], linkedFrom: [] };
  });
  const byModel = new Map(types.map((t) => [t.model.id, t]));
  const planner = new Planner(types, byModel);
  const known = (ids: string[] | undefined) => ids?.filter((id) => byModel.has(id));

  // field plans first: unions, filters and linkedFrom need every type's
  for (const type of types) {
    for (const field of type.model.fields) {
      const allowed = known(fieldLinkContentTypes(field));
      const types = allowed?.length ? allowed : undefined;
      const single = types?.length === 1 ? byModel.get(types[0]) : undefined;
      // several allowed types: a union of them; none named: the Entry interface
      const union = (suffix: string) =>
        types && !single ? `${type.typeName}${upperFirst(field.id)}${suffix}` : undefined;
      if (field.type === "Link" && field.linkType === "Asset") {
        type.fields.push({ kind: "asset", id: field.id });
      } else if (field.type === "Link") {
        type.fields.push({ kind: "entry", id: field.id, types, single, union: union("") });
      } else if (field.type === "Array" && field.items?.type === "Link" && field.items.linkType === "Asset") {
        type.fields.push({ kind: "assets", id: field.id, name: `${field.id}Collection` });
      } else if (field.type === "Array" && field.items?.type === "Link") {
        type.fields.push({
          kind: "entries",
          id: field.id,
          name: `${field.id}Collection`,
          types,
          single,
          union: union("Item"),
        });
      } else if (field.type === "RichText") {
        type.fields.push({
          kind: "richText",
          id: field.id,
          typeName: `${type.typeName}${upperFirst(field.id)}`,
        });
      } else type.fields.push({ kind: "value", id: field.id, scalar: scalarOf(field) });
    }
    checkFieldNames(type.model.id, type.fields.map((f) => ("name" in f ? f.name : f.id)));
  }
  const richText = (t: TypePlan) => t.fields.some((f) => f.kind === "richText");
  for (const target of types) {
    target.linkedFrom = types.filter((t) =>
      richText(t) ||
      t.fields.some((f) =>
        (f.kind === "entry" || f.kind === "entries") && (!f.types || f.types.includes(target.model.id))
      )
    );
  }
  const assetLinkedFrom = types.filter((t) =>
    richText(t) || t.fields.some((f) => f.kind === "asset" || f.kind === "assets")
  );

  planner.input("SysFilter", "the sys filter", sysFilters());
  planner.input("EntryFilter", "the entry filter", [
    ["sys", "SysFilter", { kind: "object", type: "SysFilter" }],
    ["AND", "[EntryFilter]", { kind: "and", type: "EntryFilter" }],
    ["OR", "[EntryFilter]", { kind: "or", type: "EntryFilter" }],
  ]);
  planner.order("EntryOrder", "the entry order", SYS_ORDERS);
  planner.input("AssetFilter", "the asset filter", [
    ["sys", "SysFilter", { kind: "object", type: "SysFilter" }],
    ...ASSET_FIELDS.flatMap(([name, scalar, kind]) =>
      family(name, scalar, { kind: "asset", field: name }, kind)
    ),
    ["AND", "[AssetFilter]", { kind: "and", type: "AssetFilter" }],
    ["OR", "[AssetFilter]", { kind: "or", type: "AssetFilter" }],
  ]);
  planner.order("AssetOrder", "the asset order", [
    ...ASSET_FIELDS.filter(([name]) => name !== "title" && name !== "description")
      .map(([name]): [string, Order["target"]] => [name, { kind: "asset", field: name }]),
    ...SYS_ORDERS,
  ]);
  planner.define(
    "type",
    "AssetLinkingCollections",
    "asset links",
    `{\n  entryCollection(${COLLECTION_ARGS}): EntryCollection\n${
      assetLinkedFrom.map((t) =>
        `  ${t.queryName}Collection(${COLLECTION_ARGS}, order: [${t.typeName}Order]): ${t.typeName}Collection`
      ).join("\n")
    }\n}`,
  );

  const query: string[] = [
    `  asset(id: String!, preview: Boolean, locale: String): Asset`,
    `  assetCollection(${COLLECTION_ARGS}, where: AssetFilter, order: [AssetOrder]): AssetCollection`,
    `  entryCollection(${COLLECTION_ARGS}, where: EntryFilter, order: [EntryOrder]): EntryCollection`,
  ];

  for (const type of types) {
    const { model, typeName } = type;
    const owner = `content type '${model.id}'`;
    const lines: string[] = [
      "  sys: Sys!",
      "  contentfulMetadata: ContentfulMetadata!",
      "  metadata: ContentfulMetadata!",
      `  linkedFrom(allowedLocales: [String]): ${typeName}LinkingCollections`,
    ];
    const filterRows: [string, string, FilterSpec][] = [["sys", "SysFilter", {
      kind: "object",
      type: "SysFilter",
    }]];
    for (const [index, plan] of type.fields.entries()) {
      const field = model.fields[index];
      filterRows.push(...fieldFilters(field));
      const target = (p: { types?: string[]; single?: TypePlan; union?: string }) => {
        if (p.single) return p.single.typeName;
        if (!p.types || !p.union) return "Entry";
        planner.define(
          "union",
          p.union,
          owner,
          `= ${p.types.map((id) => byModel.get(id)!.typeName).join(" | ")}`,
        );
        return p.union;
      };
      switch (plan.kind) {
        case "value":
          lines.push(`  ${plan.id}(locale: String): ${scalarOf(field)}`);
          break;
        case "asset":
          lines.push(`  ${plan.id}(preview: Boolean, locale: String): Asset`);
          break;
        case "entry": {
          const where = plan.single ? `, where: ${plan.single.typeName}Filter` : "";
          lines.push(`  ${plan.id}(preview: Boolean, locale: String${where}): ${target(plan)}`);
          break;
        }
        case "assets":
          lines.push(`  ${plan.name}(${COLLECTION_ARGS}): AssetCollection`);
          break;
        case "entries": {
          const collection = `${typeName}${upperFirst(plan.name)}`;
          const items = target(plan);
          planner.define(
            "type",
            collection,
            owner,
            `{ total: Int! skip: Int! limit: Int! items: [${items}]! }`,
          );
          const extra = plan.single
            ? `, where: ${plan.single.typeName}Filter, order: [${plan.single.typeName}Order]`
            : "";
          lines.push(`  ${plan.name}(${COLLECTION_ARGS}${extra}): ${collection}`);
          break;
        }
        case "richText": {
          const rt = plan.typeName;
          planner.define("type", rt, owner, `{ json: JSON! links: ${rt}Links! }`);
          planner.define("type", `${rt}Links`, owner, `{ entries: ${rt}Entries! assets: ${rt}Assets! }`);
          planner.define(
            "type",
            `${rt}Entries`,
            owner,
            `{ inline: [Entry]! hyperlink: [Entry]! block: [Entry]! }`,
          );
          planner.define("type", `${rt}Assets`, owner, `{ hyperlink: [Asset]! block: [Asset]! }`);
          lines.push(`  ${plan.id}(locale: String): ${rt}`);
          break;
        }
      }
      if ((plan.kind === "entry" || plan.kind === "entries") && plan.types) {
        const targets = plan.types.map((id) => byModel.get(id)!);
        const nested = planner.nestedFilter(targets, type, field);
        filterRows.push([plan.id, nested, {
          kind: "nested",
          field: plan.id,
          list: plan.kind === "entries",
          contentTypes: plan.types,
          type: nested,
        }]);
      }
      if (plan.kind === "entries" || plan.kind === "assets") {
        const max = sizeMax(field);
        if (max !== undefined) planner.maxItems.set(`${typeName}.${plan.name}`, max);
      }
    }
    filterRows.push(["AND", `[${typeName}Filter]`, { kind: "and", type: `${typeName}Filter` }]);
    filterRows.push(["OR", `[${typeName}Filter]`, { kind: "or", type: `${typeName}Filter` }]);

    planner.define("type", typeName, owner, `{\n${lines.join("\n")}\n}`, " implements Entry");
    planner.define(
      "type",
      `${typeName}Collection`,
      owner,
      `{ total: Int! skip: Int! limit: Int! items: [${typeName}]! }`,
    );
    planner.input(`${typeName}Filter`, owner, filterRows);
    planner.order(`${typeName}Order`, owner, [
      ...model.fields.filter(orderable).map((f): [string, Order["target"]] => [
        f.id,
        { kind: "field", field: f.id, valueKind: valueKindOf(f) },
      ]),
      ...SYS_ORDERS,
    ]);
    planner.define(
      "type",
      `${typeName}LinkingCollections`,
      owner,
      `{\n  entryCollection(${COLLECTION_ARGS}): EntryCollection\n${
        type.linkedFrom.map((t) =>
          `  ${t.queryName}Collection(${COLLECTION_ARGS}, order: [${t.typeName}Order]): ${t.typeName}Collection`
        )
          .join("\n")
      }\n}`,
    );
    query.push(`  ${type.queryName}(id: String!, preview: Boolean, locale: String): ${typeName}`);
    query.push(
      `  ${type.queryName}Collection(${COLLECTION_ARGS}, where: ${typeName}Filter, order: [${typeName}Order]): ${typeName}Collection`,
    );
  }
  planner.define("type", "Query", "the query", `{\n${query.join("\n")}\n}`);
  return {
    types,
    byModel,
    filters: planner.filters,
    orders: planner.orders,
    maxItems: planner.maxItems,
    assetLinkedFrom,
    richTextTypes: new Set(
      types.flatMap((t) => t.fields.flatMap((f) => f.kind === "richText" ? [f.typeName] : [])),
    ),
    sdl: planner.text(),
  };
}
