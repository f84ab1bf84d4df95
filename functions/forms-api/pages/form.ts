// The form page's HTML shell and its static files. The runner (web/pages/form/runner.js) builds the slides
// from the definition embedded in the page; the form rules (shared/forms/logic.js) are shared with the
// forms function. The files are read at run time: supabase/config.toml ships them as static_files.

export interface PageAsset {
  type: string;
  read(): Promise<Uint8Array>;
}

/** The files the page loads, as paths from the project root (the deploy lists each under static_files). */
export const STATIC_FILES = ["web/pages/form/runner.js", "shared/forms/logic.js", "web/pages/form/style.css"];

const fromRoot = (path: string) => new URL(`../../../${path}`, import.meta.url);
const cache = new Map<string, Promise<Uint8Array>>();
function file(path: string, type: string): PageAsset {
  return {
    type,
    read() {
      let bytes = cache.get(path);
      if (!bytes) {
        bytes = Deno.readFile(fromRoot(path));
        bytes.catch(() => cache.delete(path));
        cache.set(path, bytes);
      }
      return bytes;
    },
  };
}

/** The page's files by the name it asks for them under /to/_/. */
export const FORM_ASSETS: Record<string, PageAsset> = {
  "runner.js": file(STATIC_FILES[0], "text/javascript; charset=utf-8"),
  "logic.js": file(STATIC_FILES[1], "text/javascript; charset=utf-8"),
  "style.css": file(STATIC_FILES[2], "text/css; charset=utf-8"),
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
<script type="importmap">{"imports":{"sitewire-form-logic":"./_/logic.js"}}</script>
<script type="module" src="_/runner.js"></script>`
  }
</body>
</html>
`;
}
