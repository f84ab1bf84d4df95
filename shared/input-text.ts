// What every API accepts as text from a client before any of it reaches Postgres or a recursive walker.
// Postgres text and jsonb hold neither the NUL character nor a lone UTF-16 surrogate (jsonb refuses
// `\ud800`; text would keep U+FFFD instead of what was sent), and a body nested thousands of levels deep
// overflows the stack of whatever walks it recursively (normalizers, JSON Patch, YAML writers). Each API
// refuses such input at its door in its own envelope; this module only finds the problem.

/** Whether Postgres can hold the string as it is: no NUL, no lone surrogate. */
export function storableText(value: string): boolean {
  return !value.includes("\u0000") && value.isWellFormed();
}

/** How deep a client's JSON may nest unless an API says otherwise: real documents need about ten levels. */
export const MAX_JSON_DEPTH = 64;

export interface JsonProblem {
  kind: "depth" | "unstorable";
  /** where the problem is, from the value's root (object keys and array indexes) */
  path: (string | number)[];
  /** the end of a sentence that starts with the path: "may not contain ...", "nests deeper ..." */
  why: string;
}

/**
 * The first problem of a parsed JSON value: a string or key Postgres cannot hold, or nesting deeper than
 * `maxDepth`. Walks iteratively, so the depth it is looking for cannot overflow it.
 */
export function jsonProblem(value: unknown, maxDepth = MAX_JSON_DEPTH): JsonProblem | undefined {
  const pending: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (pending.length) {
    const { value, path } = pending.pop()!;
    if (typeof value === "string") {
      if (!storableText(value)) return unstorable(path, "may not contain");
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    if (path.length >= maxDepth) return { kind: "depth", path, why: `nests deeper than ${maxDepth} levels` };
    const list = Array.isArray(value);
    for (const [key, item] of Object.entries(value)) {
      if (!storableText(key)) return unstorable(path, "has a member name with");
      pending.push({ value: item, path: [...path, list ? Number(key) : key] });
    }
  }
  return undefined;
}

function unstorable(path: (string | number)[], lead: string): JsonProblem {
  return { kind: "unstorable", path, why: `${lead} the NUL character (\\u0000) or a lone surrogate` };
}

/** A JSON path as clients read it: `fields.title.en-US`, `lines[2].sku`. */
export function jsonPathText(path: (string | number)[]): string {
  return path.reduce<string>(
    (text, step) => typeof step === "number" ? `${text}[${step}]` : text ? `${text}.${step}` : step,
    "",
  );
}

/**
 * What of a request's URL holds text Postgres cannot hold: a path segment (`path`), and the first query
 * parameter (by name) whose name or value does (`parameter`); undefined when nothing does. A URL as a
 * server hands it over is serialized (WHATWG): control characters are percent-encoded and a lone
 * surrogate has become U+FFFD, percent-encoded too, so a URL without `%` holds neither and is not parsed
 * again (most requests: this runs on every one).
 */
export function unstorableUrlText(url: string): { path: boolean; parameter: string | undefined } | undefined {
  if (!url.includes("%")) return undefined;
  const parsed = new URL(url);
  const path = unstorablePathSegment(parsed);
  const parameter = unstorableParameter(parsed);
  return path || parameter !== undefined ? { path, parameter } : undefined;
}

/** The first query parameter (name or value) holding text Postgres cannot hold, or undefined. */
export function unstorableParameter(url: URL): string | undefined {
  for (const [name, value] of url.searchParams) {
    if (!storableText(name) || !storableText(value)) return name;
  }
  return undefined;
}

/**
 * Whether a segment of the URL's path, decoded as the router decodes it, holds text Postgres cannot hold:
 * such a path names nothing that can exist.
 */
export function unstorablePathSegment(url: URL): boolean {
  return !url.pathname.split("/").every((segment) => storableText(decodedSegment(segment)));
}

/** A path segment as the router decodes it (as it is when it is not valid percent-encoded UTF-8). */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
