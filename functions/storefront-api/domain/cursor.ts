// Opaque connection cursors: base64url of a small JSON array. A catalog page's cursor (keyset) holds the
// sort it was made under, the row's sort value and its handle; a list's cursor holds a position. Stable
// for a given sort, so a client re-sending the same query with `after` continues. A cursor is input like
// any other: one made under another sort, or forged, is a StoreInputError (a GraphQL error, HTTP 200),
// never a value cast to the wrong type inside a query.
import { base64url, fromBase64url } from "../../../shared/ids.ts";
import { StoreInputError } from "./errors.ts";
import { storableText } from "./input.ts";

/** What a sort's value is, as the cursor carries it (store.ts casts it back to this type in SQL). */
export const SORT_VALUES = {
  position: "text",
  title: "text",
  type: "text",
  vendor: "text",
  price: "numeric",
  created: "timestamp",
  updated: "timestamp",
  collection: "integer",
} as const;
export type KeysetSort = keyof typeof SORT_VALUES;

export function encodeCursor(parts: unknown[]): string {
  const json = JSON.stringify(parts);
  // ASCII text is its own UTF-8: btoa takes it as it is (the same base64url, without the byte loop)
  // deno-lint-ignore no-control-regex -- the ASCII range, NUL included
  if (/^[\x00-\x7f]*$/.test(json)) {
    return btoa(json).replace(/[+/=]/g, (c) => (c === "+" ? "-" : c === "/" ? "_" : ""));
  }
  return base64url(new TextEncoder().encode(json));
}

const invalid = (cursor: string) =>
  new StoreInputError(`Invalid cursor: ${JSON.stringify(cursor).slice(0, 80)}`);

/** The parts of a cursor we issued; a StoreInputError (a GraphQL error, HTTP 200) for anything else. */
export function decodeCursor(cursor: string, length: number): unknown[] {
  try {
    const parts = JSON.parse(new TextDecoder().decode(fromBase64url(cursor)));
    if (Array.isArray(parts) && parts.length === length) return parts;
  } catch {
    // fall through
  }
  throw invalid(cursor);
}

/** Reads a cursor into the parts a window compares with (store.ts keyset: [sort value, handle]). */
export type CursorReader = (cursor: string) => unknown[];

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

function fits(value: unknown, kind: (typeof SORT_VALUES)[KeysetSort]): boolean {
  switch (kind) {
    case "numeric":
      return (typeof value === "number" && Number.isFinite(value)) ||
        (typeof value === "string" && /^-?\d{1,20}(\.\d{1,20})?$/.test(value));
    case "integer":
      return (typeof value === "number" && Number.isSafeInteger(value)) ||
        (typeof value === "string" && /^\d{1,15}$/.test(value));
    case "timestamp":
      return typeof value === "string" && ISO_INSTANT.test(value) && Number.isFinite(Date.parse(value));
    default:
      return typeof value === "string" && storableText(value);
  }
}

/** The cursor of a catalog row under a sort: the sort itself, its value there, the handle (tie-breaker). */
export function keysetCursor(sort: KeysetSort, value: unknown, handle: string): string {
  return encodeCursor([sort, value instanceof Date ? value.toISOString() : value, handle]);
}

/** Reads keyset cursors of that sort only, checking the value's type, so SQL gets only what it can cast. */
export function keysetReader(sort: KeysetSort): CursorReader {
  return (cursor) => {
    const [made, value, handle] = decodeCursor(cursor, 3);
    if (
      made !== sort || !fits(value, SORT_VALUES[sort]) || typeof handle !== "string" || !storableText(handle)
    ) {
      throw invalid(cursor);
    }
    return [value, handle];
  };
}

/** Reads a position cursor (a list in memory): one non-negative integer. */
export const positionReader: CursorReader = (cursor) => {
  const parts = decodeCursor(cursor, 1);
  if (!Number.isSafeInteger(parts[0]) || (parts[0] as number) < 0) throw invalid(cursor);
  return parts;
};
