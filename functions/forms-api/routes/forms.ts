// /forms: list, read, and in cloud mode create (POST), replace (PUT), patch (PATCH, RFC 6902) and
// delete. Every write builds the form document, reads it back through the parser and publishes it at
// once; in git mode every write is METHOD_NOT_ALLOWED.
import { Hono } from "hono";
import type { Context } from "hono";
import fastJsonPatch from "fast-json-patch";
import type { FunctionContext } from "../../../shared/context.ts";
import { defaultLocale } from "../../../shared/site.ts";
import type { FormsEnv } from "../access.ts";
import { readBody } from "../request.ts";
import { FormsError, invalid, listBody, notFound } from "../envelope.ts";
import { intArg } from "../domain/arguments.ts";
import { DefinitionError, FORM_ID_PATTERN, slugify } from "../domain/definition.ts";
import { addresses, documentOf, listItem, servedDefinition } from "../domain/forms.ts";
import { buildDocument, checkDefinitionSize } from "../domain/writes.ts";
import {
  deleteFormEntry,
  formIdTaken,
  formTransaction,
  listForms,
  lockFormEntry,
  lockFormId,
  publishedForm,
  publishForm,
} from "../store/forms.ts";

/** The entry a new form gets: records/pages/forms/<id>.md. */
const entryIdFor = (id: string) => `page.forms.${id}`;
const pathFor = (id: string) => `records/pages/forms/${id}.md`;

export const localeOf = (c: Context<FormsEnv>) => defaultLocale(c.get("site")).code;

/** The published form with this id and its definition; NOT_FOUND for any other id. */
export async function loadForm(ctx: FunctionContext, c: Context<FormsEnv>, id: string) {
  const locale = localeOf(c);
  const record = await publishedForm(ctx.sql, locale, id);
  if (!record) throw notFound(`No form ${id}.`);
  return { record, doc: documentOf(record, locale), locale };
}

function refuseInGitMode(c: Context<FormsEnv>) {
  if (c.get("site").mode !== "cloud") {
    throw new FormsError(
      "METHOD_NOT_ALLOWED",
      "The site is in git mode: its forms are files in the site's repository and cannot be changed through the API.",
    );
  }
}

export function formRoutes(ctx: FunctionContext) {
  const app = new Hono<FormsEnv>({ strict: false });
  const at = addresses(ctx.config.publicUrl);

  app.get("/", async (c) => {
    const params = new URL(c.req.url).searchParams;
    const page = intArg(params, "page", [1, 1_000_000], 1);
    const pageSize = intArg(params, "page_size", [1, 200], 10);
    const workspace = params.get("workspace_id");
    const locale = localeOf(c);
    if (workspace && workspace !== "default") return c.json(listBody([], 0, pageSize));
    const { rows, total } = await listForms(ctx.sql, locale, {
      search: params.get("search")?.trim() || undefined,
      offset: (page - 1) * pageSize,
      limit: pageSize,
    });
    return c.json(listBody(rows.map((r) => listItem(r, locale, at)), total, pageSize));
  });

  app.get("/:id", async (c) => {
    const { record, doc } = await loadForm(ctx, c, c.req.param("id"));
    return c.json(servedDefinition(doc.core, record, at));
  });

  /**
   * Writes a definition at `id` in one transaction that holds the id: `create` answers "taken" when a
   * form (or another page) is there already; `replace` keeps an existing form's place, its other
   * fields and its own webhook. Answers whether the form was created.
   */
  async function write(c: Context<FormsEnv>, id: string, definition: unknown, mode: "create" | "replace") {
    const locale = localeOf(c);
    const now = ctx.clock.now();
    return await formTransaction(ctx.sql, async (tx) => {
      await lockFormId(tx, id);
      const existing = await lockFormEntry(tx, locale, id);
      if (!existing && await formIdTaken(tx, locale, id, entryIdFor(id))) {
        if (mode === "create") return "taken" as const;
        throw invalid(`The id ${id} belongs to a page that is not a form.`, "id", "path");
      }
      if (existing && mode === "create") return "taken" as const;
      const webhook = existing?.fields.form?.[locale] as { webhook?: string } | undefined;
      const doc = buildDocument(definition, id, webhook?.webhook);
      await publishForm(tx, {
        doc,
        locale,
        id: existing?.id ?? entryIdFor(id),
        path: existing?.path ?? pathFor(id),
        existing,
        now,
      });
      return existing ? "replaced" as const : "created" as const;
    });
  }

  async function readBack(c: Context<FormsEnv>, id: string) {
    const { record, doc } = await loadForm(ctx, c, id);
    return servedDefinition(doc.core, record, at);
  }

  app.post("/", async (c) => {
    refuseInGitMode(c);
    const definition = await readBody(c.req.raw);
    const given = (definition as { id?: unknown } | null)?.id;
    if (given !== undefined && given !== null && typeof given !== "string") {
      throw invalid("id must be text: lower-case letters, digits and -", "id", "body");
    }
    if (typeof given === "string" && given !== "") {
      if (!FORM_ID_PATTERN.test(given)) {
        throw invalid("id must be lower-case letters, digits and -, at most 100 characters", "id", "body");
      }
      if (await write(c, given, definition, "create") === "taken") {
        throw invalid(
          `A form with the id ${given} exists: use PUT /forms/${given} to replace it.`,
          "id",
          "body",
        );
      }
      return c.json(await readBack(c, given), 201);
    }
    const title = (definition as { title?: unknown } | null)?.title;
    const base = typeof title === "string" ? slugify(title) : "";
    if (!base) throw invalid("Nothing names the form: give an id or a title.", "title", "body");
    // a derived id that is taken gets the next free suffix, so a client's forms.copy() works
    for (let n = 1; n <= 1000; n++) {
      const id = n === 1 ? base : `${base.slice(0, 90)}-${n}`;
      if (await write(c, id, definition, "create") !== "taken") return c.json(await readBack(c, id), 201);
    }
    throw invalid(`Too many forms are named ${base}.`, "title", "body");
  });

  app.put("/:id", async (c) => {
    refuseInGitMode(c);
    const id = c.req.param("id");
    if (!FORM_ID_PATTERN.test(id)) {
      throw invalid("A form id is lower-case letters, digits and -.", "id", "path");
    }
    const outcome = await write(c, id, await readBody(c.req.raw), "replace");
    return c.json(await readBack(c, id), outcome === "created" ? 201 : 200);
  });

  app.patch("/:id", async (c) => {
    refuseInGitMode(c);
    const id = c.req.param("id");
    const ops = await readBody(c.req.raw);
    const { record, doc } = await loadForm(ctx, c, id);
    if (!Array.isArray(ops)) {
      throw invalid("A PATCH body is a JSON Patch: a list of operations.", "body", "body");
    }
    let patched: unknown = structuredClone(servedDefinition(doc.core, record, at));
    try {
      // one operation at a time: a copy can double the definition, so its size is checked as it grows
      for (const [index, op] of (ops as fastJsonPatch.Operation[]).entries()) {
        patched = fastJsonPatch.applyOperation(patched, op, true, true, true, index).newDocument;
        if (op?.op === "copy") checkDefinitionSize(patched);
      }
    } catch (error) {
      if (error instanceof DefinitionError) throw error;
      const name = (error as { name?: string }).name ?? "";
      const why = name === "TEST_OPERATION_FAILED"
        ? "a test operation failed"
        : (error as Error).message.split("\n")[0];
      throw invalid(`The patch cannot be applied: ${why}.`, "body", "body");
    }
    await write(c, id, patched, "replace");
    return c.json(await readBack(c, id), 200);
  });

  app.delete("/:id", async (c) => {
    refuseInGitMode(c);
    const id = c.req.param("id");
    const { record } = await loadForm(ctx, c, id);
    // the removal is published at once; responses stay
    await formTransaction(ctx.sql, (tx) => deleteFormEntry(tx, record.id));
    return c.body(null, 204);
  });

  return app;
}
