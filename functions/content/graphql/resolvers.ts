// Resolvers of the generated schema. Entries and assets are shaped by domain/shape.ts exactly as REST
// shapes them (locale fallback, gated bodies withheld), then picked apart per field; every link goes
// through the request's loaders, so each level of the answer costs one read per kind.
//
// Arguments cascade as in Contentful: `preview` and `locale` given on a field apply to everything below it;
// a link field's own value is read in the parent's locale, the entity it points at in the new one.
import { GraphQLScalarType, Kind, valueFromASTUntyped } from "graphql";
import type { Db } from "../../../shared/db.ts";
import { richTextTargets } from "../../../shared/richtext.ts";
import { parseDate } from "../../../shared/site/dates.ts";
import { localeChain, type SiteSettings } from "../../../shared/site.ts";
import type { CollectionQuery, WithheldBodies } from "../domain/entry-query.ts";
import { shapeAsset, type ShapeContext, shapeEntry } from "../domain/shape.ts";
import { mediaPrefix } from "../../../shared/site/media-address.ts";
import { type AssetRow, type EntryRow, queryAssets, queryEntries, type Stage } from "../store/entries.ts";
import { pathError } from "./envelope.ts";
import { assetAddress, type ImageTransform } from "./image-url.ts";
import type { Loaders, Ranked } from "./loaders.ts";
import type { FieldPlan, SchemaPlan, TypePlan } from "./plan.ts";
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
  /** shaped entries and assets of this request, per row and locale */
  shaped: WeakMap<object, Map<string, Record<string, unknown>>>;
  /** set when the caller may not read gated bodies: collections then neither filter nor order on them */
  withheld?: WithheldBodies;
}

interface EntryNode {
  row: EntryRow;
  stage: Stage;
  locale: string;
}

interface AssetNode {
  asset: AssetRow;
  stage: Stage;
  locale: string;
}

interface LinkedFromNode {
  linkType: "Entry" | "Asset";
  id: string;
  stage: Stage;
  locale: string;
  allowedLocales?: (string | null)[] | null;
}

interface RichTextNode {
  doc: unknown;
  stage: Stage;
  locale: string;
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

function memo(ctx: GraphqlContext, row: object, locale: string, make: () => Record<string, unknown>) {
  let byLocale = ctx.shaped.get(row);
  if (!byLocale) ctx.shaped.set(row, byLocale = new Map());
  let shaped = byLocale.get(locale);
  if (!shaped) byLocale.set(locale, shaped = make());
  return shaped;
}

function shapedEntry(ctx: GraphqlContext, node: EntryNode, locale = node.locale) {
  return memo(ctx, node.row, locale, () => shapeEntry(node.row, { ...ctx.shape, locale }));
}

function shapedAsset(ctx: GraphqlContext, node: AssetNode, locale = node.locale) {
  return memo(ctx, node.asset, locale, () => shapeAsset(node.asset, { ...ctx.shape, locale }));
}

function fieldOf(ctx: GraphqlContext, node: EntryNode, id: string, locale?: string): unknown {
  return (shapedEntry(ctx, node, locale).fields as Record<string, unknown> | undefined)?.[id] ?? null;
}

function linkOf(value: unknown): Link["sys"] | undefined {
  const sys = (value as Link | null)?.sys;
  return sys?.type === "Link" && typeof sys.id === "string" ? sys : undefined;
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
  const metadata = (shaped.metadata ?? { tags: [], concepts: [] }) as { tags: Link[]; concepts: Link[] };
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

function entryNode(row: EntryRow | undefined, stage: Stage, locale: string, allowed?: string[], where = "") {
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
  return row ? { row, stage, locale } : null;
}

function page<T>(items: T[], total: number, args: Args) {
  return { total, skip: args.skip, limit: args.limit, items };
}

// ---- collections at the root -------------------------------------------------------------------------

async function entryCollection(ctx: GraphqlContext, args: Args, type?: TypePlan) {
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
  const loader = ctx.loaders.entries(stage);
  for (const row of rows) loader.prime(row.id, row); // a later link to one of them needs no read
  return page(rows.map((row) => ({ row, stage, locale })), total, args);
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
  const loader = ctx.loaders.assets();
  for (const row of rows) loader.prime(row.id, row);
  return page(rows.map((asset) => ({ asset, stage, locale })), total, args);
}

// ---- link fields -------------------------------------------------------------------------------------

type EntryLinkPlan = Extract<FieldPlan, { kind: "entry" | "entries" }>;

async function linkedEntry(
  ctx: GraphqlContext,
  node: EntryNode,
  plan: EntryLinkPlan,
  args: Args,
  where: string,
) {
  const link = linkOf(fieldOf(ctx, node, plan.id));
  if (!link) return null;
  const stage = pickStage(args.preview, node.stage);
  const locale = pickLocale(ctx, args.locale, node.locale);
  if (args.where && plan.single) {
    const hit = await wherever(ctx, stage, locale, plan, args).load(link.id);
    return hit ? { row: hit.row, stage, locale } : null; // no match is null, as Contentful's link filter
  }
  const row = await ctx.loaders.entries(stage).load(link.id);
  if (!row) throw unresolvable("Entry", link.id, where);
  const found = entryNode(row, stage, locale, plan.types, where);
  if (found instanceof Error) throw found;
  return found;
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

async function linkedEntries(
  ctx: GraphqlContext,
  node: EntryNode,
  plan: EntryLinkPlan,
  args: Args,
  where: string,
) {
  const value = fieldOf(ctx, node, plan.id);
  const ids = (Array.isArray(value) ? value : []).map(linkOf).filter((l) => l !== undefined).map((l) =>
    l!.id
  );
  const stage = pickStage(args.preview, node.stage);
  const locale = pickLocale(ctx, args.locale, node.locale);
  if (plan.single && (args.where || args.order?.length)) {
    const hits = (await wherever(ctx, stage, locale, plan, args).loadMany(ids))
      .filter((hit): hit is Ranked => hit !== undefined && !(hit instanceof Error));
    if (args.order?.length) hits.sort((a, b) => a.rank - b.rank);
    const items = hits.slice(args.skip, args.skip + args.limit).map((hit) => ({
      row: hit.row,
      stage,
      locale,
    }));
    return page(items, hits.length, args);
  }
  // without a where, skip and limit apply to the list as stored; a link to nothing is a null item and an error
  const slice = ids.slice(args.skip, args.skip + args.limit);
  const rows = await ctx.loaders.entries(stage).loadMany(slice);
  const items = rows.map((row, i) =>
    row instanceof Error
      ? row
      : row
      ? entryNode(row, stage, locale, plan.types, where)
      : unresolvable("Entry", slice[i], where)
  );
  return page(items, ids.length, args);
}

async function linkedAsset(ctx: GraphqlContext, node: EntryNode, id: string, args: Args, where: string) {
  const link = linkOf(fieldOf(ctx, node, id));
  if (!link) return null;
  const asset = await ctx.loaders.assets().load(link.id);
  if (!asset) throw unresolvable("Asset", link.id, where);
  return {
    asset,
    stage: pickStage(args.preview, node.stage),
    locale: pickLocale(ctx, args.locale, node.locale),
  };
}

async function linkedAssets(ctx: GraphqlContext, node: EntryNode, id: string, args: Args, where: string) {
  const value = fieldOf(ctx, node, id);
  const ids = (Array.isArray(value) ? value : []).map(linkOf).filter((l) => l !== undefined).map((l) =>
    l!.id
  );
  const stage = pickStage(args.preview, node.stage);
  const locale = pickLocale(ctx, args.locale, node.locale);
  const slice = ids.slice(args.skip, args.skip + args.limit);
  const rows = await ctx.loaders.assets().loadMany(slice);
  const items = rows.map((asset, i) =>
    asset instanceof Error ? asset : asset ? { asset, stage, locale } : unresolvable("Asset", slice[i], where)
  );
  return page(items, ids.length, args);
}

// a document's link targets, found once per document however many of its link lists are asked for
const targets = new WeakMap<object, ReturnType<typeof richTextTargets>>();

function targetsOf(doc: unknown): ReturnType<typeof richTextTargets> {
  if (!doc || typeof doc !== "object") return [];
  let found = targets.get(doc);
  if (!found) targets.set(doc, found = richTextTargets(doc));
  return found;
}

/** Rich text's links of one node kind, in document order, each once; links to nothing are left out. */
async function richTextLinks(
  ctx: GraphqlContext,
  rt: RichTextNode,
  linkType: "Entry" | "Asset",
  nodeType: string,
) {
  const ids = [
    ...new Set(
      targetsOf(rt.doc).filter((t) => t.linkType === linkType && t.nodeType === nodeType).map((t) => t.id),
    ),
  ];
  if (linkType === "Asset") {
    const assets = await ctx.loaders.assets().loadMany(ids);
    return assets.filter((a): a is AssetRow => !!a && !(a instanceof Error)).map((asset) => ({
      asset,
      stage: rt.stage,
      locale: rt.locale,
    }));
  }
  const rows = await ctx.loaders.entries(rt.stage).loadMany(ids);
  return rows.filter((r): r is EntryRow => !!r && !(r instanceof Error)).map((row) => ({
    row,
    stage: rt.stage,
    locale: rt.locale,
  }));
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
  return page((found?.rows ?? []).map((row) => ({ row, stage, locale })), found?.total ?? 0, args);
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

function entryTypeResolvers(type: TypePlan) {
  // deno-lint-ignore no-explicit-any
  const resolvers: Record<string, (node: EntryNode, args: Args, ctx: GraphqlContext) => any> = {
    sys: (node, _args, ctx) => sysOf(shapedEntry(ctx, node), node.locale),
    contentfulMetadata: (node, _args, ctx) => metadataOf(shapedEntry(ctx, node)),
    metadata: (node, _args, ctx) => metadataOf(shapedEntry(ctx, node)),
    linkedFrom: (node, args): LinkedFromNode => ({
      linkType: "Entry",
      id: node.row.id,
      stage: node.stage,
      locale: node.locale,
      allowedLocales: args.allowedLocales,
    }),
  };
  for (const plan of type.fields) {
    const where = `field '${plan.id}' of type '${type.typeName}'`;
    switch (plan.kind) {
      case "value":
        resolvers[plan.id] = (node, args, ctx) =>
          fieldOf(ctx, node, plan.id, pickLocale(ctx, args.locale, node.locale));
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
        resolvers[plan.id] = (node, args, ctx): RichTextNode | null => {
          const locale = pickLocale(ctx, args.locale, node.locale);
          const doc = fieldOf(ctx, node, plan.id, locale);
          return doc ? { doc, stage: node.stage, locale } : null;
        };
        break;
    }
  }
  return resolvers;
}

function richTextResolvers(typeName: string) {
  const self = (rt: RichTextNode) => rt;
  const of =
    (linkType: "Entry" | "Asset", nodeType: string) => (rt: RichTextNode, _args: Args, ctx: GraphqlContext) =>
      richTextLinks(ctx, rt, linkType, nodeType);
  return {
    [typeName]: { json: (rt: RichTextNode) => rt.doc, links: self },
    [`${typeName}Links`]: { entries: self, assets: self },
    [`${typeName}Entries`]: {
      block: of("Entry", "embedded-entry-block"),
      inline: of("Entry", "embedded-entry-inline"),
      hyperlink: of("Entry", "entry-hyperlink"),
    },
    [`${typeName}Assets`]: {
      block: of("Asset", "embedded-asset-block"),
      hyperlink: of("Asset", "asset-hyperlink"),
    },
  };
}

function assetField(pick: (shaped: Record<string, any>) => unknown) {
  return (node: AssetNode, args: Args, ctx: GraphqlContext) =>
    pick(shapedAsset(ctx, node, pickLocale(ctx, args.locale, node.locale)).fields as Record<string, any>) ??
      null;
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

export function buildResolvers(plan: SchemaPlan) {
  const resolveType = (node: EntryNode, ctx: GraphqlContext) =>
    ctx.plan.byModel.get(node.row.model_id)?.typeName;
  const query: Record<string, (root: unknown, args: Args, ctx: GraphqlContext) => unknown> = {
    asset: async (_root, args, ctx) => {
      const asset = await ctx.loaders.assets().load(args.id);
      const stage = pickStage(args.preview, "published");
      return asset ? { asset, stage, locale: pickLocale(ctx, args.locale, ctx.defaultLocale) } : null;
    },
    assetCollection: (_root, args, ctx) => assetCollection(ctx, args),
    entryCollection: (_root, args, ctx) => entryCollection(ctx, args),
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
      sys: (node: AssetNode, _args: Args, ctx: GraphqlContext) => sysOf(shapedAsset(ctx, node), node.locale),
      contentfulMetadata: (node: AssetNode, _args: Args, ctx: GraphqlContext) =>
        metadataOf(shapedAsset(ctx, node)),
      metadata: (node: AssetNode, _args: Args, ctx: GraphqlContext) => metadataOf(shapedAsset(ctx, node)),
      title: assetField((f) => f.title),
      description: assetField((f) => f.description),
      contentType: assetField((f) => f.file?.contentType),
      fileName: assetField((f) => f.file?.fileName),
      size: assetField((f) => f.file?.details?.size),
      width: assetField((f) => f.file?.details?.image?.width),
      height: assetField((f) => f.file?.details?.image?.height),
      url: (node: AssetNode, args: Args, ctx: GraphqlContext) => {
        const file =
          (shapedAsset(ctx, node, pickLocale(ctx, args.locale, node.locale)).fields as Record<string, any>)
            ?.file;
        return file?.url
          ? assetAddress(file.url, ctx.scheme, args.transform as ImageTransform | undefined)
          : null;
      },
      linkedFrom: (node: AssetNode, args: Args): LinkedFromNode => ({
        linkType: "Asset",
        id: node.asset.id,
        stage: node.stage,
        locale: node.locale,
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
      return row && row.model_id === type.model.id ? { row, stage, locale } : null;
    };
    query[`${type.queryName}Collection`] = (_root, args, ctx) => entryCollection(ctx, args, type);
    resolvers[type.typeName] = entryTypeResolvers(type);
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
