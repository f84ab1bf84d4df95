// GET /files/<id>: a line's file, by its signed one-hour address (files.ts).
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { forbidden, notFound } from "../envelope.ts";
import { fileAddressValid } from "../files.ts";
import { attachmentFile, FILES_BUCKET } from "../store/files.ts";
import { idParam } from "./common.ts";

export function fileHandler(ctx: FunctionContext) {
  return async (c: Context) => {
    const id = idParam(c, "id", "File");
    if (!await fileAddressValid(ctx, String(id), new URL(c.req.url).searchParams)) {
      throw forbidden("The file's address has expired or is not genuine.");
    }
    const file = await attachmentFile(ctx.sql, id);
    const stored = file ? await ctx.storage.get(FILES_BUCKET, file.storage_key) : null;
    if (!file || !stored) throw notFound("File");
    return new Response(stored.bytes as BodyInit, {
      status: 200,
      headers: {
        "content-type": file.content_type,
        "cache-control": "private, max-age=3600",
        "x-content-type-options": "nosniff",
        // a file is shown by the widget or downloaded, never run as a page of the site
        "content-security-policy": "default-src 'none'; sandbox",
      },
    });
  };
}
