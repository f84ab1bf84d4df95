// The panel on its own page, {base_url}/support: what the widget's popout opens, and a page a site may
// link to. No site chrome, kept out of search engines; the widget script mounts itself full-page.
import { escapeHtml, scriptJson } from "../../../shared/html.ts";

export function supportPageHtml(input: { title: string; space: string; lang: string }): string {
  return `<!doctype html>
<html lang="${escapeHtml(input.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(input.title)}</title>
<style>html, body { margin: 0; height: 100%; } #cw-widget-holder { display: block; height: 100%; }</style>
</head>
<body>
<script src="/api/desk/packs/js/sdk.js"></script>
<script>
window.chatwootSDK.run({ websiteToken: ${scriptJson(input.space)}, baseUrl: location.origin, mode: "page", title: ${
    scriptJson(input.title)
  } });
</script>
</body>
</html>`;
}
