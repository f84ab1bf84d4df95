// The form document syntax: demo forms, the round trip definition → document → definition over
// generated definitions, and parser errors that name the line and the reason.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import {
  DefinitionError,
  type FormCore,
  normalizeDefinition,
  type Row,
} from "../../../functions/forms-api/domain/definition.ts";
import {
  DocumentError,
  parseDocument,
  renderBody,
  renderDocument,
} from "../../../functions/forms-api/domain/document.ts";
import { actionCondition, printCondition } from "../../../shared/forms/logic.js";
import { generateDefinition, rng } from "./generate.ts";

const DEMO = new URL("../../../demo-site/records/pages/forms/", import.meta.url);

async function demoForms(): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for await (const entry of Deno.readDir(DEMO)) {
    if (entry.name.endsWith(".md")) {
      out.push([entry.name, await Deno.readTextFile(new URL(entry.name, DEMO))]);
    }
  }
  return out.sort();
}

test("every demo form parses and reads back the same after rendering", async () => {
  const forms = await demoForms();
  assert.ok(forms.length >= 2);
  for (const [name, text] of forms) {
    const doc = parseDocument(text);
    assert.deepEqual(parseDocument(renderDocument(doc)), doc, name);
  }
});

test("the demo feedback form: every question type, statements, two endings, logic with and/or", async () => {
  const doc = parseDocument(await Deno.readTextFile(new URL("feedback.md", DEMO)));
  const { core } = doc;
  assert.equal(core.id, "feedback");
  assert.equal(core.settings.progress_bar, "proportion");
  assert.deepEqual(core.hidden, ["utm_source", "ticket"]);
  const types = new Set(core.fields.flatMap((g) => g.properties.fields.map((f) => f.type)));
  for (
    const t of [
      "short_text",
      "long_text",
      "email",
      "website",
      "phone_number",
      "number",
      "file_upload",
      "dropdown",
      "multiple_choice",
      "picture_choice",
      "rating",
      "opinion_scale",
      "date",
      "statement",
    ]
  ) {
    assert.ok(types.has(t as never), `the demo form has a ${t} question`);
  }
  assert.deepEqual(core.thankyou_screens.map((t) => t.ref), ["default_tys", "fans"]);
  assert.equal(core.thankyou_screens[0].properties.button_mode, "redirect");
  const jumps = core.logic.filter((l) => l.actions[0].action === "jump");
  assert.equal(jumps[0].expression, "overall = 5 and recommend > 8", "an and-condition needs an expression");
  assert.equal(jumps[0].actions[0].condition.op, "always");
  assert.equal(jumps[1].actions[0].condition.op, "or", "an or of comparisons is rows");
  assert.equal(jumps[1].ref, "talks", "a jump hangs on the last field of its slide");
});

test("definition → document → definition is the identity over 400 generated definitions", () => {
  for (let seed = 1; seed <= 400; seed++) {
    const r = rng(seed);
    const raw = generateDefinition(r);
    let core: FormCore;
    try {
      core = normalizeDefinition(raw, `form-${seed}`);
    } catch (error) {
      throw new Error(`seed ${seed}: the generated definition was refused: ${(error as Error).message}`);
    }
    assert.deepEqual(
      normalizeDefinition(structuredClone(core), core.id),
      core,
      `seed ${seed}: normalizing is idempotent`,
    );
    const text = renderDocument({ core });
    let back;
    try {
      back = parseDocument(text);
    } catch (error) {
      throw new Error(
        `seed ${seed}: the rendered document does not parse: ${(error as Error).message}\n${text}`,
      );
    }
    assert.deepEqual(back.core, core, `seed ${seed}:\n${text}`);
    assert.equal(renderDocument(back), text, `seed ${seed}: rendering is stable`);
  }
});

test("the generated definitions cover every field type, every row op, or, always and expressions", () => {
  const seen = new Set<string>();
  for (let seed = 1; seed <= 400; seed++) {
    const core = normalizeDefinition(generateDefinition(rng(seed)), "x");
    for (const g of core.fields) for (const f of g.properties.fields) seen.add(`type:${f.type}`);
    for (const l of core.logic) {
      for (const a of l.actions) {
        seen.add(`action:${a.action}`);
        seen.add(`op:${a.condition.op}`);
        if (a.condition.op === "or") {
          for (const v of a.condition.vars as { op: string }[]) seen.add(`op:${v.op}`);
        }
        const rows = a.condition.op === "or" ? a.condition.vars as Row[] : [a.condition];
        for (const row of rows) {
          const value = (row.vars?.[1] as { value?: unknown } | undefined)?.value;
          if (typeof value === "string" && /[\n\r\u2028\u2029]/.test(value)) {
            seen.add("constant with a line break");
          }
        }
      }
      if (l.expression) seen.add("expression");
      if (l.expression && /\\[nr]|\\u202[89]/.test(l.expression)) seen.add("expression with a line break");
    }
    if (core.welcome_screens.length) seen.add("welcome");
    if (core.thankyou_screens.length > 1) seen.add("several endings");
  }
  for (
    const want of [
      "type:short_text",
      "type:long_text",
      "type:email",
      "type:website",
      "type:phone_number",
      "type:number",
      "type:file_upload",
      "type:dropdown",
      "type:multiple_choice",
      "type:picture_choice",
      "type:rating",
      "type:opinion_scale",
      "type:date",
      "type:statement",
      "action:jump",
      "action:add",
      "action:subtract",
      "op:equal",
      "op:not_equal",
      "op:greater_than",
      "op:lower_than",
      "op:is",
      "op:is_not",
      "op:contains",
      "op:or",
      "op:always",
      "expression",
      "constant with a line break",
      "expression with a line break",
      "welcome",
      "several endings",
    ]
  ) {
    assert.ok(seen.has(want), `generated definitions include ${want}`);
  }
});

test("definitions without any ids (as forms.copy sends them) are accepted; ids come from refs", () => {
  const core = normalizeDefinition({
    title: "Copied",
    fields: [{
      type: "group",
      ref: "g",
      title: "",
      properties: {
        fields: [{
          ref: "color",
          title: "Colour?",
          type: "dropdown",
          properties: { choices: [{ label: "Red" }, { label: "Red" }, { ref: "b", label: "Blue" }] },
        }],
      },
    }, { title: "Your name?", type: "short_text" }],
    thankyou_screens: [{ ref: "bye", title: "Bye", properties: {} }],
  }, "copied");
  assert.equal(core.fields[0].id, "group-1");
  const color = core.fields[0].properties.fields[0];
  assert.equal(color.id, "color");
  assert.deepEqual((color.properties.choices as { id: string }[]).map((c) => c.id), ["red", "choice-2", "b"]);
  assert.equal(
    core.fields[1].properties.fields[0].ref,
    "your_name",
    "a field without ref takes its title's slug",
  );
  assert.equal(core.thankyou_screens[0].id, "bye");
});

test("no null anywhere in a normalized definition (forms.copy walks every object)", () => {
  const core = normalizeDefinition({
    title: "Nulls",
    settings: { meta: { description: null }, language: null },
    fields: [{
      ref: "a",
      title: "A",
      type: "short_text",
      properties: { description: null },
      validations: null,
    }],
    welcome_screens: [{ title: "Hi", properties: { description: null } }],
  }, "nulls");
  assert.ok(!/:null\b/.test(JSON.stringify(core)), JSON.stringify(core));
});

function refusal(body: unknown): DefinitionError {
  try {
    normalizeDefinition(body, "x");
  } catch (error) {
    if (error instanceof DefinitionError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

test("unsupported question types and unsayable jumps are refused as unsupported (BAD_REQUEST)", () => {
  for (
    const type of [
      "payment",
      "legal",
      "matrix",
      "ranking",
      "yes_no",
      "contact_info",
      "address",
      "nps",
      "calendly",
    ]
  ) {
    const e = refusal({ title: "t", fields: [{ ref: "q", title: "q", type }] });
    assert.equal(e.kind, "unsupported", type);
    assert.match(e.message, new RegExp(type));
  }
  const base = {
    title: "t",
    fields: [{ ref: "a", title: "a", type: "number" }, { ref: "b", title: "b", type: "number" }],
  };
  const jump = (action: unknown, extra: object = {}) => ({
    ...base,
    logic: [{ type: "field", ref: "b", actions: [action], ...extra }],
  });
  const cases: [string, unknown][] = [
    [
      "backwards",
      jump({
        action: "jump",
        details: { to: { type: "field", value: "a" } },
        condition: { op: "always", vars: [] },
      }),
    ],
    [
      "an unknown op",
      jump({
        action: "jump",
        details: { to: { type: "thankyou", value: "default_tys" } },
        condition: {
          op: "begins_with",
          vars: [{ type: "field", value: "a" }, { type: "constant", value: 1 }],
        },
      }),
    ],
    [
      "and rows",
      jump({
        action: "jump",
        details: { to: { type: "thankyou", value: "default_tys" } },
        condition: { op: "and", vars: [] },
      }),
    ],
    [
      "a hidden var",
      jump({
        action: "jump",
        details: { to: { type: "thankyou", value: "default_tys" } },
        condition: { op: "is", vars: [{ type: "hidden", value: "x" }, { type: "constant", value: 1 }] },
      }),
    ],
    [
      "an unknown target",
      jump({
        action: "jump",
        details: { to: { type: "thankyou", value: "nope" } },
        condition: { op: "always", vars: [] },
      }),
    ],
    [
      "an outcome target",
      jump({
        action: "jump",
        details: { to: { type: "outcome", value: "x" } },
        condition: { op: "always", vars: [] },
      }),
    ],
    [
      "a broken expression",
      jump({
        action: "jump",
        details: { to: { type: "thankyou", value: "default_tys" } },
        condition: { op: "always", vars: [] },
      }, { expression: "a >" }),
    ],
    [
      "an expression on an unknown field",
      jump({
        action: "jump",
        details: { to: { type: "thankyou", value: "default_tys" } },
        condition: { op: "always", vars: [] },
      }, { expression: "zz = 1 and a = 2" }),
    ],
    [
      "a price variable",
      jump({
        action: "add",
        details: { target: { type: "variable", value: "price" }, value: { type: "constant", value: 1 } },
        condition: { op: "always", vars: [] },
      }),
    ],
    ["a multiply", jump({ action: "multiply", details: {}, condition: { op: "always", vars: [] } })],
    ["hidden logic", { ...base, logic: [{ type: "hidden", ref: "x", actions: [] }] }],
  ];
  for (const [what, body] of cases) assert.equal(refusal(body).kind, "unsupported", what);
});

test("shape problems are refused as invalid (VALIDATION_ERROR)", () => {
  const cases: [string, unknown][] = [
    ["not an object", []],
    ["a bad type", { title: "t", type: "survey" }],
    ["a duplicate ref", {
      title: "t",
      fields: [{ ref: "a", title: "a", type: "email" }, { ref: "a", title: "b", type: "email" }],
    }],
    ["a bad ref", { title: "t", fields: [{ ref: "a b", title: "a", type: "email" }] }],
    ["a choice question without choices", {
      title: "t",
      fields: [{ ref: "a", title: "a", type: "dropdown" }],
    }],
    ["rating steps out of range", {
      title: "t",
      fields: [{ ref: "a", title: "a", type: "rating", properties: { steps: 20 } }],
    }],
    ["a bad date structure", {
      title: "t",
      fields: [{ ref: "a", title: "a", type: "date", properties: { structure: "YYMMDD" } }],
    }],
    ["nested groups", {
      title: "t",
      fields: [{ type: "group", properties: { fields: [{ type: "group", properties: { fields: [] } }] } }],
    }],
    ["an empty group", { title: "t", fields: [{ type: "group", properties: { fields: [] } }] }],
    ["two welcome screens", { title: "t", welcome_screens: [{ title: "a" }, { title: "b" }] }],
    ["redirect without url", {
      title: "t",
      thankyou_screens: [{ title: "a", properties: { button_mode: "redirect" } }],
    }],
    ["a bad progress bar", { title: "t", settings: { progress_bar: "bar" } }],
    ["a bad hidden name", { title: "t", hidden: ["a b"] }],
    ["min above max", {
      title: "t",
      fields: [{ ref: "a", title: "a", type: "number", validations: { min_value: 5, max_value: 1 } }],
    }],
  ];
  for (const [what, body] of cases) assert.equal(refusal(body).kind, "invalid", what);
});

function parseError(text: string): DocumentError {
  try {
    parseDocument(text);
  } catch (error) {
    if (error instanceof DocumentError) return error;
    throw error;
  }
  throw new Error("expected a parse error");
}

const HEAD = "---\ntitle: T\nslug: t\nkind: form-slides\n---\n";

test("parser errors name the line and the reason", () => {
  const cases: [string, number, RegExp][] = [
    [`${HEAD}\n## One\nname txt: Hi\n`, 8, /"txt" is not a question kind/],
    [`${HEAD}\n## One\nJust some words\n`, 8, /not a heading/],
    [
      `${HEAD}\n## One\nq text: Hi\n  colour: red\n`,
      9,
      /colour is not an option here \(options: description, max length\)/,
    ],
    [`${HEAD}\n## One\nq number: Hi\n  min: lots\n`, 9, /min is a number/],
    [`${HEAD}\n## One\nq text: Hi\n  - a choice\n`, 9, /has no choices/],
    [`${HEAD}\n## One\nq number: Hi\n-> q if q >\n`, 9, /the condition: expected a value after >/],
    [`${HEAD}\n-> x\n`, 7, /a jump \(->\) goes at the end of a slide/],
    [`${HEAD}\n## One\nq number: Hi\n-> nowhere\n`, 9, /no field nowhere to jump to/],
    [`${HEAD}\n## One\nq number: Hi\n## Two\nr number: Ho\n-> q\n`, 11, /jumps go forward/],
    [`${HEAD}\n## One\nq text: A\nq text: B\n`, 9, /ref q is used twice/],
    [`${HEAD}\n## One\nq rating: A\n  steps: 40\n`, 8, /steps must be a whole number from 3 to 10/],
    [`${HEAD}\n### Three\n`, 7, /headings are # \(screens\) and ## \(slides\)/],
    [`${HEAD}\n# Intro: x\n`, 7, /a # heading is # Welcome/],
    [`${HEAD}\n# Welcome: a\n# Welcome: b\n`, 8, /one welcome screen/],
    [`${HEAD}\n## One\nq date: When\n  format: YY/MM/DD\n`, 9, /format is MM\/DD\/YYYY/],
    [`${HEAD}\n## One\nq choice: Pick\n  - A\n  score 3\n`, 10, /a score line is score \+<points>/],
    [`---\ntitle: T\nslug: t\nkind: article\n---\n`, 4, /kind: form-slides/],
    [`---\ntitle: T\nkind: form-slides\nform:\n  progress_bar: bar\n---\n`, 1, /front matter names no slug/],
    [
      `---\ntitle: T\nslug: t\nkind: form-slides\nform:\n  progress_bar: bar\n---\n`,
      6,
      /progress_bar must be percentage or proportion/,
    ],
    [
      `---\ntitle: T\nslug: t\nkind: form-slides\nform:\n  webhook: ftp://x\n---\n`,
      6,
      /form.webhook must be an http\(s\) address/,
    ],
  ];
  for (const [text, line, reason] of cases) {
    const e = parseError(text);
    assert.match(e.message, reason, text);
    assert.equal(e.line, line, `${e.message} in\n${text}`);
    assert.ok(e.message.startsWith(`line ${line}: `));
  }
});

test("unsupported things in a document are unsupported errors too (they map to BAD_REQUEST)", () => {
  const e = parseError(`${HEAD}\n## One\nq number: Hi\n-> q if q = 1\n`);
  assert.equal(e.kind, "unsupported");
});

test("hand-written shortcuts read as their canonical forms", () => {
  const doc = parseDocument(`${HEAD}
q* number: How many?
  score +2 if > 3
  score -1
-> end if q>=10

# Thanks: Bye {#end}
`);
  const core = doc.core;
  assert.equal(core.fields.length, 1, "questions before any ## make one slide");
  assert.equal(core.logic[0].actions[0].condition.op, "greater_than");
  assert.deepEqual(core.logic[0].actions.map((a) => a.action), ["add", "subtract"]);
  assert.equal(core.logic[1].expression, "q >= 10");
  assert.equal(core.thankyou_screens[0].ref, "end");
  assert.match(renderBody(core), /^-> end if q >= 10$/m);
});

test("line breaks and backslashes in single-line values survive as \\n and \\\\", () => {
  const core = normalizeDefinition({
    title: "t",
    fields: [{
      ref: "q",
      title: "Line one\nC:\\new",
      type: "short_text",
      properties: { description: "a\\nb\nc" },
    }],
  }, "t");
  const text = renderDocument({ core });
  assert.match(text, /^q text: Line one\\nC:\\\\new$/m);
  assert.deepEqual(parseDocument(text).core, core);
});

/** A form with two questions and one jump from a to b under `condition` (and `expression` beside it). */
function withJump(condition: unknown, extra: Record<string, unknown> = {}) {
  return {
    title: "t",
    fields: [{ ref: "a", title: "a", type: "short_text" }, { ref: "b", title: "b", type: "short_text" }],
    logic: [{
      type: "field",
      ref: "a",
      actions: [{ action: "jump", details: { to: { type: "field", value: "b" } }, condition }],
      ...extra,
    }],
  };
}

test("condition constants keep their line breaks exactly: the document writes them as escapes on one line", () => {
  const constants = [
    "new\nline",
    "cr\rx",
    "crlf\r\nx",
    "\u2028sep",
    "a\u2029b",
    "C:\\new",
    "\\u2028 as text",
    'say "hi"',
  ];
  for (const value of constants) {
    const core = normalizeDefinition(
      withJump({ op: "equal", vars: [{ type: "field", value: "a" }, { type: "constant", value }] }),
      "t",
    );
    const text = renderDocument({ core });
    const jump = text.split("\n").find((l) => l.startsWith("-> "))!;
    assert.ok(!/[\r\u2028\u2029]/.test(jump), `${JSON.stringify(value)}: the jump line holds no raw break`);
    const back = parseDocument(text).core;
    assert.deepEqual(back, core, JSON.stringify(value));
    assert.equal((back.logic[0].actions[0].condition.vars[1] as { value: string }).value, value);
  }
  assert.match(
    renderDocument({
      core: normalizeDefinition(
        withJump({
          op: "equal",
          vars: [{ type: "field", value: "a" }, { type: "constant", value: "x\ny\u2028z" }],
        }),
        "t",
      ),
    }),
    /^-> b if a = "x\\ny\\u2028z"$/m,
  );
});

test("an expression with a quoted line break round-trips; a break between its words is space", () => {
  const always = { op: "always", vars: [] };
  const quoted = normalizeDefinition(withJump(always, { expression: 'a = "x\ny" and b = "p\u2029q"' }), "t");
  assert.equal(quoted.logic[0].expression, 'a = "x\\ny" and b = "p\\u2029q"');
  assert.deepEqual(parseDocument(renderDocument({ core: quoted })).core, quoted);
  const spaced = normalizeDefinition(withJump(always, { expression: "a = 1\nand\r\nb = 2" }), "t");
  assert.equal(spaced.logic[0].expression, "a = 1 and b = 2");
});

test("a logic entry's expression that is not text is refused at its path, never dropped", () => {
  for (const expression of [5, true, { op: "and" }, ["a = 1"]]) {
    const e = refusal(withJump({ op: "always", vars: [] }, { expression }));
    assert.equal(e.kind, "invalid", JSON.stringify(expression));
    assert.deepEqual(e.path, ["logic", 0, "expression"]);
  }
  const none = normalizeDefinition(withJump({ op: "always", vars: [] }, { expression: null }), "t");
  assert.equal(none.logic[0].expression, undefined, "null is no expression");
});

test("free-form settings are bounded: deeper than 32 levels or past 16 384 characters is refused at settings.<key>", () => {
  const nested = (depth: number, open: (inner: unknown) => unknown): unknown => {
    let value: unknown = 1;
    for (let i = 0; i < depth; i++) value = open(value);
    return value;
  };
  const ok = normalizeDefinition({ title: "t", settings: { custom_thing: nested(32, (v) => [v]) } }, "t");
  assert.ok(ok.settings.custom_thing);
  for (
    const [what, value] of [
      ["33 lists", nested(33, (v) => [v])],
      ["2000 lists", nested(2000, (v) => [v])],
      ["100 000 objects", nested(100_000, (v) => ({ a: v }))],
      ["a long text", "x".repeat(16_385)],
    ] as const
  ) {
    const e = refusal({ title: "t", settings: { custom_thing: value } });
    assert.equal(e.kind, "invalid", what);
    assert.deepEqual(e.path, ["settings", "custom_thing"], what);
  }
  const meta = refusal({ title: "t", settings: { meta: { deep: nested(40, (v) => [v]) } } });
  assert.deepEqual(meta.path, ["settings", "meta"], "meta's own free-form keys are bounded too");
});

test("texts keep their line breaks in one form: CR LF, CR and U+2028 are \\n, U+2029 a blank line", () => {
  const core = normalizeDefinition({
    title: "t",
    fields: [{
      ref: "q",
      title: "one\r\ntwo\rthree\u2028four\u2029five",
      type: "short_text",
      properties: { description: "a\r\nb" },
    }],
  }, "t");
  const q = core.fields[0].properties.fields[0];
  assert.equal(q.title, "one\ntwo\nthree\nfour\n\nfive");
  assert.equal(q.properties.description, "a\nb");
  assert.deepEqual(parseDocument(renderDocument({ core })).core, core);
  for (const label of ["a\rb", "a\u2028b", "a\r\nb"]) {
    const e = refusal({
      title: "t",
      fields: [{ ref: "c", title: "c", type: "dropdown", properties: { choices: [{ label }] } }],
    });
    assert.deepEqual(e.path, ["fields", 0, "properties", "choices", 0, "label"], JSON.stringify(label));
  }
});

/** A text as the normalizer settles it: trimmed, its line breaks written as \n. */
const settled = (text: string) => text.replace(/\r\n?|\u2028/g, "\n").replace(/\u2029/g, "\n\n").trim();

/**
 * Everything a generated (client-side) definition says, compared with its normalized core: a normalizer
 * that dropped or changed a property would still round-trip core → document → core, so this compares
 * with what was sent.
 */
function assertKeeps(raw: any, core: FormCore, seed: number) {
  const at = (what: string) => `seed ${seed}: ${what}`;
  assert.equal(core.title, settled(raw.title), at("title"));
  assert.equal(core.type, raw.type, at("type"));
  if (raw.hidden) assert.deepEqual(core.hidden, raw.hidden, at("hidden"));
  if (raw.variables?.score) assert.equal(core.variables?.score, raw.variables.score, at("variables.score"));
  for (const [key, value] of Object.entries(raw.settings ?? {})) {
    if (key === "meta") {
      const meta = value as { allow_indexing: boolean; description?: string };
      assert.equal(
        core.settings.meta.allow_indexing,
        meta.allow_indexing,
        at("settings.meta.allow_indexing"),
      );
      assert.equal(core.settings.meta.description, meta.description, at("settings.meta.description"));
    } else assert.deepEqual(core.settings[key], value, at(`settings.${key}`));
  }
  const rawSlides = raw.fields.map((f: any) => f.type === "group" ? f : { properties: { fields: [f] } });
  assert.equal(core.fields.length, rawSlides.length, at("slides"));
  rawSlides.forEach((slide: any, i: number) => {
    const group = core.fields[i];
    if (slide.type === "group") {
      assert.equal(group.title, settled(slide.title), at(`slide ${i} title`));
      if (slide.ref) assert.equal(group.ref, slide.ref, at(`slide ${i} ref`));
      for (const k of ["button_text", "show_button"]) {
        const sent = slide.properties[k];
        if (sent !== undefined) {
          assert.equal((group.properties as any)[k], typeof sent === "string" ? settled(sent) : sent, at(k));
        }
      }
    }
    slide.properties.fields.forEach((f: any, j: number) => {
      const field = group.properties.fields[j];
      const where = `field ${f.ref ?? `${i}.${j}`}`;
      assert.equal(field.type, f.type, at(`${where} type`));
      if (f.ref) assert.equal(field.ref, f.ref, at(`${where} ref`));
      assert.equal(field.title, settled(f.title), at(`${where} title`));
      for (const [k, sent] of Object.entries(f.validations ?? {})) {
        assert.deepEqual((field.validations as any)[k], sent, at(`${where} validations.${k}`));
      }
      for (const [k, sent] of Object.entries(f.properties) as [string, any][]) {
        const kept = field.properties[k] as any;
        if (k === "choices") {
          assert.equal(kept.length, sent.length, at(`${where} choices`));
          sent.forEach((c: any, n: number) => {
            assert.equal(kept[n].label, settled(c.label), at(`${where} choice ${n} label`));
            if (c.ref) assert.equal(kept[n].ref, c.ref, at(`${where} choice ${n} ref`));
            assert.deepEqual(kept[n].attachment, c.attachment, at(`${where} choice ${n} attachment`));
          });
        } else if (k === "labels") {
          for (const [side, label] of Object.entries(sent)) {
            assert.equal(kept[side], settled(label as string), at(`${where} labels.${side}`));
          }
        } else if (typeof sent === "string") {
          assert.equal(kept ?? "", settled(sent), at(`${where} ${k}`));
        } else assert.deepEqual(kept, sent, at(`${where} ${k}`));
      }
    });
  });
  const screens = [
    ...(raw.welcome_screens ?? []).map((w: any) => [w, core.welcome_screens[0]]),
    ...(raw.thankyou_screens ?? []).map((t: any, i: number) => [t, core.thankyou_screens[i]]),
  ];
  for (const [sent, kept] of screens) {
    assert.equal(kept.title, settled(sent.title), at("a screen's title"));
    if (sent.ref) assert.equal(kept.ref, sent.ref, at("a screen's ref"));
    for (const [k, value] of Object.entries(sent.properties)) {
      assert.equal(kept.properties[k], typeof value === "string" ? settled(value) : value, at(`screen ${k}`));
    }
  }
  // logic: every action, as what it does (a jump's target or a score's signed points) and when
  const actions = (entries: any[]) =>
    entries.flatMap((entry) =>
      entry.actions.map((a: any) => {
        const condition = actionCondition(entry, a);
        const when = condition ? printCondition(condition) : "always";
        const what = a.action === "jump"
          ? `jump to ${a.details.to.type} ${a.details.to.value}`
          : `score ${(a.action === "add" ? 1 : -1) * a.details.value.value}`;
        return `${what} when ${when}`;
      })
    ).sort();
  assert.deepEqual(actions(core.logic), actions(raw.logic), at("logic"));
}

test("normalizing keeps what the client sent: every property, screen and logic action of 400 generated definitions", () => {
  for (let seed = 1; seed <= 400; seed++) {
    const raw = generateDefinition(rng(seed));
    assertKeeps(raw, normalizeDefinition(structuredClone(raw), `form-${seed}`), seed);
  }
});

test("numbers of any size or precision round-trip: score points, limits, constants and the starting score", () => {
  for (const n of [1e21, 0.1 + 0.2, 1e-7, 1.7976931348623157e308, 5e-324, 42]) {
    const core = normalizeDefinition({
      title: "t",
      variables: { score: n },
      fields: [
        { ref: "a", title: "a", type: "number", validations: { min_value: -n, max_value: n } },
        { ref: "b", title: "b", type: "number" },
      ],
      logic: [{
        type: "field",
        ref: "a",
        actions: [
          {
            action: "add",
            details: { target: { type: "variable", value: "score" }, value: { type: "constant", value: n } },
            condition: {
              op: "greater_than",
              vars: [{ type: "field", value: "a" }, { type: "constant", value: n }],
            },
          },
          {
            action: "jump",
            details: { to: { type: "field", value: "b" } },
            condition: {
              op: "equal",
              vars: [{ type: "field", value: "a" }, { type: "constant", value: -n }],
            },
          },
        ],
      }],
    }, "t");
    const text = renderDocument({ core });
    let back;
    try {
      back = parseDocument(text).core;
    } catch (error) {
      throw new Error(`${n}: ${(error as Error).message}\n${text}`);
    }
    assert.deepEqual(back, core, String(n));
  }
});

test("a group's description is kept: in the definition, through the document and back", () => {
  const core = normalizeDefinition({
    title: "t",
    fields: [{
      type: "group",
      ref: "about",
      title: "About you",
      properties: { description: "A few things\nabout you.", fields: [{ ref: "q", title: "Name?", type: "short_text" }] },
    }],
  }, "t");
  assert.equal(core.fields[0].properties.description, "A few things\nabout you.");
  const text = renderDocument({ core });
  assert.match(text, /^ {2}description: A few things\\nabout you\.$/m);
  assert.deepEqual(parseDocument(text).core, core);
  const parsed = parseDocument(`${HEAD}\n## Slide\n  description: Said under the title.\nq text: Q?\n`).core;
  assert.equal(parsed.fields[0].properties.description, "Said under the title.");
});
