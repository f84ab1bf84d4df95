// A method's query parameters and JSON input checked against its own lexicon before any handler sees
// them, as the reference server does: a malformed at-uri, DID, handle, CID, NSID, datetime, a string past
// its length or a value outside its enum is InvalidRequest at the door, so no handler can echo it back
// into an answer the client would then refuse, or carry it into a query.
import { lexicons } from "@atproto/api";
import { jsonToLex } from "@atproto/lexicon";
import { invalidRequest } from "./errors.ts";
import type { Call } from "./method.ts";

interface ParamDef {
  type: string;
  items?: { type: string };
}

interface MethodDef {
  type: string;
  parameters?: { properties?: Record<string, ParamDef> };
  input?: { encoding?: string; schema?: unknown };
}

function methodDef(nsid: string): MethodDef | undefined {
  return lexicons.getDef(nsid) as MethodDef | undefined;
}

/** A query-string value typed as its lexicon declares (left as text when it is not that type). */
function typed(type: string | undefined, value: string): unknown {
  if (type === "integer") return /^-?\d{1,15}$/.test(value) ? Number(value) : value;
  if (type === "boolean") return value === "true" ? true : value === "false" ? false : value;
  return value;
}

/** Throws InvalidRequest unless the query parameters the lexicon declares are valid for it. */
export function checkParams(nsid: string, params: Call["params"]): void {
  const properties = methodDef(nsid)?.parameters?.properties;
  if (!properties) return;
  const decoded: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(properties)) {
    const raw = params[name];
    if (raw === undefined) continue;
    const list = Array.isArray(raw) ? raw : [raw];
    decoded[name] = def.type === "array"
      ? list.map((v) => typed(def.items?.type, v))
      // a repeated key where one value is expected: the last one counts (xrpc/params.ts reads it so too)
      : typed(def.type, list[list.length - 1]);
  }
  try {
    lexicons.assertValidXrpcParams(nsid, decoded);
  } catch (error) {
    throw invalidRequest(error instanceof Error ? error.message : String(error));
  }
}

/** Throws InvalidRequest unless a JSON procedure's body is valid input for its lexicon. */
export function checkInput(nsid: string, input: Record<string, unknown>): void {
  const def = methodDef(nsid);
  if (!def?.input?.schema || def.input.encoding !== "application/json") return;
  try {
    lexicons.assertValidXrpcInput(nsid, jsonToLex(input));
  } catch (error) {
    throw invalidRequest(error instanceof Error ? error.message : String(error));
  }
}
