// Forms as the API shows them: the definition read from a stored form page, list items, the workspace
// and /me; and the page record a cloud-mode write stores. Pure apart from a per-process cache of parsed
// documents keyed by the record's revision.
import { markdownToRichText, richTextPlainText } from "../../../shared/richtext.ts";
import { isoSeconds } from "./arguments.ts";
import type { FormCore } from "./definition.ts";
import { FORM_KIND, type FormDocument, frontMatterOf, parseParts, renderBody } from "./document.ts";

export interface FormRecord {
  id: string;
  path: string;
  fields: Record<string, Record<string, unknown>>;
  revision: number;
  created_at: Date;
  updated_at: Date;
}

export interface Addresses {
  /** the site's public origin */
  base: string;
  /** the Forms API's public base: {base}/api */
  api: string;
}

export function addresses(publicUrl: string): Addresses {
  return { base: publicUrl, api: `${publicUrl}/api` };
}

const cache = new Map<string, FormDocument>();
const CACHE_SIZE = 256;

/** The slug a record answers to: its slug field, else the last part of its entry id. */
export function recordSlug(record: Pick<FormRecord, "id" | "fields">, locale: string): string {
  const slug = record.fields.slug?.[locale];
  return typeof slug === "string" && slug ? slug : record.id.slice(record.id.lastIndexOf(".") + 1);
}

/**
 * The form document a record holds (front-matter fields + the body's markdown twin), parsed once per
 * revision. Throws DocumentError when the stored document does not parse.
 */
export function documentOf(record: FormRecord, locale: string): FormDocument {
  const key = `${record.id}\u0000${record.revision}\u0000${new Date(record.updated_at).getTime()}`;
  const hit = cache.get(key);
  if (hit) {
    // refresh its place: the map's order is the eviction order
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const value = (name: string) => record.fields[name]?.[locale];
  const doc = parseParts(
    {
      title: value("title") ?? "",
      slug: recordSlug(record, locale),
      kind: value("kind"),
      form: value("form"),
    },
    String(value("bodyMarkdown") ?? ""),
  );
  cache.set(key, doc);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return doc;
}

/** GET /forms/{id}: the canonical definition with its addresses and times. */
export function servedDefinition(
  core: FormCore,
  record: Pick<FormRecord, "created_at" | "updated_at">,
  at: Addresses,
) {
  return {
    id: core.id,
    type: core.type,
    title: core.title,
    workspace: { href: `${at.api}/workspaces/default` },
    theme: { href: `${at.api}/themes/default` },
    settings: core.settings,
    ...(core.hidden ? { hidden: core.hidden } : {}),
    ...(core.variables ? { variables: core.variables } : {}),
    welcome_screens: core.welcome_screens,
    thankyou_screens: core.thankyou_screens,
    fields: core.fields,
    logic: core.logic,
    created_at: isoSeconds(record.created_at),
    last_updated_at: isoSeconds(record.updated_at),
    published_at: isoSeconds(record.updated_at),
    _links: formLinks(core.id, at),
    self: { href: `${at.api}/forms/${encodeURIComponent(core.id)}` },
  };
}

function formLinks(id: string, at: Addresses) {
  return {
    display: `${at.base}/to/${encodeURIComponent(id)}`,
    responses: `${at.api}/forms/${encodeURIComponent(id)}/responses`,
  };
}

/** A forms list item (read from the record's fields; the body is not parsed for a list). */
export function listItem(record: FormRecord, locale: string, at: Addresses) {
  const id = recordSlug(record, locale);
  const form = record.fields.form?.[locale] as Record<string, unknown> | undefined;
  return {
    id,
    title: String(record.fields.title?.[locale] ?? ""),
    last_updated_at: isoSeconds(record.updated_at),
    created_at: isoSeconds(record.created_at),
    settings: { is_public: form?.is_public !== false, is_trial: false },
    self: { href: `${at.api}/forms/${encodeURIComponent(id)}` },
    theme: { href: `${at.api}/themes/default` },
    _links: formLinks(id, at),
  };
}

export function workspace(siteName: string, formCount: number, at: Addresses) {
  return {
    id: "default",
    name: siteName,
    default: true,
    shared: false,
    forms: { count: formCount, href: `${at.api}/forms` },
    self: { href: `${at.api}/workspaces/default` },
  };
}

/** The fields a form page record holds for a document (other fields of an existing page are kept). */
export function recordFields(
  doc: FormDocument,
  locale: string,
  existing: Record<string, Record<string, unknown>> = {},
): { fields: Record<string, Record<string, unknown>>; searchText: string } {
  const front = frontMatterOf(doc);
  const body = renderBody(doc.core);
  const richText = markdownToRichText(body);
  const fields: Record<string, Record<string, unknown>> = { ...existing };
  const put = (name: string, value: unknown) => {
    if (value === undefined) delete fields[name];
    else fields[name] = { ...(fields[name] ?? {}), [locale]: value };
  };
  put("title", front.title);
  put("slug", front.slug);
  put("kind", FORM_KIND);
  if (front.form) put("form", front.form);
  else delete fields.form;
  put("body", richText);
  put("bodyMarkdown", body);
  return { fields, searchText: [front.title, richTextPlainText(richText)].join("\n") };
}
