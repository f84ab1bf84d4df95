// What a request to the Forms API or the form page may carry, checked before any route looks at it: a
// JSON body that is JSON, nests not too deep and holds no NUL character, and an address without NUL
// (Postgres' text cannot hold one, so nothing can be named with it). Refusals are in the forms envelope.
import type { MiddlewareHandler } from "hono";
import { readJsonBody } from "../../shared/http.ts";
import type { FormsEnv } from "./access.ts";
import { invalid, notFound } from "./envelope.ts";
import { jsonProblem, problemPath } from "./domain/json.ts";

/** A NUL in an argument is VALIDATION_ERROR naming it; in the path, nothing is there: NOT_FOUND. */
export function refuseNul(): MiddlewareHandler<FormsEnv> {
  return async (c, next) => {
    const url = new URL(c.req.url);
    for (const [name, value] of url.searchParams) {
      if (name.includes("\0") || value.includes("\0")) {
        throw invalid(`${name} may not contain the NUL character (%00)`, name);
      }
    }
    if (url.pathname.includes("%00")) throw notFound();
    await next();
  };
}

/**
 * The parsed body (undefined when empty). `fieldOf` names the field a problem is reported on, from its
 * path (the form page reports an answer's problem on the question's ref, where the runner shows it).
 */
export async function readBody(
  request: Request,
  fieldOf: (path: (string | number)[]) => string = (path) => path.join("."),
): Promise<unknown> {
  let body: unknown;
  try {
    body = await readJsonBody(request);
  } catch {
    throw invalid("The body is not valid JSON.", "body", "body");
  }
  const problem = jsonProblem(body);
  if (problem) {
    const path = problemPath(problem);
    throw invalid(
      `${path.length ? path.join(".") : "The body"} ${problem.why}.`,
      fieldOf(path) || "body",
      "body",
    );
  }
  return body;
}

/** A body that must be a JSON object ({} when empty). */
export async function readObject(
  request: Request,
  fieldOf?: (path: (string | number)[]) => string,
): Promise<Record<string, unknown>> {
  const body = await readBody(request, fieldOf);
  if (body === undefined) return {};
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw invalid("The body must be a JSON object.", "body", "body");
  }
  return body as Record<string, unknown>;
}
