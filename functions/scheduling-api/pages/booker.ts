// The booker page /book/<slug>: choose a length, a day and a time in the visitor's zone, fill the
// booking fields, book (or pay). The scheduling function serves it with the type's public facts; the
// script (web/pages/book/client.js) does the rest in the browser, including the embed protocol.
import { escapeHtml as esc, scriptJson } from "../../../shared/html.ts";

const scripts = new Map<string, Promise<string>>();

/** The browser scripts the pages inline, by name (Supabase deploys list them under static_files). */
const PAGE_SCRIPTS = { "client.js": "web/pages/book/client.js", "room.js": "web/pages/book/room.js" } as const;

/** The files the pages read, as paths from the project root. */
export const STATIC_FILES: string[] = Object.values(PAGE_SCRIPTS);

/** A page script, read once. */
export function pageScript(file: keyof typeof PAGE_SCRIPTS): Promise<string> {
  let text = scripts.get(file);
  if (!text) scripts.set(file, text = Deno.readTextFile(new URL(`../../../${PAGE_SCRIPTS[file]}`, import.meta.url)));
  return text;
}

/** The look both pages share: light and dark themes through CSS variables. */
export const BASE_STYLE = `
  [hidden] { display: none !important; }
  :root { --bg: #fff; --fg: #111; --muted: #666; --line: #ddd; --accent: #111; --accent-fg: #fff; color-scheme: light; }
  [data-theme="dark"] { --bg: #101010; --fg: #f3f3f3; --muted: #a0a0a0; --line: #333; --accent: #f3f3f3; --accent-fg: #111; color-scheme: dark; }
  html, body { margin: 0; background: var(--bg); color: var(--fg); font: 15px/1.45 system-ui, sans-serif; }
  main { max-width: 720px; margin: 0 auto; padding: 20px; background: var(--bg); border-radius: 8px; }
  h1 { font-size: 1.4em; margin: 0 0 4px; }
  .muted, .price { color: var(--muted); margin: 0 0 12px; }
  .row { display: flex; align-items: center; gap: 8px; margin: 12px 0; }
  button { font: inherit; cursor: pointer; border: 1px solid var(--line); background: var(--bg); color: var(--fg); border-radius: 6px; padding: 6px 10px; }
  button.primary { background: var(--accent); color: var(--accent-fg); border-color: var(--accent); }
  form label { display: block; margin: 10px 0 2px; }
  form input, form textarea, form select { width: 100%; box-sizing: border-box; padding: 6px; font: inherit; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
  .error { color: #c22; min-height: 1.2em; }
  .field-error { color: #c22; margin: 2px 0 0; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  :focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }`;

export interface BookerData {
  id: number;
  slug: string;
  title: string;
  description: string;
  lengths: number[];
  price: number;
  currency: string;
  /** the places the visitor may choose among: what the booking names each by, and its label */
  locations: { value: string; label: string }[];
  needsPhone: boolean;
  disableGuests: boolean;
  formFields: { slug: string; label: string; type: string; required: boolean; options?: string[] }[];
  checkout: boolean;
  successRedirectUrl: string | null;
  /** the hosts' names, shown beside the title */
  hosts: string[];
}

function field(f: BookerData["formFields"][number]): string {
  const id = `f-${esc(f.slug)}`;
  const req = f.required ? " required" : "";
  const label = `<label for="${id}">${esc(f.label)}${f.required ? " *" : ""}</label>`;
  if (f.options?.length) {
    return `${label}<select id="${id}" name="${esc(f.slug)}"${req}><option value=""></option>${
      f.options.map((o) => `<option>${esc(o)}</option>`).join("")
    }</select>`;
  }
  if (f.type === "textarea") return `${label}<textarea id="${id}" name="${esc(f.slug)}"${req}></textarea>`;
  return `${label}<input id="${id}" name="${esc(f.slug)}"${req}>`;
}

export async function renderBookerPage(
  data: BookerData,
  options: { embedded: boolean; theme: string },
): Promise<string> {
  const price = data.price > 0
    ? `<p class="price">${
      esc(
        new Intl.NumberFormat("en", { style: "currency", currency: data.currency.toUpperCase() }).format(
          data.price,
        ),
      )
    }</p>`
    : "";
  return `<!doctype html>
<html lang="en" data-theme="${options.theme === "dark" ? "dark" : "light"}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${esc(data.title)}</title>
<style>${BASE_STYLE}
  html.embedded, html.embedded body { background: transparent; }
  html.embedded body { visibility: hidden; }
  /* in a modal the page is a card on the parent's backdrop: the space around it closes the modal */
  html[data-embed-type="modal"] main { margin: 24px auto; box-shadow: 0 8px 32px rgba(0, 0, 0, .25); }
  .chip.on, .day.on, .time.on, .toggle [aria-pressed="true"], #submit { background: var(--accent); color: var(--accent-fg); border-color: var(--accent); }
  .settings { flex-wrap: wrap; }
  .settings select { max-width: 14em; font: inherit; padding: 4px; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
  .toggle { display: inline-flex; gap: 0; }
  /* the month beside the chosen day's times; on a phone the times come below */
  .picker { display: grid; grid-template-columns: minmax(0, 1fr) minmax(9em, 12em); gap: 16px; align-items: start; }
  .month-nav { justify-content: space-between; margin: 0 0 6px; }
  .month-nav h2, .times-column h2 { font-size: 1em; margin: 0; }
  .weekdays, #days { display: grid; grid-template-columns: repeat(7, minmax(0, 1fr)); gap: 4px; }
  .weekdays { color: var(--muted); font-size: .8em; text-align: center; margin-bottom: 4px; }
  #days button { padding: 0; min-height: 2.6em; }
  #days button:disabled { border-color: transparent; color: var(--muted); cursor: default; }
  #times { display: flex; flex-direction: column; gap: 6px; margin: 8px 0; max-height: 24em; overflow-y: auto; }
  #times button { min-height: 2.6em; }
  @media (max-width: 600px) {
    main { padding: 12px; }
    .picker { grid-template-columns: minmax(0, 1fr); }
    #times { max-height: none; }
  }
</style>
</head>
<body>
<main data-layout="month_view">
  <h1>${esc(data.title)}</h1>
  <p class="muted" id="meta">${data.hosts.length ? `With ${esc(data.hosts.join(", "))} · ` : ""}<span id="length-shown">${data.lengths[0]} min</span></p>
  ${data.description ? `<p class="muted">${esc(data.description)}</p>` : ""}
  ${price}
  <p id="notice" class="muted" hidden></p>
  <section id="pick" aria-label="Choose a time">
    <div id="lengths" class="row" role="group" aria-label="Length"></div>
    <div class="row settings">
      <label for="zone-picker">Time zone</label><select id="zone-picker"></select>
      <span class="toggle" role="group" aria-label="Time format"><button type="button" id="fmt-12" aria-pressed="false">12h</button><button type="button" id="fmt-24" aria-pressed="false">24h</button></span>
    </div>
    <p class="muted">Times in <span id="zone"></span></p>
    <div class="picker">
      <div class="calendar">
        <div class="row month-nav"><button type="button" id="prev" aria-label="Previous month">‹</button><h2 id="month-label"></h2><button type="button" id="next" aria-label="Next month">›</button></div>
        <div class="weekdays" aria-hidden="true"><span>Mon</span><span>Tue</span><span>Wed</span><span>Thu</span><span>Fri</span><span>Sat</span><span>Sun</span></div>
        <div id="days" role="group" aria-labelledby="month-label"></div>
      </div>
      <div class="times-column">
        <h2 id="times-label" tabindex="-1">Choose a day</h2>
        <div id="times" role="group" aria-labelledby="times-label"></div>
      </div>
    </div>
    <p id="status" class="muted"></p>
  </section>
  <form id="form" hidden>
    <p id="chosen"></p>
    <label for="f-name">Your name *</label><input id="f-name" name="name" required autocomplete="name">
    <label for="f-email">Email address *</label><input id="f-email" name="email" type="email" required autocomplete="email">
    ${
    data.needsPhone
      ? `<label for="f-phone">Phone number *</label><input id="f-phone" name="phone" type="tel" required autocomplete="tel">`
      : ""
  }
    ${
    data.locations.length > 1
      ? `<label for="f-location">Location *</label><select id="f-location" name="location" required>${
        data.locations.map((l, i) =>
          `<option value="${esc(l.value)}"${i === 0 ? " selected" : ""}>${esc(l.label)}</option>`
        ).join("")
      }</select>`
      : ""
  }
    ${data.formFields.map(field).join("\n    ")}
    ${
    data.disableGuests
      ? ""
      : `<label for="f-guests">Add guests</label><input id="f-guests" name="guests" type="text" inputmode="email" placeholder="Email addresses, separated by commas" autocomplete="off">`
  }
    <label for="f-notes">Additional notes</label><textarea id="f-notes" name="notes"></textarea>
    <p id="form-error" class="error" role="alert"></p>
    <div class="row"><button type="button" id="back">Back</button><button type="submit" id="submit">${
    data.price > 0 ? "Pay and book" : "Book"
  }</button></div>
  </form>
  <form id="move" hidden>
    <p id="move-chosen"></p>
    <label for="f-reason">Reason for the change</label><textarea id="f-reason" name="reason"></textarea>
    <p id="move-error" class="error" role="alert"></p>
    <div class="row"><button type="button" id="move-back">Back</button><button type="submit" id="move-submit" class="primary">Reschedule</button></div>
  </form>
  <form id="cancel" hidden>
    <h2>Cancel this booking?</h2>
    <p id="cancel-when"></p>
    <label for="f-cancel-reason">Reason for cancelling</label><textarea id="f-cancel-reason" name="reason"></textarea>
    <p id="cancel-error" class="error" role="alert"></p>
    <div class="row"><button type="submit" id="cancel-submit" class="primary">Cancel the booking</button></div>
  </form>
  <section id="done" hidden>
    <h2 id="done-title" tabindex="-1"></h2><p id="done-when"></p><p id="done-note" class="muted"></p>
    <div class="row" id="done-actions" hidden><button type="button" id="to-reschedule">Reschedule</button><button type="button" id="to-cancel">Cancel</button></div>
  </section>
  <p id="page-error" class="error" role="alert"></p>
  <p id="live" class="visually-hidden" role="status" aria-live="polite"></p>
</main>
<script id="booker-data" type="application/json">${scriptJson(data)}</script>
<script>${await pageScript("client.js")}</script>
</body>
</html>`;
}

/**
 * The booker page's answer for a session that does not exist. Framed by @calcom/embed-core it says so to
 * the parent (linkFailed, code 404), which then shows its own "link seems to be wrong" state instead of a
 * loader that never ends.
 */
export function renderBookerNotFound(): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>Session not found</title><style>${BASE_STYLE}</style></head>
<body><main><h1>Session not found</h1><p class="muted">This booking link does not lead to a session.</p></main>
<script>
(function () {
  const params = new URLSearchParams(location.search);
  if (!params.has("embed") || window.parent === window) return;
  const namespace = params.get("embed") || "";
  window.parent.postMessage({
    originator: "CAL",
    type: "linkFailed",
    namespace,
    fullType: "CAL:" + namespace + ":linkFailed",
    data: { code: "404", msg: "This booking link does not lead to a session.", data: { url: location.href } },
  }, "*");
})();
</script>
</body>
</html>`;
}
