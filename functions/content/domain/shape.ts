// Maps stored rows to the delivery wire shapes (entry, asset, content type, locale, space).
import { assetUrl } from "../../../shared/site/media-address.ts";
import type { SiteLocale, SiteSettings } from "../../../shared/site.ts";
import { localeChain } from "../../../shared/site.ts";
import type { AssetRow, EntryRow } from "../store/entries.ts";
import type { ContentModel } from "./content-types.ts";
import { bodyFieldIds } from "./content-types.ts";
import type { Selection } from "./entry-query.ts";

export interface ShapeContext {
  site: SiteSettings;
  space: string;
  /** the public host that asset URLs point at (protocol-relative) */
  mediaHost: string;
  models: Map<string, ContentModel>;
  /** a locale code or "*" */
  locale: string;
  /** may this caller read gated bodies */
  gated: boolean;
  select?: Selection;
}

const link = (linkType: string, id: string) => ({ sys: { type: "Link", linkType, id } });

export function spaceLink(space: string) {
  return link("Space", space);
}

export const environmentLink = link("Environment", "master");

export function shapeEntry(row: EntryRow, ctx: ShapeContext) {
  const model = ctx.models.get(row.model_id);
  const sys: Record<string, unknown> = {
    space: spaceLink(ctx.space),
    id: row.id,
    type: "Entry",
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    environment: environmentLink,
    publishedVersion: row.revision * 2,
    // the number of check-ins in git mode; cloud mode has none, and the spec's Entry answers 1 there
    revision: ctx.site.mode === "cloud" ? 1 : row.revision,
    contentType: link("ContentType", row.model_id),
  };
  if (ctx.locale !== "*") sys.locale = ctx.locale;
  const entry: Record<string, unknown> = {};
  if (!ctx.select || ctx.select.metadata) entry.metadata = { tags: [], concepts: [] };
  entry.sys = sys;
  if (ctx.select?.fields === "none") return entry;
  const withheld = row.access !== "guest" && !ctx.gated && model ? bodyFieldIds(model) : new Set<string>();
  const wanted = ctx.select?.fields instanceof Set ? ctx.select.fields : undefined;
  const order = model ? model.fields.map((f) => f.id) : Object.keys(row.fields);
  entry.fields = localizedFields(row.fields, order, (id) => !withheld.has(id) && (!wanted || wanted.has(id)), ctx);
  return entry;
}

/** Fields in the content type's order; a plain value per field, or a locale map when locale is "*". */
function localizedFields(
  stored: Record<string, Record<string, unknown>>,
  order: string[],
  keep: (id: string) => boolean,
  ctx: ShapeContext,
): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  const chain = ctx.locale === "*" ? [] : localeChain(ctx.site, ctx.locale);
  for (const id of order) {
    const byLocale = stored[id];
    if (!byLocale || !keep(id)) continue;
    if (ctx.locale === "*") {
      const all: Record<string, unknown> = {};
      for (const l of ctx.site.locales) if (byLocale[l.code] !== undefined) all[l.code] = byLocale[l.code];
      if (Object.keys(all).length) fields[id] = all;
    } else {
      const code = chain.find((c) => byLocale[c] !== undefined && byLocale[c] !== null);
      if (code !== undefined) fields[id] = byLocale[code];
    }
  }
  return fields;
}



export function shapeAsset(row: AssetRow, ctx: ShapeContext) {
  const sys: Record<string, unknown> = {
    space: spaceLink(ctx.space),
    id: row.id,
    type: "Asset",
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    environment: environmentLink,
    publishedVersion: row.revision * 2,
    revision: row.revision,
  };
  if (ctx.locale !== "*") sys.locale = ctx.locale;
  const file = {
    url: assetUrl(row, ctx),
    details: {
      size: Number(row.size),
      ...(row.width && row.height ? { image: { width: row.width, height: row.height } } : {}),
    },
    fileName: row.file_name,
    contentType: row.content_type,
  };
  const defaultCode = ctx.site.locales.find((l) => l.default)?.code ?? ctx.site.locales[0]?.code ?? "en-US";
  const stored: Record<string, Record<string, unknown>> = {
    title: row.title,
    description: Object.keys(row.description ?? {}).length ? row.description : { [defaultCode]: "" },
    file: { [defaultCode]: file },
  };
  const asset: Record<string, unknown> = {};
  if (!ctx.select || ctx.select.metadata) asset.metadata = { tags: [], concepts: [] };
  asset.sys = sys;
  if (ctx.select?.fields === "none") return asset;
  const wanted = ctx.select?.fields instanceof Set ? ctx.select.fields : undefined;
  asset.fields = localizedFields(stored, ["title", "description", "file"], (id) => !wanted || wanted.has(id), ctx);
  return asset;
}

export function shapeContentType(model: ContentModel, space: string) {
  return {
    sys: {
      space: spaceLink(space),
      id: model.id,
      type: "ContentType",
      createdAt: model.createdAt,
      updatedAt: model.updatedAt,
      environment: environmentLink,
      revision: model.revision,
    },
    displayField: model.displayField,
    name: model.name,
    description: model.description,
    fields: model.fields,
  };
}

export function shapeLocale(locale: SiteLocale) {
  return {
    code: locale.code,
    name: locale.name,
    default: locale.default,
    fallbackCode: locale.fallbackCode,
    optional: locale.optional,
    sys: { id: locale.code, type: "Locale", version: 1 },
  };
}
