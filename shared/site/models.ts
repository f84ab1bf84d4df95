// Models (content types): the authoring shape (stock models in code, a site's own models in
// models/<folder>.yaml) and its normalisation to the content-type field shape the content API serves.
//
// Authoring syntax of a field (everything but id and type is optional):
//   { id, name?, type, localized?, required?, validations?,
//     linkType?,                 // for type Link: Entry | Asset (type `Entry` / `Asset` are shorthands)
//     linkContentType?: [ids],   // a Link or Array of Entry links: becomes validations [{ linkContentType }]
//     choices?: [values],        // a Symbol (or Array of Symbol) select: becomes validations [{ in }]
//     items?: "Symbol" | "Link" | "Entry" | "Asset" | "Object" | { type, linkType?, linkContentType?, choices? } }
// A RichText field X is always followed by its markdown twin `XMarkdown` (Text, localized alike).

export type FieldType =
  | "Symbol"
  | "Text"
  | "RichText"
  | "Integer"
  | "Number"
  | "Date"
  | "Boolean"
  | "Object"
  | "Link"
  | "Array";

export const FIELD_TYPES: readonly FieldType[] = [
  "Symbol",
  "Text",
  "RichText",
  "Integer",
  "Number",
  "Date",
  "Boolean",
  "Object",
  "Link",
  "Array",
];

export type Validation = Record<string, unknown>;

export interface FieldItems {
  type: "Symbol" | "Link" | "Object";
  linkType?: "Entry" | "Asset";
  validations: Validation[];
}

/** A content-type field exactly as the content API serves it. */
export interface ModelField {
  id: string;
  name: string;
  type: FieldType;
  localized: boolean;
  required: boolean;
  disabled: false;
  omitted: false;
  validations: Validation[];
  linkType?: "Entry" | "Asset";
  items?: FieldItems;
}

/** A model as the content_models table holds it. */
export interface Model {
  id: string;
  folder: string;
  name: string;
  description: string;
  displayField: string | null;
  fields: ModelField[];
  stock: boolean;
}

export interface ItemsSpec {
  type: string;
  linkType?: string;
  linkContentType?: string[];
  choices?: unknown[];
  validations?: Validation[];
}

export interface FieldSpec {
  id: string;
  name?: string;
  type: string;
  localized?: boolean;
  required?: boolean;
  validations?: Validation[];
  linkType?: string;
  linkContentType?: string[];
  choices?: unknown[];
  items?: string | ItemsSpec;
}

export interface ModelSpec {
  id: string;
  folder: string;
  name: string;
  description?: string;
  displayField?: string | null;
  fields: FieldSpec[];
}

export class ModelError extends Error {}

const FIELD_ID = /^[a-zA-Z][a-zA-Z0-9_]{0,63}$/;

/** "readingTime" -> "Reading time" */
export function fieldLabel(id: string): string {
  const words = id.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/_/g, " ").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function markdownTwinId(fieldId: string): string {
  return `${fieldId}Markdown`;
}

export function normalizeModel(spec: ModelSpec, stock: boolean, where = `model ${spec.id}`): Model {
  if (!Array.isArray(spec.fields)) throw new ModelError(`${where}: fields must be a list`);
  const fields: ModelField[] = [];
  for (const [index, fieldSpec] of spec.fields.entries()) {
    const field = normalizeField(fieldSpec, `${where}: field ${fieldSpec?.id ?? `#${index + 1}`}`);
    fields.push(field);
    if (field.type === "RichText") {
      fields.push({
        id: markdownTwinId(field.id),
        name: `${field.name} (markdown)`,
        type: "Text",
        localized: field.localized,
        required: false,
        disabled: false,
        omitted: false,
        validations: [],
      });
    }
  }
  const seen = new Set<string>();
  for (const field of fields) {
    if (seen.has(field.id)) throw new ModelError(`${where}: field ${field.id} is declared twice`);
    seen.add(field.id);
  }
  const displayField = spec.displayField === undefined
    ? (seen.has("title") ? "title" : fields.find((f) => f.type === "Symbol")?.id ?? null)
    : spec.displayField;
  if (displayField !== null && !fields.some((f) => f.id === displayField && f.type === "Symbol")) {
    throw new ModelError(`${where}: displayField ${displayField} must name a Symbol field`);
  }
  return {
    id: spec.id,
    folder: spec.folder,
    name: spec.name,
    description: spec.description ?? "",
    displayField,
    fields,
    stock,
  };
}

export function normalizeField(spec: FieldSpec, where: string): ModelField {
  if (!spec || typeof spec !== "object") throw new ModelError(`${where}: a field must be a mapping`);
  if (typeof spec.id !== "string" || !FIELD_ID.test(spec.id)) {
    throw new ModelError(`${where}: id must be letters, digits or _ and start with a letter`);
  }
  if (spec.id.endsWith("Markdown")) {
    throw new ModelError(`${where}: ids ending in Markdown are reserved for the rich-text twins`);
  }
  let type = String(spec.type ?? "");
  let linkType = spec.linkType;
  if (type === "Entry" || type === "Asset") {
    linkType = type;
    type = "Link";
  }
  if (!FIELD_TYPES.includes(type as FieldType)) {
    throw new ModelError(`${where}: type ${type || "(missing)"} is not one of ${FIELD_TYPES.join(", ")}`);
  }
  const validations: Validation[] = [...(spec.validations ?? [])];
  const field: ModelField = {
    id: spec.id,
    name: spec.name ?? fieldLabel(spec.id),
    type: type as FieldType,
    localized: spec.localized ?? false,
    required: spec.required ?? false,
    disabled: false,
    omitted: false,
    validations,
  };
  if (type === "Link") {
    if (linkType !== "Entry" && linkType !== "Asset") {
      throw new ModelError(`${where}: linkType must be Entry or Asset`);
    }
    field.linkType = linkType;
    if (spec.linkContentType?.length) {
      if (linkType !== "Entry") throw new ModelError(`${where}: linkContentType only applies to Entry links`);
      validations.push({ linkContentType: [...spec.linkContentType] });
    }
  } else if (linkType !== undefined || spec.linkContentType !== undefined) {
    if (type !== "Array") {
      throw new ModelError(`${where}: linkType only applies to Link fields and Array items`);
    }
  }
  if (spec.choices !== undefined) {
    if (type !== "Symbol" && type !== "Array" && type !== "Integer" && type !== "Number") {
      throw new ModelError(`${where}: choices apply to Symbol, Integer, Number or Array of Symbol fields`);
    }
    if (!Array.isArray(spec.choices) || !spec.choices.length) {
      throw new ModelError(`${where}: choices must be a list`);
    }
  }
  if (type === "Array") {
    field.items = normalizeItems(spec, where);
  } else {
    if (spec.items !== undefined) throw new ModelError(`${where}: items only applies to Array fields`);
    if (spec.choices) validations.push({ in: [...spec.choices] });
  }
  return field;
}

function normalizeItems(spec: FieldSpec, where: string): FieldItems {
  const raw: ItemsSpec = typeof spec.items === "string"
    ? { type: spec.items }
    : spec.items ?? { type: spec.linkType ? "Link" : "Symbol" };
  let type = String(raw.type ?? "");
  let linkType = raw.linkType ?? spec.linkType;
  if (type === "Entry" || type === "Asset") {
    linkType = type;
    type = "Link";
  }
  const linkContentType = raw.linkContentType ?? spec.linkContentType;
  const choices = raw.choices ?? spec.choices;
  const validations: Validation[] = [...(raw.validations ?? [])];
  if (type === "Symbol") {
    if (choices) validations.push({ in: [...choices] });
    return { type: "Symbol", validations };
  }
  if (type === "Object") return { type: "Object", validations };
  if (type === "Link") {
    if (linkType !== "Entry" && linkType !== "Asset") {
      throw new ModelError(`${where}: items of links need linkType Entry or Asset`);
    }
    if (linkContentType?.length) {
      if (linkType !== "Entry") throw new ModelError(`${where}: linkContentType only applies to Entry links`);
      validations.push({ linkContentType: [...linkContentType] });
    }
    return { type: "Link", linkType, validations };
  }
  throw new ModelError(`${where}: items must be Symbol, Link (Entry or Asset) or Object`);
}

/** The `in` choices of a field (or of its items), when it is a select. */
export function fieldChoices(field: ModelField): unknown[] | undefined {
  const validations = field.type === "Array" ? field.items?.validations : field.validations;
  const found = validations?.find((v) => Array.isArray(v.in));
  return found?.in as unknown[] | undefined;
}

/** The content types an Entry link (or Array of Entry links) may name, when restricted. */
export function fieldLinkContentTypes(field: ModelField): string[] | undefined {
  const validations = field.type === "Array" ? field.items?.validations : field.validations;
  const allowed = validations?.find((v) => Array.isArray(v.linkContentType))?.linkContentType;
  return Array.isArray(allowed) ? allowed.filter((t): t is string => typeof t === "string") : undefined;
}

/** The link kind of a field: a Link, or an Array of links; undefined for any other field. */
export function fieldLinkType(field: ModelField): "Entry" | "Asset" | undefined {
  if (field.type === "Link") return field.linkType;
  if (field.type === "Array" && field.items?.type === "Link") return field.items.linkType;
  return undefined;
}

/**
 * Whether `query` finds an entry by a field's values as they are (their strings go into search_text):
 * short and long text, lists and objects, never links. A rich-text document gives its own text
 * (richTextPlainText); its markdown twin is Text, which callers leave out with the body.
 */
export function fieldHoldsSearchedText(field: ModelField): boolean {
  return !fieldLinkType(field) &&
    (field.type === "Symbol" || field.type === "Text" || field.type === "Array" || field.type === "Object");
}

/** "events" -> "event", "categories" -> "category", "boxes" -> "box", "news" -> "news" */
export function singular(word: string): string {
  if (/ies$/i.test(word) && word.length > 3) return word.slice(0, -3) + "y";
  if (/(ss|x|z|ch|sh)es$/i.test(word)) return word.slice(0, -2);
  if (/ss$/i.test(word) || /us$/i.test(word) || /news$/i.test(word)) return word;
  if (/s$/i.test(word) && word.length > 1) return word.slice(0, -1);
  return word;
}

/** A site model's content type id: its folder's singular in camelCase under the `model` namespace. */
export function siteModelId(folder: string): string {
  const words = folder.split(/[-_\s]+/).filter(Boolean);
  if (words.length) words[words.length - 1] = singular(words[words.length - 1]);
  return "model" + words.map((w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase()).join("");
}
