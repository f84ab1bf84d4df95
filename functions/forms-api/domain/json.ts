// What a JSON value from a client may hold, checked once after parsing and before anything walks it
// recursively (the normalizer, JSON Patch, the YAML writer of the form document) or hands it to
// Postgres: a bounded nesting depth, and no NUL character (text and jsonb cannot store it).

/** How deep a request body may nest: a definition needs about ten levels. */
export const MAX_BODY_DEPTH = 64;

export interface JsonProblem {
  kind: "depth" | "nul";
  /** where the problem is, from the value's root */
  path: (string | number)[];
  why: string;
}

/** The first problem of a parsed JSON value, or undefined. Iterative: the depth cannot overflow it. */
export function jsonProblem(value: unknown, maxDepth = MAX_BODY_DEPTH): JsonProblem | undefined {
  const pending: { value: unknown; path: (string | number)[] }[] = [{ value, path: [] }];
  while (pending.length) {
    const { value, path } = pending.pop()!;
    if (typeof value === "string") {
      if (value.includes("\0")) {
        return { kind: "nul", path, why: "may not contain the NUL character (\\u0000)" };
      }
      continue;
    }
    if (typeof value !== "object" || value === null) continue;
    if (path.length >= maxDepth) return { kind: "depth", path, why: `nests deeper than ${maxDepth} levels` };
    const list = Array.isArray(value);
    for (const [key, item] of Object.entries(value)) {
      if (key.includes("\0")) {
        return { kind: "nul", path, why: "has a name with the NUL character (\\u0000)" };
      }
      pending.push({ value: item, path: [...path, list ? Number(key) : key] });
    }
  }
  return undefined;
}

/** Where to point the client: the whole path to a NUL; the first two steps of a nesting too deep. */
export function problemPath(problem: JsonProblem): (string | number)[] {
  return problem.kind === "depth" ? problem.path.slice(0, 2) : problem.path;
}
