// @ts-nocheck — browser code, loaded as a module by the form page (/to/<slug>).
// deno-lint-ignore-file no-window
// Builds the welcome slide, one slide per group, the endings; stores the response as the visitor goes
// (landed, the slides reached, each slide's answers, the submission) and, when embedded with
// typeform-embed / typeform-embed-id, posts the messages @typeform/embed listens for.
// the form rules are shared/forms/logic.js: the page maps this name to the copy its function serves
import { compile, nextStep } from "sitewire-form-logic";

const data = JSON.parse(document.getElementById("form-data").textContent);
const def = data.definition;
const pictures = data.pictures || {};
const settings = def.settings || {};
const rules = compile(def);
const root = document.getElementById("form");
const slug = location.pathname.split("/").filter(Boolean).pop();
const api = `${encodeURIComponent(slug)}/responses`;

// ---------------------------------------------------------------- embedding (@typeform/embed)
const query = new URLSearchParams(location.search);
const embedId = query.get("typeform-embed-id");
const embedded = Boolean(embedId) && window.parent !== window;
const handlesRedirect = query.get("typeform-embed-handles-redirect") === "1";
const redirectTarget = query.get("typeform-embed-redirect-target") || "_parent";
const handlesEndingClick = query.get("typeform-embed-handle-ending-button-click") === "true";
function post(type, extra = {}) {
  if (!embedded) return;
  window.parent.postMessage({ type, embedId, formId: def.id, ...extra }, "*");
}

// ---------------------------------------------------------------- state
const answers = {}; // ref -> value as the logic reads it (same shapes the server stores)
const raw = {}; // ref -> what the page sends
let token = null;
let started = false;
const history = []; // slide indexes shown, for Back
let current = -1; // -1: welcome
let submitting = false;
const landing = fetch(api, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ search: location.search, hash: location.hash, referer: document.referrer }),
}).then(async (res) => {
  if (!res.ok) throw new Error((await res.json().catch(() => ({}))).description || `HTTP ${res.status}`);
  token = (await res.json()).token;
  return token;
});
landing.catch((error) => showProblem(`This form cannot be answered right now (${error.message}).`));

async function call(path, init) {
  await landing;
  const res = await fetch(`${api}/${token}${path}`, init);
  const body = res.status === 204 ? {} : await res.json().catch(() => ({}));
  if (!res.ok) {
    const error = new Error(body.description || `HTTP ${res.status}`);
    error.details = body.details || [];
    throw error;
  }
  return body;
}
// Sends go one after another, so an answer saved while typing can never land after a later one.
let queue = Promise.resolve();
function send(path, body, method = "PATCH") {
  const next = queue.then(() =>
    call(path, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
  );
  queue = next.catch(() => {});
  return next;
}

// ---------------------------------------------------------------- helpers
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "class") node.className = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const child of children.flat()) if (child !== null && child !== undefined) node.append(child);
  return node;
}
/** Markdown-ish text: paragraphs and line breaks (the text is never read as HTML). */
function prose(text) {
  if (!text) return null;
  return el(
    "div",
    { class: "prose" },
    text.split(/\n{2,}/).map((p) => el("p", {}, p.split("\n").flatMap((l, i) => i ? [el("br"), l] : [l]))),
  );
}
function showProblem(message) {
  root.replaceChildren(el("section", { class: "slide problem", role: "alert" }, el("p", {}, message)));
  reportHeight();
}
const questionNumbers = {};
let n = 0;
for (const g of def.fields) {
  for (const f of g.properties.fields) if (f.type !== "statement") questionNumbers[f.ref] = ++n;
}

function reportHeight() {
  post("form-height-changed", {
    ref: currentRef(),
    height: Math.ceil(document.documentElement.scrollHeight),
  });
}
let endingShown = null; // the ending's ref once the form is over
function currentRef() {
  if (endingShown) return endingShown;
  if (current < 0) return "welcome";
  return def.fields[current]?.properties.fields[0]?.ref ?? `slide-${current + 1}`;
}

// ---------------------------------------------------------------- questions
function logicValue(field, value) {
  if (value === undefined || value === null || value === "" || (Array.isArray(value) && !value.length)) {
    return undefined;
  }
  const p = field.properties;
  switch (field.type) {
    case "number":
    case "rating":
    case "opinion_scale":
      return Number(value);
    case "dropdown":
    case "multiple_choice":
    case "picture_choice": {
      const picks = Array.isArray(value) ? value : [value];
      const chosen = picks.filter((x) => typeof x === "string").map((r) => p.choices.find((c) => c.ref === r))
        .filter(Boolean);
      const other = picks.find((x) => x && typeof x === "object")?.other;
      if (p.allow_multiple_selection && field.type !== "dropdown") {
        return {
          ids: chosen.map((c) => c.id),
          refs: chosen.map((c) => c.ref),
          labels: [...chosen.map((c) => c.label), ...(other ? [other] : [])],
          ...(other ? { other } : {}),
        };
      }
      return chosen[0]
        ? { id: chosen[0].id, ref: chosen[0].ref, label: chosen[0].label }
        : other
        ? { label: other, other }
        : undefined;
    }
    default:
      return typeof value === "string" ? value.trim() || undefined : value;
  }
}
function setAnswer(field, value) {
  raw[field.ref] = value;
  const v = logicValue(field, value);
  if (v === undefined) delete answers[field.ref];
  else answers[field.ref] = v;
  markStarted();
  autosave(field.ref);
}

// Each answer is stored as the visitor gives it (a moment after the last keystroke), unless the form
// turns autosave_progress off; an answer the server refuses is shown when the slide is left.
const pending = new Map();
function autosave(ref) {
  if (settings.autosave_progress === false) return;
  clearTimeout(pending.get(ref));
  pending.set(
    ref,
    setTimeout(() => {
      pending.delete(ref);
      send("", { answers: { [ref]: raw[ref] ?? null } }).catch(() => {});
    }, 600),
  );
}
function markStarted() {
  if (started) return;
  started = true;
  landing.then(() => post("form-started", { responseId: token }));
}

function question(field) {
  const id = `q-${field.ref}`;
  const p = field.properties;
  const required = field.validations.required;
  const errorId = `${id}-error`;
  const number = settings.show_question_number !== false && questionNumbers[field.ref];
  const title = [
    number ? el("span", { class: "number" }, `${number}.`) : null,
    el("span", {}, field.title),
    required ? el("span", { class: "required", "aria-hidden": "true" }, "*") : null,
  ];
  const description = p.description
    ? el("p", { class: "description", id: `${id}-description` }, p.description)
    : null;
  const error = el("p", { class: "error", id: errorId, role: "alert", hidden: true });
  const describedBy = [p.description ? `${id}-description` : null, errorId].filter(Boolean).join(" ");
  const common = {
    id,
    name: field.ref,
    "aria-describedby": describedBy,
    "aria-required": required ? "true" : null,
  };
  const wrap = (control, grouped = false) =>
    grouped
      ? el(
        "fieldset",
        { class: `question q-${field.type}`, "data-ref": field.ref },
        el("legend", {}, title),
        description,
        control,
        error,
      )
      : el(
        "div",
        { class: `question q-${field.type}`, "data-ref": field.ref },
        el("label", { for: id }, title),
        description,
        control,
        error,
      );
  const value = raw[field.ref];
  const onInput = (e) => setAnswer(field, e.target.value);

  switch (field.type) {
    case "short_text":
      return wrap(
        el("input", {
          ...common,
          type: "text",
          value: value ?? "",
          maxlength: field.validations.max_length,
          autocomplete: "off",
          oninput: onInput,
        }),
      );
    case "long_text":
      return wrap(
        el(
          "textarea",
          { ...common, rows: 4, maxlength: field.validations.max_length, oninput: onInput },
          value ?? "",
        ),
      );
    case "email":
      return wrap(
        el("input", {
          ...common,
          type: "email",
          value: value ?? "",
          autocomplete: "email",
          oninput: onInput,
        }),
      );
    case "website":
      return wrap(
        el("input", {
          ...common,
          type: "url",
          value: value ?? "",
          placeholder: "https://",
          oninput: onInput,
        }),
      );
    case "phone_number":
      return wrap(
        el("input", { ...common, type: "tel", value: value ?? "", autocomplete: "tel", oninput: onInput }),
      );
    case "number":
      return wrap(
        el("input", {
          ...common,
          type: "number",
          step: "any",
          inputmode: "decimal",
          value: value ?? "",
          min: field.validations.min_value,
          max: field.validations.max_value,
          oninput: onInput,
        }),
      );
    case "date": {
      const order = (p.structure || "MMDDYYYY").match(/MM|DD|YYYY/g).join(p.separator || "/");
      return wrap(
        el("input", {
          ...common,
          type: "date",
          value: value ?? "",
          "aria-label": `${field.title} (${order})`,
          oninput: onInput,
        }),
      );
    }
    case "rating":
    case "opinion_scale": {
      const start = field.type === "rating" ? 1 : p.start_at_one ? 1 : 0;
      const end = field.type === "rating" ? p.steps : start + p.steps - 1;
      const options = [];
      for (let i = start; i <= end; i++) {
        const inputId = `${id}-${i}`;
        options.push(
          el(
            "label",
            { class: "step", for: inputId },
            el("input", {
              type: "radio",
              id: inputId,
              name: field.ref,
              value: String(i),
              checked: Number(value) === i,
              onchange: () => setAnswer(field, i),
            }),
            el("span", {}, field.type === "rating" ? "★".repeat(1) + ` ${i}` : String(i)),
          ),
        );
      }
      const labels = field.type === "opinion_scale" && p.labels
        ? el(
          "div",
          { class: "scale-labels" },
          el("span", {}, p.labels.left ?? ""),
          el("span", {}, p.labels.center ?? ""),
          el("span", {}, p.labels.right ?? ""),
        )
        : null;
      return wrap(
        el("div", { class: "steps", role: "radiogroup", "aria-describedby": describedBy }, options, labels),
        true,
      );
    }
    case "dropdown": {
      const choices = p.alphabetical_order
        ? [...p.choices].sort((a, b) => a.label.localeCompare(b.label))
        : p.choices;
      return wrap(
        el(
          "select",
          { ...common, onchange: (e) => setAnswer(field, e.target.value || undefined) },
          el("option", { value: "" }, "Choose…"),
          choices.map((c) => el("option", { value: c.ref, selected: value === c.ref }, c.label)),
        ),
      );
    }
    case "multiple_choice":
    case "picture_choice": {
      const multiple = Boolean(p.allow_multiple_selection);
      let choices = p.choices;
      if (p.randomize) choices = [...choices].sort(() => Math.random() - 0.5);
      const picked = new Set(
        (Array.isArray(value) ? value : value ? [value] : []).filter((x) => typeof x === "string"),
      );
      let other = (Array.isArray(value) ? value : [value]).find((x) => x && typeof x === "object")?.other ??
        "";
      const current = () => {
        const refs = [...picked];
        const list = other ? [...refs, { other }] : refs;
        return multiple ? list : list[list.length - 1];
      };
      const options = choices.map((c, i) => {
        const inputId = `${id}-${i}`;
        const picture = c.attachment
          ? el("img", {
            src: pictures[c.attachment.href] || c.attachment.href,
            alt: p.show_labels === false ? c.label : "",
            loading: "lazy",
          })
          : null;
        return el(
          "label",
          { class: "choice", for: inputId },
          el("input", {
            type: multiple ? "checkbox" : "radio",
            id: inputId,
            name: field.ref,
            value: c.ref,
            checked: picked.has(c.ref),
            onchange: (e) => {
              if (!multiple) {
                picked.clear();
                other = "";
                const box = document.getElementById(`${id}-other`);
                if (box) box.value = "";
              }
              e.target.checked ? picked.add(c.ref) : picked.delete(c.ref);
              setAnswer(field, current());
            },
          }),
          picture,
          field.type === "picture_choice" && p.show_labels === false ? null : el("span", {}, c.label),
        );
      });
      const otherBox = p.allow_other_choice
        ? el(
          "label",
          { class: "choice other" },
          el("span", {}, "Other: "),
          el("input", {
            type: "text",
            id: `${id}-other`,
            value: other,
            oninput: (e) => {
              other = e.target.value.trim();
              if (!multiple && other) {
                picked.clear();
                for (const box of document.querySelectorAll(`input[name="${CSS.escape(field.ref)}"]`)) {
                  box.checked = false;
                }
              }
              setAnswer(field, current());
            },
          }),
        )
        : null;
      const cls = `choices${p.vertical_alignment === false ? " horizontal" : ""}${
        p.supersized ? " supersized" : ""
      }`;
      return wrap(
        el(
          "div",
          { class: cls, role: multiple ? "group" : "radiogroup", "aria-describedby": describedBy },
          options,
          otherBox,
        ),
        true,
      );
    }
    case "file_upload": {
      const status = el("p", { class: "file-status" }, value?.name ? `Uploaded: ${value.name}` : "");
      return wrap(el(
        "div",
        {},
        el("input", {
          ...common,
          type: "file",
          onchange: async (e) => {
            const file = e.target.files[0];
            if (!file) return;
            status.textContent = `Uploading ${file.name}…`;
            markStarted();
            try {
              await landing;
              const res = await call(`/files/${encodeURIComponent(field.ref)}`, {
                method: "POST",
                headers: {
                  "content-type": file.type || "application/octet-stream",
                  "x-file-name": encodeURIComponent(file.name),
                },
                body: file,
              });
              raw[field.ref] = { name: res.name };
              answers[field.ref] = { name: res.name };
              status.textContent = `Uploaded: ${res.name}`;
            } catch (error) {
              status.textContent = "";
              showError(field.ref, error.message);
            }
          },
        }),
        status,
      ));
    }
  }
  return wrap(el("p", {}, "This question cannot be shown."));
}

function statement(field) {
  return el(
    "div",
    { class: "statement", "data-ref": field.ref },
    el("h2", {}, field.properties.hide_marks ? field.title : `“${field.title}”`),
    prose(field.properties.description),
  );
}

function showError(ref, message) {
  const node = root.querySelector(`[data-ref="${CSS.escape(ref)}"] .error`);
  if (!node) return;
  node.textContent = message;
  node.hidden = !message;
  // the controls the message describes are the ones marked invalid
  const controls = root.querySelectorAll(`[aria-describedby~="${CSS.escape(node.id)}"]`);
  for (const control of controls) {
    if (message) control.setAttribute("aria-invalid", "true");
    else control.removeAttribute("aria-invalid");
  }
  reportHeight();
}

// Screen readers hear where the visitor is through one small status region, not the whole page
// (each slide replaces the page's content; announcing all of it would repeat every question, and the
// slide's first control takes the focus anyway).
const statusRegion = document.getElementById("form-status");
function announce(text) {
  if (statusRegion) statusRegion.textContent = text;
}

// ---------------------------------------------------------------- slides
function progress(index) {
  if (settings.show_progress_bar === false || !def.fields.length) return null;
  const total = def.fields.length;
  const done = index;
  const percent = Math.round((done / total) * 100);
  const text = settings.progress_bar === "proportion"
    ? `${done} of ${total} answered`
    : `${percent}% completed`;
  return el(
    "div",
    { class: "progress" },
    el("div", {
      class: "bar",
      role: "progressbar",
      "aria-valuemin": "0",
      "aria-valuemax": String(total),
      "aria-valuenow": String(done),
      "aria-valuetext": text,
    }, el("div", { class: "fill", style: `width:${percent}%` })),
    el("p", { class: "progress-text" }, text),
  );
}

function render(node) {
  root.replaceChildren(node);
  const focus = node.querySelector("input, select, textarea, button");
  focus?.focus({ preventScroll: true });
  reportHeight();
}

function showWelcome() {
  const w = def.welcome_screens?.[0];
  if (!w) return showSlide(0, true);
  current = -1;
  const start = () => {
    markStarted();
    post("welcome-screen-hidden");
    showSlide(0, true);
  };
  // without a button the screen itself starts the form (a click, or Enter once it has focus)
  const buttonless = w.properties.show_button === false;
  render(
    el(
      "section",
      {
        class: "slide welcome",
        "aria-labelledby": "welcome-title",
        tabindex: buttonless ? "0" : null,
        onclick: buttonless ? start : null,
        // on key up: the same key press must not also submit the slide that takes its place
        onkeyup: buttonless ? (e) => e.key === "Enter" && start() : null,
      },
      el("h1", { id: "welcome-title" }, w.title || def.title),
      prose(w.properties.description),
      buttonless ? el("p", { class: "hint" }, "Press Enter or tap to start") : el(
        "button",
        { type: "button", class: "primary", onclick: start },
        w.properties.button_text || "Start",
      ),
    ),
  );
  if (buttonless) root.querySelector(".welcome").focus({ preventScroll: true });
  // no form-screen-changed: the SDK's onQuestionChanged names questions, and the welcome screen is not
  // one (welcome-screen-hidden tells when it is left)
}

function showSlide(index, forward) {
  if (!def.fields.length) return submit();
  if (forward && current !== index) history.push(current);
  current = index;
  const group = def.fields[index];
  const form = el(
    "form",
    {
      class: "slide",
      novalidate: true,
      "aria-labelledby": `slide-title-${index}`,
      onsubmit: (e) => {
        e.preventDefault();
        next();
      },
    },
    progress(index),
    group.title
      ? el("h1", { id: `slide-title-${index}` }, group.title)
      : el("h1", { id: `slide-title-${index}`, class: "visually-hidden" }, def.title),
    group.properties.description ? el("p", { class: "slide-description" }, group.properties.description) : null,
    group.properties.fields.map((f) => f.type === "statement" ? statement(f) : question(f)),
    el(
      "div",
      { class: "nav" },
      history.length && history[history.length - 1] >= 0
        ? el("button", { type: "button", class: "secondary", onclick: back }, "Back")
        : null,
      group.properties.show_button === false && group.properties.fields.every((f) => f.type === "statement")
        ? null
        : el(
          "button",
          { type: "submit", class: "primary" },
          lastStep(index)
            ? "Submit"
            : group.properties.fields.length === 1 && group.properties.fields[0].type === "statement"
            ? group.properties.fields[0].properties.button_text || group.properties.button_text
            : group.properties.button_text || "Continue",
        ),
    ),
  );
  render(form);
  announce(`Slide ${index + 1} of ${def.fields.length}`);
  post("form-screen-changed", { ref: currentRef() });
  // the slide was reached: insights count its views and dropoffs
  landing.then(() => send("", { slide: group.ref })).catch(() => {});
}

/** Whether leaving this slide, with the answers so far, ends the form. */
function lastStep(index) {
  return "ending" in nextStep(rules, index, answers);
}

function back() {
  const previous = history.pop();
  if (previous === undefined || previous < 0) return showWelcome();
  showSlide(previous, false);
}

async function next() {
  const group = def.fields[current];
  let ok = true;
  for (const f of group.properties.fields) {
    if (f.type === "statement") continue;
    showError(f.ref, "");
    if (f.validations.required && answers[f.ref] === undefined) {
      showError(f.ref, "This question needs an answer.");
      ok = false;
    }
  }
  if (!ok) return;
  const slideAnswers = {};
  for (const f of group.properties.fields) {
    if (f.type === "statement" || f.type === "file_upload") continue;
    slideAnswers[f.ref] = raw[f.ref] ?? null;
    clearTimeout(pending.get(f.ref));
    pending.delete(f.ref);
  }
  try {
    if (Object.keys(slideAnswers).length) await send("", { answers: slideAnswers });
  } catch (error) {
    if (error.details?.length) { for (const d of error.details) showError(d.field, d.description); }
    else showProblem(error.message);
    return;
  }
  const step = nextStep(rules, current, answers);
  if ("ending" in step) return submit();
  showSlide(step.slide, true);
}

async function submit() {
  if (submitting) return;
  submitting = true;
  let result;
  try {
    result = await send("/submit", {}, "POST");
  } catch (error) {
    submitting = false;
    if (error.details?.length) {
      // a required answer on an earlier slide: go back to it
      const ref = error.details[0].field;
      const index = rules.slideOf[ref];
      if (index !== undefined && index !== current) showSlide(index, true);
      showError(ref, error.details[0].description);
    } else showProblem(error.message);
    return;
  }
  post("form-submit", { responseId: result.response_id });
  showEnding(result);
}

function showEnding(result) {
  const ending = def.thankyou_screens.find((t) => t.ref === result.ending.ref) ?? def.thankyou_screens[0];
  const p = ending.properties;
  current = def.fields.length;
  endingShown = ending.ref;
  const score = def.type === "quiz"
    ? el("p", { class: "score", role: "status" }, `Your score: ${result.score}`)
    : null;
  const button = p.show_button === false ? null : el("button", {
    type: "button",
    class: "primary",
    onclick: () => {
      if (embedded && handlesEndingClick) return post("thank-you-screen-button-click", { ref: ending.ref });
      if (p.button_mode === "redirect" && p.redirect_url) {
        if (embedded && handlesRedirect) {
          return post("redirect-after-submit", { url: p.redirect_url, target: redirectTarget });
        }
        location.href = p.redirect_url;
      } else location.reload();
    },
  }, p.button_text || "Start over");
  render(
    el(
      "section",
      { class: "slide ending", "aria-labelledby": "ending-title" },
      el("h1", { id: "ending-title" }, ending.title || "Thank you!"),
      prose(p.description),
      score,
      button,
    ),
  );
  announce("Your answers have been sent.");
  // no form-screen-changed: an ending is not a question (form-submit, sent just before, announces it)
}

// ---------------------------------------------------------------- start
document.addEventListener("keydown", (e) => {
  if (e.key === "Escape") post("form-close");
});
if (typeof ResizeObserver === "function") new ResizeObserver(() => reportHeight()).observe(document.body);
showWelcome();
post("form-ready", { isClosed: false });
const style = getComputedStyle(document.body);
post("form-theme", { theme: { backgroundColor: style.backgroundColor, color: style.color } });
reportHeight();
