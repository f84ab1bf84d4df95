// What a cloud-mode write stores: the definition normalized, written as a form document and read back
// through the parser, so the API can only ever store a document a person could have written. Throws
// DefinitionError (from the normalizer) or DocumentError (from the parser).
import { DefinitionError, normalizeDefinition } from "./definition.ts";
import { type FormDocument, parseDocument, renderDocument } from "./document.ts";

/** The most a definition written through the API may weigh, as JSON text (a large form is ~200 kB). */
export const MAX_DEFINITION_CHARS = 2_000_000;

/** Refuses a definition over the size limit. */
export function checkDefinitionSize(definition: unknown): void {
  if ((JSON.stringify(definition) ?? "").length > MAX_DEFINITION_CHARS) {
    throw new DefinitionError(
      "invalid",
      `a definition is at most ${MAX_DEFINITION_CHARS} characters of JSON`,
    );
  }
}

export function buildDocument(definition: unknown, id: string, webhook?: string): FormDocument {
  checkDefinitionSize(definition);
  const core = normalizeDefinition(definition, id);
  const text = renderDocument({ core, ...(webhook ? { webhook } : {}) });
  return parseDocument(text);
}
