// The write field rules of the management API: an entry's `fields` ({ <field>: { <locale>: value } }) are
// checked against its content type and turned into the stored row values (fields, links, asset_links,
// search_text) with the same helpers the site import uses, so an API write and an imported record are
// stored alike.
//
// Rules: a plain field takes its value (the import's coercion: empty values and empty arrays are
// omitted); a rich-text field takes a document, or its `<field>Markdown` twin, and the twin wins, its
// document made from the markdown; an Asset link must name a library file (notResolvable otherwise),
// and so must every picture a document or a twin embeds; an Entry link names another entry's id.
// Every refusal is collected, so one answer lists them all.
import { coerceValue, richTextFromMarkdown, summarize } from "../../../shared/site/record-entry.ts";
import { SiteImportError } from "../../../shared/site/snapshot.ts";
import { fieldLinkContentTypes, fieldLinkType, markdownTwinId } from "../../../shared/site/models.ts";
import { markdownToRichText, richTextLinks, richTextProblem } from "../../../shared/richtext.ts";
import { mediaPath } from "../../../shared/site/media.ts";
import type { ContentModel, ContentTypeField } from "./content-types.ts";
import { type FieldProblem, isEntryLinkId, modelIdOf } from "./management-rules.ts";

type Localized = Record<string, Record<string, unknown>>;

export interface EntryRowValues {
  fields: Localized;
  links: string[];
  assetLinks: string[];
  searchText: string;
}

export interface FieldContext {
  /** the site's locale codes, the default first */
  locales: string[];
  defaultLocale: string;
}

/** What the library holds of the files a write names: ids of processed assets, library paths to ids. */
export interface LibraryLookup {
  ids: Set<string>;
  byPath: Map<string, string>;
}

const isMap = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The media door's own asset addresses (//host/api/media/<space>/<id>/...) name their asset. */
const MEDIA_ADDRESS = /\/api\/media\/[^/]+\/([A-Za-z0-9._-]+)\//;

/** Asset ids and library paths a write refers to, so they can be looked up in one read. */
export function assetReferences(model: ContentModel, input: unknown): { ids: string[]; paths: string[] } {
  const ids = new Set<string>();
  const paths = new Set<string>();
  if (!isMap(input)) return { ids: [], paths: [] };
  for (const [fieldId, byLocale] of Object.entries(input)) {
    const field = model.fields.find((f) => f.id === fieldId);
    if (!field || !isMap(byLocale)) continue;
    for (const value of Object.values(byLocale)) {
      if (fieldLinkType(field) === "Asset") {
        for (const link of Array.isArray(value) ? value : [value]) {
          const id = isMap(link) && isMap(link.sys) ? link.sys.id : undefined;
          if (typeof id === "string") ids.add(id);
        }
      } else if (field.type === "RichText") {
        for (const id of richTextLinks(value).assets) ids.add(id);
      } else if (isTwin(model, field) && typeof value === "string") {
        // the document is made again once the pictures are known; this pass only collects them
        markdownToRichText(value, {
          resolveAsset: (src) => {
            const path = mediaPath(src);
            if (path) paths.add(path);
            else ids.add(src.match(MEDIA_ADDRESS)?.[1] ?? src.trim());
            return undefined;
          },
        });
      }
    }
  }
  return { ids: [...ids], paths: [...paths] };
}

function isTwin(model: ContentModel, field: ContentTypeField): boolean {
  return field.id.endsWith("Markdown") && model.fields.some((f) => f.type === "RichText" && markdownTwinId(f.id) === field.id);
}

/** Checks `input` (the request's `fields`) and builds the row values, or answers every problem found. */
export function buildEntryValues(
  model: ContentModel,
  input: unknown,
  ctx: FieldContext,
  library: LibraryLookup,
): { values: EntryRowValues; problems: [] } | { values?: undefined; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const fields: Localized = {};
  const put = (field: string, locale: string, value: unknown) => {
    if (value !== undefined) (fields[field] ??= {})[locale] = value;
  };
  if (input === undefined || input === null) input = {};
  if (!isMap(input)) {
    return { problems: [{ name: "invalid", path: ["fields"], details: "fields must map field ids to { <locale>: value }" }] };
  }

  const given = input as Record<string, unknown>;
  for (const [fieldId, byLocale] of Object.entries(given)) {
    const field = model.fields.find((f) => f.id === fieldId);
    const path = ["fields", fieldId];
    if (!field) {
      problems.push({ name: "unknown", path, details: `${fieldId} is not a field of ${model.id}` });
      continue;
    }
    if (!isMap(byLocale)) {
      problems.push({ name: "invalid", path, details: `${fieldId} must be an object keyed by locale`, value: byLocale });
      continue;
    }
    for (const locale of Object.keys(byLocale)) {
      if (!ctx.locales.includes(locale)) {
        problems.push({ name: "invalid", path, details: `${locale} is not a locale of this space (${ctx.locales.join(", ")})` });
      } else if (!field.localized && locale !== ctx.defaultLocale) {
        problems.push({ name: "invalid", path, details: `${fieldId} is not localized: only ${ctx.defaultLocale} takes a value` });
      }
    }
  }
  if (problems.length) return { problems };

  const assetProblem = (path: string[], id: string) =>
    problems.push({ name: "notResolvable", path, details: `no file of the media library has the id ${id}`, value: id });

  for (const field of model.fields) {
    const path = ["fields", field.id];
    if (isTwin(model, field)) continue; // written with its rich-text field
    const values = given[field.id] as Record<string, unknown> | undefined;
    if (field.type === "RichText") {
      const twins = given[markdownTwinId(field.id)] as Record<string, unknown> | undefined;
      for (const locale of ctx.locales) {
        const markdown = twins?.[locale];
        if (markdown !== undefined && markdown !== null && markdown !== "") {
          if (typeof markdown !== "string") {
            problems.push({ name: "invalid", path: ["fields", markdownTwinId(field.id)], details: "markdown must be text" });
            continue;
          }
          // the twin wins: the document is made from the markdown, as the import makes it
          const rich = richTextFromMarkdown(markdown, (src) => {
            const id = resolvePicture(src, library);
            if (id === null) assetProblem(["fields", markdownTwinId(field.id)], src);
            return id ?? undefined;
          });
          put(field.id, locale, rich.document);
          put(markdownTwinId(field.id), locale, rich.markdown);
          continue;
        }
        const document = values?.[locale];
        if (document === undefined || document === null) continue;
        const malformed = richTextProblem(document);
        if (malformed) {
          problems.push({ name: "invalid", path, details: malformed });
          continue;
        }
        const targets = richTextLinks(document);
        const notAnId = targets.entries.find((id) => !isEntryLinkId(id));
        if (notAnId !== undefined) {
          problems.push({ name: "invalid", path, details: "an entry link names an entry id: <content type>.<path>", value: notAnId.slice(0, 100) });
          continue;
        }
        for (const id of targets.assets) if (!library.ids.has(id)) assetProblem(path, id);
        put(field.id, locale, document); // no twin: markdown cannot be made back from a document
      }
      continue;
    }
    if (!values) continue;
    for (const [locale, value] of Object.entries(values)) {
      const linkType = fieldLinkType(field);
      if (linkType) {
        const checked = linkValue(field, linkType, value, path, problems, library);
        put(field.id, locale, checked);
        continue;
      }
      try {
        // the import's coercion; its link resolver (record paths) is never reached: links are handled above
        const coerced = coerceValue(field, value, { file: `fields.${field.id}`, model: model as never, resolver: undefined as never });
        if (isSymbolField(field) && (Array.isArray(coerced) ? coerced : [coerced]).some(tooLongSymbol)) {
          problems.push({ name: "invalid", path, details: `a short text (Symbol) holds at most ${MAX_SYMBOL_LENGTH} characters` });
          continue;
        }
        put(field.id, locale, coerced);
      } catch (error) {
        if (!(error instanceof SiteImportError)) throw error;
        problems.push({ name: "invalid", path, details: error.message.replace(/^fields\.[^:]+: /, ""), value });
      }
    }
  }
  if (problems.length) return { problems };

  const { links, assetLinks, searchText } = summarize(model, fields);
  return { values: { fields, links, assetLinks, searchText }, problems: [] };
}

/** Contentful's limit of a short text; values are indexed (handles, SKUs, names), so it is kept here too. */
export const MAX_SYMBOL_LENGTH = 256;

const isSymbolField = (field: ContentTypeField) =>
  field.type === "Symbol" || (field.type === "Array" && field.items?.type === "Symbol");
const tooLongSymbol = (value: unknown) => typeof value === "string" && value.length > MAX_SYMBOL_LENGTH;

/**
 * What publishing needs: every field the content type marks required has a value in the default
 * locale. Other locales fall back to it (their fallbackCode), so a value there is never required.
 * Drafts may stay incomplete; only publish asks.
 */
export function requiredProblems(model: ContentModel, fields: Localized, defaultLocale: string): FieldProblem[] {
  const empty = (value: unknown) =>
    value === undefined || value === null || value === "" || (Array.isArray(value) && value.length === 0);
  return model.fields
    .filter((field) => field.required && empty(fields[field.id]?.[defaultLocale]))
    .map((field) => ({
      name: "required" as const,
      path: ["fields", field.id],
      details: `${field.id} is required (in ${defaultLocale}) to publish a ${model.id}`,
    }));
}

/** A picture named in markdown: its asset id, undefined for an outside address (kept as a hyperlink),
 * null when it names a library file that does not exist. */
function resolvePicture(src: string, library: LibraryLookup): string | undefined | null {
  const path = mediaPath(src);
  if (path) return library.byPath.get(path) ?? null;
  const own = src.match(MEDIA_ADDRESS)?.[1];
  if (own) return library.ids.has(own) ? own : null;
  if (/^([a-z][a-z0-9+.-]*:)?\/\//i.test(src.trim())) return undefined;
  return library.ids.has(src.trim()) ? src.trim() : null;
}

function linkValue(
  field: ContentTypeField,
  linkType: "Entry" | "Asset",
  value: unknown,
  path: string[],
  problems: FieldProblem[],
  library: LibraryLookup,
): unknown {
  const list = field.type === "Array";
  if (value === null || value === undefined || (Array.isArray(value) && value.length === 0)) return undefined;
  if (list !== Array.isArray(value)) {
    problems.push({ name: "invalid", path, details: list ? "a list of links is an array" : "a link is one { sys } object", value });
    return undefined;
  }
  const out: unknown[] = [];
  for (const item of (list ? value : [value]) as unknown[]) {
    const sys = isMap(item) && isMap(item.sys) ? item.sys : undefined;
    if (
      !sys || sys.type !== "Link" || sys.linkType !== linkType || typeof sys.id !== "string" || !sys.id ||
      (linkType === "Entry" && !isEntryLinkId(sys.id))
    ) {
      problems.push({
        name: "invalid",
        path,
        details: `a link is { sys: { type: 'Link', linkType: '${linkType}', id } }`,
        value: item,
      });
      continue;
    }
    if (linkType === "Asset" && !library.ids.has(sys.id)) {
      problems.push({ name: "notResolvable", path, details: `no file of the media library has the id ${sys.id}`, value: sys.id });
      continue;
    }
    // an entry id starts with its content type (<type>.<path>), so the field's allowed types are checked here
    const allowed = linkType === "Entry" ? fieldLinkContentTypes(field) : undefined;
    if (allowed && !allowed.includes(modelIdOf(sys.id))) {
      problems.push({
        name: "invalid",
        path,
        details: `${sys.id} is not an entry of a type this field links to (${allowed.join(", ")})`,
        value: sys.id,
      });
      continue;
    }
    out.push({ sys: { type: "Link", linkType, id: sys.id } });
  }
  return list ? out : out[0];
}
