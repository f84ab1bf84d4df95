// The /api reference page: the OpenAPI document rendered by Scalar's API reference. The renderer's
// standalone browser bundle is served from the npm package this project pins (@scalar/api-reference in
// deno.json), never from a CDN, so the page works on a machine without internet access.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The page; both addresses are absolute on the site's public origin. */
export function apiReferencePage(input: { title: string; documentUrl: string; scriptUrl: string }): string {
  const config = {
    url: input.documentUrl,
    // no requests leave the site: no web fonts, no telemetry, no AI agent
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
  };
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(input.title)}</title>
  </head>
  <body>
    <div id="app"></div>
    <script src="${escapeHtml(input.scriptUrl)}"></script>
    <script>
      Scalar.createApiReference("#app", ${scriptJson(config)});
    </script>
  </body>
</html>
`;
}

export interface RendererBundle {
  version: string;
  script: Uint8Array;
}

let bundle: Promise<RendererBundle> | undefined;

/**
 * Scalar's standalone bundle, read once from the installed package. The package does not export the file,
 * so it is found next to the package's entry point.
 */
export function rendererBundle(): Promise<RendererBundle> {
  bundle ??= (async () => {
    const entry = createRequire(import.meta.url).resolve("@scalar/api-reference");
    const packageDir = dirname(dirname(entry));
    const [script, manifest] = await Promise.all([
      Deno.readFile(join(packageDir, "dist", "browser", "standalone.js")),
      Deno.readTextFile(join(packageDir, "package.json")),
    ]);
    return { version: String(JSON.parse(manifest).version), script };
  })();
  bundle.catch(() => (bundle = undefined));
  return bundle;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** JSON safe inside a <script> element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");
}
