// The form page and its own routes (no key; limited per visitor address):
//
//   GET  /to/:slug                                  the page (pages/form.ts): the runner and the definition
//   GET  /to/_/:asset                               runner.js, logic.js, style.css
//   GET  /to/_/files/:form/:token/:ref/:name        a stored upload, to a signed address (one hour)
//   POST /to/:slug/responses                        landed: a response starts (hidden fields, metadata)
//   PATCH /to/:slug/responses/:token                answers so far and the slide reached
//   POST /to/:slug/responses/:token/files/:ref      a file answer (raw body, X-File-Name)
//   POST /to/:slug/responses/:token/submit          completed: path, score and ending recomputed here,
//                                                   webhooks enqueued in the same transaction
import { Hono } from "hono";
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { clientAddress, readUpTo } from "../../../shared/http.ts";
import { hmacSha256, randomBase62, toHex } from "../../../shared/ids.ts";
import { spaceId } from "../../../shared/site.ts";
import { verifyAddress } from "../../../shared/storage.ts";
import { assetUrl } from "../../../shared/site/media-address.ts";
import { FORM_ASSETS, formPageHtml, type PageAsset } from "../pages/form.ts";
import { compile, score as scoreOf, walk } from "../../../shared/forms/logic.js";
import type { FormsEnv } from "../access.ts";
import { readObject } from "../request.ts";
import { FormsError, invalid, notFound } from "../envelope.ts";
import { allFields, type FormCore } from "../domain/definition.ts";
import { addresses, documentOf, servedDefinition } from "../domain/forms.ts";
import {
  AnswerError,
  checkAnswer,
  type FileValue,
  formResponsePayload,
  logicValues,
  searchText,
  type StoredAnswer,
} from "../domain/responses.ts";
import { browserOf, hiddenFields, platformOf } from "../domain/visitor.ts";
import { enqueueCompletion } from "../webhook-adapter.ts";
import { assetsByPath, formTransaction, publishedForm } from "../store/forms.ts";
import {
  insertResponse,
  lockResponse,
  markSubmitted,
  type ResponseRow,
  saveProgress,
} from "../store/responses.ts";
import { localeOf } from "./forms.ts";
import { FILE_SECRET, UPLOAD_BUCKET, uploadKey } from "./responses.ts";

export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
const NETWORK_SECRET = "forms_network";
const TOKEN = /^[0-9A-Za-z]{20,64}$/;

export function pageRoutes(ctx: FunctionContext) {
  const app = new Hono<FormsEnv>({ strict: true });
  const at = addresses(ctx.config.publicUrl);

  async function form(c: Context<FormsEnv>, slug: string) {
    const locale = localeOf(c);
    const record = await publishedForm(ctx.sql, locale, slug);
    if (!record) throw notFound(`No form ${slug}.`);
    return { record, doc: documentOf(record, locale) };
  }

  function json(c: Context<FormsEnv>): Promise<Record<string, unknown>> {
    // a problem inside an answer is reported on its question, where the runner shows it
    return readObject(
      c.req.raw,
      (path) => path[0] === "answers" && path.length > 1 ? String(path[1]) : path.join("."),
    );
  }

  function openResponse(row: ResponseRow | undefined): ResponseRow {
    if (!row) throw notFound("No such response.");
    if (row.submitted_at) throw invalid("This response has been submitted already.", "token", "path");
    return row;
  }

  // ---- static files of the page
  app.get("/_/files/:form/:token/:ref/:name", async (c) => {
    const { form: formId, token, ref, name } = c.req.param();
    const path = `/to/_/files/${[formId, token, ref, name].map(encodeURIComponent).join("/")}`;
    const ok = await verifyAddress(
      await ctx.secrets.get(FILE_SECRET),
      path,
      new URL(c.req.url).searchParams,
      ctx.clock.now(),
    );
    if (!ok) throw new FormsError("FORBIDDEN", "This file address is not signed or has expired.");
    const object = await ctx.storage.get(UPLOAD_BUCKET, uploadKey(formId, token, ref, name));
    if (!object) throw notFound("No such file.");
    return new Response(object.bytes as BodyInit, {
      headers: {
        "content-type": object.contentType,
        "content-disposition": `attachment; filename*=UTF-8''${encodeURIComponent(name)}`,
        "cache-control": "private, max-age=3600",
        "x-content-type-options": "nosniff",
      },
    });
  });

  app.get("/_/:asset", async (c) => {
    const asset: PageAsset | undefined = FORM_ASSETS[c.req.param("asset")];
    if (!asset) throw notFound();
    return new Response(await asset.read() as BodyInit, {
      headers: { "content-type": asset.type, "cache-control": "public, max-age=300" },
    });
  });

  // ---- the page
  app.get(
    "/:slug/",
    (c) => c.redirect(`../${encodeURIComponent(c.req.param("slug"))}${new URL(c.req.url).search}`, 301),
  );
  app.get("/:slug", async (c) => {
    let found;
    try {
      found = await form(c, c.req.param("slug"));
    } catch (error) {
      if (error instanceof FormsError && error.code === "NOT_FOUND") {
        return c.html(
          formPageHtml({
            title: "Form not found",
            notice: "This form does not exist or is no longer published.",
          }),
          404,
        );
      }
      throw error;
    }
    const { record, doc } = found;
    if (doc.core.settings.is_public === false) {
      return c.html(
        formPageHtml({ title: doc.core.title, notice: "This form is closed to new responses." }),
        403,
      );
    }
    const definition = servedDefinition(doc.core, record, at);
    const pictures = await pictureAddresses(c, doc.core);
    return c.html(formPageHtml({ title: doc.core.title, definition, pictures }), 200, {
      "cache-control": "no-store",
    });
  });

  /** media/... picture hrefs of picture choices, as addresses of the images door. */
  async function pictureAddresses(c: Context<FormsEnv>, core: FormCore): Promise<Record<string, string>> {
    const hrefs = allFields(core).flatMap((f) =>
      ((f.properties.choices as { attachment?: { href: string } }[]) ?? [])
        .map((ch) => ch.attachment?.href).filter((h): h is string => Boolean(h) && /^\/?media\//.test(h!))
    );
    if (!hrefs.length) return {};
    const rows = await assetsByPath(ctx.sql, hrefs.map((h) => h.replace(/^\//, "")));
    const host = new URL(ctx.config.publicUrl).host;
    const out: Record<string, string> = {};
    for (const href of hrefs) {
      const row = rows.find((r) => r.path === href.replace(/^\//, ""));
      if (row) out[href] = assetUrl(row, { mediaHost: host, space: spaceId(c.get("site")) });
    }
    return out;
  }

  // ---- the response as the visitor goes
  app.post("/:slug/responses", async (c) => {
    const slug = c.req.param("slug");
    const { doc } = await form(c, slug);
    // settings.is_public false: the form takes no new responses
    if (doc.core.settings.is_public === false) {
      throw new FormsError("FORBIDDEN", "This form is closed to new responses.");
    }
    const body = await json(c);
    const search = typeof body.search === "string" ? body.search : "";
    const hash = typeof body.hash === "string" ? body.hash : "";
    const hidden = hiddenFields(new URLSearchParams(search), hash, doc.core.hidden);
    const userAgent = (c.req.header("user-agent") ?? "").slice(0, 500);
    const platform = platformOf(userAgent);
    const networkId = toHex(await hmacSha256(await ctx.secrets.get(NETWORK_SECRET), clientAddress(c))).slice(
      0,
      10,
    );
    const referer = typeof body.referer === "string" ? body.referer.slice(0, 2000) : "";
    const token = randomBase62(32);
    await insertResponse(ctx.sql, {
      token,
      form: slug,
      landedAt: ctx.clock.now(),
      metadata: {
        user_agent: userAgent,
        platform,
        referer,
        network_id: networkId,
        browser: browserOf(platform),
      },
      hidden,
      platform,
      networkId,
      searchText: searchText({}, hidden),
    });
    return c.json({ token, hidden }, 201);
  });

  app.patch("/:slug/responses/:token", async (c) => {
    const { slug, token } = c.req.param();
    if (!TOKEN.test(token)) throw notFound("No such response.");
    const { doc } = await form(c, slug);
    const body = await json(c);
    const fields = new Map(allFields(doc.core).map((f) => [f.ref, f]));
    const slides = doc.core.fields.map((g) => g.ref);
    const slide = typeof body.slide === "string" && slides.includes(body.slide) ? body.slide : undefined;
    const given = body.answers === undefined ? {} : body.answers;
    if (typeof given !== "object" || given === null || Array.isArray(given)) {
      throw invalid("answers must be an object", "answers", "body");
    }
    await formTransaction(ctx.sql, async (tx) => {
      const row = openResponse(await lockResponse(tx, slug, token));
      const answers = { ...row.answers };
      applyAnswers(answers, given as Record<string, unknown>, fields);
      const seen = slide && !row.seen.includes(slide) ? [...row.seen, slide] : row.seen;
      // the furthest slide reached, not the latest: a visitor who went Back and left dropped off where
      // they had got to (insights count a slide's dropoffs as those that went no further)
      const furthest = slide && slides.indexOf(slide) > slides.indexOf(row.last_slide ?? "")
        ? slide
        : row.last_slide;
      await saveProgress(tx, token, {
        answers,
        seen,
        lastSlide: furthest,
        searchText: searchText(answers, row.hidden),
        now: ctx.clock.now(),
      });
    });
    return c.json({ token, saved: true });
  });

  app.post("/:slug/responses/:token/files/:ref", async (c) => {
    const { slug, token, ref } = c.req.param();
    if (!TOKEN.test(token)) throw notFound("No such response.");
    const { doc } = await form(c, slug);
    const field = allFields(doc.core).find((f) => f.ref === ref);
    if (!field || field.type !== "file_upload") throw notFound(`No file question ${ref}.`);
    const declared = Number(c.req.header("content-length") ?? 0);
    // read no further than the limit, whatever the sender declared
    const bytes = declared > MAX_UPLOAD_BYTES ? undefined : await readUpTo(c.req.raw.body, MAX_UPLOAD_BYTES);
    if (!bytes) throw new FormsError("PAYLOAD_TOO_LARGE", "Files are at most 10 MB.");
    if (!bytes.byteLength) throw invalid("The file is empty.", ref, "body");
    const name = uploadName(c.req.header("x-file-name"));
    const contentType = (c.req.header("content-type") ?? "application/octet-stream").split(";")[0].trim()
      .slice(0, 100);
    const file: FileValue = {
      name,
      key: uploadKey(slug, token, ref, name),
      size: bytes.byteLength,
      content_type: contentType,
    };
    const previous = await formTransaction(ctx.sql, async (tx) => {
      const row = openResponse(await lockResponse(tx, slug, token));
      const old = row.answers[ref];
      const answers = { ...row.answers, [ref]: { type: "file_url", field_type: "file_upload", value: file } };
      await saveProgress(tx, token, {
        answers,
        seen: row.seen,
        lastSlide: row.last_slide,
        searchText: searchText(answers, row.hidden),
        now: ctx.clock.now(),
      });
      return old?.type === "file_url" ? (old.value as FileValue) : undefined;
    });
    await ctx.storage.put(UPLOAD_BUCKET, file.key, bytes, contentType);
    if (previous && previous.key !== file.key) await ctx.storage.delete(UPLOAD_BUCKET, previous.key);
    return c.json({ name, size: file.size }, 201);
  });

  app.post("/:slug/responses/:token/submit", async (c) => {
    const { slug, token } = c.req.param();
    if (!TOKEN.test(token)) throw notFound("No such response.");
    const { doc } = await form(c, slug);
    const body = await json(c);
    const fields = new Map(allFields(doc.core).map((f) => [f.ref, f]));
    const rules = compile(doc.core);
    const result = await formTransaction(ctx.sql, async (tx) => {
      const row = openResponse(await lockResponse(tx, slug, token));
      const answers = { ...row.answers };
      if (body.answers !== undefined) {
        if (typeof body.answers !== "object" || body.answers === null) {
          throw invalid("answers must be an object", "answers", "body");
        }
        applyAnswers(answers, body.answers as Record<string, unknown>, fields);
      }
      // the path these answers take decides what is required and what counts
      const { path, ending } = walk(rules, logicValues(answers));
      const onPath = new Set(path.flatMap((i) => rules.slides[i].fields));
      for (const ref of onPath) {
        const field = fields.get(ref)!;
        if (field.validations.required && !answers[ref]) {
          throw new AnswerError(ref, "This question needs an answer.");
        }
      }
      for (const ref of Object.keys(answers)) if (!onPath.has(ref)) delete answers[ref];
      const score = scoreOf(rules, logicValues(answers), path);
      const end = doc.core.thankyou_screens.find((t) => t.ref === ending) ?? doc.core.thankyou_screens[0];
      const now = ctx.clock.now();
      const seen = [...new Set([...row.seen, ...path.map((i) => rules.slides[i].ref)])];
      const done = {
        answers,
        seen,
        lastSlide: rules.slides[path[path.length - 1]]?.ref ?? null,
        score,
        ending: { id: end.id, ref: end.ref },
        searchText: searchText(answers, row.hidden),
        now,
      };
      await markSubmitted(tx, token, done);
      const submitted = { ...row, answers, score, ending: done.ending, submitted_at: now };
      await enqueueCompletion(tx, {
        form: slug,
        documentWebhook: doc.webhook,
        payload: (eventId) => formResponsePayload(submitted, { core: doc.core, apiBase: at.api, eventId }),
        now,
      });
      return { response_id: token, score, ending: done.ending };
    });
    return c.json(result);
  });

  return app;
}

/**
 * The stored name of an upload from its X-File-Name header (percent-encoded, as the runner sends it): a
 * plain file name, no folders, no control characters, never `.` or `..` (a storage address ending so
 * would name the folder above); `upload` when nothing is left. A header that is not valid
 * percent-encoding is VALIDATION_ERROR.
 */
export function uploadName(header: string | undefined): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(header ?? "");
  } catch {
    throw invalid("X-File-Name must be the file's name, percent-encoded (UTF-8).", "X-File-Name", "header");
  }
  // deno-lint-ignore no-control-regex
  const name = decoded.split(/[\\/]/).pop()!.replace(/[\u0000-\u001f\u007f]/g, "").slice(-120).trim();
  return name === "" || name === "." || name === ".." ? "upload" : name;
}

/** Applies the page's answers (ref → value, null clears) after checking each against its question. */
function applyAnswers(
  answers: Record<string, StoredAnswer>,
  given: Record<string, unknown>,
  fields: Map<string, import("../domain/definition.ts").Field>,
) {
  for (const [ref, raw] of Object.entries(given)) {
    const field = fields.get(ref);
    if (!field) throw new AnswerError(ref, `The form has no question ${ref}.`);
    if (field.type === "file_upload") {
      // files arrive through their own route; here a file answer can only be cleared
      if (raw !== null) throw new AnswerError(ref, "Files are sent to the upload address.");
      delete answers[ref];
      continue;
    }
    const answer = checkAnswer(field, raw);
    if (answer) answers[ref] = answer;
    else delete answers[ref];
  }
}
