// Content types as the wire shows them, derived from the models the site import stored.
import { fieldHoldsSearchedText, type FieldType, type ModelField } from "../../../shared/site/models.ts";

export type { FieldType };
/** A field as the content type lists it; the site import writes exactly this shape. */
export type ContentTypeField = ModelField;

export interface ContentModel {
  id: string;
  name: string;
  description: string;
  displayField: string | null;
  fields: ContentTypeField[];
  revision: number;
  createdAt: string;
  updatedAt: string;
}

export function findField(model: ContentModel, id: string): ContentTypeField | undefined {
  return model.fields.find((f) => f.id === id);
}

/** Rich-text fields and their markdown twins make up an entry's body, which gating withholds. */
export function bodyFieldIds(model: ContentModel): Set<string> {
  const ids = new Set<string>();
  for (const field of model.fields) {
    if (field.type === "RichText") {
      ids.add(field.id);
      ids.add(`${field.id}Markdown`);
    }
  }
  return ids;
}

/**
 * The fields whose text `query` finds an entry by, body aside: those whose strings the site import and
 * management writes put in search_text besides the body (shared/site/models.ts, fieldHoldsSearchedText).
 */
export function searchedTextFieldIds(model: ContentModel): string[] {
  const body = bodyFieldIds(model);
  return model.fields.filter((f) => !body.has(f.id) && fieldHoldsSearchedText(f)).map((f) => f.id);
}

export function isLinkField(field: ContentTypeField): boolean {
  return field.type === "Link" || (field.type === "Array" && field.items?.type === "Link");
}
