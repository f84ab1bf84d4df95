// The form page's HTML shell and its static files. The runner (runner.js) builds the slides from the
// definition embedded in the page; logic.js is shared with the forms function.

export interface PageAsset {
  type: string;
  read(): Promise<Uint8Array>;
}

const here = (name: string) => new URL(`./${name}`, import.meta.url);
const cache = new Map<string, Promise<Uint8Array>>();
function file(name: string, type: string): PageAsset {
  return {
    type,
    read() {
      let bytes = cache.get(name);
      if (!bytes) {
        bytes = Deno.readFile(here(name));
        bytes.catch(() => cache.delete(name));
        cache.set(name, bytes);
      }
      return bytes;
    },
  };
}

export const FORM_ASSETS: Record<string, PageAsset> = {
  "runner.js": file("runner.js", "text/javascript; charset=utf-8"),
  "logic.js": file("logic.js", "text/javascript; charset=utf-8"),
  "style.css": file("style.css", "text/css; charset=utf-8"),
};

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!,
  );

/** JSON that can sit inside a <script> element. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");

export function formPageHtml(
  page: {
    title: string;
    /** no form to run: the page says why (not found, or closed to new responses) */
    notice?: string;
    definition?: {
      settings: { language: string; meta?: { allow_indexing?: boolean; description?: string } };
    };
    pictures?: Record<string, string>;
  },
): string {
  const settings = page.definition?.settings;
  const lang = settings?.language ?? "en";
  const description = settings?.meta?.description;
  // the page lives at /to/<slug> (or /form/<slug>): its files are at /to/_/ beside it
  return `<!doctype html>
<html lang="${escapeHtml(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
${settings?.meta?.allow_indexing ? "" : '<meta name="robots" content="noindex">\n'}${
    description ? `<meta name="description" content="${escapeHtml(description)}">\n` : ""
  }<link rel="stylesheet" href="_/style.css">
</head>
<body>
<main id="form" class="form">
${
    page.notice
      ? `<section class="slide"><h1>${escapeHtml(page.title)}</h1><p>${escapeHtml(page.notice)}</p></section>`
      : `<noscript><p>This form needs JavaScript.</p></noscript>`
  }
</main>
<p id="form-status" class="visually-hidden" role="status" aria-live="polite"></p>
${
    page.notice
      ? ""
      : `<script type="application/json" id="form-data">${
        scriptJson({ definition: page.definition, pictures: page.pictures ?? {} })
      }</script>
<script type="module" src="_/runner.js"></script>`
  }
</body>
</html>
`;
}
