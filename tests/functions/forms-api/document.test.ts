// The form document syntax: demo forms, the round trip definition → document → definition over
// generated definitions, and parser errors that name the line and the reason.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import {
  DefinitionError,
  type FormCore,
  normalizeDefinition,
} from "../../../functions/forms-api/domain/definition.ts";
import {
  DocumentError,
  parseDocument,
  renderBody,
  renderDocument,
} from "../../../functions/forms-api/domain/document.ts";
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
      }
      if (l.expression) seen.add("expression");
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
