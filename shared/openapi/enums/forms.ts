// The forms API's value lists that its OpenAPI section states: the forms function validates against
// these very lists, so the document and the function cannot disagree, and the forms section needs no code
// of the function.

/** The definition's field types the forms runner has a kind for. */
export const FIELD_TYPES = [
  "short_text",
  "long_text",
  "email",
  "website",
  "phone_number",
  "number",
  "file_upload",
  "dropdown",
  "multiple_choice",
  "picture_choice",
  "rating",
  "opinion_scale",
  "date",
  "statement",
] as const;

/** The response list's sort values. */
export const RESPONSE_SORTS = ["submitted_at,desc", "submitted_at,asc", "landed_at,asc", "landed_at,desc"] as const;
export type ResponseSort = typeof RESPONSE_SORTS[number];
