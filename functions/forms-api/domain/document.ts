// The form document: one markdown file a site owner writes by hand (docs/forms-syntax.md). Front
// matter holds the settings; the body holds the screens, the slides, one line per question (with
// indented option, choice and score lines under it), statements as `>` text and jumps as `->` lines.
//
// parseDocument reads the lines into a raw definition and hands it to normalizeDefinition, the one
// place that knows the canonical shape; renderDocument writes a canonical definition back as lines.
// Errors name the line and the reason.
import { stringify as stringifyYaml } from "yaml";
import { splitFrontMatter } from "../../../shared/site/front-matter.ts";
import {
  ConditionError,
  parseCondition,
  printCondition,
  rowToCondition,
} from "../../../shared/forms/logic.js";
import {
  type Action,
  allFields,
  conditionFromText,
  DATE_STRUCTURES,
  DEFAULT_SETTINGS,
  defaultChoiceRef,
  defaultEndingRef,
  defaultGroupRef,
  DEFAULTS,
  defaultStatementRef,
  DefinitionError,
  type Field,
  type FieldType,
  type FormCore,
  normalizeDefinition,
  REF_PATTERN,
} from "./definition.ts";

/** The page kind of a form document. */
export const FORM_KIND = "form-slides";

/** Document line kinds → question types (statements are `>` text, not a kind). */
export const KINDS: Record<string, Exclude<FieldType, "statement">> = {
  "text": "short_text",
  "long text": "long_text",
  "email": "email",
  "website": "website",
  "phone": "phone_number",
  "number": "number",
  "file": "file_upload",
  "dropdown": "dropdown",
  "choice": "multiple_choice",
  "picture choice": "picture_choice",
  "rating": "rating",
  "scale": "opinion_scale",
  "date": "date",
};
const KIND_OF = Object.fromEntries(Object.entries(KINDS).map(([k, t]) => [t, k])) as Record<string, string>;

export class DocumentError extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
    readonly kind: "invalid" | "unsupported" = "invalid",
  ) {
    super(`line ${line}: ${reason}`);
  }
}

export interface FormDocument {
  core: FormCore;
  /** the document's own webhook (front matter form.webhook), signed with FORMS_WEBHOOK_SECRET */
  webhook?: string;
}

// ------------------------------------------------------------------------------------ escaping

/** Single-line values (titles, labels, option values) write a line break as \n and a backslash as \\. */
export function escapeLine(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

export function unescapeLine(value: string): string {
  return value.replace(/\\(\\|n)/g, (_, c: string) => (c === "n" ? "\n" : "\\"));
}

const REF_SUFFIX = /\s*\{#([^}\s]*)\}$/;
const YES = new Set(["yes", "true", "on"]);
const NO = new Set(["no", "false", "off"]);

/** `title {#ref}`: the title and the ref (the suffix is the last `{#...}` of the line). */
function splitRef(rest: string): { text: string; ref?: string } {
  const m = rest.match(REF_SUFFIX);
  if (!m) return { text: rest.trim() };
  return { text: rest.slice(0, m.index).trim(), ref: m[1] };
}

function withRef(text: string, ref: string, defaultRef: string): string {
  // a text that itself ends like a ref suffix keeps its own ref written, so it reads back unchanged
  const needs = ref !== defaultRef || /\{#[^}\s]*\}$/.test(text);
  return needs ? `${text}${text ? " " : ""}{#${ref}}` : text;
}

// --------------------------------------------------------------------------------------- parse

type Path = (string | number)[];
type Json = Record<string, any>;

interface Item {
  kind: "question" | "statement" | "slide" | "welcome" | "ending";
  line: number;
  node: Json;
  /** where the node sits in the raw definition (questions: for their choices' lines) */
  path?: Path;
  /** a statement's place among the form's statements (its default ref) */
  index?: number;
  /** statement text lines; screen description lines */
  text?: string[];
  /** the `>` run is still open (a statement's lines continue) */
  open?: boolean;
}

/**
 * Reads a form document. `fallbackId` names the form when the front matter has no slug (a record's file
 * name). Throws DocumentError naming the line.
 */
export function parseDocument(source: string, fallbackId?: string): FormDocument {
  let data: Json;
  let body: string;
  const text = source.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  try {
    ({ data, body } = splitFrontMatter(text, "form"));
  } catch (error) {
    throw new DocumentError(1, (error as Error).message.replace(/^form: /, ""));
  }
  const bodyStart = text.split("\n").length - body.split("\n").length + 1;
  return parseParts(data, body, {
    bodyStart,
    frontMatterText: text.slice(0, text.length - body.length),
    fallbackId,
  });
}

/**
 * Reads a form from its parts: the front matter as data and the body text (how a stored record holds
 * them: front-matter fields and the bodyMarkdown twin).
 */
export function parseParts(
  data: Json,
  body: string,
  options: { bodyStart?: number; frontMatterText?: string; fallbackId?: string } = {},
): FormDocument {
  const bodyStart = options.bodyStart ?? 1;
  const frontLine = (key: string) => {
    const lines = (options.frontMatterText ?? "").split("\n");
    const at = lines.findIndex((l) => new RegExp(`^\\s*${key}\\s*:`).test(l));
    return at >= 0 ? at + 1 : 1;
  };
  if (data.kind !== FORM_KIND) {
    throw new DocumentError(frontLine("kind"), `a form document's front matter says kind: ${FORM_KIND}`);
  }
  const id = data.slug ?? options.fallbackId;
  if (typeof id !== "string" || !id) {
    throw new DocumentError(frontLine("slug"), "the front matter names no slug");
  }
  const form: Json = data.form === undefined || data.form === null ? {} : data.form;
  if (typeof form !== "object" || Array.isArray(form)) {
    throw new DocumentError(frontLine("form"), "form: must be a mapping of settings");
  }
  const raw: Json = { title: data.title ?? "", settings: {} };
  let webhook: string | undefined;
  for (const [key, value] of Object.entries(form)) {
    if (key === "type") raw.type = value;
    else if (key === "hidden") raw.hidden = value;
    else if (key === "score") raw.variables = { score: value };
    else if (key === "webhook") {
      if (typeof value !== "string" || !/^https?:\/\/\S+$/.test(value)) {
        throw new DocumentError(frontLine("webhook"), "form.webhook must be an http(s) address");
      }
      webhook = value;
    } else raw.settings[key] = value;
  }

  const lines = body.split("\n");
  const pathLines = new Map<string, number>();
  const mark = (path: Path, line: number) => pathLines.set(JSON.stringify(path), line);
  const welcome: Json[] = [];
  const endings: Json[] = [];
  const groups: Json[] = [];
  const logic: Json[] = [];
  let current: Item | undefined; // what indented lines attach to
  let slide: Json | undefined; // the open slide
  let screen: Item | undefined; // the open screen (its `>` lines are its description)
  const screens: Item[] = [];
  let statements = 0;

  const fail = (line: number, why: string): never => {
    throw new DocumentError(line, why);
  };
  const slidePath = () => ["fields", groups.length - 1];
  const openSlide = (line: number, title = "", ref?: string) => {
    slide = { type: "group", title, ...(ref ? { ref } : {}), properties: { fields: [] } };
    groups.push(slide);
    mark(slidePath(), line);
    screen = undefined;
    current = { kind: "slide", line, node: slide };
  };
  const closeStatement = () => {
    if (current?.kind === "statement" && current.open) {
      finishStatement(current);
      current.open = false;
    }
  };
  const finishStatement = (item: Item) => {
    const [first, ...rest] = item.text!;
    const { text, ref } = splitRef(first);
    item.node.title = unescapeLine(text);
    item.node.ref = ref ?? defaultStatementRef(item.index!);
    if (rest.length) item.node.properties.description = rest.join("\n");
  };

  for (let i = 0; i < lines.length; i++) {
    const n = bodyStart + i;
    const line = lines[i].replace(/\s+$/, "");
    if (line === "") {
      closeStatement();
      if (screen) screen.open = false;
      continue;
    }
    // `>` text: a statement inside a slide, the description of a screen
    if (/^>( |$)/.test(line)) {
      const content = line.replace(/^> ?/, "");
      if (screen) {
        screen.text!.push(screen.open === false && screen.text!.length ? `\n${content}` : content);
        screen.open = true;
        current = screen;
        continue;
      }
      if (current?.kind === "statement" && current.open) {
        current.text!.push(content);
        continue;
      }
      if (!slide) openSlide(n);
      const node: Json = { type: "statement", properties: {} };
      slide!.properties.fields.push(node);
      mark([...slidePath(), "properties", "fields", slide!.properties.fields.length - 1], n);
      current = { kind: "statement", line: n, node, text: [content], open: true, index: statements++ };
      continue;
    }
    closeStatement();
    if (screen) screen.open = false;

    if (/^\s/.test(line)) {
      if (!current) fail(n, "an indented line belongs under a question, a slide or a screen");
      attach(current!, line.trim(), n);
      continue;
    }
    let m: RegExpMatchArray | null;
    if ((m = line.match(/^#(?:\s+(.*))?$/))) {
      // `# Thank you: Title {#vip}`: the ref suffix ends the line, the keyword starts it
      const { text: headText, ref } = splitRef(m[1] ?? "");
      const head = headText.match(/^(welcome|thank you|thanks|ending)\s*(?::\s*(.*))?$/i);
      if (!head) {
        fail(n, "a # heading is # Welcome: <title> or # Thank you: <title> (slides are ## headings)");
      }
      const node: Json = { title: unescapeLine((head![2] ?? "").trim()), properties: {} };
      slide = undefined;
      if (/^welcome$/i.test(head![1])) {
        if (welcome.length) fail(n, "a form has one welcome screen");
        node.ref = ref ?? DEFAULTS.welcomeRef;
        welcome.push(node);
        mark(["welcome_screens", 0], n);
      } else {
        node.ref = ref ?? defaultEndingRef(endings.length);
        endings.push(node);
        mark(["thankyou_screens", endings.length - 1], n);
      }
      screen = { kind: /^welcome$/i.test(head![1]) ? "welcome" : "ending", line: n, node, text: [] };
      screens.push(screen);
      current = screen;
      continue;
    }
    if ((m = line.match(/^##(?:\s+(.*))?$/))) {
      const { text, ref } = splitRef(m[1] ?? "");
      openSlide(n, unescapeLine(text), ref);
      continue;
    }
    if (/^#{3,}/.test(line)) fail(n, "headings are # (screens) and ## (slides)");
    if ((m = line.match(/^(?:->|→)\s*(.*)$/))) {
      if (!slide || !slide.properties.fields.length) {
        fail(n, "a jump (->) goes at the end of a slide with questions");
      }
      const jm = m[1].match(/^(\S+)(?:\s+if\s+(.+))?$/);
      if (!jm) fail(n, "a jump is -> <question or ending> [if <condition>]");
      const target = jm![1];
      if (!REF_PATTERN.test(target)) fail(n, `${target} is not the name of a question or an ending`);
      const fields = slide!.properties.fields as Json[];
      const entry: Json = {
        type: "field",
        ref: undefined as unknown,
        actions: [{
          action: "jump",
          // the target's type is settled once every ending is known
          details: { to: { type: "field", value: target } },
          condition: { op: "always", vars: [] },
        }],
      };
      if (jm![2]) {
        try {
          const c = conditionFromText(jm![2]);
          entry.actions[0].condition = c.row;
          if (c.expression) entry.expression = c.expression;
        } catch (error) {
          if (error instanceof ConditionError) fail(n, `the condition: ${error.message}`);
          throw error;
        }
      }
      entry.slide = slide;
      entry.fields = fields;
      logic.push(entry);
      mark(["logic", logic.length - 1], n);
      continue;
    }
    if ((m = line.match(/^([A-Za-z0-9_][A-Za-z0-9_.-]*)(\*)?\s+([a-z]+(?: [a-z]+)?)\s*:\s*(.*)$/))) {
      const [, ref, star, kindWord, title] = m;
      const type = KINDS[kindWord];
      if (!type) {
        fail(
          n,
          `${JSON.stringify(kindWord)} is not a question kind (kinds: ${
            Object.keys(KINDS).join(", ")
          }; statements are > lines)`,
        );
      }
      // questions before any ## heading (or right after a screen) make one untitled slide
      if (!slide) openSlide(n);
      const node: Json = {
        ref,
        title: unescapeLine(title.trim()),
        type,
        properties: {},
        validations: { required: Boolean(star) },
      };
      if (type === "dropdown" || type === "multiple_choice" || type === "picture_choice") {
        node.properties.choices = [];
      }
      slide!.properties.fields.push(node);
      const path = [...slidePath(), "properties", "fields", slide!.properties.fields.length - 1];
      mark(path, n);
      current = { kind: "question", line: n, node, path };
      continue;
    }
    fail(
      n,
      "not a heading (# screen, ## slide), a question (<name>[*] <kind>: <title>), a statement (> text), a jump (-> target) or an indented option",
    );
  }
  closeStatement();
  for (const item of screens) {
    const description = item.text!.join("\n");
    if (description.trim()) item.node.properties.description = description;
  }

  function attach(item: Item, content: string, n: number) {
    let m: RegExpMatchArray | null;
    if (item.kind === "question" && (m = content.match(/^-\s+(.*)$/))) {
      const node = item.node;
      if (!Array.isArray(node.properties.choices)) fail(n, `a ${KIND_OF[node.type]} question has no choices`);
      let rest = m[1];
      const { text, ref } = splitRef(rest);
      rest = text;
      const choice: Json = {};
      if (node.type === "picture_choice") {
        const pic = rest.match(/\s*!\[[^\]]*\]\((?:<([^>]*)>|([^)\s]*))\)$/);
        if (pic) {
          choice.attachment = { type: "image", href: pic[1] ?? pic[2] };
          rest = rest.slice(0, pic.index).trim();
        }
      }
      choice.label = unescapeLine(rest);
      if (ref !== undefined) choice.ref = ref;
      node.properties.choices.push(choice);
      mark([...item.path!, "properties", "choices", node.properties.choices.length - 1], n);
      return;
    }
    if (
      item.kind === "question" &&
      (m = content.match(/^score\s+([+-])\s*(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(?:\s+if\s+(.+))?$/))
    ) {
      const amount = Number(m[2]);
      const entry: Json = {
        type: "field",
        ref: item.node.ref,
        actions: [{
          action: m[1] === "+" ? "add" : "subtract",
          details: {
            target: { type: "variable", value: "score" },
            value: { type: "constant", value: amount },
          },
          condition: { op: "always", vars: [] },
        }],
      };
      if (m[3]) {
        try {
          const c = conditionFromText(m[3], item.node.ref);
          entry.actions[0].condition = c.row;
          if (c.expression) entry.expression = c.expression;
        } catch (error) {
          if (error instanceof ConditionError) fail(n, `the condition: ${error.message}`);
          throw error;
        }
      }
      logic.push(entry);
      mark(["logic", logic.length - 1], n);
      return;
    }
    if (/^score\b/.test(content) && item.kind === "question") {
      fail(n, "a score line is score +<points> [if <condition>] or score -<points> [if <condition>]");
    }
    m = content.match(/^([a-z][a-z ]*?)\s*:\s*(.*)$/);
    if (!m) {
      fail(n, "an indented line is an option (key: value), a choice (- label) or a score (score +1 if ...)");
    }
    applyOption(item, m![1], unescapeLine(m![2]), n);
  }

  function applyOption(item: Item, key: string, value: string, n: number) {
    const node = item.node;
    const props = node.properties ??= {};
    const flag = (): boolean => {
      const v = value.toLowerCase();
      if (YES.has(v)) return true;
      if (NO.has(v)) return false;
      return fail(n, `${key} is yes or no`);
    };
    const whole = (): number => {
      if (!/^-?\d+$/.test(value)) fail(n, `${key} is a whole number`);
      return Number(value);
    };
    const num = (): number => {
      if (!/^-?(\d+(\.\d+)?|\.\d+)(e[+-]?\d+)?$/i.test(value)) fail(n, `${key} is a number`);
      return Number(value);
    };
    const unknown = (keys: string[]) => fail(n, `${key} is not an option here (options: ${keys.join(", ")})`);
    switch (item.kind) {
      case "welcome":
      case "slide":
      case "ending": {
        const keys = item.kind === "ending"
          ? ["button", "show button", "button mode", "redirect"]
          : item.kind === "slide"
          ? ["button", "show button", "description"]
          : ["button", "show button"];
        if (!keys.includes(key)) unknown(keys);
        if (key === "button") props.button_text = value;
        else if (key === "description") props.description = value;
        else if (key === "show button") props.show_button = flag();
        else if (key === "button mode") {
          if (value !== "reload" && value !== "redirect") fail(n, "button mode is reload or redirect");
          props.button_mode = value;
        } else props.redirect_url = value;
        return;
      }
      case "statement": {
        const keys = ["button", "hide marks"];
        if (!keys.includes(key)) unknown(keys);
        if (key === "button") props.button_text = value;
        else props.hide_marks = flag();
        return;
      }
      case "question": {
        const options = optionsFor(node.type as FieldType);
        const option = options.find((o) => o.key === key);
        if (!option) unknown(options.map((o) => o.key));
        option!.read(node, { text: value, flag, whole, number: num, fail: (why) => fail(n, why) });
        return;
      }
    }
  }

  // settle jump targets (endings are known now) and the field each jump hangs on (its slide's last)
  const endingRefs = new Set(endings.map((e) => e.ref));
  for (const entry of logic) {
    if (!entry.slide) continue;
    const to = entry.actions[0].details.to;
    if (endingRefs.has(to.value)) to.type = "thankyou";
    const fields = entry.fields as Json[];
    entry.ref = fields[fields.length - 1].ref;
    delete entry.slide;
    delete entry.fields;
  }
  raw.welcome_screens = welcome;
  raw.thankyou_screens = endings;
  raw.fields = groups;
  raw.logic = logic;

  try {
    return { core: normalizeDefinition(raw, id), ...(webhook ? { webhook } : {}) };
  } catch (error) {
    if (!(error instanceof DefinitionError)) throw error;
    // the line of the deepest part of the path the parser placed
    let line = 1;
    const path = error.path;
    if (["title", "type", "settings", "hidden", "variables"].includes(String(path[0]))) {
      line = frontLine(
        path[0] === "settings"
          ? String(path[1] ?? "form")
          : path[0] === "variables"
          ? "score"
          : String(path[0]),
      );
    } else {
      for (let k = path.length; k > 0; k--) {
        const at = pathLines.get(JSON.stringify(path.slice(0, k)));
        if (at !== undefined) {
          line = at;
          break;
        }
      }
    }
    throw new DocumentError(line, error.message, error.kind);
  }
}

// Question options: one row per document key, read and written from the same row so the two sides
// cannot drift apart. `write` answers the text to write, or undefined when the value is the default.
type OptionValue = {
  text: string;
  flag(): boolean;
  whole(): number;
  number(): number;
  fail(why: string): never;
};
interface QuestionOption {
  key: string;
  types: readonly FieldType[] | "all";
  read(field: Json, v: OptionValue): void;
  write(field: Field): string | undefined;
}

const yesNo = (b: boolean) => (b ? "yes" : "no");

/** A yes/no option of a property with a default: written only when it differs. */
function flagOption(key: string, property: string, fallback: boolean, types: FieldType[]): QuestionOption {
  return {
    key,
    types,
    read: (f, v) => (f.properties[property] = v.flag()),
    write: (f) => (f.properties[property] === fallback ? undefined : yesNo(Boolean(f.properties[property]))),
  };
}

function labelOption(side: string): QuestionOption {
  return {
    key: `${side} label`,
    types: ["opinion_scale"],
    read: (f, v) => ((f.properties.labels ??= {})[side] = v.text),
    write: (f) => (f.properties.labels as Record<string, string> | undefined)?.[side],
  };
}

const TEXTS: FieldType[] = ["short_text", "long_text"];

export const QUESTION_OPTIONS: QuestionOption[] = [
  {
    key: "description",
    types: "all",
    read: (f, v) => (f.properties.description = v.text),
    write: (f) => f.properties.description as string | undefined,
  },
  {
    key: "max length",
    types: TEXTS,
    read: (f, v) => (f.validations.max_length = v.whole()),
    write: (f) => f.validations.max_length === undefined ? undefined : String(f.validations.max_length),
  },
  {
    key: "min",
    types: ["number"],
    read: (f, v) => (f.validations.min_value = v.number()),
    write: (f) => f.validations.min_value === undefined ? undefined : String(f.validations.min_value),
  },
  {
    key: "max",
    types: ["number"],
    read: (f, v) => (f.validations.max_value = v.number()),
    write: (f) => f.validations.max_value === undefined ? undefined : String(f.validations.max_value),
  },
  flagOption("alphabetical", "alphabetical_order", false, ["dropdown"]),
  flagOption("multiple", "allow_multiple_selection", false, ["multiple_choice", "picture_choice"]),
  flagOption("other", "allow_other_choice", false, ["multiple_choice"]),
  flagOption("randomize", "randomize", false, ["multiple_choice"]),
  flagOption("vertical", "vertical_alignment", true, ["multiple_choice"]),
  flagOption("supersized", "supersized", false, ["picture_choice"]),
  flagOption("labels", "show_labels", true, ["picture_choice"]),
  {
    key: "steps",
    types: ["rating", "opinion_scale"],
    read: (f, v) => (f.properties.steps = v.whole()),
    write: (f) =>
      f.properties.steps === (f.type === "rating" ? DEFAULTS.ratingSteps : DEFAULTS.scaleSteps)
        ? undefined
        : String(f.properties.steps),
  },
  {
    key: "shape",
    types: ["rating"],
    read: (f, v) => (f.properties.shape = v.text),
    write: (f) => (f.properties.shape === DEFAULTS.ratingShape ? undefined : String(f.properties.shape)),
  },
  flagOption("start at one", "start_at_one", false, ["opinion_scale"]),
  labelOption("left"),
  labelOption("center"),
  labelOption("right"),
  {
    key: "format",
    types: ["date"],
    read: (f, v) => {
      const fm = v.text.match(/^(MM|DD|YYYY)([/.-])(MM|DD|YYYY)\2(MM|DD|YYYY)$/);
      const structure = fm ? `${fm[1]}${fm[3]}${fm[4]}` : "";
      if (!fm || !(DATE_STRUCTURES as readonly string[]).includes(structure)) {
        v.fail("format is MM/DD/YYYY, DD/MM/YYYY or YYYY/MM/DD (separator /, - or .)");
      }
      f.properties.structure = structure;
      f.properties.separator = fm![2];
    },
    write: (f) =>
      f.properties.structure === DEFAULTS.dateStructure && f.properties.separator === DEFAULTS.dateSeparator
        ? undefined
        : (f.properties.structure as string).match(/MM|DD|YYYY/g)!.join(String(f.properties.separator)),
  },
];

function optionsFor(type: FieldType): QuestionOption[] {
  return QUESTION_OPTIONS.filter((o) => o.types === "all" || o.types.includes(type));
}

// -------------------------------------------------------------------------------------- render

/** The front matter a form document carries (also the record's front-matter fields). */
export function frontMatterOf(doc: FormDocument): Json {
  const { core } = doc;
  const form: Json = {};
  if (core.type !== "form") form.type = core.type;
  if (core.hidden?.length) form.hidden = core.hidden;
  if (core.variables && core.variables.score !== 0) form.score = core.variables.score;
  if (doc.webhook) form.webhook = doc.webhook;
  for (const [key, value] of Object.entries(core.settings)) {
    if (key in DEFAULT_SETTINGS && JSON.stringify(value) === JSON.stringify(DEFAULT_SETTINGS[key])) continue;
    form[key] = value;
  }
  return { title: core.title, slug: core.id, kind: FORM_KIND, ...(Object.keys(form).length ? { form } : {}) };
}

/** The whole document: front matter and body. */
export function renderDocument(doc: FormDocument): string {
  const yaml = stringifyYaml(frontMatterOf(doc), { lineWidth: 0 });
  return `---\n${yaml}---\n\n${renderBody(doc.core)}`;
}

/** The body lines of a canonical definition. */
export function renderBody(core: FormCore): string {
  const out: string[] = [];
  const option = (key: string, value: string) => out.push(`  ${key}: ${escapeLine(value)}`);
  const quote = (lines: string) => lines.split("\n").forEach((l) => out.push(l ? `> ${l}` : ">"));

  for (const w of core.welcome_screens) {
    out.push(`# Welcome: ${withRef(escapeLine(w.title), w.ref, DEFAULTS.welcomeRef)}`.replace(/: $/, ":"));
    if (w.properties.description) quote(w.properties.description);
    if (w.properties.button_text !== DEFAULTS.welcomeButton) option("button", w.properties.button_text);
    if (!w.properties.show_button) option("show button", "no");
    out.push("");
  }

  // logic: each slide's jumps and each field's scores, in their canonical order
  const jumpsAfter = new Map<string, { action: Action; expression?: string }[]>();
  const scoresOf = new Map<string, { action: Action; expression?: string }[]>();
  for (const entry of core.logic) {
    for (const action of entry.actions) {
      const map = action.action === "jump" ? jumpsAfter : scoresOf;
      const list = map.get(entry.ref) ?? [];
      list.push({ action, expression: entry.expression });
      map.set(entry.ref, list);
    }
  }
  const conditionText = (a: { action: Action; expression?: string }): string => {
    if (a.expression) return a.expression;
    if (a.action.condition.op === "always") return "";
    // rows print through the condition language, so document and definition say the same thing
    return printCondition(rowToCondition(a.action.condition));
  };

  let statements = 0;
  core.fields.forEach((group, gi) => {
    out.push(`## ${withRef(escapeLine(group.title), group.ref, defaultGroupRef(gi))}`.replace(/ $/, ""));
    if (group.properties.button_text !== DEFAULTS.groupButton) option("button", group.properties.button_text);
    if (!group.properties.show_button) option("show button", "no");
    if (group.properties.description !== undefined) option("description", group.properties.description);
    let previousStatement = false;
    for (const field of group.properties.fields) {
      if (field.type === "statement") {
        if (previousStatement) out.push("");
        const title = escapeLine(field.title);
        out.push(`> ${withRef(title, field.ref, defaultStatementRef(statements++))}`.replace(/ $/, ""));
        if (field.properties.description !== undefined) quote(String(field.properties.description));
        if (field.properties.button_text !== DEFAULTS.statementButton) {
          option("button", String(field.properties.button_text));
        }
        if (field.properties.hide_marks) option("hide marks", "yes");
        previousStatement = true;
        continue;
      }
      previousStatement = false;
      renderQuestion(field, out, option);
      for (const s of scoresOf.get(field.ref) ?? []) {
        const amount = Number((s.action.details.value as Json).value);
        const cond = conditionText(s);
        out.push(`  score ${s.action.action === "add" ? "+" : "-"}${amount}${cond ? ` if ${cond}` : ""}`);
      }
    }
    const last = group.properties.fields.at(-1)!.ref;
    for (const j of jumpsAfter.get(last) ?? []) {
      const to = (j.action.details.to as Json).value;
      const cond = conditionText(j);
      out.push(`-> ${to}${cond ? ` if ${cond}` : ""}`);
    }
    out.push("");
  });

  core.thankyou_screens.forEach((t, i) => {
    out.push(`# Thank you: ${withRef(escapeLine(t.title), t.ref, defaultEndingRef(i))}`.replace(/: $/, ":"));
    if (t.properties.description) quote(t.properties.description);
    if (t.properties.button_text !== DEFAULTS.endingButton) option("button", t.properties.button_text);
    if (!t.properties.show_button) option("show button", "no");
    if (t.properties.button_mode !== "reload") option("button mode", t.properties.button_mode);
    if (t.properties.redirect_url) option("redirect", t.properties.redirect_url);
    out.push("");
  });
  return out.join("\n").replace(/\n+$/, "\n");
}

function renderQuestion(field: Field, out: string[], option: (key: string, value: string) => void) {
  const p = field.properties as Json;
  out.push(
    `${field.ref}${field.validations.required ? "*" : ""} ${KIND_OF[field.type]}:${
      field.title ? ` ${escapeLine(field.title)}` : ""
    }`,
  );
  for (const o of optionsFor(field.type)) {
    const text = o.write(field);
    if (text !== undefined) option(o.key, text);
  }
  if (Array.isArray(p.choices)) {
    const taken = new Set<string>();
    (p.choices as Json[]).forEach((c, i) => {
      let line = `  - ${escapeLine(c.label)}`;
      if (c.attachment) {
        line += ` ![](${/[\s()<>]/.test(c.attachment.href) ? `<${c.attachment.href}>` : c.attachment.href})`;
      }
      const def = defaultChoiceRef(c.label, i, taken);
      taken.add(c.ref);
      const needs = c.ref !== def || /\{#[^}\s]*\}$/.test(line);
      out.push(needs ? `${line} {#${c.ref}}` : line);
    });
  }
}

export { allFields, parseCondition };
