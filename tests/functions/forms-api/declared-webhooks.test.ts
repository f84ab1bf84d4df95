// Forms webhooks declared in site.yaml, through the import (on a private in-memory PGlite, so the
// site may be replaced freely): good declarations become source-file subscriptions; a bad one stops the
// import with an error naming the entry, and nothing changes.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { privateDatabase } from "../../helpers/db.ts";
import { fixedClock } from "../../../shared/clock.ts";
import { importSite, SiteImportError } from "../../../shared/site/import.ts";
import { makeSite, MINIMAL_SITE_YAML } from "../../shared/site/temp-site.ts";

const sql = await privateDatabase();
const clock = fixedClock("2026-01-01T00:00:00Z");

async function siteDeclaring(webhooks: string): Promise<string> {
  return await makeSite({ "site.yaml": `${MINIMAL_SITE_YAML}webhooks:\n${webhooks}` });
}

async function subscriptions() {
  return await sql<{ form: string; tag: string; url: string; enabled: boolean; source: string }[]>`
    select form, tag, url, enabled, source from public.form_webhooks order by form, tag`;
}

test("declared forms webhooks are checked on import: a bad enabled, url or tag stops it, naming the entry", async () => {
  const good = await siteDeclaring(
    `  - { api: forms, form: feedback, tag: crm, url: "https://hooks.example/crm", secret: s1 }
  - { api: forms, form: feedback, url: "http://hooks.example/site", enabled: false }
  - { api: content, name: rebuild, url: "https://ci.example/hook" }
`,
  );
  await importSite(sql, { dir: good, clock });
  const imported = await subscriptions();
  assert.deepEqual(imported.map((r) => [r.form, r.tag, r.url, r.enabled, r.source]), [
    ["feedback", "crm", "https://hooks.example/crm", true, "file"],
    ["feedback", "site", "http://hooks.example/site", false, "file"],
  ]);

  const bad: [string, RegExp][] = [
    [
      `  - { api: forms, form: feedback, tag: crm, url: "https://hooks.example/crm", enabled: maybe }\n`,
      /^site\.yaml: webhooks\[0\] \(api: forms, form: feedback, tag: crm\): enabled must be true or false$/,
    ],
    [
      `  - { api: forms, form: feedback, tag: crm, url: "https://hooks.example/crm" }
  - { api: forms, form: feedback, tag: ops, url: "ftp://hooks.example/ops" }\n`,
      /^site\.yaml: webhooks\[1\] \(api: forms, form: feedback, tag: ops\): url must use http or https$/,
    ],
    [
      `  - { api: forms, form: feedback, tag: "bad tag!", url: "https://hooks.example/x" }\n`,
      /webhooks\[0\] \(api: forms, form: feedback, tag: bad tag!\): tag is 1 to 64 letters, digits, _, \. or -/,
    ],
    [
      `  - { api: forms, form: feedback, tag: "${"t".repeat(65)}", url: "https://hooks.example/x" }\n`,
      /tag is 1 to 64 letters/,
    ],
    [
      `  - { api: forms, form: feedback, url: "not a url" }\n`,
      /webhooks\[0\] .*: url is not a valid absolute URL/,
    ],
    [`  - { api: forms, form: 12, url: "https://hooks.example/x" }\n`, /form must name the form/],
    [
      `  - { api: forms, form: feedback, url: "https://hooks.example/x", secret: [1] }\n`,
      /secret must be text/,
    ],
  ];
  for (const [webhooks, message] of bad) {
    const dir = await siteDeclaring(webhooks);
    try {
      await assert.rejects(
        importSite(sql, { dir, clock }),
        (e: unknown) => e instanceof SiteImportError && message.test(e.message),
        webhooks,
      );
      assert.deepEqual(await subscriptions(), imported, "a refused import changes nothing");
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }
  await Deno.remove(good, { recursive: true });
});
