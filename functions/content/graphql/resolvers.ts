// Resolvers of the generated schema. Entries and assets are shaped by domain/shape.ts exactly as REST
// shapes them (locale fallback, gated bodies withheld), once per request and locale, into nodes whose
// properties are their GraphQL fields (sys, metadata, the values); every link goes through the request's
// loaders, so each level of the answer costs one read per kind.
//
// The compiled query (shared/graphql-compiled.ts) reads a field without a resolver as a property, where a
// resolver costs a call, its arguments, a resolve info and its error handling: a page of 100 entries with
// two levels of links answers some 15,000 leaf fields. So the schema a query runs on has no resolvers on
// leaf fields, nor on rich text fields (a node holds each as its RichTextNode); a leaf's only arguments
// are its own locale and an image transform, a rich text field's its locale, and a query that gives one
// of them any argument runs on the schema whose leaves resolve them (buildResolvers' `leafArguments`).
// The nodes hold their String, Int, Float and Boolean values already serialized (or the error serializing
// one gives), so the query is compiled not to serialize those (LEAVES_SERIALIZED): graphql-jit's
// serializing read of a leaf allocates its error's locations and path on every read, error or not.
//
// Arguments cascade as in Contentful: `preview` and `locale` given on a field apply to everything below it;
// a link field's own value is read in the parent's locale, the entity it points at in the new one.
import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLInt,
  type GraphQLResolveInfo,
  GraphQLScalarType,
  GraphQLString,
  Kind,
  valueFromASTUntyped,
} from "graphql";
import type { Db } from "../../../shared/db.ts";
import { richTextTargets } from "../../../shared/richtext.ts";
import { parseDate } from "../../../shared/site/dates.ts";
import { localeChain, type SiteSettings } from "../../../shared/site.ts";
import type { CollectionQuery, WithheldBodies } from "../domain/entry-query.ts";
import { shapeAsset, type ShapeContext, shapeEntry } from "../domain/shape.ts";
import { mediaPrefix } from "../../../shared/site/media-address.ts";
import { type AssetRow, type EntryRow, queryAssets, queryEntries, type Stage } from "../store/entries.ts";
import { answerError, pathError } from "./envelope.ts";
import { assetAddress, type ImageTransform } from "./image-url.ts";
import type { Loaders, Ranked } from "./loaders.ts";
import type { FieldPlan, SchemaPlan, TypePlan } from "./plan.ts";
import { type Reach, reachOfCollection, RICH_TEXT_LINKS } from "./reach.ts";
import { toCondition, toOrders } from "./where.ts";

export interface GraphqlContext {
  db: Db;
  plan: SchemaPlan;
  site: SiteSettings;
  /** shaping as REST does it; `locale` is set per read */
  shape: ShapeContext;
  loaders: Loaders;
  defaultLocale: string;
  /** "http:" or "https:", for absolute asset addresses */
  scheme: string;
  /** the nodes of this request's entries and assets, per row, stage and locale */
  nodes: WeakMap<object, Map<string, object>>;
  /** set when the caller may not read gated bodies: collections then neither filter nor order on them */
  withheld?: WithheldBodies;
}

/** What a node was made from: a symbol, so no content field's name can take its place. */
const SOURCE = Symbol("source");

/** An entry at a stage in a locale: its localised fields (as REST shapes them), sys and metadata. */
type EntryNode = Record<string, unknown> & { [SOURCE]: { row: EntryRow; stage: Stage; locale: string } };

/** An asset in a locale: every leaf field of the Asset type, url without a transform. */
type AssetNode = Record<string, unknown> & {
  [SOURCE]: { asset: AssetRow; stage: Stage; locale: string; fileUrl: string | undefined };
};

interface LinkedFromNode {
  linkType: "Entry" | "Asset";
  id: string;
  stage: Stage;
  locale: string;
  allowedLocales?: (string | null)[] | null;
}

/** A rich text field's value: `json` and, through `links`, the lists of what the document links to. */
class RichTextNode {
  constructor(readonly json: unknown, readonly stage: Stage, readonly locale: string) {}
  get links() {
    return this;
  }
  get entries() {
    return this;
  }
  get assets() {
    return this;
  }
}

// deno-lint-ignore no-explicit-any
type Args = Record<string, any>;
type Link = { sys: { type: "Link"; linkType: string; id: string } };

function pickStage(preview: unknown, inherited: Stage): Stage {
  return preview === true ? "preview" : preview === false ? "published" : inherited;
}

function pickLocale(ctx: GraphqlContext, locale: unknown, inherited: string): string {
  if (locale === undefined || locale === null) return inherited;
  if (typeof locale === "string" && ctx.site.locales.some((l) => l.code === locale)) return locale;
  throw pathError(
    "UNKNOWN_LOCALE",
    `Query execution error. Requested locale '${locale}' does not exist in the space`,
    {
      locale,
      availableLocales: ctx.site.locales.map((l) => l.code),
    },
  );
}

function memo<T extends object>(ctx: GraphqlContext, row: object, key: string, make: () => T): T {
  let byKey = ctx.nodes.get(row);
  if (!byKey) ctx.nodes.set(row, byKey = new Map());
  let node = byKey.get(key) as T | undefined;
  if (!node) byKey.set(key, node = make());
  return node;
}

/** How the compiled query runs over these nodes: their built-in scalars are serialized already. */
export const LEAVES_SERIALIZED = { leavesInWireForm: true } as const;

const SERIALIZERS: Record<string, GraphQLScalarType> = {
  String: GraphQLString,
  Int: GraphQLInt,
  Float: GraphQLFloat,
  Boolean: GraphQLBoolean,
};

/** A value as the built-in scalar serializes it; the error it gives is the field's error (null there). */
function serialized(scalar: GraphQLScalarType, value: unknown): unknown {
  try {
    const out = scalar.serialize(value);
    if (out === undefined || Number.isNaN(out)) {
      return answerError(`Expected a value of type "${scalar.name}" but received: ${value}`);
    }
    return out;
  } catch (error) {
    return answerError(
      (error as Error)?.message || `Expected a value of type "${scalar.name}" but received an Error`,
    );
  }
}

/** What the built-in scalar's serialize gives a value already of its type: that value. */
function inWireForm(scalar: string, value: unknown): boolean {
  switch (scalar) {
    case "String":
      return typeof value === "string";
    case "Boolean":
      return typeof value === "boolean";
    case "Int":
      return Number.isInteger(value) && (value as number) >= -2147483648 && (value as number) <= 2147483647;
    case "Float":
      return typeof value === "number" && Number.isFinite(value);
  }
  return false;
}

/** A value field's value serialized: a list of strings item by item; anything not a list stays as it is. */
function serializedValue(scalar: string, value: unknown): unknown {
  if (value === undefined || value === null || inWireForm(scalar, value)) return value;
  if (scalar === "[String]") {
    if (!Array.isArray(value)) return value;
    const plain = (item: unknown) => item === undefined || item === null || typeof item === "string";
    return value.every(plain)
      ? value
      : value.map((item) => plain(item) ? item : serialized(GraphQLString, item));
  }
  const builtin = SERIALIZERS[scalar];
  return builtin ? serialized(builtin, value) : value; // DateTime and JSON serialize as they are read
}

const NO_METADATA = Object.freeze({ tags: Object.freeze([]), concepts: Object.freeze([]) });

/** The node of an entry row (read at `stage`) in a locale, made once per request. */
function entryNode(ctx: GraphqlContext, row: EntryRow, stage: Stage, locale: string): EntryNode {
  return memo(ctx, row, locale, () => {
    const shaped = shapeEntry(row, { ...ctx.shape, locale });
    // the fields' own object: no field id is sys, metadata or contentfulMetadata (names.ts reserves them)
    const node = shaped.fields as EntryNode;
    for (const plan of ctx.plan.byModel.get(row.model_id)?.fields ?? []) {
      if (!(plan.id in node)) continue;
      if (plan.kind === "value") node[plan.id] = serializedValue(plan.scalar, node[plan.id]);
      // a rich text field is its node, read as a property where the query gives the field no locale
      else if (plan.kind === "richText") {
        const doc = node[plan.id];
        node[plan.id] = doc ? new RichTextNode(doc, stage, locale) : null;
      }
    }
    node.sys = sysOf(shaped, locale);
    node.contentfulMetadata = node.metadata = metadataOf(shaped);
    node[SOURCE] = { row, stage, locale };
    return node;
  });
}

/** The same entry in another locale (a field's own `locale` argument); the node itself when not given. */
function entryIn(ctx: GraphqlContext, node: EntryNode, locale: unknown): EntryNode {
  if (locale === undefined || locale === null) return node;
  const { row, stage, locale: inherited } = node[SOURCE];
  return entryNode(ctx, row, stage, pickLocale(ctx, locale, inherited));
}

function assetNode(ctx: GraphqlContext, asset: AssetRow, stage: Stage, locale: string): AssetNode {
  // keyed by the locale alone where published (a locale code holds no space): no new string per read
  return memo(ctx, asset, stage === "published" ? locale : `${stage} ${locale}`, () => {
    const shaped = shapeAsset(asset, { ...ctx.shape, locale });
    const fields = shaped.fields as Record<string, any>;
    const file = fields.file;
    const fileUrl: string | undefined = file?.url || undefined;
    const node: AssetNode = {
      sys: sysOf(shaped, locale),
      contentfulMetadata: undefined,
      metadata: undefined,
      title: serializedValue("String", fields.title ?? null),
      description: serializedValue("String", fields.description ?? null),
      contentType: serializedValue("String", file?.contentType ?? null),
      fileName: serializedValue("String", file?.fileName ?? null),
      size: serializedValue("Int", file?.details?.size ?? null),
      width: serializedValue("Int", file?.details?.image?.width ?? null),
      height: serializedValue("Int", file?.details?.image?.height ?? null),
      url: fileUrl ? assetAddress(fileUrl, ctx.scheme) : null,
      [SOURCE]: { asset, stage, locale, fileUrl },
    };
    node.contentfulMetadata = node.metadata = metadataOf(shaped);
    return node;
  });
}

function assetIn(ctx: GraphqlContext, node: AssetNode, locale: unknown): AssetNode {
  if (locale === undefined || locale === null) return node;
  const { asset, stage, locale: inherited } = node[SOURCE];
  return assetNode(ctx, asset, stage, pickLocale(ctx, locale, inherited));
}

function fieldOf(node: EntryNode, id: string): unknown {
  return node[id] ?? null;
}

function linkOf(value: unknown): Link["sys"] | undefined {
  const sys = (value as Link | null)?.sys;
  return sys?.type === "Link" && typeof sys.id === "string" ? sys : undefined;
}

/** The ids a list of links names, in its order (anything not a link left out). */
function linkIds(value: unknown): string[] {
  const ids: string[] = [];
  if (Array.isArray(value)) {
    for (const item of value) {
      const link = linkOf(item);
      if (link) ids.push(link.id);
    }
  }
  return ids;
}

/** Sys as GraphQL shows it, read off REST's sys (so the two never disagree). */
function sysOf(shaped: Record<string, unknown>, locale: string) {
  const sys = shaped.sys as Record<string, any>;
  return {
    id: sys.id,
    spaceId: sys.space.sys.id,
    environmentId: sys.environment.sys.id,
    publishedAt: sys.updatedAt,
    firstPublishedAt: sys.createdAt,
    publishedVersion: sys.publishedVersion,
    locale,
  };
}

function metadataOf(shaped: Record<string, unknown>) {
  const metadata = (shaped.metadata ?? NO_METADATA) as { tags: Link[]; concepts: Link[] };
  if (metadata.tags.length === 0 && metadata.concepts.length === 0) return NO_METADATA;
  return {
    tags: metadata.tags.map((t) => ({ id: t.sys.id, name: null })),
    concepts: metadata.concepts.map((c) => ({ id: c.sys.id })),
  };
}

function unresolvable(linkType: string, id: string, where: string) {
  return pathError(
    "UNRESOLVABLE_LINK",
    `Query execution error. Link to ${linkType.toLowerCase()} '${id}' on ${where} cannot be resolved`,
    {
      type: "Link",
      linkType,
      id,
    },
  );
}

/** A linked entry's node, or the error of a link to a type the field does not allow. */
function checkedEntry(
  ctx: GraphqlContext,
  row: EntryRow | undefined,
  stage: Stage,
  locale: string,
  allowed?: string[],
  where = "",
) {
  if (allowed && row && !allowed.includes(row.model_id)) {
    return pathError(
      "UNEXPECTED_LINKED_CONTENT_TYPE",
      `Query execution error. Link on ${where} points at a '${row.model_id}' entry, which the field does not allow`,
      {
        contentType: row.model_id,
        allowed,
      },
    );
  }
  return row ? entryNode(ctx, row, stage, locale) : null;
}

function page<T>(items: T[], total: number, args: Args) {
  return { total, skip: args.skip, limit: args.limit, items };
}

// ---- collections at the root -------------------------------------------------------------------------

async function entryCollection(ctx: GraphqlContext, args: Args, type?: TypePlan, info?: GraphQLResolveInfo) {
  const stage = pickStage(args.preview, "published");
  const locale = pickLocale(ctx, args.locale, ctx.defaultLocale);
  const query: CollectionQuery = {
    contentType: type?.model,
    include: 0,
    locale,
    order: toOrders(ctx.plan, type ? `${type.typeName}Order` : "EntryOrder", args.order),
    limit: args.limit,
    skip: args.skip,
    words: [],
    filters: [],
    where: args.where
      ? toCondition(ctx.plan, type ? `${type.typeName}Filter` : "EntryFilter", args.where)
      : undefined,
    withheld: ctx.withheld,
  };
  const { rows, total } = await queryEntries(ctx.db, stage, query, localeChain(ctx.site, locale));
  ctx.loaders.primeEntries(stage, rows); // a later link to one of them needs no read
  const nodes = rows.map((row) => entryNode(ctx, row, stage, locale));
  const reach = info?.fieldNodes.length === 1
    ? reachOfCollection(
      { schema: info.schema, plan: ctx.plan, fragments: info.fragments, variables: info.variableValues },
      info.fieldNodes[0],
      type ? [type.typeName] : ctx.plan.types.map((t) => t.typeName),
    )
    : undefined;
  if (reach) await readAhead(ctx, nodes, reach, stage, locale);
  return page(nodes, total, args);
}

/**
 * Reads what the query reaches from these entries (reach.ts), level by level: one statement per level for
 * the entries and one for the assets, as REST's include reads, ids this request has read left out. The
 * link fields below then find every row read and resolve at once: without this, each link field of a
 * level made a promise and waited for the level's read. Fields the plan leaves out read as before.
 */
async function readAhead(ctx: GraphqlContext, nodes: EntryNode[], reach: Reach, stage: Stage, locale: string) {
  let level: [EntryNode, Reach][] = nodes.map((node) => [node, reach]);
  while (level.length) {
    const entryIds = new Set<string>();
    const assetIds = new Set<string>();
    const below: [readonly string[], Reach][] = [];
    const add = (ids: readonly string[], into: Set<string>, next?: Reach) => {
      for (const id of ids) into.add(id);
      if (next && ids.length) below.push([ids, next]);
    };
    for (const [node, at] of level) {
      const steps = at.get(ctx.plan.byModel.get(node[SOURCE].row.model_id)?.typeName ?? "");
      for (const step of steps ?? []) {
        const value = node[step.id];
        if (step.kind === "entry" || step.kind === "asset") {
          const link = linkOf(value);
          if (link) add([link.id], step.kind === "entry" ? entryIds : assetIds, step.kind === "entry" ? step.next : undefined);
        } else if (step.kind === "entries" || step.kind === "assets") {
          const ids = linkIds(value).slice(step.skip, step.skip + step.limit);
          add(ids, step.kind === "entries" ? entryIds : assetIds, step.kind === "entries" ? step.next : undefined);
        } else if (value instanceof RichTextNode) {
          add(richTextIds(value, step.linkType, step.nodeType), step.linkType === "Entry" ? entryIds : assetIds, step.next);
        }
      }
    }
    await Promise.all([ctx.loaders.entriesNow(stage, [...entryIds]), ctx.loaders.assetsNow([...assetIds])]);
    level = [];
    for (const [ids, next] of below) {
      const rows = ctx.loaders.entriesNow(stage, ids);
      if (!Array.isArray(rows)) continue; // a read that failed: the fields below try again and report it
      for (const row of rows) if (row && !(row instanceof Error)) level.push([entryNode(ctx, row, stage, locale), next]);
    }
  }
}

async function assetCollection(ctx: GraphqlContext, args: Args) {
  const stage = pickStage(args.preview, "published");
  const locale = pickLocale(ctx, args.locale, ctx.defaultLocale);
  const query: CollectionQuery = {
    include: 0,
    locale,
    order: toOrders(ctx.plan, "AssetOrder", args.order),
    limit: args.limit,
    skip: args.skip,
    words: [],
    filters: [],
    where: args.where ? toCondition(ctx.plan, "AssetFilter", args.where) : undefined,
    // url filters and orders compare the absolute address this API answers
    mediaPrefix: `${ctx.scheme}${mediaPrefix(ctx.shape)}`,
  };
  const { rows, total } = await queryAssets(ctx.db, query, localeChain(ctx.site, locale));
  ctx.loaders.primeAssets(rows);
  return page(rows.map((asset) => assetNode(ctx, asset, stage, locale)), total, args);
}

// ---- link fields -------------------------------------------------------------------------------------

type EntryLinkPlan = Extract<FieldPlan, { kind: "entry" | "entries" }>;

/** `then` without a promise where the rows were there at once (Loaders.entriesNow). */
function whenRead<T, R>(rows: T | Promise<T>, next: (rows: T) => R): R | Promise<R> {
  return rows instanceof Promise ? rows.then(next) : next(rows);
}

function linkedEntry(
  ctx: GraphqlContext,
  node: EntryNode,
  plan: EntryLinkPlan,
  args: Args,
  where: string,
) {
  const link = linkOf(fieldOf(node, plan.id));
  if (!link) return null;
  const stage = pickStage(args.preview, node[SOURCE].stage);
  const locale = pickLocale(ctx, args.locale, node[SOURCE].locale);
  if (args.where && plan.single) {
    return wherever(ctx, stage, locale, plan, args).load(link.id).then((hit) =>
      hit ? entryNode(ctx, hit.row, stage, locale) : null // no match is null, as Contentful's link filter
    );
  }
  return whenRead(ctx.loaders.entries(stage).row(link.id), (row) => {
    if (row instanceof Error) throw row;
    if (!row) throw unresolvable("Entry", link.id, where);
    const found = checkedEntry(ctx, row, stage, locale, plan.types, where);
    if (found instanceof Error) throw found;
    return found;
  });
}

/** The loader of entries matching a link field's where and order (single-type link fields only). */
function wherever(ctx: GraphqlContext, stage: Stage, locale: string, plan: EntryLinkPlan, args: Args) {
  const target = plan.single!;
  return ctx.loaders.entriesWhere(stage, {
    where: args.where ? toCondition(ctx.plan, `${target.typeName}Filter`, args.where) : undefined,
    order: toOrders(ctx.plan, `${target.typeName}Order`, args.order),
    contentTypes: [target.model.id],
    chain: localeChain(ctx.site, locale),
  });
}

function linkedEntries(
  ctx: GraphqlContext,
  node: EntryNode,
  plan: EntryLinkPlan,
  args: Args,
  where: string,
) {
  const ids = linkIds(fieldOf(node, plan.id));
  const stage = pickStage(args.preview, node[SOURCE].stage);
  const locale = pickLocale(ctx, args.locale, node[SOURCE].locale);
  if (plan.single && (args.where || args.order?.length)) {
    return wherever(ctx, stage, locale, plan, args).loadMany(ids).then((found) => {
      const hits = found.filter((hit): hit is Ranked => hit !== undefined && !(hit instanceof Error));
      if (args.order?.length) hits.sort((a, b) => a.rank - b.rank);
      const items = hits.slice(args.skip, args.skip + args.limit).map((hit) =>
        entryNode(ctx, hit.row, stage, locale)
      );
      return page(items, hits.length, args);
    });
  }
  // without a where, skip and limit apply to the list as stored; a link to nothing is a null item and an error
  const slice = ids.slice(args.skip, args.skip + args.limit);
  return whenRead(ctx.loaders.entriesNow(stage, slice), (rows) => {
    const items = rows.map((row, i) =>
      row instanceof Error
        ? row
        : row
        ? checkedEntry(ctx, row, stage, locale, plan.types, where)
        : unresolvable("Entry", slice[i], where)
    );
    return page(items, ids.length, args);
  });
}

function linkedAsset(ctx: GraphqlContext, node: EntryNode, id: string, args: Args, where: string) {
  const link = linkOf(fieldOf(node, id));
  if (!link) return null;
  return whenRead(ctx.loaders.assets().row(link.id), (asset) => {
    if (asset instanceof Error) throw asset;
    if (!asset) throw unresolvable("Asset", link.id, where);
    const { stage, locale } = node[SOURCE];
    return assetNode(ctx, asset, pickStage(args.preview, stage), pickLocale(ctx, args.locale, locale));
  });
}

function linkedAssets(ctx: GraphqlContext, node: EntryNode, id: string, args: Args, where: string) {
  const ids = linkIds(fieldOf(node, id));
  const stage = pickStage(args.preview, node[SOURCE].stage);
  const locale = pickLocale(ctx, args.locale, node[SOURCE].locale);
  const slice = ids.slice(args.skip, args.skip + args.limit);
  return whenRead(ctx.loaders.assetsNow(slice), (rows) => {
    const items = rows.map((asset, i) =>
      asset instanceof Error
        ? asset
        : asset
        ? assetNode(ctx, asset, stage, locale)
        : unresolvable("Asset", slice[i], where)
    );
    return page(items, ids.length, args);
  });
}

// a document's link ids per node kind and link type, in document order, each once: found once per document
// however many of its link lists are asked for (and read ahead)
const grouped = new WeakMap<object, Map<string, { Entry: readonly string[]; Asset: readonly string[] }>>();

/** The ids of a document's links of one node kind, in document order, each once (not to be changed). */
function richTextIds(rt: RichTextNode, linkType: "Entry" | "Asset", nodeType: string): readonly string[] {
  const doc = rt.json;
  if (!doc || typeof doc !== "object") return [];
  let byKind = grouped.get(doc);
  if (!byKind) {
    const sets = new Map<string, { Entry: Set<string>; Asset: Set<string> }>();
    for (const target of richTextTargets(doc)) {
      let ids = sets.get(target.nodeType);
      if (!ids) sets.set(target.nodeType, ids = { Entry: new Set(), Asset: new Set() });
      ids[target.linkType].add(target.id);
    }
    byKind = new Map([...sets].map(([kind, ids]) => [kind, { Entry: [...ids.Entry], Asset: [...ids.Asset] }]));
    grouped.set(doc, byKind);
  }
  return byKind.get(nodeType)?.[linkType] ?? [];
}

/** Rich text's links of one node kind, in document order, each once; links to nothing are left out. */
function richTextLinks(
  ctx: GraphqlContext,
  rt: RichTextNode,
  linkType: "Entry" | "Asset",
  nodeType: string,
) {
  const ids = richTextIds(rt, linkType, nodeType);
  if (linkType === "Asset") {
    return whenRead(ctx.loaders.assetsNow(ids), (assets) =>
      assets.filter((a): a is AssetRow => !!a && !(a instanceof Error)).map((asset) =>
        assetNode(ctx, asset, rt.stage, rt.locale)
      ));
  }
  return whenRead(ctx.loaders.entriesNow(rt.stage, ids), (rows) =>
    rows.filter((r): r is EntryRow => !!r && !(r instanceof Error)).map((row) =>
      entryNode(ctx, row, rt.stage, rt.locale)
    ));
}

async function linkingCollection(ctx: GraphqlContext, from: LinkedFromNode, args: Args, type?: TypePlan) {
  const stage = pickStage(args.preview, from.stage);
  const locale = pickLocale(ctx, args.locale, from.locale);
  // a link counts where it is stored in one of the allowed locales (by default the default locale)
  const locales = (from.allowedLocales ?? [ctx.defaultLocale])
    .filter((l): l is string => l !== null)
    .map((l) => pickLocale(ctx, l, ctx.defaultLocale));
  const found = await ctx.loaders.linking({
    stage,
    linkType: from.linkType,
    contentType: type?.model.id,
    locales,
    order: type ? toOrders(ctx.plan, `${type.typeName}Order`, args.order) : [],
    chain: localeChain(ctx.site, locale),
    skip: args.skip,
    limit: args.limit,
  }).load(from.id);
  return page((found?.rows ?? []).map((row) => entryNode(ctx, row, stage, locale)), found?.total ?? 0, args);
}

function linkingResolvers(from: TypePlan[]) {
  const resolvers: Record<string, (from: LinkedFromNode, args: Args, ctx: GraphqlContext) => unknown> = {
    entryCollection: (node, args, ctx) => linkingCollection(ctx, node, args),
  };
  for (const type of from) {
    resolvers[`${type.queryName}Collection`] = (node, args, ctx) => linkingCollection(ctx, node, args, type);
  }
  return resolvers;
}

// ---- types ---------------------------------------------------------------------------------------------

function entryTypeResolvers(type: TypePlan, leafArguments: boolean) {
  // deno-lint-ignore no-explicit-any
  const resolvers: Record<string, (node: EntryNode, args: Args, ctx: GraphqlContext) => any> = {
    linkedFrom: (node, args): LinkedFromNode => ({
      linkType: "Entry",
      id: node[SOURCE].row.id,
      stage: node[SOURCE].stage,
      locale: node[SOURCE].locale,
      allowedLocales: args.allowedLocales,
    }),
  };
  for (const plan of type.fields) {
    const where = `field '${plan.id}' of type '${type.typeName}'`;
    switch (plan.kind) {
      case "value":
        if (leafArguments) resolvers[plan.id] = (node, args, ctx) => fieldOf(entryIn(ctx, node, args.locale), plan.id);
        break;
      case "entry":
        resolvers[plan.id] = (node, args, ctx) => linkedEntry(ctx, node, plan, args, where);
        break;
      case "entries":
        resolvers[plan.name] = (node, args, ctx) => linkedEntries(ctx, node, plan, args, where);
        break;
      case "asset":
        resolvers[plan.id] = (node, args, ctx) => linkedAsset(ctx, node, plan.id, args, where);
        break;
      case "assets":
        resolvers[plan.name] = (node, args, ctx) => linkedAssets(ctx, node, plan.id, args, where);
        break;
      case "richText":
        // the node holds the field's RichTextNode (entryNode): a resolver only for the field's own locale
        if (leafArguments) resolvers[plan.id] = (node, args, ctx) => fieldOf(entryIn(ctx, node, args.locale), plan.id);
        break;
    }
  }
  return resolvers;
}

function richTextResolvers(typeName: string) {
  const of =
    (linkType: "Entry" | "Asset", nodeType: string) => (rt: RichTextNode, _args: Args, ctx: GraphqlContext) =>
      richTextLinks(ctx, rt, linkType, nodeType);
  const lists = (linkType: "Entry" | "Asset") =>
    Object.fromEntries(Object.entries(RICH_TEXT_LINKS[linkType]).map(([field, nodeType]) => [field, of(linkType, nodeType)]));
  return { [`${typeName}Entries`]: lists("Entry"), [`${typeName}Assets`]: lists("Asset") };
}

/** The leaf fields of Asset where a query gives them arguments (their locale, url's transform). */
function assetLeafResolvers() {
  const inLocale = (name: string) => (node: AssetNode, args: Args, ctx: GraphqlContext) =>
    assetIn(ctx, node, args.locale)[name];
  return {
    ...Object.fromEntries(
      ["title", "description", "contentType", "fileName", "size", "width", "height"].map((name) => [
        name,
        inLocale(name),
      ]),
    ),
    url: (node: AssetNode, args: Args, ctx: GraphqlContext) => {
      const { fileUrl } = assetIn(ctx, node, args.locale)[SOURCE];
      return fileUrl ? assetAddress(fileUrl, ctx.scheme, args.transform as ImageTransform | undefined) : null;
    },
  };
}

const passThrough = (name: string, description: string) =>
  new GraphQLScalarType({
    name,
    description,
    serialize: (value) => value,
    parseValue: (value) => value,
    parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
  });

function bounded(name: string, min: number, max: number) {
  const check = (value: unknown) => {
    if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
      throw new TypeError(`${name} takes an integer from ${min} to ${max}, not ${JSON.stringify(value)}`);
    }
    return value;
  };
  return new GraphQLScalarType({
    name,
    serialize: check,
    parseValue: check,
    parseLiteral: (ast) => check(ast.kind === Kind.INT ? Number(ast.value) : undefined),
  });
}

function checkedString(name: string, pattern: RegExp, what: string) {
  const check = (value: unknown) => {
    if (typeof value !== "string" || !pattern.test(value)) {
      throw new TypeError(`${name} takes ${what}, not ${JSON.stringify(value)}`);
    }
    return value;
  };
  return new GraphQLScalarType({
    name,
    serialize: (value) => value,
    parseValue: check,
    parseLiteral: (ast) => check(ast.kind === Kind.STRING ? ast.value : undefined),
  });
}

const DateTime = new GraphQLScalarType({
  name: "DateTime",
  serialize: (value) => (value instanceof Date ? value.toISOString() : value),
  parseValue: (value) => checkDate(value),
  parseLiteral: (ast) => checkDate(ast.kind === Kind.STRING ? ast.value : undefined),
});

/** A DateTime argument: a real ISO 8601 date in years 0001 to 9999 (the one date check), passed on as UTC. */
function checkDate(value: unknown): string {
  const date = parseDate(value);
  if (typeof value !== "string" || !date) {
    throw new TypeError(
      `DateTime takes an ISO 8601 date in years 0001 to 9999, not ${JSON.stringify(value)?.slice(0, 80)}`,
    );
  }
  return date.toISOString();
}

/**
 * `leafArguments`: whether leaf fields are resolvers that read their arguments (a field's own locale, an
 * image transform); without, a leaf is read as its node's property (see the head of this file).
 */
export function buildResolvers(plan: SchemaPlan, leafArguments = true) {
  const resolveType = (node: EntryNode, ctx: GraphqlContext) =>
    ctx.plan.byModel.get(node[SOURCE].row.model_id)?.typeName;
  const query: Record<string, (root: unknown, args: Args, ctx: GraphqlContext, info: GraphQLResolveInfo) => unknown> = {
    asset: async (_root, args, ctx) => {
      const asset = await ctx.loaders.assets().load(args.id);
      const stage = pickStage(args.preview, "published");
      return asset ? assetNode(ctx, asset, stage, pickLocale(ctx, args.locale, ctx.defaultLocale)) : null;
    },
    assetCollection: (_root, args, ctx) => assetCollection(ctx, args),
    entryCollection: (_root, args, ctx, info) => entryCollection(ctx, args, undefined, info),
  };
  // deno-lint-ignore no-explicit-any
  const resolvers: Record<string, any> = {
    DateTime,
    JSON: passThrough("JSON", "any JSON value"),
    Dimension: bounded("Dimension", 1, 4000),
    Quality: bounded("Quality", 1, 100),
    HexColor: checkedString("HexColor", /^(rgb:|#)[0-9a-fA-F]{6}$/, "rgb:rrggbb or #rrggbb"),
    Entry: { __resolveType: resolveType },
    Asset: {
      ...(leafArguments ? assetLeafResolvers() : {}),
      linkedFrom: (node: AssetNode, args: Args): LinkedFromNode => ({
        linkType: "Asset",
        id: node[SOURCE].asset.id,
        stage: node[SOURCE].stage,
        locale: node[SOURCE].locale,
        allowedLocales: args.allowedLocales,
      }),
    },
    AssetLinkingCollections: linkingResolvers(plan.assetLinkedFrom),
    Query: query,
  };
  for (const type of plan.types) {
    query[type.queryName] = async (_root, args, ctx) => {
      const stage = pickStage(args.preview, "published");
      const locale = pickLocale(ctx, args.locale, ctx.defaultLocale);
      const row = await ctx.loaders.entries(stage).load(args.id);
      return row && row.model_id === type.model.id ? entryNode(ctx, row, stage, locale) : null;
    };
    query[`${type.queryName}Collection`] = (_root, args, ctx, info) => entryCollection(ctx, args, type, info);
    resolvers[type.typeName] = entryTypeResolvers(type, leafArguments);
    resolvers[`${type.typeName}LinkingCollections`] = linkingResolvers(type.linkedFrom);
    for (const field of type.fields) {
      if (field.kind === "richText") Object.assign(resolvers, richTextResolvers(field.typeName));
      if ((field.kind === "entry" || field.kind === "entries") && field.union) {
        resolvers[field.union] = { __resolveType: resolveType };
      }
    }
  }
  return resolvers;
}
