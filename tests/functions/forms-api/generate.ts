// Random form definitions for property-style tests: a seeded generator that covers every supported
// question type and property, screens, logic (every row op, `or`, `always` with and without an
// expression) and scoring, written the loose way clients send them (ids missing, groups or bare fields),
// with texts and condition constants that hold every kind of line break, quotes and backslashes.
import { printCondition, ROW_OPS as ROW_NAME } from "../../../shared/forms/logic.js";
import { FIELD_TYPES } from "../../../shared/openapi/enums/forms.ts";

export function rng(seed: number) {
  let s = seed >>> 0 || 1;
  const next = () => {
    // xorshift32: small, fast, reproducible from the seed in a failure message
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x100000000;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(list: readonly T[]): T => list[int(0, list.length - 1)];
  const chance = (p: number) => next() < p;
  return { next, int, pick, chance };
}

type R = ReturnType<typeof rng>;
type Json = Record<string, any>;

const WORDS = [
  "harbor",
  "Fish",
  "über",
  "naïve",
  "tea",
  "ship",
  "42",
  "a:b",
  "C:\\temp",
  "{#odd}",
  "x}",
  'quote"d',
  "é",
  "日本",
  "-",
  "#",
  ">",
  "->",
  "*",
  "back\\nslash",
  "\\u2028",
];

/** Every way a client may break a line: the document writes each as an escape or as \n. */
export const LINE_BREAKS = ["\n", "\r\n", "\r", "\u2028", "\u2029"];

function words(r: R, min = 1, max = 4): string {
  return Array.from({ length: r.int(min, max) }, () => r.pick(WORDS)).join(" ");
}

function line(r: R, allowBreaks = false): string {
  const text = words(r, 0, 5);
  return allowBreaks && r.chance(0.2) ? `${text}${r.pick(LINE_BREAKS)}${words(r)}` : text;
}

let refCounter = 0;
function ref(r: R, prefix: string): string {
  return `${prefix}_${(refCounter++).toString(36)}${r.chance(0.2) ? ".x-y" : ""}`;
}

const ROW_OPS = Object.keys(ROW_NAME) as (keyof typeof ROW_NAME)[];
const ALL_OPS = [...ROW_OPS, ">=", "<=", "not contains"];

function constant(r: R): string | number | boolean {
  const k = r.int(0, 4);
  if (k === 0) return r.int(-50, 50);
  if (k === 1) return r.int(0, 1000) / 8;
  if (k === 2) return r.chance(0.5);
  // a constant is kept exactly as sent, line breaks and all
  if (k === 3) return `${words(r, 1, 2)}${r.pick(LINE_BREAKS)}${words(r, 0, 1)}`;
  return words(r, 1, 2);
}

function cmp(r: R, refs: string[], ops = ALL_OPS) {
  return { kind: "cmp" as const, ref: r.pick(refs), op: r.pick(ops), value: constant(r) };
}

function anyCondition(r: R, refs: string[], depth = 0): any {
  if (depth > 2 || r.chance(0.4)) return cmp(r, refs);
  const k = r.int(0, 2);
  if (k === 2) return { kind: "not", item: anyCondition(r, refs, depth + 1) };
  return {
    kind: k === 0 ? "and" : "or",
    items: Array.from({ length: r.int(2, 3) }, () => anyCondition(r, refs, depth + 1)),
  };
}

/** A condition in one of the ways a definition can carry it. */
function condition(r: R, refs: string[]): { condition: Json; expression?: string } {
  const k = r.int(0, 3);
  if (k === 0) return { condition: { op: "always", vars: [] } };
  if (k === 1) {
    const c = cmp(r, refs, ROW_OPS);
    return {
      condition: {
        op: ROW_NAME[c.op as keyof typeof ROW_NAME],
        vars: [{ type: "field", value: c.ref }, { type: "constant", value: c.value }],
      },
    };
  }
  if (k === 2) {
    const vars = Array.from({ length: r.int(2, 3) }, () => {
      const c = cmp(r, refs, ROW_OPS);
      return {
        op: ROW_NAME[c.op as keyof typeof ROW_NAME],
        vars: [{ type: "field", value: c.ref }, { type: "constant", value: c.value }],
      };
    });
    return { condition: { op: "or", vars } };
  }
  return { condition: { op: "always", vars: [] }, expression: printCondition(anyCondition(r, refs)) };
}

function choices(r: R, pictures: boolean): Json[] {
  return Array.from({ length: r.int(1, 4) }, (_, i) => {
    const c: Json = { label: `${words(r)} ${i}` };
    if (r.chance(0.4)) c.ref = ref(r, "c");
    if (pictures && r.chance(0.8)) {
      c.attachment = { type: "image", href: `https://img.example/${i}.png?x=${r.int(0, 9)}` };
    }
    return c;
  });
}

function field(r: R, type: string): Json {
  const f: Json = { type, title: line(r, type !== "statement") };
  if (r.chance(0.7) || type !== "statement") f.ref = ref(r, "f");
  if (r.chance(0.3)) f.id = "ignored-id";
  const p: Json = {};
  if (r.chance(0.4)) {
    p.description = type === "statement" ? `${words(r)}\n\n  ${words(r)}\n>${words(r)}` : line(r, true);
  }
  if (type !== "statement" && r.chance(0.5)) f.validations = { required: r.chance(0.5) };
  switch (type) {
    case "short_text":
    case "long_text":
      if (r.chance(0.5)) (f.validations ??= {}).max_length = r.int(1, 500);
      break;
    case "number":
      if (r.chance(0.5)) (f.validations ??= {}).min_value = r.int(-10, 0);
      if (r.chance(0.5)) (f.validations ??= {}).max_value = r.int(1, 100) + 0.5;
      break;
    case "dropdown":
      p.choices = choices(r, false);
      if (r.chance(0.5)) p.alphabetical_order = r.chance(0.5);
      break;
    case "multiple_choice":
      p.choices = choices(r, false);
      for (const k of ["allow_multiple_selection", "allow_other_choice", "randomize", "vertical_alignment"]) {
        if (r.chance(0.5)) p[k] = r.chance(0.5);
      }
      break;
    case "picture_choice":
      p.choices = choices(r, true);
      for (const k of ["allow_multiple_selection", "supersized", "show_labels"]) {
        if (r.chance(0.5)) p[k] = r.chance(0.5);
      }
      break;
    case "rating":
      if (r.chance(0.5)) p.steps = r.int(3, 10);
      if (r.chance(0.5)) p.shape = r.pick(["star", "heart", "thunderbolt"]);
      break;
    case "opinion_scale":
      if (r.chance(0.5)) p.steps = r.int(5, 11);
      if (r.chance(0.5)) p.start_at_one = r.chance(0.5);
      if (r.chance(0.6)) {
        p.labels = {};
        for (const side of ["left", "center", "right"]) if (r.chance(0.6)) p.labels[side] = words(r);
      }
      break;
    case "date":
      if (r.chance(0.5)) p.structure = r.pick(["MMDDYYYY", "DDMMYYYY", "YYYYMMDD"]);
      if (r.chance(0.5)) p.separator = r.pick(["/", "-", "."]);
      break;
    case "statement":
      if (r.chance(0.5)) p.button_text = words(r);
      if (r.chance(0.5)) p.hide_marks = r.chance(0.5);
      break;
  }
  f.properties = p;
  return f;
}

/** A definition as a client might send it, and the refs it uses. */
export function generateDefinition(r: R): Json {
  const types = [...FIELD_TYPES];
  const slides: Json[][] = Array.from(
    { length: r.int(1, 5) },
    () => Array.from({ length: r.int(1, 4) }, () => field(r, r.pick(types))),
  );
  // every type appears in some definitions for sure: the first slide cycles through them
  slides[0].push(field(r, types[r.int(0, types.length - 1)]));

  const endings: Json[] = Array.from({ length: r.int(0, 3) }, (_, i) => {
    const t: Json = { title: words(r, 0, 4), properties: {} };
    if (i > 0 || r.chance(0.5)) t.ref = ref(r, "end");
    if (r.chance(0.3)) t.id = "whatever";
    const mode = r.chance(0.3) ? "redirect" : "reload";
    if (r.chance(0.6)) t.properties.button_mode = mode;
    if (mode === "redirect" || r.chance(0.2)) t.properties.redirect_url = `https://example.com/${i}`;
    if (t.properties.redirect_url && !t.properties.button_mode && r.chance(0.5)) {
      t.properties.button_mode = "redirect";
    }
    if (r.chance(0.5)) t.properties.button_text = words(r);
    if (r.chance(0.5)) t.properties.show_button = r.chance(0.5);
    if (r.chance(0.4)) t.properties.description = `${words(r)}\n${words(r)}`;
    return t;
  });

  const fields: Json[] = slides.map((list, i) => {
    if (list.length === 1 && r.chance(0.3)) return list[0]; // a bare field: a slide of its own
    const g: Json = {
      type: "group",
      title: r.chance(0.8) ? words(r, 0, 3) : "",
      properties: { fields: list },
    };
    if (r.chance(0.5)) g.ref = ref(r, "g");
    if (r.chance(0.3)) g.properties.button_text = words(r);
    if (r.chance(0.3)) g.properties.show_button = r.chance(0.5);
    void i;
    return g;
  });

  // refs as the normalizer will settle them (fields without a ref get one from their title or order)
  const named = slides.map((list) => list.filter((f) => f.ref).map((f) => f.ref as string));
  const allRefs = named.flat();
  const logic: Json[] = [];
  if (allRefs.length) {
    for (let s = 0; s < slides.length; s++) {
      if (!named[s].length) continue;
      // jumps forward from this slide, hung on any of its fields
      for (let k = r.int(0, 2); k > 0; k--) {
        const later = named.slice(s + 1).flat();
        const endingRefs = endings.map((e) => e.ref).filter(Boolean);
        const toField = later.length && (r.chance(0.5) || !endingRefs.length);
        if (!toField && !endingRefs.length) break;
        const to = toField
          ? { type: "field", value: r.pick(later) }
          : { type: "thankyou", value: r.pick(endingRefs) };
        const c = condition(r, allRefs);
        logic.push({
          type: "field",
          ref: r.pick(named[s]),
          actions: [{ action: "jump", details: { to }, condition: c.condition }],
          ...(c.expression ? { expression: c.expression } : {}),
        });
      }
      // scores on questions of this slide
      for (const f of slides[s]) {
        if (!f.ref || f.type === "statement" || !r.chance(0.3)) continue;
        const c = condition(r, allRefs);
        const amount = r.int(-3, 5);
        logic.push({
          type: "field",
          ref: f.ref,
          actions: [{
            action: r.pick(["add", "subtract"]),
            details: {
              target: { type: "variable", value: "score" },
              value: { type: "constant", value: amount },
            },
            condition: c.condition,
          }],
          ...(c.expression ? { expression: c.expression } : {}),
        });
      }
    }
  }
  // vendors order logic as they like: shuffle it
  for (let i = logic.length - 1; i > 0; i--) {
    const j = r.int(0, i);
    [logic[i], logic[j]] = [logic[j], logic[i]];
  }

  const def: Json = {
    title: words(r, 1, 5),
    type: r.chance(0.4) ? "quiz" : "form",
    fields,
    logic,
    thankyou_screens: endings,
  };
  if (r.chance(0.5)) {
    const w: Json = { title: words(r, 0, 4), properties: {} };
    if (r.chance(0.3)) w.ref = ref(r, "w");
    if (r.chance(0.5)) w.properties.button_text = words(r);
    if (r.chance(0.3)) w.properties.show_button = false;
    if (r.chance(0.5)) w.properties.description = `${words(r)}\n\n${words(r)}`;
    def.welcome_screens = [w];
  }
  if (r.chance(0.6)) {
    def.settings = {};
    if (r.chance(0.5)) def.settings.language = r.pick(["en", "de", "pt-BR"]);
    if (r.chance(0.5)) def.settings.progress_bar = r.pick(["percentage", "proportion"]);
    for (const k of ["is_public", "show_progress_bar", "show_question_number", "autosave_progress"]) {
      if (r.chance(0.3)) def.settings[k] = r.chance(0.5);
    }
    if (r.chance(0.3)) {
      def.settings.meta = {
        allow_indexing: r.chance(0.5),
        ...(r.chance(0.5) ? { description: words(r) } : {}),
      };
    }
    if (r.chance(0.3)) def.settings.redirect_after_submit_url = "https://example.com/after";
    if (r.chance(0.2)) def.settings.free_form_navigation = r.chance(0.5);
  }
  if (r.chance(0.4)) def.hidden = ["utm_source", "member-id"].slice(0, r.int(1, 2));
  if (r.chance(0.3)) def.variables = { score: r.int(-5, 5), price: 0 };
  return def;
}
