// JSON schemas of the content API's resources (spec: "Resources and their fields") and one schema per
// content type, typed from its fields. Pure functions of the content types and locales.
import { FIELD_TYPES as MODEL_FIELD_TYPES } from "../site/models.ts";
import type { ContentTypeFieldLike, ContentTypeLike, Schema } from "./types.ts";

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** A content type id in PascalCase: `article` -> `Article`, `modelEvent` -> `ModelEvent`, `wiki-page` -> `WikiPage`. */
export function pascalCase(id: string): string {
  const name = id
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join("");
  if (!name) return "Type";
  return /^[0-9]/.test(name) ? `Type${name}` : name;
}

/**
 * Schema names for the content types: PascalCase of the id; a name already taken (a reserved name, or
 * another type's) gets an `Entry` suffix, then a number, so every type has its own schema.
 */
export function typeSchemaNames(types: ContentTypeLike[], reserved: Iterable<string>): Map<string, string> {
  const taken = new Set(reserved);
  const names = new Map<string, string>();
  for (const type of types) {
    const base = pascalCase(type.sys.id);
    let name = base;
    if (taken.has(name)) name = `${base}Entry`;
    for (let n = 2; taken.has(name); n++) name = `${base}Entry${n}`;
    taken.add(name);
    names.set(type.sys.id, name);
  }
  return names;
}

// ---- The fixed resource schemas ----

const LINK_TYPES = ["Entry", "Asset", "Space", "Environment", "ContentType", "Locale", "User"];
const SYS_TYPES = [
  "Entry",
  "Asset",
  "ContentType",
  "Locale",
  "Space",
  "Environment",
  "Array",
  "Link",
  "Error",
  "DeletedEntry",
  "DeletedAsset",
];
export const FIELD_TYPES = [...MODEL_FIELD_TYPES];
export const RICH_TEXT_NODE_TYPES = [
  "document",
  "heading-1",
  "heading-2",
  "heading-3",
  "heading-4",
  "heading-5",
  "heading-6",
  "paragraph",
  "unordered-list",
  "ordered-list",
  "list-item",
  "blockquote",
  "hr",
  "table",
  "table-row",
  "table-header-cell",
  "table-cell",
  "hyperlink",
  "embedded-asset-block",
  "text",
];
export const ERROR_IDS = [
  "NotFound",
  "BadQuery",
  "InvalidQuery",
  "AccessTokenInvalid",
  "AccessDenied",
  "VersionMismatch",
  "ValidationFailed",
  "RateLimitExceeded",
  "BadRequest",
];
const dateTime: Schema = { type: "string", format: "date-time" };

/** The names resourceSchemas and the Entry schema take in components.schemas. */
export const RESOURCE_SCHEMA_NAMES: readonly string[] = [...Object.keys(resourceSchemas([])), "Entry"];

/** Link, Sys, rich text, Asset, ContentType(Field), Locale, Error, Space, Environment and the collections. */
export function resourceSchemas(localeCodes: string[]): Record<string, Schema> {
  const localeCode: Schema = localeCodes.length
    ? { type: "string", enum: [...localeCodes], description: "A locale code of the site." }
    : { type: "string", description: "A locale code of the site." };
  const byLocale = (description: string): Schema => ({
    type: "object",
    description,
    ...(localeCodes.length ? { propertyNames: { enum: [...localeCodes] } } : {}),
    additionalProperties: true,
  });
  return {
    Link: {
      type: "object",
      description: "A link to another resource: { sys: { type: Link, linkType, id } }.",
      required: ["sys"],
      properties: {
        sys: {
          type: "object",
          required: ["type", "linkType", "id"],
          properties: {
            type: { const: "Link" },
            linkType: { type: "string", enum: LINK_TYPES },
            id: { type: "string" },
          },
        },
      },
    },
    Sys: {
      type: "object",
      description: "System fields every resource carries; which appear depends on sys.type.",
      required: ["type"],
      properties: {
        id: { type: "string" },
        type: { type: "string", enum: SYS_TYPES },
        space: ref("Link"),
        environment: ref("Link"),
        contentType: { ...ref("Link"), description: "Entries: a link to the entry's content type." },
        createdAt: { ...dateTime, description: "The record's date, else its first check-in or publish." },
        updatedAt: {
          ...dateTime,
          description: "The last check-in or publish (on preview, the draft's time).",
        },
        deletedAt: { ...dateTime, description: "Sync deletions: when the entry or asset was removed." },
        revision: { type: "integer", minimum: 0 },
        locale: { ...localeCode, description: "The locale answered (the default or the `locale` argument)." },
      },
    },
    RichTextNode: {
      type: "object",
      description:
        "A node of a rich-text document. Block and inline nodes hold `content`; text nodes hold `value` and `marks`.",
      required: ["nodeType"],
      properties: {
        nodeType: { type: "string", enum: RICH_TEXT_NODE_TYPES },
        data: {
          type: "object",
          description: "hyperlink: { uri }; embedded-asset-block: { target: Link to an Asset }.",
          properties: { uri: { type: "string" }, target: ref("Link") },
        },
        content: { type: "array", items: ref("RichTextNode") },
        value: { type: "string" },
        marks: {
          type: "array",
          items: {
            type: "object",
            required: ["type"],
            properties: { type: { type: "string", enum: ["bold", "italic", "code"] } },
          },
        },
      },
    },
    RichTextDocument: {
      type: "object",
      description: "A rich-text document: a tree of RichTextNode under a `document` root.",
      required: ["nodeType", "content"],
      properties: {
        nodeType: { const: "document" },
        data: { type: "object" },
        content: { type: "array", items: ref("RichTextNode") },
      },
    },
    AssetFields: {
      type: "object",
      properties: {
        title: { type: "string", description: "The file name without its extension." },
        description: { type: "string" },
        file: {
          type: "object",
          required: ["url", "fileName", "contentType"],
          properties: {
            url: {
              type: "string",
              description:
                "Protocol-relative address on the image door (`//<domain>/api/media/<space>/<id>/<hash>/<file>`), " +
                "or the address a record names for a picture kept elsewhere.",
            },
            details: {
              type: "object",
              properties: {
                size: { type: "integer", minimum: 0 },
                image: {
                  type: "object",
                  required: ["width", "height"],
                  properties: { width: { type: "integer" }, height: { type: "integer" } },
                },
              },
            },
            fileName: { type: "string" },
            contentType: { type: "string" },
          },
        },
      },
    },
    Asset: {
      type: "object",
      description: "A file of the site's media library.",
      required: ["sys", "fields"],
      properties: { sys: ref("Sys"), fields: ref("AssetFields") },
    },
    ContentTypeField: {
      type: "object",
      required: ["id", "name", "type"],
      properties: {
        id: { type: "string" },
        name: { type: "string" },
        type: { type: "string", enum: FIELD_TYPES },
        localized: { type: "boolean" },
        required: { type: "boolean" },
        disabled: { type: "boolean" },
        omitted: { type: "boolean" },
        validations: {
          type: "array",
          description:
            "For example { in: [ choices ] } for a select, { linkContentType: [ type ids ] } for a link.",
          items: { type: "object" },
        },
        linkType: { type: "string", enum: ["Entry", "Asset"] },
        items: {
          type: "object",
          required: ["type"],
          properties: {
            type: { type: "string", enum: ["Symbol", "Object", "Link"] },
            linkType: { type: "string", enum: ["Entry", "Asset"] },
            validations: { type: "array", items: { type: "object" } },
          },
        },
      },
    },
    ContentType: {
      type: "object",
      description: "A content type, derived from one of the site's models.",
      required: ["sys", "name", "fields"],
      properties: {
        sys: ref("Sys"),
        name: { type: "string" },
        description: { type: ["string", "null"] },
        displayField: { type: ["string", "null"] },
        fields: { type: "array", items: ref("ContentTypeField") },
      },
    },
    Locale: {
      type: "object",
      required: ["code", "name", "default"],
      properties: {
        sys: ref("Sys"),
        code: { type: "string" },
        name: { type: "string" },
        default: { type: "boolean" },
        fallbackCode: { type: ["string", "null"] },
        optional: { type: "boolean" },
      },
    },
    Space: {
      type: "object",
      required: ["sys", "name"],
      properties: {
        sys: {
          type: "object",
          required: ["type", "id"],
          properties: { type: { const: "Space" }, id: { type: "string" } },
        },
        name: { type: "string" },
        locales: { type: "array", items: ref("Locale") },
      },
    },
    Environment: {
      type: "object",
      required: ["sys", "name"],
      properties: {
        sys: {
          type: "object",
          required: ["type", "id"],
          properties: { type: { const: "Environment" }, id: { const: "master" } },
        },
        name: { type: "string" },
      },
    },
    Error: {
      type: "object",
      description: "The content API's error body.",
      required: ["sys", "message"],
      properties: {
        sys: {
          type: "object",
          required: ["type", "id"],
          properties: { type: { const: "Error" }, id: { type: "string", enum: ERROR_IDS } },
        },
        message: { type: "string" },
        details: {
          type: "object",
          description:
            "NotFound: { type (Space, Environment, Entry, Asset, ContentType), id }; InvalidQuery: { errors: [ { name, ... } ] } " +
            "(name `unknownContentType` for an unknown content type); ValidationFailed: { errors: [ { name, path, details } ] }.",
        },
        requestId: { type: "string" },
      },
    },
    LinkError: {
      type: "object",
      description: "A link to nothing published, listed in a collection's errors.",
      required: ["sys", "details"],
      properties: {
        sys: {
          type: "object",
          required: ["id", "type"],
          properties: { id: { const: "notResolvable" }, type: { const: "error" } },
        },
        details: {
          type: "object",
          required: ["type", "linkType", "id"],
          properties: {
            type: { const: "Link" },
            linkType: { type: "string", enum: ["Entry", "Asset"] },
            id: { type: "string" },
          },
        },
      },
    },
    Includes: {
      type: "object",
      description:
        "Linked entries and assets up to the `include` depth; the page's own items are never repeated here.",
      properties: {
        Entry: { type: "array", items: ref("Entry") },
        Asset: { type: "array", items: ref("Asset") },
      },
    },
    EntryCollection: collection(ref("Entry"), true),
    AssetCollection: collection(ref("Asset"), false),
    ContentTypeCollection: collection(ref("ContentType"), false),
    LocaleCollection: collection(ref("Locale"), false),
    SyncEntry: {
      type: "object",
      description: "An entry in a sync page: every field's value is an object keyed by locale code.",
      required: ["sys", "fields"],
      properties: {
        sys: { allOf: [ref("Sys"), { type: "object", properties: { type: { const: "Entry" } } }] },
        fields: { type: "object", additionalProperties: byLocale("The field's value in each locale.") },
      },
    },
    SyncAsset: {
      type: "object",
      description: "An asset in a sync page: every field's value is an object keyed by locale code.",
      required: ["sys", "fields"],
      properties: {
        sys: { allOf: [ref("Sys"), { type: "object", properties: { type: { const: "Asset" } } }] },
        fields: { type: "object", additionalProperties: byLocale("The field's value in each locale.") },
      },
    },
    DeletedEntry: deleted("DeletedEntry"),
    DeletedAsset: deleted("DeletedAsset"),
    SyncCollection: {
      type: "object",
      description:
        "A sync page. `nextPageUrl` while more pages follow; `nextSyncUrl` on the last page (its sync_token asks for later changes).",
      required: ["sys", "items"],
      properties: {
        sys: { type: "object", required: ["type"], properties: { type: { const: "Array" } } },
        items: {
          type: "array",
          items: { oneOf: [ref("SyncEntry"), ref("SyncAsset"), ref("DeletedEntry"), ref("DeletedAsset")] },
        },
        nextPageUrl: { type: "string", format: "uri" },
        nextSyncUrl: { type: "string", format: "uri" },
      },
    },
  };
}

function collection(item: Schema, withIncludes: boolean): Schema {
  const properties: Record<string, Schema> = {
    sys: { type: "object", required: ["type"], properties: { type: { const: "Array" } } },
    total: { type: "integer", minimum: 0 },
    skip: { type: "integer", minimum: 0 },
    limit: { type: "integer", minimum: 0, maximum: 1000 },
    items: { type: "array", items: item },
  };
  if (withIncludes) {
    properties.includes = ref("Includes");
    properties.errors = { type: "array", items: ref("LinkError") };
  }
  return { type: "object", required: ["sys", "total", "skip", "limit", "items"], properties };
}

function deleted(type: "DeletedEntry" | "DeletedAsset"): Schema {
  return {
    type: "object",
    description: `A removal reported by sync (${type}).`,
    required: ["sys"],
    properties: {
      sys: {
        allOf: [ref("Sys"), {
          type: "object",
          required: ["id", "type", "deletedAt"],
          properties: { type: { const: type } },
        }],
      },
    },
  };
}

// ---- One schema per content type ----

/** The Entry schema: one of every content type's schema (or a plain entry when the site has no types). */
export function entrySchema(types: ContentTypeLike[], names: Map<string, string>): Schema {
  if (types.length === 0) {
    return {
      type: "object",
      description: "An entry (the site has no content types yet).",
      required: ["sys", "fields"],
      properties: { sys: ref("Sys"), fields: { type: "object" } },
    };
  }
  if (types.length === 1) return { ...ref(names.get(types[0].sys.id)!), description: "An entry of the site's one content type." };
  return {
    description: "An entry of any content type; sys.contentType.sys.id tells which.",
    oneOf: types.map((type) => ref(names.get(type.sys.id)!)),
  };
}

/**
 * An entry of one content type: sys (whose contentType link names this type) and fields typed from the
 * content type, in its order, omitted fields left out, required fields listed.
 */
export function contentTypeSchema(type: ContentTypeLike): Schema {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const field of type.fields) {
    if (field.omitted) continue;
    properties[field.id] = fieldSchema(field);
    if (field.required) required.push(field.id);
  }
  const fields: Schema = { type: "object", properties };
  if (required.length) fields.required = required;
  const notes = [
    type.description || `An entry of the content type ${type.sys.id}.`,
    type.displayField ? `Display field: ${type.displayField}.` : "",
    "An empty field is absent. With `locale=*` every value is an object keyed by locale code; " +
    "with `select` only the selected fields appear.",
  ].filter(Boolean);
  return {
    type: "object",
    title: type.name,
    description: notes.join(" "),
    "x-content-type-id": type.sys.id,
    required: ["sys", "fields"],
    properties: {
      sys: {
        allOf: [ref("Sys"), {
          type: "object",
          properties: {
            type: { const: "Entry" },
            contentType: {
              type: "object",
              properties: {
                sys: { type: "object", properties: { id: { const: type.sys.id } } },
              },
            },
          },
        }],
      },
      fields,
    },
  };
}

/** The JSON schema of one field's value, from its type and validations. */
export function fieldSchema(field: ContentTypeFieldLike): Schema {
  const schema: Schema = valueSchema(field.type, field.linkType, field.validations ?? [], field.items);
  const notes: string[] = [];
  if (field.localized) notes.push("Localized.");
  if (field.disabled) notes.push("Disabled in the editor.");
  const linkTypes = linkContentTypes(field.validations ?? []) ??
    linkContentTypes(field.items?.validations ?? []);
  if (linkTypes) notes.push(`Links to entries of type ${linkTypes.join(", ")}.`);
  const described: Schema = { title: field.name, ...schema };
  if (notes.length) described.description = notes.join(" ");
  return described;
}

function valueSchema(
  type: string,
  linkType: string | undefined,
  validations: Record<string, unknown>[],
  items?: ContentTypeFieldLike["items"],
): Schema {
  switch (type) {
    case "Symbol":
    case "Text":
      return withValidations({ type: "string" }, validations, "string");
    case "Integer":
      return withValidations({ type: "integer" }, validations, "number");
    case "Number":
      return withValidations({ type: "number" }, validations, "number");
    case "Boolean":
      return { type: "boolean" };
    case "Date":
      return { type: "string", format: "date-time" };
    case "Object":
      return { type: "object" };
    case "RichText":
      return ref("RichTextDocument");
    case "Link":
      return linkType ? { ...ref("Link"), "x-link-type": linkType } : ref("Link");
    case "Array": {
      const item = items ? valueSchema(items.type, items.linkType, items.validations ?? []) : {};
      return withValidations({ type: "array", items: item }, validations, "array");
    }
    default:
      return {};
  }
}

/** `in` -> enum; `size` -> length or item bounds; `range` -> minimum/maximum; `regexp` -> pattern. */
function withValidations(
  schema: Schema,
  validations: Record<string, unknown>[],
  kind: "string" | "number" | "array",
) {
  const out: Schema = { ...schema };
  for (const v of validations) {
    if (Array.isArray(v.in) && kind !== "array") {
      const choices = v.in.filter((c) => kind === "string" ? typeof c === "string" : typeof c === "number");
      if (choices.length) out.enum = choices;
    }
    const size = v.size as { min?: unknown; max?: unknown } | undefined;
    if (size && typeof size === "object") {
      const [min, max] = kind === "array" ? ["minItems", "maxItems"] : ["minLength", "maxLength"];
      if (kind !== "number") {
        if (isCount(size.min)) out[min] = size.min;
        if (isCount(size.max)) out[max] = size.max;
      }
    }
    const range = v.range as { min?: unknown; max?: unknown } | undefined;
    if (range && typeof range === "object" && kind === "number") {
      if (typeof range.min === "number") out.minimum = range.min;
      if (typeof range.max === "number") out.maximum = range.max;
    }
    const regexp = v.regexp as { pattern?: unknown } | undefined;
    if (regexp && typeof regexp === "object" && typeof regexp.pattern === "string" && kind === "string") {
      out.pattern = regexp.pattern;
    }
  }
  return out;
}

const isCount = (n: unknown): n is number => typeof n === "number" && Number.isInteger(n) && n >= 0;

function linkContentTypes(validations: Record<string, unknown>[]): string[] | undefined {
  for (const v of validations) {
    if (Array.isArray(v.linkContentType)) return v.linkContentType.filter((t) => typeof t === "string");
  }
  return undefined;
}
