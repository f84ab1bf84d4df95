// Asset writes of the management API. An asset is created pending (its file named by an upload link or
// an address), processed (the bytes taken into the library at content/uploads/api/<id>/<fileName>, which
// publishes it: a library file is published by existing), and deleted unless an entry still names it.
import { MAX_UPLOAD_BYTES } from "../../../shared/openapi/enums/content.ts";
import type { Sql } from "../../../shared/db.ts";
import { randomBase62 } from "../../../shared/ids.ts";
import { readUpTo } from "../../../shared/http.ts";
import { MEDIA_BUCKET } from "../../../shared/site/import.ts";
import { apiAssetPath, contentHash, contentTypeFor, imageSize } from "../../../shared/site/media.ts";
import type { Storage } from "../../../shared/storage.ts";
import { checkOutboundUrl, webhookUrlProblem } from "../../../shared/webhooks/url-guard.ts";
import { ContentError, notFound } from "../envelope.ts";
import { announceAssetPublish, type AssetText, assetUsers, deleteAssetRow, insertPendingAsset, liveUpload, type LockedAsset, lockAsset, type ManagementActor, managementAsset, managementTransaction, type PendingFile, storeProcessedFile, updateAsset } from "../store/management.ts";
import type { FieldContext } from "./management-fields.ts";
import {
  checkAssetId,
  checkVersion,
  type FieldProblem,
  nextRevision,
  validationFailed,
  versionMismatch,
} from "./management-rules.ts";

/** Storage bucket of upload bytes (until they expire or are processed into the library). */
export const UPLOAD_BUCKET = "uploads";

export interface AssetWriter {
  sql: Sql;
  storage: Storage;
  actor: ManagementActor;
  now: Date;
  locales: FieldContext;
  /** let `upload` addresses reach loopback and private hosts (development and tests) */
  allowPrivate?: boolean;
}

const isMap = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

// the library path (and storage key) of an API asset's file; shared with the site import and the push
export { apiAssetPath };

interface AssetInput {
  text: AssetText;
  /** a new file to process; undefined keeps the current one */
  file?: PendingFile;
}

/** Checks the request's asset fields: title and description by locale, and one file. */
async function readAssetInput(w: AssetWriter, body: unknown, isNew: boolean): Promise<AssetInput> {
  if (body !== undefined && !isMap(body)) {
    throw new ContentError("BadQuery", "The body must be a JSON object such as { \"fields\": { ... } }.");
  }
  const fields = (body as { fields?: unknown } | undefined)?.fields ?? {};
  const problems: FieldProblem[] = [];
  const text: AssetText = { title: {}, description: {} };
  let file: PendingFile | undefined;
  if (!isMap(fields)) throw validationFailed([{ name: "invalid", path: ["fields"], details: "fields must be an object" }]);
  for (const [name, byLocale] of Object.entries(fields)) {
    const path = ["fields", name];
    if (name !== "title" && name !== "description" && name !== "file") {
      problems.push({ name: "unknown", path, details: `${name} is not a field of an asset (title, description, file)` });
      continue;
    }
    if (!isMap(byLocale)) {
      problems.push({ name: "invalid", path, details: `${name} must be an object keyed by locale` });
      continue;
    }
    for (const [locale, value] of Object.entries(byLocale)) {
      if (!w.locales.locales.includes(locale)) {
        problems.push({ name: "invalid", path, details: `${locale} is not a locale of this space` });
      } else if (name !== "file") {
        if (value === null || value === undefined || value === "") continue;
        if (typeof value !== "string") problems.push({ name: "invalid", path, details: `${name} must be text`, value });
        else text[name as "title" | "description"][locale] = value;
      }
    }
    if (name === "file") {
      const files = Object.values(byLocale);
      const defaultLocale = w.locales.defaultLocale;
      if (files.length > 1) {
        problems.push({ name: "invalid", path, details: "an asset holds one file: give it in one locale" });
      } else if (files.length === 1 && !(defaultLocale in byLocale)) {
        // the one file is answered (and processed) in the default locale: one given elsewhere would vanish
        problems.push({ name: "invalid", path, details: `an asset's file is given in the default locale: fields.file['${defaultLocale}']` });
      } else if (files.length === 1) {
        const given = readFile(files[0], path, problems);
        if (given !== "keep") file = given;
      }
    }
  }
  if (isNew && !file && !problems.length) {
    problems.push({
      name: "invalid",
      path: ["fields", "file"],
      details: "a new asset needs fields.file[<locale>] with fileName and uploadFrom (an upload link) or upload (an address)",
    });
  }
  if (file?.uploadFrom && !(await liveUpload(w.sql, file.uploadFrom.sys.id, w.now))) {
    problems.push({
      name: "notResolvable",
      path: ["fields", "file"],
      details: `no upload ${file.uploadFrom.sys.id} (uploads expire a day after they are made)`,
      value: file.uploadFrom,
    });
  }
  if (problems.length) throw validationFailed(problems);
  return { text, file };
}

/** One locale's file value: a new pending file, "keep" (the processed file sent back), or a problem. */
function readFile(value: unknown, path: string[], problems: FieldProblem[]): PendingFile | "keep" | undefined {
  if (!isMap(value)) {
    problems.push({ name: "invalid", path, details: "a file is { fileName, contentType, uploadFrom | upload }" });
    return undefined;
  }
  const { fileName, contentType, uploadFrom, upload, url } = value;
  if (uploadFrom === undefined && upload === undefined) {
    if (typeof url === "string") return "keep";
    problems.push({ name: "invalid", path, details: "a file needs uploadFrom (an upload link) or upload (an address)" });
    return undefined;
  }
  // deno-lint-ignore no-control-regex -- control characters are refused in a file name
  if (typeof fileName !== "string" || !/^[^/\\\u0000-\u001f]{1,200}$/.test(fileName) || fileName === "." || fileName === "..") {
    problems.push({ name: "invalid", path, details: "fileName must be a file name (no slashes, at most 200 characters)", value: fileName });
    return undefined;
  }
  if (contentType !== undefined && (typeof contentType !== "string" || !/^[\w.+-]{1,127}\/[\w.+-]{1,127}$/.test(contentType))) {
    problems.push({ name: "invalid", path, details: "contentType must be a media type such as image/png", value: contentType });
    return undefined;
  }
  const file: PendingFile = { fileName, contentType: (contentType as string | undefined) ?? contentTypeFor(fileName) };
  if (uploadFrom !== undefined) {
    const sys = isMap(uploadFrom) && isMap(uploadFrom.sys) ? uploadFrom.sys : undefined;
    if (!sys || sys.type !== "Link" || sys.linkType !== "Upload" || typeof sys.id !== "string") {
      problems.push({ name: "invalid", path, details: "uploadFrom is { sys: { type: 'Link', linkType: 'Upload', id } }", value: uploadFrom });
      return undefined;
    }
    file.uploadFrom = { sys: { type: "Link", linkType: "Upload", id: sys.id } };
  } else {
    const problem = typeof upload === "string" ? webhookUrlProblem(upload) : "upload must be an address";
    if (problem) {
      problems.push({ name: "invalid", path, details: problem.replace(/^url/, "upload"), value: upload });
      return undefined;
    }
    file.upload = upload as string;
  }
  return file;
}

async function createAt(w: AssetWriter, id: string, input: AssetInput): Promise<Record<string, any>> {
  return await managementTransaction(w.sql, w.actor, async (tx) => {
    const path = apiAssetPath(id, input.file!.fileName);
    if (!(await insertPendingAsset(tx, { id, text: input.text, file: input.file!, path, now: w.now }))) {
      throw versionMismatch(`An asset with the id ${id} already exists.`, { id });
    }
    return (await managementAsset(tx, id, w.actor.mediaHost))!;
  });
}

/** POST .../assets */
export async function createAsset(w: AssetWriter, body: unknown): Promise<Record<string, any>> {
  return await createAt(w, randomBase62(22), await readAssetInput(w, body, true));
}

/** PUT .../assets/<id>: creates at that id (201), or replaces title, description and file (200). */
export async function putAsset(
  w: AssetWriter,
  id: string,
  version: number | undefined,
  body: unknown,
): Promise<{ asset: Record<string, any>; status: 200 | 201 }> {
  checkAssetId(id);
  const exists = await managementAsset(w.sql, id, w.actor.mediaHost);
  if (!exists) return { asset: await createAt(w, id, await readAssetInput(w, body, true)), status: 201 };
  const input = await readAssetInput(w, body, false);
  const asset = await managementTransaction(w.sql, w.actor, async (tx) => {
    const current = await lockAsset(tx, id);
    if (!current) throw notFound("Asset", id);
    checkVersion(version, current.version, true);
    const pending = Boolean(input.file ?? current.pendingFile);
    const revision = nextRevision({ revision: current.revision, pending: current.pendingFile !== null }, pending);
    await updateAsset(tx, id, { text: input.text, file: input.file ?? null, revision, now: w.now });
    return (await managementAsset(tx, id, w.actor.mediaHost))!;
  });
  return { asset, status: 200 };
}

async function readLocked(w: AssetWriter, id: string, version: number | undefined): Promise<LockedAsset> {
  const current = await managementTransaction(w.sql, w.actor, (tx) => lockAsset(tx, id));
  if (!current) throw notFound("Asset", id);
  checkVersion(version, current.version, false);
  return current;
}

/**
 * PUT .../assets/<id>/files/<locale>/process: fetches the pending file (an upload, or an address through
 * the outbound URL guard), stores it in the library and publishes the asset (event Asset.publish).
 */
export async function processAsset(w: AssetWriter, id: string, locale: string, version: number | undefined): Promise<void> {
  if (!w.locales.locales.includes(locale)) throw notFound("Locale", locale);
  const current = await readLocked(w, id, version);
  const pending = current.pendingFile;
  if (!pending) {
    if (current.published) return; // processed already: nothing waits
    throw validationFailed([{ name: "invalid", path: ["fields", "file"], details: "the asset has no file to process" }]);
  }
  const bytes = await pendingBytes(w, pending);
  const path = apiAssetPath(id, pending.fileName);
  // Bytes go to storage before the row names them (storage may be another service, outside this
  // transaction); if the row write fails they sit unnamed at a path the next processing overwrites.
  await w.storage.put(MEDIA_BUCKET, path, bytes, pending.contentType);
  const size = pending.contentType.startsWith("image/") ? imageSize(bytes) : undefined;
  await managementTransaction(w.sql, w.actor, async (tx) => {
    const now = await lockAsset(tx, id);
    if (!now) throw notFound("Asset", id);
    if (now.version !== current.version) throw versionMismatch("The asset changed while its file was processed.");
    await storeProcessedFile(tx, id, {
      path,
      fileName: pending.fileName,
      contentType: pending.contentType,
      size: bytes.byteLength,
      width: size?.width ?? null,
      height: size?.height ?? null,
      contentHash: contentHash(bytes),
    }, nextRevision({ revision: now.revision, pending: true }, false), w.now);
  });
  if (current.published && current.storageKey !== path && current.storageKey.startsWith(apiAssetPath(id, ""))) {
    await w.storage.delete(MEDIA_BUCKET, current.storageKey); // the file this one replaced
  }
}

function unfetchable(details: string): ContentError {
  return validationFailed([{ name: "invalid", path: ["fields", "file"], details }]);
}

async function pendingBytes(w: AssetWriter, pending: PendingFile): Promise<Uint8Array> {
  if (pending.uploadFrom) {
    const id = pending.uploadFrom.sys.id;
    const stored = (await liveUpload(w.sql, id, w.now)) ? await w.storage.get(UPLOAD_BUCKET, id) : null;
    if (!stored) {
      throw validationFailed([{ name: "notResolvable", path: ["fields", "file"], details: `no upload ${id} (uploads expire after a day)` }]);
    }
    return stored.bytes;
  }
  const url = pending.upload!;
  const guard = await checkOutboundUrl(url, { allowPrivate: w.allowPrivate });
  if (!guard.ok) throw unfetchable(`the address cannot be fetched: ${guard.reason}`);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 30_000);
  try {
    // a redirect could lead past the guard to a private address: it counts as a failure
    const response = await fetch(url, { redirect: "manual", signal: controller.signal });
    if (response.status < 200 || response.status > 299) {
      await response.body?.cancel();
      throw unfetchable(`fetching the address answered HTTP ${response.status}`);
    }
    return await readCapped(response.body);
  } catch (error) {
    if (error instanceof ContentError) throw error;
    throw unfetchable(`fetching the address failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    clearTimeout(timer);
  }
}

/** Reads a body, refusing one larger than MAX_UPLOAD_BYTES before holding it all. */
export async function readCapped(body: ReadableStream<Uint8Array> | null): Promise<Uint8Array> {
  const bytes = await readUpTo(body, MAX_UPLOAD_BYTES);
  if (!bytes) throw new ContentError("BadQuery", `A file may hold at most ${MAX_UPLOAD_BYTES} bytes.`);
  return bytes;
}

/**
 * PUT .../assets/<id>/published: a processed file is published by existing, so nothing changes; the
 * publish is still announced (Asset.publish, as processing announces it) and the asset answered.
 */
export async function publishAsset(w: AssetWriter, id: string, version: number | undefined): Promise<Record<string, any>> {
  return await managementTransaction(w.sql, w.actor, async (tx) => {
    const current = await lockAsset(tx, id);
    if (!current) throw notFound("Asset", id);
    checkVersion(version, current.version, false);
    if (!current.published) {
      throw validationFailed([{ name: "invalid", path: ["fields", "file"], details: "process the asset's file before publishing it" }]);
    }
    await announceAssetPublish(tx, id);
    return (await managementAsset(tx, id, w.actor.mediaHost))!;
  });
}

/** DELETE .../assets/<id>/published: a library file cannot be unpublished, only deleted. */
export async function unpublishAsset(w: AssetWriter, id: string): Promise<never> {
  await readLocked(w, id, undefined);
  throw new ContentError("BadQuery", "A library file is published while it exists: delete the asset instead.");
}

/** DELETE .../assets/<id>: 409 while an entry names it (details.used lists them). */
export async function deleteAsset(w: AssetWriter, id: string, version: number | undefined): Promise<void> {
  const gone = await managementTransaction(w.sql, w.actor, async (tx) => {
    const current = await lockAsset(tx, id);
    if (!current) throw notFound("Asset", id);
    checkVersion(version, current.version, false);
    const used = await assetUsers(tx, id);
    if (used.length) {
      throw versionMismatch(`The asset is in use by ${used.length} ${used.length === 1 ? "entry" : "entries"}.`, {
        used: used.map((entry) => ({ sys: { type: "Link", linkType: "Entry", id: entry } })),
      });
    }
    await deleteAssetRow(tx, id);
    return current;
  });
  // an address a record names (http...) has no bytes here
  if (!/^https?:\/\//i.test(gone.storageKey)) await w.storage.delete(MEDIA_BUCKET, gone.storageKey);
}
