// The content API's value lists and limits that its OpenAPI sections state: the content function
// validates against these very lists, so the document and the function cannot disagree, and content's
// OpenAPI sections need no code of the function.

/** Asset lists' mimetype_group values, each the content-type prefixes it matches. */
export const MIMETYPE_GROUPS: Record<string, string[]> = {
  attachment: [],
  plaintext: ["text/plain"],
  image: ["image/"],
  audio: ["audio/"],
  video: ["video/"],
  richtext: [
    "text/richtext",
    "application/rtf",
    "application/msword",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.",
    "application/vnd.oasis.opendocument.text",
  ],
  presentation: [
    "application/vnd.ms-powerpoint",
    "application/vnd.openxmlformats-officedocument.presentationml.",
    "application/vnd.oasis.opendocument.presentation",
    "application/vnd.apple.keynote",
  ],
  spreadsheet: [
    "application/vnd.ms-excel",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.",
    "application/vnd.oasis.opendocument.spreadsheet",
    "text/csv",
  ],
  pdfdocument: ["application/pdf"],
  archive: [
    "application/zip",
    "application/x-tar",
    "application/gzip",
    "application/x-7z-compressed",
    "application/x-rar-compressed",
  ],
  code: [
    "application/json",
    "application/javascript",
    "text/javascript",
    "text/html",
    "text/css",
    "application/xml",
    "text/xml",
    "application/x-sh",
    "text/markdown",
  ],
};

/** The images door's fit, f (focus) and fm values. */
export const FITS = ["pad", "fill", "scale", "crop", "thumb"] as const;
export type Fit = typeof FITS[number];
export const FOCI: readonly string[] = [
  "center",
  "top",
  "right",
  "left",
  "bottom",
  "top_right",
  "top_left",
  "bottom_right",
  "bottom_left",
  "face",
  "faces",
];
export const FORMATS: readonly string[] = ["jpg", "png", "webp", "gif", "avif"];

/** Largest file an upload (or a fetched address) may hold. */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
