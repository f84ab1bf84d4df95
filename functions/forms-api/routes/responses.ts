// /forms/:id/responses: the list (every argument of the spec's table), deletion with answers and
// files, and the file redirect (302 to a signed address valid one hour).
import { Hono } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { signAddress } from "../../../shared/storage.ts";
import type { FormsEnv } from "../access.ts";
import { invalid, listBody, notFound } from "../envelope.ts";
import { listArg } from "../domain/arguments.ts";
import { addresses } from "../domain/forms.ts";
import { type FileValue, parseResponseQuery, responseItem } from "../domain/responses.ts";
import { cursorOf, deleteResponses, listResponses, responseAnswer } from "../store/responses.ts";
import { formTransaction } from "../store/forms.ts";
import { loadForm } from "./forms.ts";

export const UPLOAD_BUCKET = "form-uploads";
export const FILE_SECRET = "forms_files";

/** Where an uploaded file is kept: <form>/<token>/<ref>/<name>. */
export const uploadKey = (form: string, token: string, ref: string, name: string) =>
  `${form}/${token}/${ref}/${name}`;

/** The public path (under the form page's routes) that serves a stored upload to a signed address. */
export const filePath = (form: string, token: string, ref: string, name: string) =>
  `/to/_/files/${[form, token, ref, name].map(encodeURIComponent).join("/")}`;

export function responseRoutes(ctx: FunctionContext) {
  const app = new Hono<FormsEnv>({ strict: false });
  const at = addresses(ctx.config.publicUrl);

  app.get("/", async (c) => {
    const id = c.req.param("id")!;
    const { query, cursor } = parseResponseQuery(new URL(c.req.url).searchParams);
    // the form (for its fields' order) and the page are read side by side
    const page = async () => {
      let position: { direction: "before" | "after"; token: string; at: Date } | undefined;
      if (cursor) {
        const found = await cursorOf(ctx.sql, id, cursor.token);
        if (!found) throw invalid(`${cursor.direction} names no response of this form`, cursor.direction);
        position = { ...cursor, at: query.sort.key === "landed_at" ? found.landed_at : found.at };
      }
      return await listResponses(ctx.sql, id, query, position);
    };
    const [{ doc }, { rows, total }] = await Promise.all([loadForm(ctx, c, id), page()]);
    const items = rows.map((row) =>
      responseItem(row, { core: doc.core, apiBase: at.api, fields: query.fields })
    );
    return c.json(listBody(items, total, query.pageSize));
  });

  app.delete("/", async (c) => {
    const id = c.req.param("id")!;
    const params = new URL(c.req.url).searchParams;
    const tokens = listArg(params, "included_tokens") ?? listArg(params, "included_response_ids");
    if (!tokens?.length) {
      throw invalid("Name the responses to delete: included_tokens=<token,token,...>", "included_tokens");
    }
    await loadForm(ctx, c, id);
    const deleted = await formTransaction(ctx.sql, (tx) => deleteResponses(tx, id, tokens));
    // the rows are gone; their files follow (a file left behind is unreachable: nothing names it)
    await Promise.all(deleted.flatMap((row) =>
      Object.entries(row.answers)
        .filter(([, a]) => a.type === "file_url")
        .map(([, a]) => ctx.storage.delete(UPLOAD_BUCKET, (a.value as FileValue).key))
    ));
    return c.body(null, 204);
  });

  app.get("/:token/fields/:ref/files/:name", async (c) => {
    const { id, token, ref, name } = c.req.param() as Record<string, string>;
    await loadForm(ctx, c, id);
    const answer = await responseAnswer(ctx.sql, id, token, ref);
    const file = answer?.type === "file_url" ? answer.value as FileValue : undefined;
    if (!file || file.name !== name) throw notFound("No such file in this response.");
    const path = filePath(id, token, ref, name);
    const query = await signAddress(await ctx.secrets.get(FILE_SECRET), path, ctx.clock.now());
    return c.redirect(`${at.base}${path}?${query}`, 302);
  });

  return app;
}
