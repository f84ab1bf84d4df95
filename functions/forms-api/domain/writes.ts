// What a cloud-mode write stores: the definition normalized, written as a form document and read back
// through the parser, so the API can only ever store a document a person could have written. Throws
// DefinitionError (from the normalizer) or DocumentError (from the parser).
import { normalizeDefinition } from "./definition.ts";
import { type FormDocument, parseDocument, renderDocument } from "./document.ts";

export function buildDocument(definition: unknown, id: string, webhook?: string): FormDocument {
  const core = normalizeDefinition(definition, id);
  const text = renderDocument({ core, ...(webhook ? { webhook } : {}) });
  return parseDocument(text);
}
