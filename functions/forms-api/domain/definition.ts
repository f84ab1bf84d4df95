// A form definition in its canonical shape (what GET /forms/{id} answers and what a form document
// holds) and the one normalizer every definition passes through: a client's POST/PUT body, a patched
// definition, and the raw definition the document parser builds. Canonical means: every slide is a
// group, ids derive from refs, every property has its value (defaults filled in), no null anywhere,
// logic entries laid out in form order. Because the parser also ends here, definition → document →
// definition is the identity on canonical definitions.
import {
  actionCondition,
  type Condition,
  ConditionError,
  conditionRefs,
  conditionToRow,
  parseCondition,
  printCondition,
} from "../../../shared/forms/logic.js";
import { jsonProblem } from "../../../shared/input-text.ts";
import { FIELD_TYPES } from "../../../shared/openapi/enums/forms.ts";

export type FieldType = typeof FIELD_TYPES[number];

/** Types the vendor has and the runner has no kind for: BAD_REQUEST. */
export const UNSUPPORTED_TYPES = [
  "payment",
  "legal",
  "matrix",
  "ranking",
  "yes_no",
  "contact_info",
  "address",
  "nps",
];

export const CHOICE_TYPES: readonly FieldType[] = ["dropdown", "multiple_choice", "picture_choice"];

export const DATE_STRUCTURES = ["MMDDYYYY", "DDMMYYYY", "YYYYMMDD"] as const;
export const DATE_SEPARATORS = ["/", "-", "."] as const;

export const REF_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,254}$/;
export const HIDDEN_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/;
export const FORM_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,99}$/;

export interface Choice {
  id: string;
  ref: string;
  label: string;
  attachment?: { type: "image"; href: string };
}

export interface Field {
  id: string;
  ref: string;
  title: string;
  type: FieldType;
  properties: Record<string, unknown>;
  validations: { required: boolean; max_length?: number; min_value?: number; max_value?: number };
}

export interface Group {
  id: string;
  ref: string;
  title: string;
  type: "group";
  properties: { fields: Field[]; button_text: string; show_button: boolean; description?: string };
}

export interface WelcomeScreen {
  id: string;
  ref: string;
  title: string;
  properties: { show_button: boolean; button_text: string; description?: string };
}

export interface ThankYouScreen {
  id: string;
  ref: string;
  title: string;
  type: "thankyou_screen";
  properties: {
    show_button: boolean;
    button_mode: "reload" | "redirect";
    button_text: string;
    redirect_url?: string;
    description?: string;
  };
}

export interface Row {
  op: string;
  vars: unknown[];
}

export interface Action {
  action: "jump" | "add" | "subtract";
  details: Record<string, unknown>;
  condition: Row;
}

export interface LogicEntry {
  type: "field";
  ref: string;
  actions: Action[];
  expression?: string;
}

export interface Settings {
  language: string;
  progress_bar: "percentage" | "proportion";
  meta: { allow_indexing: boolean; description?: string; [key: string]: unknown };
  is_public: boolean;
  show_progress_bar: boolean;
  show_question_number: boolean;
  autosave_progress: boolean;
  [key: string]: unknown;
}

/** What a form document holds. */
export interface FormCore {
  id: string;
  type: "form" | "quiz";
  title: string;
  settings: Settings;
  hidden?: string[];
  variables?: { score: number };
  welcome_screens: WelcomeScreen[];
  thankyou_screens: ThankYouScreen[];
  fields: Group[];
  logic: LogicEntry[];
}

export const DEFAULT_SETTINGS: Settings = {
  language: "en",
  progress_bar: "percentage",
  meta: { allow_indexing: false },
  is_public: true,
  show_progress_bar: true,
  show_question_number: true,
  autosave_progress: true,
};

export const DEFAULTS = {
  groupButton: "Continue",
  statementButton: "Continue",
  welcomeButton: "Start",
  welcomeRef: "welcome",
  endingButton: "Start over",
  defaultEndingRef: "default_tys",
  defaultEndingTitle: "Thank you!",
  ratingSteps: 5,
  ratingShape: "star",
  scaleSteps: 11,
  dateStructure: "MMDDYYYY",
  dateSeparator: "/",
} as const;

/** Why a definition is refused: `invalid` is VALIDATION_ERROR, `unsupported` is BAD_REQUEST. */
export class DefinitionError extends Error {
  constructor(
    readonly kind: "invalid" | "unsupported",
    message: string,
    readonly path: (string | number)[] = [],
  ) {
    super(message);
  }
}

// ------------------------------------------------------------------------------------- helpers

type Json = Record<string, any>;

const isMap = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** Lower-case words joined by hyphens: the default id of a form and the default ref of a choice. */
export function slugify(text: string): string {
  return text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "").slice(0, 60).replace(/-+$/, "");
}

export function defaultGroupRef(index: number): string {
  return `group-${index + 1}`;
}

export function defaultEndingRef(index: number): string {
  return index === 0 ? DEFAULTS.defaultEndingRef : `ending-${index + 1}`;
}

export function defaultStatementRef(index: number): string {
  return `statement-${index + 1}`;
}

/** The default ref of the n-th choice given the refs before it: its label's slug, else choice-<n>. */
export function defaultChoiceRef(label: string, index: number, taken: Set<string>): string {
  const slug = slugify(label);
  return slug && REF_PATTERN.test(slug) && !taken.has(slug) ? slug : `choice-${index + 1}`;
}

/**
 * A text, trimmed, with its line breaks written one way (\n): CR LF, CR and the line separator U+2028
 * become \n and the paragraph separator U+2029 a blank line, so every break the document can write
 * reads back as the same break.
 */
function text(value: unknown, path: (string | number)[], what: string, fallback = ""): string {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "string") throw new DefinitionError("invalid", `${what} must be text`, path);
  return value.replace(/\r\n?|\u2028/g, "\n").replace(/\u2029/g, "\n\n").trim();
}

function bool(value: unknown, path: (string | number)[], what: string, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "boolean") throw new DefinitionError("invalid", `${what} must be true or false`, path);
  return value;
}

function integer(
  value: unknown,
  path: (string | number)[],
  what: string,
  range: [number, number],
  fallback?: number,
): number | undefined {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < range[0] || value > range[1]) {
    throw new DefinitionError(
      "invalid",
      `${what} must be a whole number from ${range[0]} to ${range[1]}`,
      path,
    );
  }
  return value;
}

function finite(value: unknown, path: (string | number)[], what: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value)) {
    throw new DefinitionError("invalid", `${what} must be a number`, path);
  }
  return value;
}

/** JSON without nulls (a client's forms.copy() walks every object: a null inside breaks it). */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((v) => v !== null && v !== undefined).map(withoutNulls);
  if (isMap(value)) {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) if (v !== null && v !== undefined) out[k] = withoutNulls(v);
    return out;
  }
  return value;
}

function ref(value: unknown, path: (string | number)[], what: string): string | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string" || !REF_PATTERN.test(value)) {
    throw new DefinitionError(
      "invalid",
      `${what} must be letters, digits, _, . or - (starting with a letter, digit or _), at most 255 long`,
      path,
    );
  }
  return value;
}

const URLISH = /^[^\s()<>]+$/;

// --------------------------------------------------------------------------------- the normalizer

/**
 * The canonical definition for a body. `id` is the form's id (from the path or chosen by the caller).
 * Throws DefinitionError: `invalid` for a shape or value problem, `unsupported` for a question type the
 * runner has no kind for or a jump the rows cannot express.
 */
export function normalizeDefinition(input: unknown, id: string): FormCore {
  if (!isMap(input)) {
    throw new DefinitionError("invalid", "the body must be a form definition (a JSON object)");
  }
  const type = input.type ?? "form";
  if (type !== "form" && type !== "quiz") {
    throw new DefinitionError("invalid", "type must be form or quiz", ["type"]);
  }
  const title = text(input.title, ["title"], "title", id);
  if (/\n/.test(title)) throw new DefinitionError("invalid", "title must be one line", ["title"]);

  const settings = normalizeSettings(input.settings);
  const hidden = normalizeHidden(input.hidden);
  let variables: { score: number } | undefined;
  if (input.variables !== undefined && input.variables !== null) {
    if (!isMap(input.variables)) {
      throw new DefinitionError("invalid", "variables must be an object", ["variables"]);
    }
    const start = finite(input.variables.score, ["variables", "score"], "variables.score");
    if (start !== undefined && start !== 0) variables = { score: start };
  }
  if (type === "quiz") variables ??= { score: 0 };

  const refs = new Map<string, string>(); // ref -> what holds it, for the uniqueness check
  const claim = (r: string, what: string, path: (string | number)[]) => {
    const holder = refs.get(r);
    if (holder) throw new DefinitionError("invalid", `ref ${r} is used twice (${holder} and ${what})`, path);
    refs.set(r, what);
  };

  const welcome = normalizeWelcome(input.welcome_screens, claim);
  const groups = normalizeFields(input.fields, claim);
  const endings = normalizeEndings(input.thankyou_screens, claim);
  const logic = normalizeLogic(input.logic, groups, endings);

  const core: FormCore = {
    id,
    type,
    title,
    settings,
    ...(hidden.length ? { hidden } : {}),
    ...(variables ? { variables } : {}),
    welcome_screens: welcome,
    thankyou_screens: endings,
    fields: groups,
    logic,
  };
  return core;
}

/** Settings are free-form beyond the known keys: each value is bounded before anything walks it. */
export const MAX_SETTING_DEPTH = 32;
export const MAX_SETTING_CHARS = 16_384;

function normalizeSettings(value: unknown): Settings {
  if (value === undefined || value === null) return structuredClone(DEFAULT_SETTINGS);
  if (!isMap(value)) throw new DefinitionError("invalid", "settings must be an object", ["settings"]);
  for (const [key, raw] of Object.entries(value)) {
    const problem = jsonProblem(raw, MAX_SETTING_DEPTH);
    if (problem) throw new DefinitionError("invalid", `settings.${key} ${problem.why}`, ["settings", key]);
    if ((JSON.stringify(raw) ?? "").length > MAX_SETTING_CHARS) {
      throw new DefinitionError(
        "invalid",
        `settings.${key} is longer than ${MAX_SETTING_CHARS} characters of JSON`,
        ["settings", key],
      );
    }
  }
  const out: Settings = structuredClone(DEFAULT_SETTINGS);
  for (const [key, raw] of Object.entries(withoutNulls(value) as Json)) {
    const path = ["settings", key];
    switch (key) {
      case "language":
        out.language = text(raw, path, "settings.language", "en") || "en";
        if (!/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(out.language)) {
          throw new DefinitionError("invalid", "settings.language must be a language code such as en", path);
        }
        break;
      case "progress_bar":
        if (raw !== "percentage" && raw !== "proportion") {
          throw new DefinitionError(
            "invalid",
            "settings.progress_bar must be percentage or proportion",
            path,
          );
        }
        out.progress_bar = raw;
        break;
      case "meta": {
        if (!isMap(raw)) throw new DefinitionError("invalid", "settings.meta must be an object", path);
        const meta: Settings["meta"] = {
          ...raw,
          allow_indexing: bool(
            raw.allow_indexing,
            [...path, "allow_indexing"],
            "settings.meta.allow_indexing",
            false,
          ),
        };
        if (raw.description !== undefined) {
          const d = text(raw.description, [...path, "description"], "settings.meta.description");
          if (d) meta.description = d;
          else delete meta.description;
        }
        out.meta = meta;
        break;
      }
      case "is_public":
      case "show_progress_bar":
      case "show_question_number":
      case "autosave_progress":
        out[key] = bool(raw, path, `settings.${key}`, DEFAULT_SETTINGS[key]);
        break;
      // keys the document's front matter gives another meaning
      case "type":
      case "hidden":
      case "webhook":
      case "score":
      case "variables":
        throw new DefinitionError("invalid", `settings.${key} is not a setting`, path);
      default:
        if (!/^[a-z][a-z0-9_]*$/.test(key)) {
          throw new DefinitionError(
            "invalid",
            `settings.${key}: setting names are lower-case words joined by _`,
            path,
          );
        }
        out[key] = raw;
    }
  }
  return out;
}

function normalizeHidden(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    throw new DefinitionError("invalid", "hidden must be a list of names", ["hidden"]);
  }
  const out: string[] = [];
  value.forEach((name, i) => {
    if (typeof name !== "string" || !HIDDEN_PATTERN.test(name)) {
      throw new DefinitionError("invalid", "a hidden field's name is letters, digits, _ or -", ["hidden", i]);
    }
    if (!out.includes(name)) out.push(name);
  });
  return out;
}

type Claim = (ref: string, what: string, path: (string | number)[]) => void;

function normalizeWelcome(value: unknown, claim: Claim): WelcomeScreen[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    throw new DefinitionError("invalid", "welcome_screens must be a list", ["welcome_screens"]);
  }
  if (value.length > 1) {
    throw new DefinitionError("invalid", "a form has at most one welcome screen", ["welcome_screens", 1]);
  }
  return value.map((screen, i) => {
    const path = ["welcome_screens", i];
    if (!isMap(screen)) throw new DefinitionError("invalid", "a welcome screen must be an object", path);
    const props = isMap(screen.properties) ? screen.properties : {};
    const r = ref(screen.ref, [...path, "ref"], "welcome_screens.ref") ?? DEFAULTS.welcomeRef;
    claim(r, "the welcome screen", [...path, "ref"]);
    const title = text(screen.title, [...path, "title"], "a welcome screen's title");
    if (title.includes("\n")) {
      throw new DefinitionError("invalid", "a welcome screen's title is one line", [...path, "title"]);
    }
    const out: WelcomeScreen = {
      id: r,
      ref: r,
      title,
      properties: {
        show_button: bool(props.show_button, [...path, "properties", "show_button"], "show_button", true),
        button_text: text(props.button_text, [...path, "properties", "button_text"], "button_text") ||
          DEFAULTS.welcomeButton,
      },
    };
    const description = text(props.description, [...path, "properties", "description"], "description");
    if (description) out.properties.description = description;
    return out;
  });
}

function normalizeEndings(value: unknown, claim: Claim): ThankYouScreen[] {
  if (value !== undefined && value !== null && !Array.isArray(value)) {
    throw new DefinitionError("invalid", "thankyou_screens must be a list", ["thankyou_screens"]);
  }
  const list = (value as unknown[] | undefined) ?? [];
  const screens = list.map((screen, i): ThankYouScreen => {
    const path = ["thankyou_screens", i];
    if (!isMap(screen)) throw new DefinitionError("invalid", "a thank-you screen must be an object", path);
    const props = isMap(screen.properties) ? screen.properties : {};
    const r = ref(screen.ref, [...path, "ref"], "thankyou_screens.ref") ??
      (typeof screen.id === "string" && REF_PATTERN.test(screen.id) ? screen.id : defaultEndingRef(i));
    claim(r, `thank-you screen ${r}`, [...path, "ref"]);
    const mode = props.button_mode ?? "reload";
    if (mode !== "reload" && mode !== "redirect") {
      throw new DefinitionError("invalid", "button_mode must be reload or redirect", [
        ...path,
        "properties",
        "button_mode",
      ]);
    }
    const title = text(screen.title, [...path, "title"], "a thank-you screen's title");
    if (title.includes("\n")) {
      throw new DefinitionError("invalid", "a thank-you screen's title is one line", [...path, "title"]);
    }
    const out: ThankYouScreen = {
      id: r,
      ref: r,
      title,
      type: "thankyou_screen",
      properties: {
        show_button: bool(props.show_button, [...path, "properties", "show_button"], "show_button", true),
        button_mode: mode,
        button_text: text(props.button_text, [...path, "properties", "button_text"], "button_text") ||
          DEFAULTS.endingButton,
      },
    };
    if (props.redirect_url !== undefined && props.redirect_url !== null && props.redirect_url !== "") {
      const url = text(props.redirect_url, [...path, "properties", "redirect_url"], "redirect_url");
      if (!/^https?:\/\//.test(url) || !URLISH.test(url)) {
        throw new DefinitionError("invalid", "redirect_url must be an http(s) address", [
          ...path,
          "properties",
          "redirect_url",
        ]);
      }
      out.properties.redirect_url = url;
    }
    if (mode === "redirect" && !out.properties.redirect_url) {
      throw new DefinitionError("invalid", "button_mode redirect needs a redirect_url", [
        ...path,
        "properties",
        "redirect_url",
      ]);
    }
    const description = text(props.description, [...path, "properties", "description"], "description");
    if (description) out.properties.description = description;
    return out;
  });
  if (!screens.length) {
    // every form ends somewhere: the built-in ending
    claim(DEFAULTS.defaultEndingRef, "the default thank-you screen", ["thankyou_screens"]);
    screens.push({
      id: DEFAULTS.defaultEndingRef,
      ref: DEFAULTS.defaultEndingRef,
      title: DEFAULTS.defaultEndingTitle,
      type: "thankyou_screen",
      properties: { show_button: false, button_mode: "reload", button_text: DEFAULTS.endingButton },
    });
  }
  return screens;
}

function normalizeFields(value: unknown, claim: Claim): Group[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new DefinitionError("invalid", "fields must be a list", ["fields"]);
  const groups: Group[] = [];
  let statements = 0;
  const field = (raw: unknown, path: (string | number)[]): Field => {
    const f = normalizeField(raw, path, () => defaultStatementRef(statements++));
    claim(f.ref, `field ${f.ref}`, [...path, "ref"]);
    return f;
  };
  value.forEach((item, i) => {
    const path = ["fields", i];
    if (!isMap(item)) throw new DefinitionError("invalid", "a field must be an object", path);
    const index = groups.length;
    if (item.type === "group") {
      const props = isMap(item.properties) ? item.properties : {};
      const inner = props.fields ?? [];
      if (!Array.isArray(inner)) {
        throw new DefinitionError("invalid", "a group's properties.fields must be a list", [
          ...path,
          "properties",
          "fields",
        ]);
      }
      if (!inner.length) {
        throw new DefinitionError("invalid", "a group (slide) needs at least one field", [
          ...path,
          "properties",
          "fields",
        ]);
      }
      const r = ref(item.ref, [...path, "ref"], "a group's ref") ?? defaultGroupRef(index);
      claim(r, `slide ${r}`, [...path, "ref"]);
      const title = text(item.title, [...path, "title"], "a group's title");
      if (title.includes("\n")) {
        throw new DefinitionError("invalid", "a group's title is one line", [...path, "title"]);
      }
      groups.push({
        id: defaultGroupRef(index),
        ref: r,
        title,
        type: "group",
        properties: {
          fields: inner.map((f, j) => {
            if (isMap(f) && f.type === "group") {
              throw new DefinitionError("invalid", "groups do not nest", [
                ...path,
                "properties",
                "fields",
                j,
              ]);
            }
            return field(f, [...path, "properties", "fields", j]);
          }),
          button_text: text(props.button_text, [...path, "properties", "button_text"], "button_text") ||
            DEFAULTS.groupButton,
          show_button: bool(props.show_button, [...path, "properties", "show_button"], "show_button", true),
        },
      });
      const description = text(props.description, [...path, "properties", "description"], "description");
      if (description) groups[groups.length - 1].properties.description = description;
    } else {
      // a field outside any group is a slide of its own
      const f = field(item, path);
      const r = defaultGroupRef(index);
      claim(r, `slide ${r}`, path);
      groups.push({
        id: r,
        ref: r,
        title: "",
        type: "group",
        properties: { fields: [f], button_text: DEFAULTS.groupButton, show_button: true },
      });
    }
  });
  return groups;
}

function normalizeField(raw: unknown, path: (string | number)[], nextStatementRef: () => string): Field {
  if (!isMap(raw)) throw new DefinitionError("invalid", "a field must be an object", path);
  const type = raw.type;
  if (typeof type !== "string" || !type) {
    throw new DefinitionError("invalid", "a field needs a type", [...path, "type"]);
  }
  if (!(FIELD_TYPES as readonly string[]).includes(type)) {
    const why = UNSUPPORTED_TYPES.includes(type)
      ? `the form runner has no kind for the question type ${type}`
      : `unknown question type ${type}`;
    throw new DefinitionError("unsupported", `${why} (supported: ${FIELD_TYPES.join(", ")})`, [
      ...path,
      "type",
    ]);
  }
  const t = type as FieldType;
  const props = raw.properties === undefined || raw.properties === null ? {} : raw.properties;
  if (!isMap(props)) {
    throw new DefinitionError("invalid", "properties must be an object", [...path, "properties"]);
  }
  const vals = raw.validations === undefined || raw.validations === null ? {} : raw.validations;
  if (!isMap(vals)) {
    throw new DefinitionError("invalid", "validations must be an object", [...path, "validations"]);
  }
  const title = text(raw.title, [...path, "title"], "a field's title");
  const r = ref(raw.ref, [...path, "ref"], "a field's ref") ??
    ref(raw.id, [...path, "id"], "a field's id") ??
    (t === "statement" ? nextStatementRef() : (() => {
      const slug = slugify(title).replace(/-/g, "_");
      if (!slug) {
        throw new DefinitionError("invalid", "a field needs a ref (or a title to derive one from)", [
          ...path,
          "ref",
        ]);
      }
      return slug;
    })());
  const pp = [...path, "properties"];
  const properties: Record<string, unknown> = {};
  const description = text(props.description, [...pp, "description"], "description");
  if (description) properties.description = description;
  const validations: Field["validations"] = {
    required: t === "statement"
      ? false
      : bool(vals.required, [...path, "validations", "required"], "required", false),
  };
  switch (t) {
    case "short_text":
    case "long_text": {
      const max = integer(vals.max_length, [...path, "validations", "max_length"], "max_length", [1, 100000]);
      if (max !== undefined) validations.max_length = max;
      break;
    }
    case "number": {
      const min = finite(vals.min_value, [...path, "validations", "min_value"], "min_value");
      const max = finite(vals.max_value, [...path, "validations", "max_value"], "max_value");
      if (min !== undefined) validations.min_value = min;
      if (max !== undefined) validations.max_value = max;
      if (min !== undefined && max !== undefined && min > max) {
        throw new DefinitionError("invalid", "min_value is above max_value", [...path, "validations"]);
      }
      break;
    }
    case "dropdown":
      properties.choices = normalizeChoices(props.choices ?? raw.choices, pp, false);
      properties.alphabetical_order = bool(
        props.alphabetical_order,
        [...pp, "alphabetical_order"],
        "alphabetical_order",
        false,
      );
      break;
    case "multiple_choice":
      properties.choices = normalizeChoices(props.choices ?? raw.choices, pp, false);
      properties.allow_multiple_selection = bool(
        props.allow_multiple_selection,
        [...pp, "allow_multiple_selection"],
        "allow_multiple_selection",
        false,
      );
      properties.allow_other_choice = bool(
        props.allow_other_choice,
        [...pp, "allow_other_choice"],
        "allow_other_choice",
        false,
      );
      properties.randomize = bool(props.randomize, [...pp, "randomize"], "randomize", false);
      properties.vertical_alignment = bool(
        props.vertical_alignment,
        [...pp, "vertical_alignment"],
        "vertical_alignment",
        true,
      );
      break;
    case "picture_choice":
      properties.choices = normalizeChoices(props.choices ?? raw.choices, pp, true);
      properties.allow_multiple_selection = bool(
        props.allow_multiple_selection,
        [...pp, "allow_multiple_selection"],
        "allow_multiple_selection",
        false,
      );
      properties.supersized = bool(props.supersized, [...pp, "supersized"], "supersized", false);
      properties.show_labels = bool(props.show_labels, [...pp, "show_labels"], "show_labels", true);
      break;
    case "rating":
      properties.steps = integer(props.steps, [...pp, "steps"], "steps", [3, 10], DEFAULTS.ratingSteps);
      properties.shape = props.shape === undefined || props.shape === null
        ? DEFAULTS.ratingShape
        : props.shape;
      if (typeof properties.shape !== "string" || !/^[a-z_]{1,32}$/.test(properties.shape)) {
        throw new DefinitionError("invalid", "shape must be a shape name such as star", [...pp, "shape"]);
      }
      break;
    case "opinion_scale": {
      properties.steps = integer(props.steps, [...pp, "steps"], "steps", [5, 11], DEFAULTS.scaleSteps);
      properties.start_at_one = bool(props.start_at_one, [...pp, "start_at_one"], "start_at_one", false);
      const labels: Record<string, string> = {};
      if (props.labels !== undefined && props.labels !== null) {
        if (!isMap(props.labels)) {
          throw new DefinitionError("invalid", "labels must be an object", [...pp, "labels"]);
        }
        for (const side of ["left", "center", "right"]) {
          const value = text(props.labels[side], [...pp, "labels", side], `labels.${side}`);
          if (value.includes("\n")) {
            throw new DefinitionError("invalid", `labels.${side} is one line`, [...pp, "labels", side]);
          }
          if (value) labels[side] = value;
        }
      }
      properties.labels = labels;
      break;
    }
    case "date": {
      const structure = props.structure ?? DEFAULTS.dateStructure;
      const separator = props.separator ?? DEFAULTS.dateSeparator;
      if (!(DATE_STRUCTURES as readonly string[]).includes(structure)) {
        throw new DefinitionError("invalid", `structure must be one of ${DATE_STRUCTURES.join(", ")}`, [
          ...pp,
          "structure",
        ]);
      }
      if (!(DATE_SEPARATORS as readonly string[]).includes(separator)) {
        throw new DefinitionError("invalid", `separator must be one of ${DATE_SEPARATORS.join(" ")}`, [
          ...pp,
          "separator",
        ]);
      }
      properties.structure = structure;
      properties.separator = separator;
      break;
    }
    case "statement":
      if (title.includes("\n")) {
        throw new DefinitionError(
          "invalid",
          "a statement's title is its first line (put the rest in description)",
          [...path, "title"],
        );
      }
      properties.button_text = text(props.button_text, [...pp, "button_text"], "button_text") ||
        DEFAULTS.statementButton;
      properties.hide_marks = bool(props.hide_marks, [...pp, "hide_marks"], "hide_marks", false);
      break;
  }
  return { id: r, ref: r, title, type: t, properties, validations };
}

function normalizeChoices(value: unknown, path: (string | number)[], pictures: boolean): Choice[] {
  if (!Array.isArray(value) || !value.length) {
    throw new DefinitionError("invalid", "a choice question needs choices", [...path, "choices"]);
  }
  const taken = new Set<string>();
  return value.map((raw, i) => {
    const p = [...path, "choices", i];
    if (!isMap(raw)) throw new DefinitionError("invalid", "a choice must be an object with a label", p);
    const label = text(raw.label, [...p, "label"], "a choice's label");
    if (!label) throw new DefinitionError("invalid", "a choice needs a label", [...p, "label"]);
    if (label.includes("\n")) {
      throw new DefinitionError("invalid", "a choice's label is one line", [...p, "label"]);
    }
    if (/!\[[^\]]*\]\([^)]*\)$/.test(label)) {
      throw new DefinitionError("invalid", "a choice's label may not end with a picture", [...p, "label"]);
    }
    const r = ref(raw.ref, [...p, "ref"], "a choice's ref") ?? defaultChoiceRef(label, i, taken);
    if (taken.has(r)) {
      throw new DefinitionError("invalid", `choice ref ${r} is used twice in one question`, [...p, "ref"]);
    }
    taken.add(r);
    const choice: Choice = { id: r, ref: r, label };
    if (raw.attachment !== undefined && raw.attachment !== null) {
      if (
        !isMap(raw.attachment) || typeof raw.attachment.href !== "string" || !URLISH.test(raw.attachment.href)
      ) {
        throw new DefinitionError("invalid", "a choice's attachment is { type: image, href }", [
          ...p,
          "attachment",
        ]);
      }
      if (!pictures) {
        throw new DefinitionError("invalid", "only picture_choice choices carry pictures", [
          ...p,
          "attachment",
        ]);
      }
      choice.attachment = { type: "image", href: raw.attachment.href };
    }
    return choice;
  });
}

// ------------------------------------------------------------------------------------------ logic

interface PlacedAction {
  kind: "jump" | "score";
  /** the field the action hangs on: a jump's slide's last field, a score's own field */
  ref: string;
  slide: number;
  action: Action;
  expression?: string;
}

function normalizeLogic(value: unknown, groups: Group[], endings: ThankYouScreen[]): LogicEntry[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new DefinitionError("invalid", "logic must be a list", ["logic"]);
  const slideOfField = new Map<string, number>();
  const firstFieldOfGroup = new Map<string, string>();
  groups.forEach((g, i) => {
    g.properties.fields.forEach((f) => slideOfField.set(f.ref, i));
    firstFieldOfGroup.set(g.ref, g.properties.fields[0].ref);
  });
  const fieldRefs = new Set(slideOfField.keys());
  const endingRefs = new Set(endings.map((e) => e.ref));
  const unsayable = (why: string, path: (string | number)[]) =>
    new DefinitionError("unsupported", `a jump the rows cannot express: ${why}`, path);

  const placed: PlacedAction[] = [];
  value.forEach((entry, i) => {
    const path = ["logic", i];
    if (!isMap(entry)) throw new DefinitionError("invalid", "a logic entry must be an object", path);
    if (entry.type !== undefined && entry.type !== "field") {
      throw unsayable(`logic on ${JSON.stringify(entry.type)} (only fields carry logic)`, [...path, "type"]);
    }
    if (typeof entry.ref !== "string") {
      throw new DefinitionError("invalid", "a logic entry names a field in ref", [...path, "ref"]);
    }
    if (entry.expression !== undefined && entry.expression !== null && typeof entry.expression !== "string") {
      // left alone it would be ignored, and the action would hold always
      throw new DefinitionError("invalid", "a logic entry's expression must be text (a condition)", [
        ...path,
        "expression",
      ]);
    }
    const own = firstFieldOfGroup.has(entry.ref)
      ? groups.find((g) => g.ref === entry.ref)!.properties.fields.at(-1)!.ref
      : entry.ref;
    const slide = slideOfField.get(own);
    if (slide === undefined) throw unsayable(`ref ${entry.ref} is no field of this form`, [...path, "ref"]);
    if (!Array.isArray(entry.actions)) {
      throw new DefinitionError("invalid", "a logic entry needs actions", [...path, "actions"]);
    }
    entry.actions.forEach((raw: unknown, j: number) => {
      const ap = [...path, "actions", j];
      if (!isMap(raw)) throw new DefinitionError("invalid", "an action must be an object", ap);
      const { row, expression } = normalizeCondition(raw, entry, fieldRefs, ap);
      if (raw.action === "jump") {
        const to = isMap(raw.details) && isMap(raw.details.to) ? raw.details.to : undefined;
        if (!to || typeof to.value !== "string") {
          throw new DefinitionError("invalid", "a jump names details.to { type, value }", [...ap, "details"]);
        }
        let target: { type: "field" | "thankyou"; value: string };
        if (to.type === "thankyou") {
          if (!endingRefs.has(to.value)) {
            throw unsayable(`no thank-you screen ${to.value}`, [...ap, "details", "to"]);
          }
          target = { type: "thankyou", value: to.value };
        } else if (to.type === "field") {
          const value = firstFieldOfGroup.get(to.value) ?? to.value;
          const targetSlide = slideOfField.get(value);
          if (targetSlide === undefined) {
            throw unsayable(`no field ${to.value} to jump to`, [...ap, "details", "to"]);
          }
          if (targetSlide <= slide) {
            throw unsayable(`jumps go forward (${to.value} is not after the slide of ${entry.ref})`, [
              ...ap,
              "details",
              "to",
            ]);
          }
          target = { type: "field", value };
        } else {
          throw unsayable(`a jump to ${JSON.stringify(to.type)} (fields and thank-you screens only)`, [
            ...ap,
            "details",
            "to",
          ]);
        }
        const last = groups[slide].properties.fields.at(-1)!.ref;
        placed.push({
          kind: "jump",
          ref: last,
          slide,
          action: { action: "jump", details: { to: target }, condition: row },
          expression,
        });
      } else if (raw.action === "add" || raw.action === "subtract") {
        const details = isMap(raw.details) ? raw.details : {};
        const target = isMap(details.target) ? details.target : {};
        if (target.type !== "variable" || target.value !== "score") {
          throw unsayable("only the score variable can be changed", [...ap, "details", "target"]);
        }
        const amount = isMap(details.value) ? details.value.value : undefined;
        if (typeof amount !== "number" || !Number.isFinite(amount)) {
          throw new DefinitionError("invalid", "a score action adds a constant number", [
            ...ap,
            "details",
            "value",
          ]);
        }
        if (!fieldRefs.has(entry.ref)) {
          throw unsayable(`scores hang on a field (${entry.ref} is a slide)`, [...path, "ref"]);
        }
        // negative additions are subtractions: one way to write each change
        const signed = raw.action === "add" ? amount : -amount;
        const action: Action = {
          action: signed < 0 ? "subtract" : "add",
          details: {
            target: { type: "variable", value: "score" },
            value: { type: "constant", value: Math.abs(signed) },
          },
          condition: row,
        };
        placed.push({ kind: "score", ref: entry.ref, slide, action, expression });
      } else {
        throw unsayable(`the action ${JSON.stringify(raw.action)} (jump, add and subtract only)`, [
          ...ap,
          "action",
        ]);
      }
    });
  });

  // canonical layout: slide by slide, each field's scores, then the slide's jumps; actions that need
  // an expression stand alone in their entry (the expression sits beside the entry)
  const out: LogicEntry[] = [];
  const emit = (ref: string, actions: PlacedAction[]) => {
    let run: Action[] = [];
    const flush = () => {
      if (run.length) out.push({ type: "field", ref, actions: run });
      run = [];
    };
    for (const a of actions) {
      if (a.expression) {
        flush();
        out.push({ type: "field", ref, actions: [a.action], expression: a.expression });
      } else run.push(a.action);
    }
    flush();
  };
  groups.forEach((g, i) => {
    for (const f of g.properties.fields) {
      emit(
        f.ref,
        placed.filter((p) => p.kind === "score" && p.ref === f.ref),
      );
    }
    emit(g.properties.fields.at(-1)!.ref, placed.filter((p) => p.kind === "jump" && p.slide === i));
  });
  return out;
}

/** An action's condition as rows, or `always` plus the canonical expression text. */
function normalizeCondition(
  action: Json,
  entry: Json,
  fieldRefs: Set<string>,
  path: (string | number)[],
): { row: Row; expression?: string } {
  let condition: Condition | null;
  try {
    condition = actionCondition(entry, action);
  } catch (error) {
    if (error instanceof ConditionError) {
      throw new DefinitionError("unsupported", `a jump the rows cannot express: ${error.message}`, [
        ...path,
        "condition",
      ]);
    }
    throw error;
  }
  if (!condition) return { row: { op: "always", vars: [] } };
  for (const r of conditionRefs(condition)) {
    if (!fieldRefs.has(r)) {
      throw new DefinitionError(
        "unsupported",
        `a jump the rows cannot express: the condition reads ${r}, which is no field of this form`,
        [...path, "condition"],
      );
    }
  }
  const row = conditionToRow(condition);
  if (row) return { row };
  return { row: { op: "always", vars: [] }, expression: printCondition(condition) };
}

/** Parses a condition's text (document side) into the canonical row or expression. */
export function conditionFromText(text: string, self?: string): { row: Row; expression?: string } {
  const condition = parseCondition(text, { self });
  const row = conditionToRow(condition);
  return row ? { row } : { row: { op: "always", vars: [] }, expression: printCondition(condition) };
}

// --------------------------------------------------------------------------------------- queries

/** Every field of a canonical definition, in form order (groups flattened). */
export function allFields(core: Pick<FormCore, "fields">): Field[] {
  return core.fields.flatMap((g) => g.properties.fields);
}

/** The answer type a question's answers take. */
export function answerType(field: Pick<Field, "type" | "properties">): string | undefined {
  switch (field.type) {
    case "short_text":
    case "long_text":
      return "text";
    case "email":
      return "email";
    case "website":
      return "url";
    case "phone_number":
      return "phone_number";
    case "number":
    case "rating":
    case "opinion_scale":
      return "number";
    case "date":
      return "date";
    case "file_upload":
      return "file_url";
    case "dropdown":
      return "choice";
    case "multiple_choice":
    case "picture_choice":
      return field.properties.allow_multiple_selection ? "choices" : "choice";
    case "statement":
      return undefined;
  }
}
