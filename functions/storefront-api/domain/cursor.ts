// Opaque connection cursors: base64url of a small JSON array (the sort value and a tie-breaker, or a
// position). Stable for a given sort, so a client re-sending the same query with `after` continues.
import { base64url, fromBase64url } from "../../../shared/ids.ts";
import { StoreInputError } from "./errors.ts";

export function encodeCursor(parts: unknown[]): string {
  return base64url(new TextEncoder().encode(JSON.stringify(parts)));
}

/** The parts of a cursor we issued; a StoreInputError (a GraphQL error, HTTP 200) for anything else. */
export function decodeCursor(cursor: string, length: number): unknown[] {
  try {
    const parts = JSON.parse(new TextDecoder().decode(fromBase64url(cursor)));
    if (Array.isArray(parts) && parts.length === length) return parts;
  } catch {
    // fall through
  }
  throw new StoreInputError(`Invalid cursor: ${JSON.stringify(cursor).slice(0, 80)}`);
}
