// A record back into the content directory's format: the one serializer from a record's stored values
// (fields keyed by field id, then locale; published; access; createdAt) to the markdown files with YAML
// front matter that the site import reads (./content-dir.ts). Reading what it writes gives the record
// back: readRecordText(recordFiles(r)) has r's fields, published flag, access and date. The repository
// push (cloud mode, ./push.ts) writes records with it.
//
// Per locale, a record is one file: the default locale's values in records/<folder>/<path>.md (with the
// record's own keys published, access and date), every other locale's values of the localized fields in
// <path>.<locale>.md beside it. The body's markdown is the file's body; another rich-text field's
// markdown is a front matter string; a rich-text value that has no markdown (a document written through
// the API) is the document itself. Links are written as a person would write them: an entry by its id, an
// asset by its library path or address.
import { isDeepStrictEqual } from "node:util";
import { parse, stringify } from "yaml";
import { trimMarkdown } from "./record-entry.ts";
import type { Access, RecordText } from "./snapshot.ts";
import { fieldLinkType, markdownTwinId, type Model, type ModelField } from "./models.ts";

export interface RecordToWrite {
  /** records/<folder>/<path>.md */
  path: string;
  model: Pick<Model, "fields">;
  /** fields[fieldId][locale] = value, as the content rows hold them */
  fields: Record<string, Record<string, unknown>>;
  published: boolean;
  access: Access;
  /** sys.createdAt: written as `date` when the model has no date field (whose value is the date then) */
  createdAt?: Date;
}

export interface WriteContext {
  defaultLocale: string;
  /** every locale of the site */
  locales: string[];
  /** An asset's library path (media/..., content/uploads/api/<id>/<file>) or address; undefined writes the id. */
  assetPath(id: string): string | undefined;
}

/** The record's files, its own first, then one per other locale that holds a value. */
export function recordFiles(record: RecordToWrite, ctx: WriteContext): RecordText[] {
  const files: RecordText[] = [];
  for (const locale of [ctx.defaultLocale, ...ctx.locales.filter((l) => l !== ctx.defaultLocale)]) {
    const isDefault = locale === ctx.defaultLocale;
    const { data, body } = localeValues(record, locale, isDefault, ctx);
    if (isDefault) {
      if (!record.published) data.published = false;
      if (record.access !== "guest") data.access = record.access;
      if (record.createdAt && !record.model.fields.some((f) => f.id === "date")) {
        data.date = record.createdAt.toISOString();
      }
    } else if (!Object.keys(data).length && body === undefined) {
      continue;
    }
    // always a front matter block, so a body that starts with a `---` line is never read as one
    const yaml = Object.keys(data).length ? frontMatterYaml(data) : "";
    files.push({
      path: isDefault ? record.path : siblingPath(record.path, locale),
      text: `---\n${yaml}---\n${body ?? ""}`,
    });
  }
  return files;
}

/**
 * The front matter's YAML: block scalars for multi-line text where they read back exactly, else every
 * string double-quoted. (The yaml library writes a line of only spaces, such as " \n", as a block scalar
 * whose spaces a reader drops; checking the reading, as the import reads it, catches any such case.)
 */
function frontMatterYaml(data: Record<string, unknown>): string {
  const readable = stringify(data, { lineWidth: 0 });
  if (isDeepStrictEqual(parse(readable.replace(/\r\n?/g, "\n")), data)) return readable;
  return stringify(data, { lineWidth: 0, blockQuote: false });
}

/** Every file a record at `path` can have: its own and a sibling per other locale (what a removal removes). */
export function recordPaths(path: string, locales: string[], defaultLocale: string): string[] {
  return [path, ...locales.filter((l) => l !== defaultLocale).map((l) => siblingPath(path, l))];
}

function siblingPath(path: string, locale: string): string {
  return path.replace(/\.md$/, `.${locale}.md`);
}

function localeValues(record: RecordToWrite, locale: string, isDefault: boolean, ctx: WriteContext) {
  const data: Record<string, unknown> = {};
  let body: string | undefined;
  const fields = record.model.fields;
  for (const field of fields) {
    if (isTwin(fields, field)) continue; // written with its rich-text field
    if (!isDefault && !field.localized) continue;
    const value = record.fields[field.id]?.[locale];
    if (value === undefined || value === null) continue;
    if (field.type === "RichText") {
      const markdown = record.fields[markdownTwinId(field.id)]?.[locale];
      if (typeof markdown !== "string") data[field.id] = value; // a document only: kept as it is
      else if (field.id === "body" && fitsBody(markdown)) body = markdown;
      else data[field.id] = markdown; // a string is markdown to the import
      continue;
    }
    data[field.id] = fieldLinkType(field) ? linkRefs(value, ctx) : value;
  }
  return { data, body };
}

/**
 * Markdown the import gives back unchanged when it is the file's body: something to read (an empty
 * body is no body), already trimmed as stored, and no carriage returns (the import reads files with
 * plain newlines). Anything else is written as a front matter string, which keeps it exactly.
 */
function fitsBody(markdown: string): boolean {
  return markdown.trim() !== "" && !markdown.includes("\r") && trimMarkdown(markdown) === markdown;
}

function isTwin(fields: ModelField[], field: ModelField): boolean {
  return field.id.endsWith("Markdown") &&
    fields.some((f) => f.type === "RichText" && markdownTwinId(f.id) === field.id);
}

/** A link or list of links as references: an entry's id, an asset's library path or address. */
function linkRefs(value: unknown, ctx: WriteContext): unknown {
  const ref = (link: unknown) => {
    const sys = (link as { sys?: { linkType?: unknown; id?: unknown } } | null)?.sys;
    if (typeof sys?.id !== "string") return link; // not a link: written as it is, for the import to judge
    return sys.linkType === "Asset" ? ctx.assetPath(sys.id) ?? sys.id : sys.id;
  };
  return Array.isArray(value) ? value.map(ref) : ref(value);
}
