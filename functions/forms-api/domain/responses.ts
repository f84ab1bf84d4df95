// Responses: the list's arguments, what the form page may store as an answer, the response item as the
// API shows it, and the webhook body of a completed response. Pure: no SQL, no HTTP.
import { RESPONSE_SORTS, type ResponseSort } from "../../../shared/openapi/enums/forms.ts";
import { EMAIL_SHAPE } from "../../../shared/email.ts";
import { allFields, answerType, type Choice, type Field, type FormCore } from "./definition.ts";
import { ArgumentError, instantArg, intArg, isoSeconds, listArg } from "./arguments.ts";

export interface ResponseQuery {
  pageSize: number;
  since?: Date;
  until?: Date;
  includedTokens?: string[];
  completed?: boolean;
  /** a to_tsquery text: every word of `query` as a prefix */
  query?: string;
  /** a `query` without a word in it: it finds nothing rather than everything */
  matchesNothing?: boolean;
  fields?: string[];
  answeredFields?: string[];
  sort: { key: "at" | "landed_at"; direction: "asc" | "desc" };
}

export interface ParsedResponseQuery {
  query: ResponseQuery;
  cursor?: { direction: "before" | "after"; token: string };
}

/** The list's sort values (RESPONSE_SORTS, which the OpenAPI section states), as the query orders. */
const SORTS: Record<ResponseSort, ResponseQuery["sort"]> = {
  "submitted_at,desc": { key: "at", direction: "desc" },
  "submitted_at,asc": { key: "at", direction: "asc" },
  "landed_at,asc": { key: "landed_at", direction: "asc" },
  "landed_at,desc": { key: "landed_at", direction: "desc" },
};

/**
 * The words of a text, for `query`: runs of letters and digits, lower case. Answers are stored as these
 * words and a query is read by the same rule, so "ann.lee@example.com" or "report.pdf" is found by
 * itself or by any of its parts (Postgres' own parser would keep an address or a file name as one
 * lexeme that no prefix of its parts matches).
 */
export function searchWords(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Words of `query` as a tsquery of prefixes (`'harbor':* & 'tea':*`); undefined when it has none. */
export function searchQuery(text: string): string | undefined {
  const words = searchWords(text);
  if (!words.length) return undefined;
  return words.slice(0, 16).map((w) => `'${w}':*`).join(" & ");
}

export function parseResponseQuery(params: URLSearchParams): ParsedResponseQuery {
  const query: ResponseQuery = {
    pageSize: intArg(params, "page_size", [1, 1000], 25),
    since: instantArg(params, "since"),
    until: instantArg(params, "until"),
    sort: SORTS["submitted_at,desc"],
  };
  const sort = params.get("sort");
  if (sort !== null && sort !== "") {
    const chosen = SORTS[sort.replace(/\s+/g, "") as ResponseSort];
    if (!chosen) throw new ArgumentError(`sort must be one of ${RESPONSE_SORTS.join(", ")}`, "sort");
    query.sort = chosen;
  }
  const included = listArg(params, "included_response_ids");
  if (included) query.includedTokens = included;
  const completed = params.get("completed");
  if (completed !== null && completed !== "" && completed !== "all") {
    if (completed !== "true" && completed !== "false") {
      throw new ArgumentError("completed must be true, false or all", "completed");
    }
    query.completed = completed === "true";
  }
  const text = params.get("query");
  if (text !== null && text.trim()) {
    const q = searchQuery(text);
    if (q) query.query = q;
    else query.matchesNothing = true;
  }
  const fields = listArg(params, "fields");
  if (fields) query.fields = fields;
  const answered = listArg(params, "answered_fields", 100);
  if (answered) query.answeredFields = answered;
  const before = params.get("before"), after = params.get("after");
  if (before && after) throw new ArgumentError("give before or after, not both", "before");
  const token = before || after;
  return { query, ...(token ? { cursor: { direction: before ? "before" : "after", token } } : {}) };
}

// ------------------------------------------------------------------------------------ answers

export interface StoredAnswer {
  type: string;
  field_type: string;
  value: unknown;
}

export interface FileValue {
  name: string;
  key: string;
  size: number;
  content_type: string;
}

const PHONE = /^\+?[0-9 ().-]{5,30}$/;

/** Why an answer is refused: the runner shows it beside the question. */
export class AnswerError extends Error {
  constructor(readonly ref: string, message: string) {
    super(message);
  }
}

function findChoice(choices: Choice[], pick: unknown): Choice | undefined {
  if (typeof pick === "string") {
    return choices.find((c) => c.ref === pick) ?? choices.find((c) => c.label === pick);
  }
  if (pick && typeof pick === "object" && "ref" in pick) {
    return findChoice(choices, (pick as { ref: unknown }).ref);
  }
  return undefined;
}

/**
 * What the form page sent for a question, checked against it: the stored answer, or undefined when the
 * visitor cleared it. File answers come from the upload route, never from here.
 */
export function checkAnswer(field: Field, raw: unknown): StoredAnswer | undefined {
  const type = answerType(field);
  const fail = (why: string): never => {
    throw new AnswerError(field.ref, why);
  };
  if (!type) fail("this field takes no answer");
  if (raw === undefined || raw === null || raw === "" || (Array.isArray(raw) && !raw.length)) {
    return undefined;
  }
  const answer = (value: unknown): StoredAnswer => ({ type: type!, field_type: field.type, value });
  const p = field.properties as Record<string, any>;
  const v = field.validations;
  switch (field.type) {
    case "short_text":
    case "long_text": {
      if (typeof raw !== "string") return fail("Please type your answer.");
      const text = raw.trim();
      if (!text) return undefined;
      if (v.max_length !== undefined && [...text].length > v.max_length) {
        fail(`Please keep it under ${v.max_length + 1} characters.`);
      }
      if (text.length > 20000) fail("That answer is too long.");
      return answer(text);
    }
    case "email": {
      const text = typeof raw === "string" ? raw.trim() : "";
      if (!EMAIL_SHAPE.test(text) || text.length > 320) fail("Please enter a valid email address.");
      return answer(text);
    }
    case "website": {
      let text = typeof raw === "string" ? raw.trim() : "";
      if (text && !/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) text = `https://${text}`;
      let ok = false;
      try {
        const url = new URL(text);
        ok = (url.protocol === "http:" || url.protocol === "https:") && url.hostname.includes(".");
      } catch { /* not a URL */ }
      if (!ok || text.length > 2048) fail("Please enter a valid website address.");
      return answer(text);
    }
    case "phone_number": {
      const text = typeof raw === "string" ? raw.trim() : "";
      if (!PHONE.test(text) || (text.match(/\d/g) ?? []).length < 5) {
        fail("Please enter a valid phone number.");
      }
      return answer(text);
    }
    case "number": {
      const n = typeof raw === "number"
        ? raw
        : typeof raw === "string" && raw.trim() !== ""
        ? Number(raw)
        : NaN;
      if (!Number.isFinite(n)) fail("Please enter a number.");
      if (v.min_value !== undefined && n < v.min_value) {
        fail(`Please enter a number of at least ${v.min_value}.`);
      }
      if (v.max_value !== undefined && n > v.max_value) {
        fail(`Please enter a number of at most ${v.max_value}.`);
      }
      return answer(n);
    }
    case "rating":
    case "opinion_scale": {
      const n = typeof raw === "number" ? raw : Number(raw);
      const start = field.type === "rating" ? 1 : p.start_at_one ? 1 : 0;
      const end = field.type === "rating" ? p.steps : start + p.steps - 1;
      if (!Number.isInteger(n) || n < start || n > end) fail(`Please pick a number from ${start} to ${end}.`);
      return answer(n);
    }
    case "date": {
      const text = typeof raw === "string" ? raw.trim() : "";
      const m = text.match(/^(\d{4})-(\d{2})-(\d{2})$/);
      const d = m ? new Date(`${text}T00:00:00Z`) : undefined;
      if (!m || !d || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== text) {
        fail("Please enter a valid date.");
      }
      return answer(text);
    }
    case "file_upload":
      return fail("Files are sent to the upload address.");
    case "dropdown":
    case "multiple_choice":
    case "picture_choice": {
      const choices = p.choices as Choice[];
      const multiple = Boolean(p.allow_multiple_selection) && field.type !== "dropdown";
      const picks = Array.isArray(raw) ? raw : [raw];
      if (!multiple && picks.length > 1) fail("Please pick one answer.");
      let other: string | undefined;
      const chosen: Choice[] = [];
      for (const pick of picks) {
        if (pick && typeof pick === "object" && "other" in pick) {
          if (!p.allow_other_choice) fail("This question has no Other answer.");
          const text = String((pick as { other: unknown }).other ?? "").trim();
          if (!text) continue;
          if (text.length > 1000) fail("That answer is too long.");
          other = text;
          continue;
        }
        const choice = findChoice(choices, pick);
        if (!choice) fail("Please pick one of the choices.");
        if (!chosen.includes(choice!)) chosen.push(choice!);
      }
      if (!chosen.length && other === undefined) return undefined;
      if (!multiple) {
        const c = chosen[0];
        return answer(c ? { id: c.id, ref: c.ref, label: c.label } : { label: other, other });
      }
      return answer({
        ids: chosen.map((c) => c.id),
        refs: chosen.map((c) => c.ref),
        labels: [...chosen.map((c) => c.label), ...(other !== undefined ? [other] : [])],
        ...(other !== undefined ? { other } : {}),
      });
    }
  }
  return fail("this field takes no answer");
}

/** An answer's value as the logic reads it (choices by label and ref, files by name). */
export function logicValues(answers: Record<string, StoredAnswer>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(answers).map(([ref, a]) => [ref, a.value]));
}

/** Answers and hidden values as words, for `query`. */
export function searchText(answers: Record<string, StoredAnswer>, hidden: Record<string, string>): string {
  const words: string[] = [];
  const add = (v: unknown) => {
    if (typeof v === "string" || typeof v === "number") words.push(String(v));
    else if (Array.isArray(v)) v.forEach(add);
    else if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      if ("labels" in o) add(o.labels);
      else if ("label" in o) add(o.label);
      else if ("name" in o) add(o.name);
    }
  };
  for (const a of Object.values(answers)) add(a.value);
  for (const h of Object.values(hidden)) add(h);
  return searchWords(words.join(" ")).join(" ").slice(0, 100_000);
}

// ---------------------------------------------------------------------------- response items

export interface ResponseRowLike {
  token: string;
  landed_at: Date;
  submitted_at: Date | null;
  metadata: Record<string, string>;
  hidden: Record<string, string>;
  answers: Record<string, StoredAnswer>;
  score: number | null;
  ending: { id: string; ref: string } | null;
}

export interface ItemContext {
  core: FormCore;
  /** the Forms API's public base, e.g. https://site/api (file answers point at its file route) */
  apiBase: string;
  /** only these fields' answers (ids or refs) */
  fields?: string[];
}

/** One answer as the API shows it: { field: { id, type, ref }, type, <value member named as the type> }. */
export function wireAnswer(
  field: Field,
  answer: StoredAnswer,
  ctx: { apiBase: string; formId: string; token: string },
) {
  let value = answer.value;
  if (answer.type === "file_url") {
    const file = value as FileValue;
    value = `${ctx.apiBase}/forms/${encodeURIComponent(ctx.formId)}/responses/${
      encodeURIComponent(ctx.token)
    }/fields/${encodeURIComponent(field.ref)}/files/${encodeURIComponent(file.name)}`;
  }
  return {
    field: { id: field.id, type: field.type, ref: field.ref },
    type: answer.type,
    [answer.type]: value,
  };
}

/** The answers in the form's field order; answers to fields the form no longer has are left out. */
export function wireAnswers(row: ResponseRowLike, ctx: ItemContext) {
  const only = ctx.fields ? new Set(ctx.fields) : undefined;
  const out = [];
  for (const field of allFields(ctx.core)) {
    const answer = row.answers[field.ref];
    if (!answer) continue;
    if (only && !only.has(field.ref) && !only.has(field.id)) continue;
    out.push(wireAnswer(field, answer, { apiBase: ctx.apiBase, formId: ctx.core.id, token: row.token }));
  }
  return out;
}

export function responseItem(row: ResponseRowLike, ctx: ItemContext) {
  const score = row.score ?? 0;
  const item: Record<string, unknown> = {
    landing_id: row.token,
    token: row.token,
    response_id: row.token,
    response_type: row.submitted_at ? "completed" : Object.keys(row.answers).length ? "partial" : "started",
    landed_at: isoSeconds(row.landed_at),
    submitted_at: row.submitted_at ? isoSeconds(row.submitted_at) : null,
    metadata: {
      user_agent: row.metadata.user_agent ?? "",
      platform: row.metadata.platform ?? "other",
      referer: row.metadata.referer ?? "",
      network_id: row.metadata.network_id ?? "",
      browser: row.metadata.browser ?? "default",
    },
    hidden: row.hidden ?? {},
    calculated: { score },
  };
  if (ctx.core.type === "quiz") item.variables = [{ key: "score", type: "number", number: score }];
  if (row.ending) item.ending = { id: row.ending.id, ref: row.ending.ref };
  item.answers = wireAnswers(row, ctx);
  return item;
}

/** The body of a form_response webhook delivery. */
export function formResponsePayload(row: ResponseRowLike, ctx: ItemContext & { eventId: string }) {
  const score = row.score ?? 0;
  return {
    event_id: ctx.eventId,
    event_type: "form_response",
    form_response: {
      form_id: ctx.core.id,
      token: row.token,
      landed_at: isoSeconds(row.landed_at),
      submitted_at: row.submitted_at ? isoSeconds(row.submitted_at) : isoSeconds(row.landed_at),
      definition: {
        id: ctx.core.id,
        title: ctx.core.title,
        fields: allFields(ctx.core).map((f) => {
          const { choices, ...properties } = f.properties as Record<string, unknown>;
          return {
            id: f.id,
            ref: f.ref,
            title: f.title,
            type: f.type,
            properties,
            validations: f.validations,
            ...(choices ? { choices } : {}),
          };
        }),
        endings: ctx.core.thankyou_screens.map((t) => ({
          id: t.id,
          ref: t.ref,
          title: t.title,
          type: t.type,
        })),
      },
      answers: wireAnswers(row, ctx),
      hidden: row.hidden ?? {},
      calculated: { score },
      ...(ctx.core.type === "quiz" ? { variables: [{ key: "score", type: "number", number: score }] } : {}),
      ...(row.ending ? { ending: { id: row.ending.id, ref: row.ending.ref } } : {}),
    },
  };
}
