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
import { isMap, parseSiteConfig, type SiteConfig, SiteConfigError, type SiteMode } from "./config.ts";
import { type FileHistory, type GitHistory, readGitHistory } from "./git.ts";
import { assetIdForPath, contentHash, contentTypeFor, imageSize } from "./media.ts";
import { ModelError, type ModelSpec, normalizeModel, siteModelId } from "./models.ts";
import { STOCK_MODELS } from "./stock-models.ts";
import { parseYamlFile, splitFrontMatter } from "./front-matter.ts";
import { buildEntry, LinkResolver } from "./record-entry.ts";
import {
  type AssetSnapshot,
  type EntrySnapshot,
  type ModelSnapshot,
  type ParsedFile,
  type RecordFiles,
  SiteImportError,
  type SiteSnapshot,
} from "./snapshot.ts";

export interface ReadSiteOptions {
  modeOverride?: SiteMode;
  onProgress?: (message: string) => void;
}

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
