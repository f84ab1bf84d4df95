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
  /** the list's size across its pages, for a connection type with totalCount */
  totalCount?: string,
): Connection<T> {
  const more = rows.length > window.size;
  let page = more ? rows.slice(0, window.size) : rows;
  if (window.fromEnd) page = page === rows ? rows.slice().reverse() : page.reverse();
  let trimmed = false;
  if (window.trimTo !== undefined && page.length > window.trimTo) {
    page = page.slice(page.length - window.trimTo);
    trimmed = true;
  }
  return new PagedConnection(page, page.map(nodeOf), (row) => cursorOf(row), {
    hasNextPage: window.fromEnd ? Boolean(window.before) : more,
    hasPreviousPage: window.fromEnd ? more : Boolean(window.after) || trimmed,
  }, totalCount);
}

/**
 * A page's connection. Its edges and cursors are made only when a query asks for them (most ask for
 * nodes only): a page of 250 products with five variants each would otherwise make 1,500 edges.
 */
class PagedConnection<R, T> implements Connection<T> {
  #edges?: { cursor: string; node: T }[];
  readonly pageInfo: PageInfo;
  constructor(
    private readonly rows: R[],
    readonly nodes: T[],
    /** a row's cursor, given its place in the page */
    private readonly cursorOf: (row: R, place: number) => string,
    flags: { hasNextPage: boolean; hasPreviousPage: boolean },
    /** set here, not added later: a property added to an instance changes its shape */
    readonly totalCount?: string,
  ) {
    // read through the edges, so an edge's cursor and the page's are made once
    const cursorAt = (place: number) => (place >= 0 && place < rows.length ? this.edges[place].cursor : null);
    this.pageInfo = {
      ...flags,
      get startCursor() {
        return cursorAt(0);
      },
      get endCursor() {
        return cursorAt(rows.length - 1);
      },
    };
  }
  get edges(): { cursor: string; node: T }[] {
    return this.#edges ??= this.rows.map((row, place) =>
      lazyEdge(() => this.cursorOf(row, place), this.nodes[place])
    );
  }
}

// made once, not per list: a page of products pages a list of variants and one of collections for each
const position = (parts: unknown[] | undefined) => parts?.[0] as number | undefined;
const placeCursor = (_: unknown, place: number) => encodeCursor([place]);

/** A connection over a list already in memory; cursors are positions in the list. */
export function connectionOfList<T>(items: T[], args: PageArgs, totalCount?: string): Connection<T> {
  const window = windowOf(args, positionReader);
  const after = position(window.after);
  const before = position(window.before);
  // the common case, the first n of the list in its order: a place in the page is the place in the list
  if (!args.reverse && !window.fromEnd && after === undefined && before === undefined && window.trimTo === undefined) {
    const more = items.length > window.size;
    const page = more ? items.slice(0, window.size) : items;
    return new PagedConnection(page, page, placeCursor, { hasNextPage: more, hasPreviousPage: false }, totalCount);
  }
  const listCursor = (r: { index: number }) => encodeCursor([r.index]);
  const itemOf = (r: { item: T }) => r.item;
  const ordered = items.map((item, index) => ({ item, index }));
  if (args.reverse) ordered.reverse();
  // positions compare in the list's order, whichever way it is read
  const rank = (index: number) => (args.reverse ? items.length - 1 - index : index);
  let candidates = ordered.filter(({ index }) =>
    (after === undefined || rank(index) > rank(after)) && (before === undefined || rank(index) < rank(before))
  );
  if (window.fromEnd) candidates = candidates.reverse();
  return connectionFrom(candidates.slice(0, window.size + 1), window, listCursor, itemOf, totalCount);
}

function lazyEdge<T>(cursorOf: () => string, node: T): { cursor: string; node: T } {
  let cursor: string | undefined;
  return {
    node,
    get cursor() {
      return (cursor ??= cursorOf());
    },
  };
}
