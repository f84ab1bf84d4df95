// Connection arguments (first/after, last/before, reverse) under the Storefront API's rules: `first`
// and `last` from 0 to 250, default 20 when neither is given; cursors opaque. Pages are cut in SQL for
// the catalog (store.ts takes a Window) and in memory for the short lists inside one record (variants,
// images, a cart's lines).
import { type CursorReader, encodeCursor, positionReader } from "./cursor.ts";
import { StoreInputError } from "./errors.ts";

export const MAX_PAGE = 250;
export const DEFAULT_PAGE = 20;

export interface PageArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  reverse?: boolean | null;
}

export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

export interface Connection<T> {
  edges: { cursor: string; node: T }[];
  nodes: T[];
  pageInfo: PageInfo;
}

function checkCount(name: string, value: number | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 0 || value > MAX_PAGE) {
    throw new StoreInputError(`\`${name}\` must be between 0 and ${MAX_PAGE}, got ${value}.`);
  }
  return value;
}

/** What to fetch: `size` rows (one more tells whether another page follows) from one end. */
export interface Window {
  size: number;
  /** fetch from the end (`last` without `first`), then put the rows back in order */
  fromEnd: boolean;
  /** after `first`, keep only the last this many (Relay's rule when both are given) */
  trimTo?: number;
  after?: unknown[];
  before?: unknown[];
}

/** The window the arguments ask for; `readCursor` checks `after` and `before` (domain/cursor.ts). */
export function windowOf(args: PageArgs, readCursor: CursorReader): Window {
  const first = checkCount("first", args.first);
  const last = checkCount("last", args.last);
  const after = args.after ? readCursor(args.after) : undefined;
  const before = args.before ? readCursor(args.before) : undefined;
  if (first === undefined && last !== undefined) return { size: last, fromEnd: true, after, before };
  return { size: first ?? DEFAULT_PAGE, fromEnd: false, trimTo: last, after, before };
}

/**
 * Builds a connection from rows fetched for a window: `rows` holds up to size + 1 rows in the window's
 * fetch order (reversed when fromEnd), each with its cursor.
 */
export function connectionFrom<R, T>(
  rows: R[],
  window: Window,
  cursorOf: (row: R) => string,
  nodeOf: (row: R) => T,
): Connection<T> {
  const more = rows.length > window.size;
  let page = rows.slice(0, window.size);
  if (window.fromEnd) page.reverse();
  let trimmed = false;
  if (window.trimTo !== undefined && page.length > window.trimTo) {
    page = page.slice(page.length - window.trimTo);
    trimmed = true;
  }
  // cursors are made only when a query asks for them (most ask for nodes only)
  const edges = page.map((row) => lazyEdge(row, cursorOf, nodeOf(row)));
  return {
    edges,
    nodes: edges.map((e) => e.node),
    pageInfo: {
      hasNextPage: window.fromEnd ? Boolean(window.before) : more,
      hasPreviousPage: window.fromEnd ? more : Boolean(window.after) || trimmed,
      get startCursor() {
        return edges[0]?.cursor ?? null;
      },
      get endCursor() {
        return edges[edges.length - 1]?.cursor ?? null;
      },
    },
  };
}

function lazyEdge<R, T>(row: R, cursorOf: (row: R) => string, node: T): { cursor: string; node: T } {
  let cursor: string | undefined;
  return {
    node,
    get cursor() {
      return (cursor ??= cursorOf(row));
    },
  };
}

/** A connection over a list already in memory; cursors are positions in the list. */
export function connectionOfList<T>(items: T[], args: PageArgs): Connection<T> {
  const window = windowOf(args, positionReader);
  const position = (parts: unknown[] | undefined) => parts?.[0] as number | undefined;
  const ordered = items.map((item, index) => ({ item, index }));
  if (args.reverse) ordered.reverse();
  const after = position(window.after);
  const before = position(window.before);
  // positions compare in the list's order, whichever way it is read
  const rank = (index: number) => (args.reverse ? items.length - 1 - index : index);
  let candidates = ordered.filter(({ index }) =>
    (after === undefined || rank(index) > rank(after)) && (before === undefined || rank(index) < rank(before))
  );
  if (window.fromEnd) candidates = candidates.reverse();
  return connectionFrom(
    candidates.slice(0, window.size + 1),
    window,
    (r) => encodeCursor([r.index]),
    (r) => r.item,
  );
}
