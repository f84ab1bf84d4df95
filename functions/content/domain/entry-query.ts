// Parses the collection arguments of GET entries / assets into a plan the store turns into SQL.
// Pure: validation against the site's locales and content types, no database access.
import { MIMETYPE_GROUPS } from "../../../shared/openapi/enums/content.ts";
import { badQuery, ContentError } from "../envelope.ts";
import type { ContentModel, ContentTypeField } from "./content-types.ts";
import { bodyFieldIds, findField, searchedTextFieldIds } from "./content-types.ts";
import { parseDate } from "../../../shared/site/dates.ts";

export type Operator =
  | "eq"
  | "ne"
  | "in"
  | "nin"
  | "exists"
  | "lt"
  | "lte"
  | "gt"
  | "gte"
  | "match"
  | "all";

const OPERATORS = new Set<Operator>(["ne", "in", "nin", "exists", "lt", "lte", "gt", "gte", "match", "all"]);
const LOCATION_OPERATORS = new Set(["near", "within"]);

export type SysField = "id" | "createdAt" | "updatedAt" | "revision" | "contentType";
export type ValueKind = "text" | "number" | "date" | "boolean" | "list" | "link" | "linkList" | "json";

export type FilterTarget =
  | { kind: "sys"; field: SysField }
  | { kind: "field"; field: string; valueKind: ValueKind; linkId?: boolean }
  | { kind: "asset"; field: AssetField };

/** An asset's own values that collections filter and order on (REST reaches title, fileName, contentType). */
export type AssetField =
  | "title"
  | "description"
  | "fileName"
  | "contentType"
  | "size"
  | "width"
  | "height"
  | "url";

export interface Filter {
  target: FilterTarget;
  op: Operator;
  /** one value for most operators; the comma-split list for in / nin / all */
  values: string[];
}

export type OrderTarget =
  | { kind: "sys"; field: "createdAt" | "updatedAt" | "id" | "revision" }
  | { kind: "field"; field: string; valueKind: ValueKind }
  | { kind: "asset"; field: AssetField };

export interface Order {
  target: OrderTarget;
  descending: boolean;
}

/**
 * A boolean combination of filters, as GraphQL's `where` builds it (REST's `filters` are one flat AND).
 */
export type Condition =
  | { kind: "filter"; filter: Filter }
  | { kind: "and" | "or"; conditions: Condition[] }
  | { kind: "not"; condition: Condition }
  /** every word occurs in the text of a rich-text field (its text nodes, not its JSON keys) */
  | { kind: "text"; field: string; words: string[] }
  /** the link field (one link, or a list when `list`) points at an entry of `contentTypes` matching `where` */
  | { kind: "linked"; field: string; list: boolean; contentTypes?: string[]; where: Condition };

export interface CollectionQuery {
  contentType?: ContentModel;
  select?: Selection;
  include: number;
  /** a site locale code, or "*" */
  locale: string;
  order: Order[];
  limit: number;
  skip: number;
  words: string[];
  filters: Filter[];
  linksToEntry?: string;
  linksToAsset?: string;
  mimetypeGroup?: string;
  /** GraphQL's where, ANDed with `filters` */
  where?: Condition;
  /** where the caller sees library files (absolute, up to the asset id): asset url filters and orders need it */
  mediaPrefix?: string;
  /** set when the caller may not read gated bodies: what entries other than guest ones keep from them */
  withheld?: WithheldBodies;
}

/**
 * Per content type, what a caller without gated access may not search, filter, order or match links by
 * on entries that are not guest ones: their body fields (which read as absent there), so `query` searches
 * only the listed text fields there and links count only outside the body.
 */
export interface WithheldBodies {
  bodies: Record<string, string[]>;
  text: Record<string, string[]>;
}

export function withheldBodies(models: Map<string, ContentModel>): WithheldBodies {
  const withheld: WithheldBodies = { bodies: {}, text: {} };
  for (const model of models.values()) {
    withheld.bodies[model.id] = [...bodyFieldIds(model)];
    withheld.text[model.id] = searchedTextFieldIds(model);
  }
  return withheld;
}

/** select: sys is always whole; fields either whole or the named ones. */
export interface Selection {
  fields: "all" | Set<string> | "none";
  metadata: boolean;
}

export interface QueryContext {
  locales: string[];
  models: Map<string, ContentModel>;
}


/** Arguments a collection route understands besides filters; anything else starting sys./fields. is a filter. */
const PLAIN_ARGS = new Set([
  "content_type",
  "select",
  "include",
  "locale",
  "order",
  "limit",
  "skip",
  "query",
  "links_to_entry",
  "links_to_asset",
  "mimetype_group",
  "access_token",
  "cursor",
]);

/** A content_type argument naming no content type (entries, sync). */
export function unknownContentType(id: string): ContentError {
  return new ContentError("InvalidQuery", `Unknown content type: ${id}`, {
    errors: [{ name: "unknownContentType", value: id }],
  });
}

export function parseEntriesQuery(params: URLSearchParams, ctx: QueryContext): CollectionQuery {
  const typeId = params.get("content_type") ?? undefined;
  let contentType: ContentModel | undefined;
  if (typeId !== undefined) {
    contentType = ctx.models.get(typeId);
    if (!contentType) throw unknownContentType(typeId);
  }
  const query: CollectionQuery = {
    contentType,
    select: parseSelect(params.get("select")),
    include: intArg(params, "include", 1, 0, 10),
    locale: parseLocale(params.get("locale"), ctx.locales),
    order: [],
    limit: intArg(params, "limit", 100, 1, 1000),
    skip: intArg(params, "skip", 0, 0, Number.MAX_SAFE_INTEGER),
    words: words(params.get("query")),
    filters: [],
    linksToEntry: params.get("links_to_entry") ?? undefined,
    linksToAsset: params.get("links_to_asset") ?? undefined,
  };
  query.order = parseOrder(params.get("order"), (path) => entryOrderTarget(path, contentType));
  for (const [name, value] of params) {
    if (PLAIN_ARGS.has(name)) continue;
    const filter = parseFilter(name, value, (path) => entryFilterTarget(path, contentType));
    if (filter) query.filters.push(filter);
  }
  return query;
}

export function parseAssetsQuery(params: URLSearchParams, ctx: QueryContext): CollectionQuery {
  const group = params.get("mimetype_group") ?? undefined;
  if (group !== undefined && !(group in MIMETYPE_GROUPS)) {
    throw badQuery(`mimetype_group must be one of ${Object.keys(MIMETYPE_GROUPS).join(", ")}`);
  }
  const query: CollectionQuery = {
    select: parseSelect(params.get("select")),
    include: 0,
    locale: parseLocale(params.get("locale"), ctx.locales),
    order: parseOrder(params.get("order"), assetOrderTarget),
    limit: intArg(params, "limit", 100, 1, 1000),
    skip: intArg(params, "skip", 0, 0, Number.MAX_SAFE_INTEGER),
    words: words(params.get("query")),
    filters: [],
    mimetypeGroup: group,
  };
  for (const [name, value] of params) {
    if (PLAIN_ARGS.has(name) || name === "content_type") continue;
    const filter = parseFilter(name, value, assetFilterTarget);
    if (filter) query.filters.push(filter);
  }
  return query;
}

/** limit (1 to 1000, default 100) and skip of a list that takes no other argument (content types, locales). */
export function parsePage(params: URLSearchParams): { limit: number; skip: number } {
  return {
    limit: intArg(params, "limit", 100, 1, 1000),
    skip: intArg(params, "skip", 0, 0, Number.MAX_SAFE_INTEGER),
  };
}

export function parseLocale(value: string | null, locales: string[]): string {
  if (value === null || value === "") return locales[0];
  if (value === "*" || locales.includes(value)) return value;
  throw badQuery(`Unknown locale: ${value}`, { errors: [{ name: "unknownLocale", value }] });
}

function intArg(params: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = params.get(name);
  if (raw === null || raw === "") return fallback;
  const value = Number(raw);
  if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw badQuery(
      `${name} must be an integer from ${min}${max === Number.MAX_SAFE_INTEGER ? "" : ` to ${max}`}`,
      {
        errors: [{
          name: "range",
          path: [name],
          value: raw,
          min,
          max: max === Number.MAX_SAFE_INTEGER ? undefined : max,
        }],
      },
    );
  }
  return value;
}

function words(query: string | null): string[] {
  return (query ?? "").split(/\s+/).map((w) => w.trim()).filter(Boolean);
}

export function parseSelect(raw: string | null): Selection | undefined {
  if (raw === null || raw.trim() === "") return undefined;
  const selection: Selection = { fields: "none", metadata: false };
  for (const path of raw.split(",").map((p) => p.trim()).filter(Boolean)) {
    const parts = path.split(".");
    if (parts.length > 2) throw badQuery(`select accepts two levels at most: ${path}`);
    const [root, name] = parts;
    if (root === "sys") continue;
    if (root === "metadata") {
      selection.metadata = true;
      continue;
    }
    if (root !== "fields") throw badQuery(`select accepts sys, fields and metadata paths: ${path}`);
    if (name === undefined) selection.fields = "all";
    else if (selection.fields !== "all") {
      selection.fields = selection.fields === "none" ? new Set([name]) : selection.fields.add(name);
    }
  }
  return selection;
}

function parseOrder<T>(
  raw: string | null,
  targetOf: (path: string) => T,
): { target: T; descending: boolean }[] {
  if (raw === null || raw.trim() === "") return [];
  return raw.split(",").map((p) => p.trim()).filter(Boolean).map((part) => {
    const descending = part.startsWith("-");
    return { target: targetOf(descending ? part.slice(1) : part), descending };
  });
}

function parseFilter(
  name: string,
  value: string,
  targetOf: (path: string) => FilterTarget | undefined,
): Filter | undefined {
  const match = name.match(/^([^\[\]]+)(?:\[([a-z]+)\])?$/);
  if (!match) throw badQuery(`Malformed argument: ${name}`);
  const [, path, rawOp] = match;
  if (!path.startsWith("sys.") && !path.startsWith("fields.") && !path.startsWith("metadata.")) {
    return undefined;
  }
  if (rawOp && LOCATION_OPERATORS.has(rawOp)) {
    throw new ContentError(
      "InvalidQuery",
      `The [${rawOp}] operator needs a location field; this site has none.`,
      {
        errors: [{ name: "unsupportedOperator", operator: rawOp, path }],
      },
    );
  }
  if (rawOp && !OPERATORS.has(rawOp as Operator)) {
    throw new ContentError("InvalidQuery", `Unknown operator [${rawOp}]`, {
      errors: [{ name: "unsupportedOperator", operator: rawOp, path }],
    });
  }
  const op = (rawOp ?? "eq") as Operator;
  if (path.startsWith("metadata.")) return metadataFilter(path, op, value);
  const target = targetOf(path);
  if (!target) return undefined;
  if (op === "exists" && value !== "true" && value !== "false") {
    throw badQuery(`[exists] takes true or false: ${name}`);
  }
  const values =
    (op === "in" || op === "nin" || op === "all" ? value.split(",").map((v) => v.trim()) : [value])
      .map((v) => checkValue(target, op, v, name));
  return { target, op, values };
}

/** A decimal number as Postgres's numeric reads it (no hex, no Infinity or NaN, nothing blank), of a sane length. */
const DECIMAL = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,3})?\s*$/;
const MAX_NUMBER_TEXT = 64;

/** The value as SQL compares it (a date as its instant), or BadQuery for a value the field cannot hold. */
function checkValue(target: FilterTarget, op: Operator, value: string, name: string): string {
  if (op === "exists" || op === "match") return value;
  const kind = target.kind === "sys"
    ? (target.field === "createdAt" || target.field === "updatedAt"
      ? "date"
      : target.field === "revision"
      ? "number"
      : "text")
    : target.kind === "field" && !target.linkId
    ? target.valueKind
    : "text";
  if (kind === "number") {
    if (value.length > MAX_NUMBER_TEXT || !DECIMAL.test(value) || !Number.isFinite(Number(value))) {
      throw badQuery(`${name} takes a number`);
    }
    return value.trim();
  }
  if (kind === "date") {
    const date = parseDate(value);
    if (!date) {
      throw badQuery(`${name} takes an ISO 8601 date or instant such as 2024-03-01 or 2024-03-01T10:00:00Z`);
    }
    return date.toISOString();
  }
  if (kind === "boolean" && value !== "true" && value !== "false") {
    throw badQuery(`${name} takes true or false`);
  }
  if (["lt", "lte", "gt", "gte"].includes(op) && !["number", "date", "text"].includes(kind)) {
    throw new ContentError("InvalidQuery", `[${op}] does not apply to ${name.split("[")[0]}`, {
      errors: [{ name: "unsupportedOperator", operator: op }],
    });
  }
  return value;
}

export function valueKindOf(field: ContentTypeField): ValueKind {
  switch (field.type) {
    case "Integer":
    case "Number":
      return "number";
    case "Date":
      return "date";
    case "Boolean":
      return "boolean";
    case "Link":
      return "link";
    case "Array":
      return field.items?.type === "Link" ? "linkList" : "list";
    case "Object":
    case "RichText":
      return "json";
    default:
      return "text";
  }
}

function entryFilterTarget(path: string, contentType?: ContentModel): FilterTarget | undefined {
  if (path.startsWith("sys.")) {
    const field = path.slice(4);
    if (field === "id" || field === "createdAt" || field === "updatedAt" || field === "revision") {
      return { kind: "sys", field };
    }
    if (field === "contentType.sys.id") return { kind: "sys", field: "contentType" };
    // sys.type, sys.locale and the like describe every item alike: nothing to filter
    if (
      field === "type" || field === "locale" || field === "space.sys.id" || field === "environment.sys.id"
    ) {
      return undefined;
    }
    throw new ContentError("InvalidQuery", `Unknown sys field: ${path}`, {
      errors: [{ name: "unknown", path: path.split(".") }],
    });
  }
  return fieldTarget(path, contentType);
}

/** A filter no item passes: an id among none. */
const NO_ITEM: Filter = { target: { kind: "sys", field: "id" }, op: "in", values: [] };

/**
 * metadata.tags.sys.id and metadata.concepts.sys.id: a site's entries and assets carry neither tags nor
 * concepts (their metadata lists are always empty), so asking for some matches nothing, and asking for
 * none, or for items without them, restricts nothing. Undefined means no restriction.
 */
function metadataFilter(path: string, op: Operator, value: string): Filter | undefined {
  if (path !== "metadata.tags.sys.id" && path !== "metadata.concepts.sys.id") {
    throw new ContentError("InvalidQuery", `Unknown metadata field: ${path}`, {
      errors: [{ name: "unknown", path: path.split(".") }],
    });
  }
  switch (op) {
    case "exists":
      if (value !== "true" && value !== "false") {
        throw badQuery(`[exists] takes true or false: ${path}[exists]`);
      }
      return value === "true" ? NO_ITEM : undefined;
    case "eq":
    case "in":
    case "all":
      return NO_ITEM;
    case "ne":
    case "nin":
      return undefined;
    default:
      throw new ContentError(
        "InvalidQuery",
        `${path} takes [in], [all], [nin], [exists] or an id: [${op}] it does not`,
        {
          errors: [{ name: "unsupportedOperator", operator: op, path }],
        },
      );
  }
}

function fieldTarget(path: string, contentType?: ContentModel): FilterTarget {
  if (!contentType) {
    throw badQuery(`Filtering or ordering on ${path} needs a content_type`, {
      errors: [{ name: "contentTypeRequired", path: path.split(".") }],
    });
  }
  const [, id, ...rest] = path.split(".");
  const field = findField(contentType, id);
  if (!field) {
    throw new ContentError("InvalidQuery", `No field with id "${id}" found on ${contentType.id}`, {
      errors: [{ name: "unknown", path: ["fields", id] }],
    });
  }
  const valueKind = valueKindOf(field);
  if (rest.length === 0) return { kind: "field", field: id, valueKind };
  if ((valueKind === "link" || valueKind === "linkList") && rest.join(".") === "sys.id") {
    return { kind: "field", field: id, valueKind, linkId: true };
  }
  throw new ContentError("InvalidQuery", `Unsupported path: ${path}`, {
    errors: [{ name: "unsupportedPath", path: path.split(".") }],
  });
}

function entryOrderTarget(path: string, contentType?: ContentModel): OrderTarget {
  if (path === "sys.createdAt" || path === "sys.updatedAt" || path === "sys.id" || path === "sys.revision") {
    return { kind: "sys", field: path.slice(4) as "createdAt" };
  }
  if (path.startsWith("fields.")) {
    const target = fieldTarget(path, contentType);
    if (
      target.kind !== "field" || target.linkId ||
      ["json", "list", "link", "linkList"].includes(target.valueKind)
    ) {
      throw badQuery(`Cannot order by ${path}`);
    }
    return { kind: "field", field: target.field, valueKind: target.valueKind };
  }
  throw badQuery(`Cannot order by ${path}`, { errors: [{ name: "invalidOrder", path }] });
}

function assetOrderTarget(path: string): OrderTarget {
  if (path === "sys.createdAt" || path === "sys.updatedAt" || path === "sys.id") {
    return { kind: "sys", field: path.slice(4) as "createdAt" };
  }
  if (path === "fields.title") return { kind: "asset", field: "title" };
  throw badQuery(
    `Assets can be ordered by sys.createdAt, sys.updatedAt, sys.id or fields.title, not ${path}`,
  );
}

function assetFilterTarget(path: string): FilterTarget | undefined {
  if (path === "sys.id" || path === "sys.createdAt" || path === "sys.updatedAt") {
    return { kind: "sys", field: path.slice(4) as "id" };
  }
  if (path === "fields.title") return { kind: "asset", field: "title" };
  if (path === "fields.file.fileName") return { kind: "asset", field: "fileName" };
  if (path === "fields.file.contentType") return { kind: "asset", field: "contentType" };
  if (path.startsWith("sys.") && ["sys.type", "sys.locale"].includes(path)) return undefined;
  throw new ContentError("InvalidQuery", `Assets cannot be filtered on ${path}`, {
    errors: [{ name: "unknown", path: path.split(".") }],
  });
}
