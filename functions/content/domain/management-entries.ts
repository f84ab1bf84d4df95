// Entry writes of the management API: create, create-or-replace at an id, publish, unpublish, delete.
// Each is one transaction: the row change, its change sequence and tombstone (content triggers), its
// meta and its webhook outbox rows (management triggers) commit together.
import { isDeepStrictEqual } from "node:util";
import { parseDate } from "../../../shared/site/dates.ts";
import type { Sql, Tx } from "../../../shared/db.ts";
import { ContentError, notFound } from "../envelope.ts";
import { deleteEntry, insertDraft, libraryFiles, type LockedEntry, lockEntry, type ManagementActor, managementEntry, managementTransaction, modelFolder, publishDraft, replaceDraft, unpublishEntry } from "../store/management.ts";
import type { ContentModel } from "./content-types.ts";
import {
  assetReferences,
  buildEntryValues,
  type EntryRowValues,
  type FieldContext,
  requiredProblems,
} from "./management-fields.ts";
import {
  checkVersion,
  entryIdFromFields,
  entryPathForId,
  modelIdOf,
  nextRevision,
  validationFailed,
  versionMismatch,
} from "./management-rules.ts";

export interface EntryWriter {
  sql: Sql;
  actor: ManagementActor;
  now: Date;
  models: Map<string, ContentModel>;
  locales: FieldContext;
}

export type Written = { entry: Record<string, any>; status: 200 | 201 };

function unknownContentType(id: string): ContentError {
  return new ContentError("InvalidQuery", `Unknown content type: ${id}`, {
    errors: [{ name: "unknownContentType", value: id }],
  });
}

function modelFor(w: EntryWriter, id: string | undefined): ContentModel {
  if (!id) throw new ContentError("BadQuery", "Name the new entry's content type in X-Contentful-Content-Type.");
  const model = w.models.get(id);
  if (!model) throw unknownContentType(id);
  return model;
}

function fieldsOf(body: unknown): unknown {
  if (body === undefined) return {};
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new ContentError("BadQuery", "The body must be a JSON object such as { \"fields\": { ... } }.");
  }
  return (body as { fields?: unknown }).fields;
}

/** Field rules and library lookups, before any lock is taken. */
async function valuesFor(w: EntryWriter, model: ContentModel, body: unknown): Promise<EntryRowValues> {
  const input = fieldsOf(body);
  const library = await libraryFiles(w.sql, assetReferences(model, input));
  const built = buildEntryValues(model, input, w.locales, library);
  if (built.problems.length) throw validationFailed(built.problems);
  return built.values!;
}

/**
 * sys.createdAt is the record's date (its `date` field), else its first publish; a draft never
 * published dates from its creation until then.
 */
function recordDate(w: EntryWriter, fields: EntryRowValues["fields"]): Date | undefined {
  return parseDate(fields.date?.[w.locales.defaultLocale]);
}

async function created(w: EntryWriter, model: ContentModel, id: string, path: string, values: EntryRowValues) {
  return await managementTransaction(w.sql, w.actor, async (tx) => {
    const createdAt = recordDate(w, values.fields) ?? w.now;
    if (!(await insertDraft(tx, { id, modelId: model.id, path, values, now: w.now, createdAt }))) {
      throw versionMismatch(`An entry with the id ${id} already exists.`, { id });
    }
    return (await managementEntry(tx, id))!;
  });
}

/** POST .../entries: the id comes from the slug field, else the slugified title (default locale). */
export async function createEntry(w: EntryWriter, contentType: string | undefined, body: unknown): Promise<Written> {
  const model = modelFor(w, contentType);
  const values = await valuesFor(w, model, body);
  const folder = (await modelFolder(w.sql, model.id))!;
  const at = (field: string) => values.fields[field]?.[w.locales.defaultLocale];
  const named = entryIdFromFields(model.id, folder, { slug: at("slug"), title: at("title") });
  if (!named) {
    throw new ContentError("BadQuery", `A new ${model.id} needs a slug or a title (in ${w.locales.defaultLocale}) to name it.`);
  }
  return { entry: await created(w, model, named.id, named.path, values), status: 201 };
}

/** Is the draft different from what is published (or unpublished)? Decides the +1 of sys.version. */
function pendingAfter(current: LockedEntry, fields: EntryRowValues["fields"]): boolean {
  return !current.published || current.access !== current.publishedAccess ||
    !isDeepStrictEqual(fields, current.publishedFields);
}

/**
 * PUT .../entries/<id>: replaces an existing entry's typed fields whole (its version must be sent and
 * current), or creates the entry at that id, with or without a version header (createWithId sends
 * none), its type from X-Contentful-Content-Type or the id's prefix.
 */
export async function putEntry(
  w: EntryWriter,
  id: string,
  input: { contentType?: string; version?: number; body: unknown },
): Promise<Written> {
  const existingType: string | undefined = (await managementEntry(w.sql, id))?.sys.contentType.sys.id;
  if (existingType === undefined) {
    const model = modelFor(w, input.contentType ?? (w.models.has(modelIdOf(id)) ? modelIdOf(id) : undefined));
    const path = entryPathForId(id, model.id, (await modelFolder(w.sql, model.id))!);
    const values = await valuesFor(w, model, input.body);
    return { entry: await created(w, model, id, path, values), status: 201 };
  }
  if (input.contentType !== undefined && input.contentType !== existingType) {
    throw new ContentError("BadQuery", `${id} is a ${existingType}; its content type cannot change.`);
  }
  const model = modelFor(w, existingType);
  const values = await valuesFor(w, model, input.body);
  const entry = await managementTransaction(w.sql, w.actor, async (tx) => {
    const current = await lockEntry(tx, id);
    if (!current) throw notFound("Entry", id); // deleted meanwhile
    checkVersion(input.version, current.version, true);
    const revision = nextRevision({ revision: current.revision, pending: current.version % 2 === 1 }, pendingAfter(current, values.fields));
    await replaceDraft(tx, id, { values, revision, now: w.now, dated: recordDate(w, values.fields) ?? null });
    return (await managementEntry(tx, id))!;
  });
  return { entry, status: 200 };
}

/** Runs `change` on the locked entry after the version check; answers the entry as it then is. */
async function onEntry(
  w: EntryWriter,
  id: string,
  version: number | undefined,
  change: (current: LockedEntry, tx: Tx) => Promise<void>,
): Promise<Record<string, any> | undefined> {
  return await managementTransaction(w.sql, w.actor, async (tx) => {
    const current = await lockEntry(tx, id);
    if (!current) throw notFound("Entry", id);
    checkVersion(version, current.version, false);
    await change(current, tx);
    return await managementEntry(tx, id);
  });
}

/** PUT .../entries/<id>/published: the draft becomes the published entry, once its required fields are filled. */
export async function publishEntry(w: EntryWriter, id: string, version: number | undefined): Promise<Record<string, any>> {
  return (await onEntry(w, id, version, async (current, tx) => {
    const missing = requiredProblems(modelFor(w, current.modelId), current.fields, w.locales.defaultLocale);
    if (missing.length) throw validationFailed(missing);
    const revision = nextRevision({ revision: current.revision, pending: current.version % 2 === 1 }, false);
    const firstPublish = !current.everPublished && !recordDate(w, current.fields);
    await publishDraft(tx, id, { revision, now: w.now, createdAt: firstPublish ? w.now : null });
  }))!;
}

/** DELETE .../entries/<id>/published: Delivery loses it, Preview keeps it. */
export async function unpublish(w: EntryWriter, id: string, version: number | undefined): Promise<Record<string, any>> {
  return (await onEntry(w, id, version, async (current, tx) => {
    if (!current.published) throw new ContentError("BadQuery", `${id} is not published.`);
    const revision = nextRevision({ revision: current.revision, pending: current.version % 2 === 1 }, true);
    await unpublishEntry(tx, id, revision, w.now);
  }))!;
}

/** DELETE .../entries/<id>: both rows go; sync shows a DeletedEntry to tokens issued before. */
export async function removeEntry(w: EntryWriter, id: string, version: number | undefined): Promise<void> {
  await onEntry(w, id, version, async (_current, tx) => {
    await deleteEntry(tx, id);
  });
}
