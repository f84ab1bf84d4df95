// A record as the content API serves it: front-matter values coerced to their fields' types, links
// resolved against the site's entries and media library, rich text with its markdown twin, and the
// links and search text a row keeps. The directory import and management writes both use it, so a
// record reads the same however it arrives.
import { isMap } from "./config.ts";
import { toHex } from "../ids.ts";
import { apiAssetIdOf, assetIdForPath, contentTypeFor, mediaPath, sha256 } from "./media.ts";
import {
  fieldChoices,
  fieldHoldsSearchedText,
  fieldLinkContentTypes,
  fieldLinkType,
  markdownTwinId,
  type Model,
  type ModelField,
} from "./models.ts";
import { parseDate } from "./dates.ts";
import { markdownToRichText, richTextLinks, richTextPlainText } from "../richtext.ts";
import { splitFrontMatter } from "./front-matter.ts";
import {
  type Access,
  ACCESS_LEVELS,
  type AssetSnapshot,
  type EntrySnapshot,
  type LibraryFile,
  type Link,
  type LocaleConfig,
  type ParsedFile,
  type RecordFiles,
  type RecordText,
  SiteImportError,
} from "./snapshot.ts";

const META_KEYS = new Set(["published", "access", "date"]);

export function externalAsset(url: string, config: LocaleConfig, at: Date): AssetSnapshot {
  const fileName = decodeURIComponent(new URL(url).pathname.split("/").filter(Boolean).pop() ?? "") ||
    "image";
  return {
    id: assetIdForPath(url),
    path: url,
    fileName,
    contentType: contentTypeFor(fileName),
    size: 0,
    width: null,
    height: null,
    title: { [config.defaultLocale]: fileName.replace(/\.[^.]+$/, "") || fileName },
    description: {},
    contentHash: toHex(sha256(url)).slice(0, 16),
    storageKey: url,
    external: true,
    revision: 1,
    createdAt: at,
    updatedAt: at,
  };
}

export function buildEntry(
  id: string,
  model: Model,
  record: RecordFiles,
  parsed: Map<string, ParsedFile>,
  config: LocaleConfig,
  resolver: LinkResolver,
  when: { revision: number; createdAt: Date; updatedAt: Date },
  warnings: string[],
): EntrySnapshot {
  const base = parsed.get(record.base)!;
  const file = record.base;
  const fail = (why: string): never => {
    throw new SiteImportError(`${file}: ${why}`, file);
  };

  const published = base.data.published ?? true;
  if (typeof published !== "boolean") fail("published must be true or false");
  const access = base.data.access ?? "guest";
  if (!(ACCESS_LEVELS as readonly string[]).includes(access as string)) {
    fail(`access must be one of ${ACCESS_LEVELS.join(", ")} (got ${JSON.stringify(access)})`);
  }
  let createdAt = when.createdAt;
  let updatedAt = when.updatedAt;
  if (base.data.date !== undefined && base.data.date !== null && base.data.date !== "") {
    const date = parseDate(base.data.date);
    if (!date) {
      fail(`date must be an ISO 8601 date such as 2024-03-01 (got ${JSON.stringify(base.data.date)})`);
    }
    createdAt = date!;
    if (updatedAt < createdAt) updatedAt = createdAt;
  }

  const fields: Record<string, Record<string, unknown>> = {};
  const ctx: ValueContext = { file, resolver, model };
  const put = (field: ModelField, locale: string, value: unknown) => {
    if (value === undefined) return;
    (fields[field.id] ??= {})[locale] = value;
  };
  const fill = (source: ParsedFile, locale: string, isDefault: boolean) => {
    const ctxFile: ValueContext = { ...ctx, file: source.file };
    const given = new Map<string, unknown>();
    for (const [key, value] of Object.entries(source.data)) {
      if (META_KEYS.has(key) && !model.fields.some((f) => f.id === key)) {
        if (!isDefault) warnings.push(`${source.file}: ${key} is set by ${file}; ignored here`);
        continue;
      }
      given.set(key, value);
    }
    for (const field of model.fields) {
      const twinOf = field.id.endsWith("Markdown")
        ? model.fields.find((f) => f.type === "RichText" && markdownTwinId(f.id) === field.id)
        : undefined;
      if (twinOf) continue; // filled with its rich-text field
      const has = given.has(field.id) || (field.type === "RichText" && given.has(markdownTwinId(field.id)));
      const fromBody = field.type === "RichText" && field.id === "body" && source.body.trim() !== "";
      if (!has && !fromBody) continue;
      if (!isDefault && !field.localized) {
        warnings.push(`${source.file}: ${field.id} is not localized; only ${file} sets it`);
        continue;
      }
      if (field.type === "RichText") {
        const raw = given.has(markdownTwinId(field.id))
          ? given.get(markdownTwinId(field.id))
          : given.get(field.id);
        if (has && fromBody) {
          warnings.push(
            `${source.file}: ${field.id} is given twice (front matter and body); the front matter wins`,
          );
        }
        const markdown = has ? raw : source.body;
        if (markdown === null || markdown === undefined || markdown === "") continue;
        if (isMap(markdown) && markdown.nodeType === "document") {
          put(field, locale, markdown);
          continue;
        }
        if (typeof markdown !== "string") fail(`${field.id} must be markdown text`);
        const rich = richTextFromMarkdown(markdown as string, (src) => resolver.asset(src, ctxFile));
        put(field, locale, rich.document);
        put(model.fields.find((f) => f.id === markdownTwinId(field.id))!, locale, rich.markdown);
        continue;
      }
      put(field, locale, coerceValue(field, given.get(field.id), ctxFile));
    }
    for (const key of given.keys()) {
      if (!model.fields.some((f) => f.id === key)) {
        warnings.push(
          `${source.file}: ${key} is not a field of ${model.id} (fields: ${
            model.fields.map((f) => f.id).join(", ")
          }); ignored`,
        );
      }
    }
    if (
      !isDefault && source.body.trim() !== "" && !model.fields.some((f) => f.id === "body" && f.localized)
    ) {
      warnings.push(`${source.file}: the body is ignored (${model.id} has no localized body)`);
    }
  };

  fill(base, config.defaultLocale, true);
  if (base.body.trim() !== "" && !model.fields.some((f) => f.id === "body" && f.type === "RichText")) {
    warnings.push(`${file}: the body is ignored (${model.id} has no body field)`);
  }
  for (const [locale, siblingFile] of record.siblings) fill(parsed.get(siblingFile)!, locale, false);

  if (published) {
    for (const field of model.fields) {
      if (field.required && fields[field.id]?.[config.defaultLocale] === undefined) {
        warnings.push(`${file}: required field ${field.id} is empty`);
      }
    }
  }

  // fields in the content type's order
  const ordered: Record<string, Record<string, unknown>> = {};
  for (const field of model.fields) if (fields[field.id]) ordered[field.id] = fields[field.id];

  const { links, assetLinks, searchText } = summarize(model, ordered);
  return {
    id,
    modelId: model.id,
    path: file,
    access: access as Access,
    published: published as boolean,
    fields: ordered,
    links,
    assetLinks,
    searchText,
    revision: when.revision,
    createdAt,
    updatedAt,
    files: [record.base, ...record.siblings.values()],
  };
}

/**
 * One record read from the text of its files exactly as the import reads a directory's record (the same
 * front matter split, coercion and link resolution), its links resolved against `library` and, for
 * entries, against `entryIds` (others are kept as written, with a warning). The repository push checks
 * what it wrote with it, so a pushed file is known to read back as the row it came from.
 */
export function readRecordText(input: {
  id: string;
  model: Model;
  /** the record's file first, then its locale siblings */
  files: RecordText[];
  config: LocaleConfig;
  library: LibraryFile[];
  entryIds?: string[];
  models?: Model[];
  when?: { revision: number; createdAt: Date; updatedAt: Date };
}): { entry: EntrySnapshot; warnings: string[] } {
  const [base, ...others] = input.files;
  const parts = base.path.split("/");
  const record: RecordFiles = {
    base: base.path,
    folder: parts[1],
    rel: parts.slice(2).join("/").replace(/\.md$/, ""),
    siblings: new Map(),
  };
  for (const file of others) {
    const locale = file.path.match(/\.([^./]+)\.md$/)?.[1];
    if (!locale || !input.config.locales.some((l) => l.code === locale && !l.default)) {
      throw new SiteImportError(`${file.path}: not a locale sibling of ${base.path}`, file.path);
    }
    record.siblings.set(locale, file.path);
  }
  const parsed = new Map(input.files.map((f) => [f.path, splitFrontMatter(f.text, f.path)]));
  const models = input.models ?? [input.model];
  const warnings: string[] = [];
  const ids = new Map<string, RecordFiles>([[input.id, record]]);
  for (const id of input.entryIds ?? []) {
    const model = models.find((m) => id.startsWith(`${m.id}.`));
    if (model && !ids.has(id)) ids.set(id, { base: "", folder: model.folder, rel: "", siblings: new Map() });
  }
  const resolver = new LinkResolver(
    ids,
    new Map(models.map((m) => [m.folder, m])),
    new Map(models.map((m) => [m.id, m])),
    [...input.library],
    input.config,
    warnings,
  );
  const when = input.when ?? { revision: 1, createdAt: new Date(0), updatedAt: new Date(0) };
  return {
    entry: buildEntry(input.id, input.model, record, parsed, input.config, resolver, when, warnings),
    warnings,
  };
}

/**
 * A rich-text field's two stored values from its markdown: the document and the markdown twin, trimmed
 * alike wherever the markdown comes from (a record file or a management write).
 */
export function richTextFromMarkdown(
  markdown: string,
  resolveAsset: (src: string) => string | undefined,
): { document: ReturnType<typeof markdownToRichText>; markdown: string } {
  const text = trimMarkdown(markdown);
  return { document: markdownToRichText(text, { resolveAsset }), markdown: text };
}

/** A markdown twin as it is stored: leading blank lines and trailing white space gone, one newline at the end. */
export function trimMarkdown(markdown: string): string {
  return markdown.replace(/^\s*\n/, "").replace(/\s+$/, "") + "\n";
}

/**
 * Every linked id (fields and rich-text targets) and every piece of text (for `query`): the row's links,
 * asset_links and search_text, for the import and for management writes alike.
 */
export function summarize(model: Pick<Model, "fields">, fields: Record<string, Record<string, unknown>>) {
  const links = new Set<string>();
  const assetLinks = new Set<string>();
  const text: string[] = [];
  const strings = (value: unknown) => {
    if (typeof value === "string") {
      if (value.trim()) text.push(value);
    } else if (Array.isArray(value)) value.forEach(strings);
    else if (isMap(value)) Object.values(value).forEach(strings);
  };
  for (const field of model.fields) {
    const values = fields[field.id];
    if (!values) continue;
    for (const value of Object.values(values)) {
      if (field.type === "RichText") {
        const found = richTextLinks(value);
        found.entries.forEach((id) => links.add(id));
        found.assets.forEach((id) => assetLinks.add(id));
        const plain = richTextPlainText(value as never);
        if (plain.trim()) text.push(plain);
      } else if (fieldLinkType(field)) {
        for (const link of (Array.isArray(value) ? value : [value]) as Link[]) {
          (link.sys.linkType === "Asset" ? assetLinks : links).add(link.sys.id);
        }
      } else if (
        field.id.endsWith("Markdown") && model.fields.some((f) => markdownTwinId(f.id) === field.id)
      ) {
        continue; // the rich text already gave its text
      } else if (fieldHoldsSearchedText(field)) {
        strings(value);
      }
    }
  }
  return { links: [...links].sort(), assetLinks: [...assetLinks].sort(), searchText: text.join("\n") };
}

// ---------------------------------------------------------------------------------------------- values

interface ValueContext {
  file: string;
  model: Model;
  resolver: LinkResolver;
}

/** A front-matter value as the content API serves it; undefined when empty (the field is absent). */
export function coerceValue(field: ModelField, value: unknown, ctx: ValueContext): unknown {
  if (isEmpty(value)) return undefined;
  const fail = (why: string): never => {
    throw new SiteImportError(`${ctx.file}: ${field.id} ${why} (got ${JSON.stringify(value)})`, ctx.file);
  };
  const checkChoice = (v: unknown) => {
    const choices = fieldChoices(field);
    if (choices && !choices.includes(v)) fail(`must be one of ${choices.join(", ")}`);
    return v;
  };
  switch (field.type) {
    case "Symbol":
    case "Text":
      if (!isScalar(value)) fail("must be text");
      return checkChoice(String(value));
    case "Integer": {
      const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
      if (typeof n !== "number" || !Number.isInteger(n)) fail("must be a whole number");
      return checkChoice(n);
    }
    case "Number": {
      const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
      if (typeof n !== "number" || !Number.isFinite(n)) fail("must be a number");
      return checkChoice(n);
    }
    case "Boolean":
      if (value === true || value === "true") return true;
      if (value === false || value === "false") return false;
      return fail("must be true or false");
    case "Date": {
      const s = value instanceof Date ? value.toISOString() : String(value).trim();
      if (!parseDate(s)) {
        fail("must be an ISO 8601 date such as 2024-03-01 or 2024-03-01T10:00:00Z");
      }
      return s.replace(" ", "T");
    }
    case "Object":
      return value;
    case "Link":
      return linkValue(field, field.linkType!, value, ctx);
    case "Array": {
      const list = Array.isArray(value) ? value : [value];
      const items = field.items!;
      const out: unknown[] = [];
      for (const item of list) {
        if (isEmpty(item)) continue;
        if (items.type === "Symbol") {
          if (!isScalar(item)) fail("must be a list of text values");
          const s = String(item);
          checkChoice(s);
          out.push(s);
        } else if (items.type === "Link") {
          out.push(linkValue(field, items.linkType!, item, ctx));
        } else {
          out.push(item);
        }
      }
      return out.length ? out : undefined;
    }
    default:
      return value;
  }
}

function linkValue(field: ModelField, linkType: "Entry" | "Asset", value: unknown, ctx: ValueContext): Link {
  let ref = value;
  if (isMap(value) && isMap(value.sys) && typeof value.sys.id === "string") ref = value.sys.id;
  if (typeof ref !== "string" || !ref.trim()) {
    throw new SiteImportError(
      `${ctx.file}: ${field.id} must name ${
        linkType === "Asset" ? "a media file (media/...)" : "an entry (an id or a record path)"
      } (got ${JSON.stringify(value)})`,
      ctx.file,
    );
  }
  const id = linkType === "Asset"
    ? ctx.resolver.asset(ref, ctx)
    : ctx.resolver.entry(ref, ctx, fieldLinkContentTypes(field));
  return { sys: { type: "Link", linkType, id } };
}

export class LinkResolver {
  private assetsByPath: Map<string, LibraryFile>;
  private assetIds: Set<string>;
  /** Pictures records name by their address: added to the library as external assets. */
  readonly external = new Map<string, AssetSnapshot>();

  constructor(
    private ids: Map<string, RecordFiles>,
    private byFolder: Map<string, Model>,
    private modelIds: Map<string, Model>,
    private assets: LibraryFile[],
    private config: LocaleConfig,
    private warnings: string[],
  ) {
    this.assetsByPath = new Map(assets.map((a) => [a.path, a]));
    this.assetIds = new Set(assets.map((a) => a.id));
  }

  entry(raw: string, ctx: ValueContext, allowed?: string[]): string {
    const value = raw.trim();
    let id = value;
    if (!this.ids.has(value)) {
      const path = value.replace(/^\/+/, "").replace(/^records\//, "").replace(/\.md$/, "");
      const slash = path.indexOf("/");
      const model = slash > 0 ? this.byFolder.get(path.slice(0, slash)) : undefined;
      if (model) id = `${model.id}.${path.slice(slash + 1).replace(/\//g, ".")}`;
    }
    const target = this.ids.get(id);
    if (!target) {
      const known = this.modelIds.has(id.split(".")[0]);
      this.warnings.push(
        `${ctx.file}: links to ${value}, which is ${
          known ? "no record" : "neither an entry id nor a record path"
        } (kept as an unresolvable link)`,
      );
      return id;
    }
    const targetModel = this.byFolder.get(target.folder)!;
    if (allowed && !allowed.includes(targetModel.id)) {
      this.warnings.push(
        `${ctx.file}: links to ${id}, a ${targetModel.id}; the field takes ${allowed.join(", ")}`,
      );
    }
    return id;
  }

  asset(raw: string, ctx: { file: string }): string {
    const value = raw.trim();
    if (/^https?:\/\//i.test(value)) {
      let asset = this.external.get(value);
      if (!asset) {
        try {
          asset = externalAsset(value, this.config, new Date(0));
        } catch {
          this.warnings.push(`${ctx.file}: ${value} is not a valid address`);
          return assetIdForPath(value);
        }
        this.external.set(value, asset);
        this.assets.push(asset);
        this.assetsByPath.set(value, asset);
        this.assetIds.add(asset.id);
      }
      return asset.id;
    }
    if (this.assetIds.has(value)) return value;
    // a file made through the management API: its library path names its id (the push writes it so)
    const api = apiAssetIdOf(value.replace(/^\/+/, ""));
    if (api) return api;
    const path = mediaPath(value) ?? mediaPath(`media/${value.replace(/^\/+/, "")}`)!;
    const asset = this.assetsByPath.get(path);
    if (asset) return asset.id;
    this.warnings.push(
      `${ctx.file}: names ${value}, which is not in the media library (kept as an unresolvable link)`,
    );
    return assetIdForPath(path);
  }
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === "" ||
    (Array.isArray(value) && value.length === 0);
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}
