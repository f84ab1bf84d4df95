// What a request to the Forms API or the form page may carry, checked before any route looks at it: a
// JSON body that is JSON, nests not too deep and holds only text Postgres can store, and an address
// whose segments Postgres could store too (nothing can be named otherwise). The checks are shared/input-text.ts'; the refusals
// are in the forms envelope.
import type { MiddlewareHandler } from "hono";
import { BodyNotUtf8, readJsonBody, RequestTooLarge } from "../../shared/http.ts";
import {
  type JsonProblem,
  jsonProblem,
  unstorableUrlText,
} from "../../shared/input-text.ts";
import type { FormsEnv } from "./access.ts";
import { invalid, notFound } from "./envelope.ts";

/** Unstorable text in an argument is VALIDATION_ERROR naming it; in the path: NOT_FOUND. */
export function refuseUnstorable(): MiddlewareHandler<FormsEnv> {
  return async (c, next) => {
    const unstorable = unstorableUrlText(c.req.url);
    const argument = unstorable?.parameter;
    if (argument !== undefined) {
      throw invalid(`${argument} may not contain the NUL character (%00) or a lone surrogate`, argument);
    }
    if (unstorable?.path) throw notFound();
    await next();
  };
}

/** Where to point the client: the whole path to bad text; the first two steps of a nesting too deep. */
function problemPath(problem: JsonProblem): (string | number)[] {
  return problem.kind === "depth" ? problem.path.slice(0, 2) : problem.path;
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
  } catch (error) {
    if (error instanceof RequestTooLarge || error instanceof BodyNotUtf8) throw error;
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
