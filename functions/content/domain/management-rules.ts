// The management API's rules that need no database: versions, entry ids, the version header, and the
// errors every write shares. Pure, so they are unit-tested on their own.
import { ContentError, type ContentErrorId } from "../envelope.ts";
import type { Selection } from "./entry-query.ts";

/** One reason a write was refused, as ValidationFailed lists it under details.errors. */
export interface FieldProblem {
  name: "unknown" | "notResolvable" | "invalid" | "required";
  path: (string | number)[];
  details: string;
  value?: unknown;
}

export function validationFailed(errors: FieldProblem[]): ContentError {
  return new ContentError("ValidationFailed", "Validation error", { errors });
}

/** 409: the version header is stale, the id is taken, the asset is in use. */
export function versionMismatch(message: string, details?: unknown): ContentError {
  return new ContentError("VersionMismatch", message, details);
}

export function refusal(id: ContentErrorId, message: string, details?: unknown): ContentError {
  return new ContentError(id, message, details);
}

/**
 * X-Contentful-Version: absent is undefined; anything but a whole number is BadQuery (a client that
 * sends garbage gets told, never a 5xx).
 */
export function parseVersionHeader(value: string | undefined | null): number | undefined {
  if (value === undefined || value === null || value.trim() === "") return undefined;
  if (!/^\d{1,9}$/.test(value.trim())) {
    throw new ContentError("BadQuery", "X-Contentful-Version must be a whole number (the entity's sys.version)");
  }
  return Number(value.trim());
}

/** Refuses a write whose version header does not name the current version. */
export function checkVersion(sent: number | undefined, current: number, required: boolean): void {
  if (sent === undefined) {
    if (required) {
      throw versionMismatch("Send X-Contentful-Version with the entity's current sys.version to change it.", {
        currentVersion: current,
      });
    }
    return;
  }
  if (sent !== current) {
    throw versionMismatch(`Version ${sent} is not the current version ${current}.`, { currentVersion: current });
  }
}

export interface VersionState {
  revision: number;
  /** a draft (entry) or a file (asset) waits: sys.version is revision × 2 + 1 */
  pending: boolean;
}

export function versionOf(state: VersionState): number {
  return state.revision * 2 + (state.pending ? 1 : 0);
}

/**
 * The revision a write leaves: the smallest one, not below the current, whose version is higher than
 * the current version, so every write answers a new sys.version (the contract clients rely on) while
 * sys.version stays revision × 2 (+ 1 while pending).
 */
export function nextRevision(current: VersionState, pendingAfter: boolean): number {
  const before = versionOf(current);
  let revision = current.revision;
  while (versionOf({ revision, pending: pendingAfter }) <= before) revision++;
  return revision;
}

/** "Hello, Wörld!" -> "hello-world": a slug for one path segment. */
export function slugify(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^[-.]+|[-.]+$/g, "");
}

/** The longest path an entry id carries after its type: ids are primary keys and file names. */
export const MAX_ENTRY_PATH = 191;

/**
 * A new entry's id `<type>.<path>` and its record path, from its slug (segments kept, `/` becomes `.`),
 * else its slugified title, cut to MAX_ENTRY_PATH; undefined when neither gives a usable path. A slug
 * is the name the client chose, so one too long is refused rather than cut.
 */
export function entryIdFromFields(
  modelId: string,
  folder: string,
  values: { slug?: unknown; title?: unknown },
): { id: string; path: string } | undefined {
  let segments: string[] = [];
  if (typeof values.slug === "string") segments = values.slug.split("/").map(slugify).filter(Boolean);
  if (segments.join(".").length > MAX_ENTRY_PATH) {
    throw validationFailed([{
      name: "invalid",
      path: ["fields", "slug"],
      details: `the slug names the entry's id and file: at most ${MAX_ENTRY_PATH} characters`,
    }]);
  }
  if (!segments.length && typeof values.title === "string") {
    segments = [slugify(values.title).slice(0, MAX_ENTRY_PATH).replace(/[-.]+$/, "")].filter(Boolean);
  }
  if (!segments.length) return undefined;
  return { id: `${modelId}.${segments.join(".")}`, path: `records/${folder}/${segments.join("/")}.md` };
}

// the path part starts and ends with a letter, digit, '_' or '-': `x.` would make the file `x..md`
const ENTRY_ID = new RegExp(`^[A-Za-z][A-Za-z0-9]*\\.[A-Za-z0-9_-]([A-Za-z0-9._-]{0,${MAX_ENTRY_PATH - 2}}[A-Za-z0-9_-])?$`);

/**
 * The record path of an entry created at a chosen id. Ids are `<type>.<path>` (the spec's entry id), so
 * the id must start with its content type; anything else is refused with the reason.
 */
export function entryPathForId(id: string, modelId: string, folder: string): string {
  if (!ENTRY_ID.test(id) || !id.startsWith(`${modelId}.`)) {
    throw new ContentError(
      "BadQuery",
      `An entry id is <content type>.<path> (such as ${modelId}.my-first-post); ${id} is not an id for a ${modelId}.`,
    );
  }
  return `records/${folder}/${id.slice(modelId.length + 1)}.md`;
}

/**
 * Whether a link can name an entry: `<type>.<path>` as the site import and the API make ids (a little
 * looser than ENTRY_ID, for records imported with longer paths). Links are indexed, so their length is bounded.
 */
export function isEntryLinkId(id: string): boolean {
  return /^[A-Za-z][A-Za-z0-9]*\.[A-Za-z0-9_-][A-Za-z0-9._-]{0,255}$/.test(id);
}

/** The content type an id names by its prefix (`article.hello` -> `article`). */
export function modelIdOf(id: string): string {
  return id.split(".")[0];
}

const ASSET_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}$/;

export function checkAssetId(id: string): void {
  if (!ASSET_ID.test(id)) {
    throw new ContentError("BadQuery", "An asset id is 1 to 64 letters, digits, '.', '_' or '-'.");
  }
}

/** Uploads live one day; the daily sweep also removes assets never processed within a day. */
export const UPLOAD_LIFETIME_MS = 24 * 60 * 60 * 1000;

/**
 * A list's `select` on management shapes, as delivery applies it: sys always whole, metadata only when
 * named, fields whole or the named ones; no select keeps the shape as it is.
 */
export function selectFrom(shape: Record<string, any>, selection: Selection | undefined): Record<string, any> {
  if (!selection) return shape;
  const picked: Record<string, any> = {};
  if (selection.metadata && shape.metadata) picked.metadata = shape.metadata;
  picked.sys = shape.sys;
  const { fields } = selection;
  if (fields === "all") picked.fields = shape.fields;
  else if (fields instanceof Set) {
    picked.fields = Object.fromEntries(Object.entries(shape.fields ?? {}).filter(([id]) => fields.has(id)));
  }
  return picked;
}
