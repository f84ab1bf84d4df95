// Reads a content directory into a SiteSnapshot: the configuration, the models, every record as the
// rows the content API serves (fields keyed by field id, then by locale) and the media library. No
// database here: ./import.ts writes a snapshot.
//
// Layout:
//   site.yaml                          configuration (./config.ts)
//   models/<folder>.yaml               the site's own models (content type id model<Singular>)
//   records/<folder>/<path>.md         a record: YAML front matter + markdown body
//   records/<folder>/<path>.<loc>.md   another locale's values of the record's localized fields
//   media/**                           the media library (assets)
import { parse as parseYaml } from "yaml";
import {
  firstLine,
  isMap,
  parseSiteConfig,
  type SiteConfig,
  SiteConfigError,
  type SiteMode,
} from "./config.ts";
import { type FileHistory, type GitHistory, readGitHistory } from "./git.ts";
import { toHex } from "../ids.ts";
import { apiAssetIdOf, assetIdForPath, contentHash, contentTypeFor, imageSize, mediaPath, sha256 } from "./media.ts";
import {
  fieldChoices,
  fieldHoldsSearchedText,
  fieldLinkContentTypes,
  fieldLinkType,
  markdownTwinId,
  type Model,
  ModelError,
  type ModelField,
  type ModelSpec,
  normalizeModel,
  siteModelId,
} from "./models.ts";
import { STOCK_MODELS } from "./stock-models.ts";
import { parseDate } from "./dates.ts";
import { markdownToRichText, richTextLinks, richTextPlainText } from "../richtext.ts";

export const ACCESS_LEVELS = ["guest", "member", "supporter", "staff"] as const;
export type Access = typeof ACCESS_LEVELS[number];

export interface Link {
  sys: { type: "Link"; linkType: "Entry" | "Asset"; id: string };
}

/** One entry (both stages share it; `published` says whether the published row exists). */
export interface EntrySnapshot {
  id: string;
  modelId: string;
  /** The record's file, relative to the content directory (records/articles/hello.md). */
  path: string;
  access: Access;
  published: boolean;
  /** fields[fieldId][localeCode] = value, in the content type's field order; empty fields are absent. */
  fields: Record<string, Record<string, unknown>>;
  links: string[];
  assetLinks: string[];
  searchText: string;
  revision: number;
  createdAt: Date;
  updatedAt: Date;
  /** The record's files (the default-locale file first, then its locale siblings). */
  files: string[];
}

export interface AssetSnapshot {
  id: string;
  /** Library path (media/photos/harbor.jpg), or the address of a picture a record names elsewhere. */
  path: string;
  fileName: string;
  contentType: string;
  size: number;
  width: number | null;
  height: number | null;
  title: Record<string, string>;
  description: Record<string, string>;
  contentHash: string;
  storageKey: string;
  /** true for a picture named by its address (http...), which has no bytes in the library. */
  external: boolean;
  bytes?: Uint8Array;
  revision: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface ModelSnapshot extends Model {
  position: number;
}

export interface SiteSnapshot {
  dir: string;
  config: SiteConfig;
  mode: SiteMode;
  models: ModelSnapshot[];
  entries: EntrySnapshot[];
  assets: AssetSnapshot[];
  warnings: string[];
}

export interface ReadSiteOptions {
  modeOverride?: SiteMode;
  onProgress?: (message: string) => void;
}

/** A content directory that cannot be read; the message names the file and the reason. */
export class SiteImportError extends Error {
  constructor(message: string, readonly file?: string) {
    super(message);
  }
}

const META_KEYS = new Set(["published", "access", "date"]);
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const MODEL_FOLDER = /^[a-z0-9][a-z0-9_-]*$/;

export async function readSiteDir(dir: string, options: ReadSiteOptions = {}): Promise<SiteSnapshot> {
  const root = await Deno.realPath(dir).catch(() => {
    throw new SiteImportError(`${dir}: no such directory`);
  });
  const progress = options.onProgress ?? (() => {});
  const warnings: string[] = [];

  const config = await readSiteConfigFile(dir);
  const mode = options.modeOverride ?? config.mode;
  progress(
    `site ${config.slug} (${config.name}), ${mode} mode, locales ${
      config.locales.map((l) => l.code).join(", ")
    }`,
  );

  const historyPromise = readGitHistory(root);
  const models = await readModels(root);
  progress(`${models.length} models (${models.filter((m) => !m.stock).length} of the site's own)`);

  const [mediaFiles, recordFiles, history] = await Promise.all([
    listFiles(root, "media"),
    listFiles(root, "records"),
    historyPromise,
  ]);
  if (mode === "git" && !history) {
    progress("not inside a git work tree: revisions are 1 and times come from the files");
  }
  const times = new FileTimes(root, history);

  const assets = await readMedia(root, mediaFiles, config, mode, times);
  progress(`${assets.length} media files`);

  const entries = await readRecords(root, recordFiles, models, config, mode, times, assets, warnings);
  progress(`${entries.length} records (${entries.filter((e) => !e.published).length} unpublished)`);
  assets.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  return { dir: root, config, mode, models, entries, assets, warnings };
}

// ---------------------------------------------------------------------------------------------- models

async function readModels(root: string): Promise<ModelSnapshot[]> {
  const models: ModelSnapshot[] = STOCK_MODELS.map((m, position) => ({ ...m, position }));
  const files = (await listFiles(root, "models")).filter((f) => /\.ya?ml$/.test(f)).sort();
  for (const file of files) {
    const folder = file.replace(/^models\//, "").replace(/\.ya?ml$/, "");
    if (!MODEL_FOLDER.test(folder)) {
      throw new SiteImportError(
        `${file}: a model's file name must be lowercase letters, digits, - or _ (models/events.yaml)`,
        file,
      );
    }
    const stock = models.find((m) => m.folder === folder);
    if (stock) {
      throw new SiteImportError(`${file}: ${folder} is the folder of the stock model ${stock.id}`, file);
    }
    const doc = parseYamlFile(await Deno.readTextFile(`${root}/${file}`), file);
    if (!isMap(doc)) {
      throw new SiteImportError(`${file}: a model must be a mapping with name and fields`, file);
    }
    const id = siteModelId(folder);
    if (models.some((m) => m.id === id)) {
      throw new SiteImportError(`${file}: content type id ${id} is taken`, file);
    }
    const spec: ModelSpec = {
      id,
      folder,
      name: typeof doc.name === "string" && doc.name ? doc.name : id.slice("model".length),
      description: typeof doc.description === "string" ? doc.description : "",
      displayField: doc.displayField === undefined ? undefined : doc.displayField as string | null,
      fields: (doc.fields ?? []) as ModelSpec["fields"],
    };
    try {
      models.push({ ...normalizeModel(spec, false, file), position: models.length });
    } catch (error) {
      if (error instanceof ModelError) throw new SiteImportError(error.message, file);
      throw error;
    }
  }
  return models;
}

// ----------------------------------------------------------------------------------------------- media

async function readMedia(
  root: string,
  files: string[],
  config: SiteConfig,
  mode: SiteMode,
  times: FileTimes,
): Promise<AssetSnapshot[]> {
  const assets = await Promise.all(files.map(async (path): Promise<AssetSnapshot> => {
    const bytes = await Deno.readFile(`${root}/${path}`);
    const fileName = path.slice(path.lastIndexOf("/") + 1);
    const contentType = contentTypeFor(fileName);
    const size = contentType.startsWith("image/") ? imageSize(bytes) : undefined;
    const when = await times.of([path], mode);
    return {
      id: assetIdForPath(path),
      path,
      fileName,
      contentType,
      size: bytes.byteLength,
      width: size?.width ?? null,
      height: size?.height ?? null,
      title: { [config.defaultLocale]: fileName.replace(/\.[^.]+$/, "") || fileName },
      description: {},
      contentHash: contentHash(bytes),
      storageKey: path,
      external: false,
      bytes,
      ...when,
    };
  }));
  return assets.sort((a, b) => a.path.localeCompare(b.path));
}

function externalAsset(url: string, config: LocaleConfig, at: Date): AssetSnapshot {
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

// --------------------------------------------------------------------------------------------- records

interface RecordFiles {
  base: string;
  folder: string;
  /** path inside the model folder without extension (guides/setup) */
  rel: string;
  siblings: Map<string, string>; // locale -> file
}

interface ParsedFile {
  file: string;
  data: Record<string, unknown>;
  body: string;
}

async function readRecords(
  root: string,
  files: string[],
  models: ModelSnapshot[],
  config: SiteConfig,
  mode: SiteMode,
  times: FileTimes,
  assets: AssetSnapshot[],
  warnings: string[],
): Promise<EntrySnapshot[]> {
  const byFolder = new Map(models.map((m) => [m.folder, m]));
  const modelIds = new Map(models.map((m) => [m.id, m]));
  const otherLocales = new Set(config.locales.filter((l) => !l.default).map((l) => l.code));
  const records = new Map<string, RecordFiles>(); // by base file
  const siblings: { file: string; base: string; locale: string }[] = [];

  for (const file of files) {
    const parts = file.split("/"); // records, folder, ..., name
    const name = parts[parts.length - 1];
    if (name.startsWith(".")) continue;
    if (parts.length < 3) {
      warnings.push(`${file}: ignored (records go in records/<model folder>/)`);
      continue;
    }
    if (!name.endsWith(".md")) {
      warnings.push(`${file}: ignored (records are .md files)`);
      continue;
    }
    const folder = parts[1];
    if (!byFolder.has(folder)) {
      throw new SiteImportError(
        `${file}: no model has the folder ${folder} (add models/${folder}.yaml or use a stock folder)`,
        file,
      );
    }
    for (const segment of parts.slice(2)) {
      if (!SEGMENT.test(segment)) {
        throw new SiteImportError(
          `${file}: a record's path may hold only letters, digits, -, _ and . (${segment})`,
          file,
        );
      }
    }
    const localeMatch = name.match(/^(.+)\.([a-z]{2,3}(?:-[A-Za-z0-9]{2,8})+|[a-z]{2,3})\.md$/);
    if (localeMatch && (otherLocales.has(localeMatch[2]) || localeMatch[2] === config.defaultLocale)) {
      if (localeMatch[2] === config.defaultLocale) {
        throw new SiteImportError(
          `${file}: ${config.defaultLocale} is the default locale; its values belong in ${localeMatch[1]}.md`,
          file,
        );
      }
      siblings.push({
        file,
        base: [...parts.slice(0, -1), `${localeMatch[1]}.md`].join("/"),
        locale: localeMatch[2],
      });
      continue;
    }
    if (localeMatch && localeMatch[2].includes("-")) {
      warnings.push(
        `${file}: ${localeMatch[2]} is not a locale of the site; imported as a record of its own`,
      );
    }
    records.set(file, {
      base: file,
      folder,
      rel: parts.slice(2).join("/").replace(/\.md$/, ""),
      siblings: new Map(),
    });
  }
  for (const sibling of siblings) {
    const record = records.get(sibling.base);
    if (!record) {
      throw new SiteImportError(
        `${sibling.file}: no ${sibling.base} for these ${sibling.locale} values`,
        sibling.file,
      );
    }
    record.siblings.set(sibling.locale, sibling.file);
  }

  // every id first, so links can be checked against the whole site
  const ids = new Map<string, RecordFiles>();
  for (const record of records.values()) {
    const id = `${byFolder.get(record.folder)!.id}.${record.rel.replace(/\//g, ".")}`;
    const clash = ids.get(id);
    if (clash) {
      throw new SiteImportError(
        `${record.base}: entry id ${id} is also the id of ${clash.base}`,
        record.base,
      );
    }
    ids.set(id, record);
  }

  const parsed = new Map<string, ParsedFile>();
  await Promise.all(
    [...records.values()].flatMap((r) => [r.base, ...r.siblings.values()]).map(async (file) => {
      parsed.set(file, splitFrontMatter(await Deno.readTextFile(`${root}/${file}`), file));
    }),
  );

  const resolver = new LinkResolver(ids, byFolder, modelIds, assets, config, warnings);
  const entries: EntrySnapshot[] = [];
  for (const [id, record] of ids) {
    const model = byFolder.get(record.folder)!;
    const files = [
      record.base,
      ...[...record.siblings.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, f]) => f),
    ];
    const when = await times.of(files, mode);
    entries.push(buildEntry(id, model, record, parsed, config, resolver, when, warnings));
  }
  entries.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  // a picture named by its address dates from the records that name it
  for (const asset of resolver.external.values()) {
    const naming = entries.filter((e) => e.assetLinks.includes(asset.id));
    if (!naming.length) continue;
    asset.createdAt = new Date(Math.min(...naming.map((e) => e.createdAt.getTime())));
    asset.updatedAt = new Date(
      Math.max(asset.createdAt.getTime(), ...naming.map((e) => e.updatedAt.getTime())),
    );
  }
  return entries;
}

function buildEntry(
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

/** What reading a record needs of the site's configuration. */
type LocaleConfig = Pick<SiteConfig, "defaultLocale" | "locales">;

/** A file of the media library as links resolve against it. */
export type LibraryFile = Pick<AssetSnapshot, "id" | "path">;

export interface RecordText {
  /** records/<folder>/<path>.md, and <path>.<locale>.md beside it for another locale's values */
  path: string;
  text: string;
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
  return { entry: buildEntry(input.id, input.model, record, parsed, input.config, resolver, when, warnings), warnings };
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

class LinkResolver {
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

// ----------------------------------------------------------------------------------------------- files

/** Splits `---\n<yaml>\n---\n<markdown>`; a file without front matter is all body. */
export function splitFrontMatter(text: string, file: string): ParsedFile {
  const source = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  if (!/^---[ \t]*\n/.test(source)) return { file, data: {}, body: source };
  const rest = source.slice(source.indexOf("\n") + 1);
  // lines end at \n only: a value holding U+2028 (which a multiline regex would take for a line end)
  // followed by --- must not close the front matter
  const close = rest.match(/(?:^|\n)(?:---|\.\.\.)[ \t]*(?=\n|$)/);
  if (!close || close.index === undefined) {
    throw new SiteImportError(`${file}: the front matter is not closed (no --- line after it)`, file);
  }
  const yaml = rest.slice(0, close.index + (close[0].startsWith("\n") ? 1 : 0));
  const body = rest.slice(close.index + close[0].length).replace(/^\n/, "");
  const data = yaml.trim() ? parseYamlFile(yaml, file, "front matter ") : {};
  if (data === null || data === undefined) return { file, data: {}, body };
  if (!isMap(data)) {
    throw new SiteImportError(`${file}: the front matter must be a mapping of field: value`, file);
  }
  return { file, data, body };
}

function parseYamlFile(text: string, file: string, what = ""): unknown {
  try {
    return parseYaml(text);
  } catch (error) {
    throw new SiteImportError(`${file}: ${what}is not valid YAML: ${firstLine(error)}`, file);
  }
}

/** Files under root/sub (relative to root, forward slashes, sorted); dotfiles and dot-folders skipped. */
async function listFiles(root: string, sub: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string) => {
    let iter: AsyncIterable<Deno.DirEntry>;
    try {
      iter = Deno.readDir(`${root}/${rel}`);
      for await (const entry of iter) {
        if (entry.name.startsWith(".")) continue;
        const path = `${rel}/${entry.name}`;
        if (entry.isDirectory) await walk(path);
        else if (entry.isFile) out.push(path);
        else if (entry.isSymlink) {
          const info = await Deno.stat(`${root}/${path}`).catch(() => undefined);
          if (info?.isFile) out.push(path);
          else if (info?.isDirectory) await walk(path);
        }
      }
    } catch (error) {
      if (error instanceof Deno.errors.NotFound && rel === sub) return;
      throw error;
    }
  };
  await walk(sub);
  return out.sort();
}

/** A content directory's configuration file (site.yaml, else site.yml), read and checked. */
export async function readSiteConfigFile(dir: string): Promise<SiteConfig> {
  const file = await firstExisting(dir, ["site.yaml", "site.yml"]);
  if (!file) throw new SiteImportError(`${dir}: no site.yaml (is this a content directory?)`, "site.yaml");
  try {
    return parseSiteConfig(await Deno.readTextFile(`${dir}/${file}`), file);
  } catch (error) {
    if (error instanceof SiteConfigError) throw new SiteImportError(error.message, file);
    throw error;
  }
}

async function firstExisting(root: string, names: string[]): Promise<string | undefined> {
  for (const name of names) {
    if (await Deno.stat(`${root}/${name}`).then((s) => s.isFile, () => false)) return name;
  }
  return undefined;
}

/** Revision and times of a record or media file: from git history when there is one, else the files. */
class FileTimes {
  constructor(private root: string, private history: GitHistory | undefined) {}

  async of(files: string[], mode: SiteMode): Promise<{ revision: number; createdAt: Date; updatedAt: Date }> {
    const histories = files.map((f) => this.history?.files.get(f)).filter((h): h is FileHistory => !!h);
    if (histories.length) {
      const commits = new Set(histories.flatMap((h) => h.commits));
      const first = new Date(Math.min(...histories.map((h) => h.first.getTime())));
      const last = new Date(Math.max(...histories.map((h) => h.last.getTime())));
      return { revision: mode === "git" ? commits.size : 1, createdAt: first, updatedAt: last };
    }
    const stats = await Promise.all(files.map((f) => Deno.stat(`${this.root}/${f}`)));
    const mtimes = stats.map((s) => (s.mtime ?? new Date(0)).getTime());
    // whole seconds, as git records them, so a later commit never looks older than the draft
    const created = Math.floor(mtimes[0] / 1000) * 1000;
    const updated = Math.floor(Math.max(...mtimes) / 1000) * 1000;
    return { revision: 1, createdAt: new Date(created), updatedAt: new Date(Math.max(created, updated)) };
  }
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || value === "" ||
    (Array.isArray(value) && value.length === 0);
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}
