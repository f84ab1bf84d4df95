// Where the images door (the content function's /api/media) serves a library file: content's delivery
// shapes and the form page's pictures both name files by this address.

/** Where library files are served, protocol-relative, up to the asset id. */
export function mediaPrefix(ctx: { mediaHost: string; space: string }): string {
  return `//${ctx.mediaHost}/api/media/${encodeURIComponent(ctx.space)}/`;
}

/** A library file's address; what the file's row must say of it. */
export function assetUrl(
  row: { id: string; path: string; content_hash: string; file_name: string },
  ctx: { mediaHost: string; space: string },
): string {
  // a picture a record names by its address elsewhere keeps that address (content's store says the same in SQL)
  if (/^https?:\/\//.test(row.path)) return row.path;
  return `${mediaPrefix(ctx)}${row.id}/${row.content_hash}/${encodeURIComponent(row.file_name)}`;
}
