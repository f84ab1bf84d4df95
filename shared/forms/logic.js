// @ts-check
// The form runner's rules, in one plain ES module that the browser loads as is (the forms function serves
// it at /to/_/logic.js) and the forms function imports: the condition language of jumps and scores
// (parse, print, evaluate), the slide path a set of answers takes, and the quiz score. The server recomputes path, ending and score with this same
// code when a response is submitted, so the page and the API can never disagree.

/**
 * @typedef {{ kind: "cmp", ref: string, op: string, value: string | number | boolean }} Comparison
 * @typedef {{ kind: "and" | "or", items: Condition[] }} Junction
 * @typedef {{ kind: "not", item: Condition }} Negation
 * @typedef {Comparison | Junction | Negation} Condition
 */

/** Document comparison operators → the definition's condition ops (rows), where a row can say it. */
export const ROW_OPS = /** @type {const} */ ({
  "=": "equal",
  "!=": "not_equal",
  ">": "greater_than",
  "<": "lower_than",
  "is": "is",
  "is not": "is_not",
  "contains": "contains",
});

/** Operators only an expression can carry (`always` + expression in the definition). */
export const EXPRESSION_OPS = [">=", "<=", "not contains"];

const OP_BY_ROW = Object.fromEntries(Object.entries(ROW_OPS).map(([text, row]) => [row, text]));

export class ConditionError extends Error {}

const REF = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

// A condition sits on one line of the form document: inside a quoted value, line breaks (and the
// Unicode line and paragraph separators, which end a line for the document's patterns) are written
// as escapes; between tokens they are only space.
const SPACE = " \t\n\r\u2028\u2029";
/** @type {Record<string, string>} */
const ESCAPE = {
  "\\": "\\\\",
  '"': '\\"',
  "\n": "\\n",
  "\r": "\\r",
  "\u2028": "\\u2028",
  "\u2029": "\\u2029",
};
const NUMBER = /^-?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Tokens: refs and words, numbers, quoted strings, operators, parentheses.
 * @param {string} text
 */
function tokenize(text) {
  /** @type {{ t: string, v: string | number | boolean, quoted?: boolean }[]} */
  const out = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (SPACE.includes(c)) {
      i++;
      continue;
    }
    if (c === "(" || c === ")") {
      out.push({ t: c, v: c });
      i++;
      continue;
    }
    if (c === '"') {
      let value = "";
      i++;
      let closed = false;
      while (i < text.length) {
        const d = text[i];
        if (d === "\\") {
          const escaped = unescapeAt(text, i);
          if (escaped) {
            value += escaped.value;
            i += escaped.length;
            continue;
          }
        }
        if (d === '"') {
          closed = true;
          i++;
          break;
        }
        value += d;
        i++;
      }
      if (!closed) throw new ConditionError("a quoted value is not closed");
      out.push({ t: "value", v: value, quoted: true });
      continue;
    }
    const two = text.slice(i, i + 2);
    if (two === "!=" || two === ">=" || two === "<=") {
      out.push({ t: "op", v: two });
      i += 2;
      continue;
    }
    if (c === "=" || c === ">" || c === "<") {
      out.push({ t: "op", v: c });
      i++;
      continue;
    }
    let j = i;
    while (j < text.length && !SPACE.includes(text[j]) && !'()"=!<>'.includes(text[j])) j++;
    if (j === i) throw new ConditionError(`unexpected ${JSON.stringify(c)}`);
    out.push({ t: "word", v: text.slice(i, j) });
    i = j;
  }
  return out;
}

/**
 * The escape starting at `text[i]` (a backslash) inside a quoted value: \\, \", \n, \r, \u2028 or
 * \u2029. Any other backslash is itself.
 * @param {string} text
 * @param {number} i
 * @returns {{ value: string, length: number } | undefined}
 */
function unescapeAt(text, i) {
  const next = text[i + 1];
  if (next === '"' || next === "\\") return { value: next, length: 2 };
  if (next === "n") return { value: "\n", length: 2 };
  if (next === "r") return { value: "\r", length: 2 };
  const code = next === "u" ? text.slice(i + 2, i + 6) : "";
  if (code === "2028" || code === "2029") {
    return { value: String.fromCharCode(parseInt(code, 16)), length: 6 };
  }
  return undefined;
}

/** @param {string} word */
function bareValue(word) {
  if (word === "true") return true;
  if (word === "false") return false;
  if (NUMBER.test(word)) return Number(word);
  return word;
}

/**
 * Parses a condition: comparisons `<ref> <op> <value>` (ops =, !=, >, <, >=, <=, is, is not, contains,
 * not contains) joined by `and`, `or`, `not` and parentheses; `and` binds tighter than `or`. When
 * `self` is given a comparison may leave out its ref (`is "Paris"` under the question it scores).
 * @param {string} text
 * @param {{ self?: string }} [options]
 * @returns {Condition}
 */
export function parseCondition(text, options = {}) {
  const tokens = tokenize(text);
  let pos = 0;
  const peek = () => tokens[pos];
  const isWord = (/** @type {string} */ w) => peek()?.t === "word" && peek().v === w;

  /** @returns {Condition} */
  function orExpr() {
    const items = [andExpr()];
    while (isWord("or")) {
      pos++;
      items.push(andExpr());
    }
    return items.length === 1 ? items[0] : { kind: "or", items };
  }
  /** @returns {Condition} */
  function andExpr() {
    const items = [notExpr()];
    while (isWord("and")) {
      pos++;
      items.push(notExpr());
    }
    return items.length === 1 ? items[0] : { kind: "and", items };
  }
  /** @returns {Condition} */
  function notExpr() {
    if (isWord("not") && !(tokens[pos + 1]?.t === "word" && tokens[pos + 1].v === "contains")) {
      pos++;
      return { kind: "not", item: notExpr() };
    }
    if (peek()?.t === "(") {
      pos++;
      const inner = orExpr();
      if (peek()?.t !== ")") throw new ConditionError("a parenthesis is not closed");
      pos++;
      return inner;
    }
    return comparison();
  }
  /** @returns {string | undefined} */
  function operator() {
    const tok = peek();
    if (!tok) return undefined;
    if (tok.t === "op") {
      pos++;
      return String(tok.v);
    }
    if (tok.t !== "word") return undefined;
    if (tok.v === "is") {
      pos++;
      if (isWord("not")) {
        pos++;
        return "is not";
      }
      return "is";
    }
    if (tok.v === "contains") {
      pos++;
      return "contains";
    }
    if (tok.v === "not" && tokens[pos + 1]?.t === "word" && tokens[pos + 1].v === "contains") {
      pos += 2;
      return "not contains";
    }
    return undefined;
  }
  /** @returns {Comparison} */
  function comparison() {
    const start = pos;
    let ref = options.self;
    let op = operator();
    if (!op) {
      const tok = peek();
      if (!tok || tok.t !== "word") throw new ConditionError("expected a question's name");
      const name = String(tok.v);
      if (!REF.test(name)) throw new ConditionError(`${JSON.stringify(name)} is not a question's name`);
      pos++;
      ref = name;
      op = operator();
      if (!op) {
        throw new ConditionError(
          `expected an operator after ${name} (=, !=, >, <, >=, <=, is, is not, contains, not contains)`,
        );
      }
    }
    if (!ref) {
      pos = start;
      throw new ConditionError("expected a question's name");
    }
    const tok = peek();
    if (!tok || (tok.t !== "word" && tok.t !== "value")) {
      throw new ConditionError(`expected a value after ${op}`);
    }
    pos++;
    const value = tok.quoted ? String(tok.v) : bareValue(String(tok.v));
    return { kind: "cmp", ref, op, value };
  }

  if (!tokens.length) throw new ConditionError("the condition is empty");
  const result = orExpr();
  if (pos < tokens.length) {
    const tok = tokens[pos];
    throw new ConditionError(`unexpected ${tok.quoted ? JSON.stringify(tok.v) : String(tok.v)}`);
  }
  return result;
}

/** @param {string | number | boolean} value */
export function printValue(value) {
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return `"${value.replace(/[\\"\n\r\u2028\u2029]/g, (c) => ESCAPE[c])}"`;
}

/**
 * The canonical text of a condition (`or` inside `and` keeps its parentheses).
 * @param {Condition} c
 * @param {number} [parent] 0 top, 1 inside or, 2 inside and, 3 inside not
 * @returns {string}
 */
export function printCondition(c, parent = 0) {
  if (c.kind === "cmp") return `${c.ref} ${c.op} ${printValue(c.value)}`;
  if (c.kind === "not") return `not ${printCondition(c.item, 3)}`;
  const level = c.kind === "or" ? 1 : 2;
  const text = c.items.map((item) => printCondition(item, level)).join(` ${c.kind} `);
  return parent >= level ? `(${text})` : text;
}

/**
 * The definition's rows for a condition, or undefined when only an expression can say it: a single
 * comparison with a row operator, or comparisons of that kind joined by `or` alone.
 * @param {Condition} c
 */
export function conditionToRow(c) {
  /** @param {Condition} x */
  const cmpRow = (x) => {
    if (x.kind !== "cmp" || !(x.op in ROW_OPS)) return undefined;
    return {
      op: ROW_OPS[/** @type {keyof typeof ROW_OPS} */ (x.op)],
      vars: [{ type: "field", value: x.ref }, { type: "constant", value: x.value }],
    };
  };
  if (c.kind === "cmp") return cmpRow(c);
  if (c.kind === "or" && c.items.length >= 2) {
    const vars = c.items.map(cmpRow);
    if (vars.every((v) => v)) return { op: "or", vars };
  }
  return undefined;
}

/**
 * A condition from the definition's rows (the inverse of conditionToRow); throws ConditionError for a
 * row it does not know.
 * @param {any} row
 * @returns {Condition}
 */
export function rowToCondition(row) {
  if (!row || typeof row !== "object") throw new ConditionError("a condition must be an object");
  if (row.op === "or") {
    if (!Array.isArray(row.vars) || !row.vars.length) throw new ConditionError("or needs conditions in vars");
    const items = row.vars.flatMap((/** @type {any} */ v) => {
      const inner = rowToCondition(v);
      return inner.kind === "or" ? inner.items : [inner];
    });
    return items.length === 1 ? items[0] : { kind: "or", items };
  }
  const text = OP_BY_ROW[row.op];
  if (!text) throw new ConditionError(`the op ${JSON.stringify(row.op)} has no row form`);
  const vars = Array.isArray(row.vars) ? row.vars : [];
  const field = vars.find((/** @type {any} */ v) => v && v.type === "field");
  const constant = vars.find((/** @type {any} */ v) => v && (v.type === "constant" || v.type === "choice"));
  if (vars.length !== 2 || !field || !constant) {
    throw new ConditionError(`${row.op} compares one field with one constant`);
  }
  if (typeof field.value !== "string" || !REF.test(field.value)) {
    throw new ConditionError("a field var names a field");
  }
  const value = constant.value;
  if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean") {
    throw new ConditionError("a constant is text, a number or true/false");
  }
  if (typeof value === "number" && !Number.isFinite(value)) {
    throw new ConditionError("a constant number is finite");
  }
  return { kind: "cmp", ref: field.value, op: text, value };
}

/** Every question a condition reads. @param {Condition} c @returns {string[]} */
export function conditionRefs(c) {
  if (c.kind === "cmp") return [c.ref];
  if (c.kind === "not") return conditionRefs(c.item);
  return c.items.flatMap(conditionRefs);
}

// ------------------------------------------------------------------------------------ evaluation

/**
 * What an answer compares as: a number, a text, or a list of texts (a choice answers with its label and
 * its ref, several choices with all of theirs).
 * @param {any} value
 * @returns {(string | number)[] | undefined}
 */
function candidates(value) {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "number" || typeof value === "string") return [value];
  if (typeof value === "boolean") return [String(value)];
  if (Array.isArray(value)) return value.length ? value.flatMap((v) => candidates(v) ?? []) : undefined;
  if (typeof value === "object") {
    if ("labels" in value || "refs" in value) {
      const list = [...(value.labels ?? []), ...(value.refs ?? []), ...(value.other ? [value.other] : [])];
      return list.length ? list : undefined;
    }
    if ("label" in value || "ref" in value || "other" in value) {
      return [value.label, value.ref, value.other].filter((x) => typeof x === "string");
    }
    if ("name" in value) return [String(value.name)];
  }
  return undefined;
}

/** @param {string | number} x */
function asNumber(x) {
  if (typeof x === "number") return x;
  return NUMBER.test(x.trim()) ? Number(x) : undefined;
}

/** @param {string | number} a @param {string | number | boolean} b */
function same(a, b) {
  const bb = typeof b === "boolean" ? String(b) : b;
  const na = asNumber(a), nb = asNumber(bb);
  if (na !== undefined && nb !== undefined) return na === nb;
  return String(a).trim().toLowerCase() === String(bb).trim().toLowerCase();
}

/** @param {string | number} a @param {string | number | boolean} b @returns {number | undefined} */
function order(a, b) {
  if (typeof b === "boolean") return undefined;
  const na = asNumber(a), nb = asNumber(b);
  if (na !== undefined && nb !== undefined) return na - nb;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  return undefined;
}

/**
 * Evaluates a condition over answers (ref → value as the runner holds it). A question with no answer
 * satisfies only the negative operators (!=, is not, not contains).
 * @param {Condition} c
 * @param {Record<string, any>} answers
 * @returns {boolean}
 */
export function evaluate(c, answers) {
  if (c.kind === "not") return !evaluate(c.item, answers);
  if (c.kind !== "cmp") {
    return c.kind === "and"
      ? c.items.every((item) => evaluate(item, answers))
      : c.items.some((item) => evaluate(item, answers));
  }
  const got = candidates(answers[c.ref]);
  const negative = c.op === "!=" || c.op === "is not" || c.op === "not contains";
  if (!got) return negative;
  switch (c.op) {
    case "=":
    case "is":
      return got.some((g) => same(g, c.value));
    case "!=":
    case "is not":
      return !got.some((g) => same(g, c.value));
    case "contains":
    case "not contains": {
      const needle = String(c.value).toLowerCase();
      const hit = got.some((g) => same(g, c.value) || String(g).toLowerCase().includes(needle));
      return c.op === "contains" ? hit : !hit;
    }
    case ">":
      return got.some((g) => (order(g, c.value) ?? 0) > 0);
    case "<":
      return got.some((g) => (order(g, c.value) ?? 0) < 0);
    case ">=":
      return got.some((g) => {
        const o = order(g, c.value);
        return o !== undefined && o >= 0;
      });
    case "<=":
      return got.some((g) => {
        const o = order(g, c.value);
        return o !== undefined && o <= 0;
      });
  }
  return false;
}

// ------------------------------------------------------------------------------- runs of a form

/**
 * A logic action's condition as a Condition, or null for `always` without an expression.
 * @param {any} entry the logic entry (holds `expression` for a condition rows cannot say)
 * @param {any} action
 * @returns {Condition | null}
 */
export function actionCondition(entry, action) {
  const cond = action.condition;
  if (!cond || cond.op === "always") {
    return typeof entry.expression === "string" && entry.expression.trim()
      ? parseCondition(entry.expression)
      : null;
  }
  return rowToCondition(cond);
}

/**
 * The compiled rules of a canonical definition: each slide's fields, its jumps (in order) and every
 * scoring action with the field it belongs to.
 * @param {any} definition
 */
export function compile(definition) {
  const slides = (definition.fields ?? []).map((/** @type {any} */ group) => ({
    ref: group.ref,
    fields: (group.properties?.fields ?? []).map((/** @type {any} */ f) => f.ref),
  }));
  /** @type {Record<string, number>} */
  const slideOf = {};
  slides.forEach((/** @type {any} */ s, /** @type {number} */ i) =>
    s.fields.forEach((/** @type {string} */ r) => (slideOf[r] = i))
  );
  const endings = (definition.thankyou_screens ?? []).map((/** @type {any} */ t) => t.ref);
  /** @type {{ slide: number, condition: Condition | null, to: { type: string, value: string } }[][]} */
  const jumps = slides.map(() => []);
  /** @type {{ ref: string, condition: Condition | null, amount: number }[]} */
  const scores = [];
  for (const entry of definition.logic ?? []) {
    for (const action of entry.actions ?? []) {
      const condition = actionCondition(entry, action);
      if (action.action === "jump") {
        const slide = slideOf[entry.ref];
        if (slide !== undefined) jumps[slide].push({ slide, condition, to: action.details.to });
      } else if (action.action === "add" || action.action === "subtract") {
        const n = Number(action.details?.value?.value ?? 0);
        scores.push({ ref: entry.ref, condition, amount: action.action === "add" ? n : -n });
      }
    }
  }
  return { slides, slideOf, endings, jumps, scores, initialScore: Number(definition.variables?.score ?? 0) };
}

/**
 * Where leaving slide `index` goes with these answers: the next slide, a later slide, or an ending.
 * @param {ReturnType<typeof compile>} rules
 * @param {number} index
 * @param {Record<string, any>} answers
 * @returns {{ slide: number } | { ending: string }}
 */
export function nextStep(rules, index, answers) {
  for (const jump of rules.jumps[index] ?? []) {
    if (jump.condition && !evaluate(jump.condition, answers)) continue;
    if (jump.to.type === "thankyou") return { ending: jump.to.value };
    const target = rules.slideOf[jump.to.value];
    if (target !== undefined && target > index) return { slide: target };
  }
  if (index + 1 < rules.slides.length) return { slide: index + 1 };
  return { ending: rules.endings[0] ?? "default_tys" };
}

/**
 * The slides a visitor with these answers passes through, and the ending they reach.
 * @param {ReturnType<typeof compile>} rules
 * @param {Record<string, any>} answers
 */
export function walk(rules, answers) {
  /** @type {number[]} */
  const path = [];
  if (!rules.slides.length) return { path, ending: rules.endings[0] ?? "default_tys" };
  let index = 0;
  for (;;) {
    path.push(index);
    const step = nextStep(rules, index, answers);
    if ("ending" in step) return { path, ending: step.ending };
    index = step.slide; // jumps only go forward, so this ends
  }
}

/**
 * The score: the starting score plus every scoring action on the path whose condition holds.
 * @param {ReturnType<typeof compile>} rules
 * @param {Record<string, any>} answers
 * @param {number[]} path
 */
export function score(rules, answers, path) {
  const onPath = new Set(path.flatMap((i) => rules.slides[i].fields));
  let total = rules.initialScore;
  for (const rule of rules.scores) {
    if (!onPath.has(rule.ref)) continue;
    if (rule.condition && !evaluate(rule.condition, answers)) continue;
    total += rule.amount;
  }
  return total;
}
