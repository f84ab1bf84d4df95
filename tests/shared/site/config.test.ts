import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { parseSiteConfig, SiteConfigError } from "../../../shared/site/config.ts";
import { DEMO_SITE } from "./temp-site.ts";

test("the demo site.yaml parses with every module on and two locales", async () => {
  const config = parseSiteConfig(await Deno.readTextFile(`${DEMO_SITE}/site.yaml`));
  assert.equal(config.name, "Sitewire Demo");
  assert.equal(config.slug, "demo");
  assert.equal(config.domain, "demo.sitewire.dev");
  assert.equal(config.mode, "git");
  assert.deepEqual(config.modules, {
    api: true,
    forms: true,
    sessions: true,
    store: true,
    support: true,
    network: true,
  });
  assert.deepEqual(config.locales, [
    { code: "en-US", name: "English (United States)", default: true, fallbackCode: null, optional: false },
    { code: "de-DE", name: "German", default: false, fallbackCode: "en-US", optional: false },
  ]);
  assert.equal(config.defaultLocale, "en-US");
  assert.deepEqual(config.api, { public: true, space: "demo" });
  assert.deepEqual(config.webhooks, []);
  assert.deepEqual(config.raw.api, { public: true, space: "demo" });
});

test("defaults: git mode, only the api module, one en-US locale, public api in the slug's space", () => {
  const config = parseSiteConfig("name: X\nslug: x\n");
  assert.equal(config.mode, "git");
  assert.equal(config.domain, "localhost");
  assert.deepEqual(config.modules, {
    api: true,
    forms: false,
    sessions: false,
    store: false,
    support: false,
    network: false,
  });
  assert.deepEqual(config.locales.map((l) => [l.code, l.default]), [["en-US", true]]);
  assert.deepEqual(config.api, { public: true, space: "x" });
});

test("api.space and api.public are read, and declared webhooks are kept as written", () => {
  const config = parseSiteConfig(`name: X
slug: x
api: { public: false, space: other }
webhooks:
  - { api: forms, url: "https://hooks.example.com/a", events: [form_response] }
`);
  assert.deepEqual(config.api, { public: false, space: "other" });
  assert.deepEqual(config.webhooks, [{
    api: "forms",
    url: "https://hooks.example.com/a",
    events: ["form_response"],
  }]);
});

test("a bad configuration names the file and the reason", () => {
  const cases: [string, RegExp][] = [
    ["slug: x\n", /site\.yaml: name is required/],
    ["name: X\nslug: Bad Slug\n", /slug is required/],
    ["name: X\nslug: x\nmode: svn\n", /mode must be git or cloud/],
    ["name: X\nslug: x\nmodules: { chat: true }\n", /unknown module chat/],
    [
      "name: X\nslug: x\nlocales: [{ code: en-US, default: true }, { code: de-DE, default: true }]\n",
      /only one locale/,
    ],
    [
      "name: X\nslug: x\nlocales: [{ code: en-US }, { code: de-DE, fallback: fr-FR }]\n",
      /not a locale of the site/,
    ],
    ["name: X\nslug: x\nwebhooks: [{ name: no-url }]\n", /webhooks\[0\]\.url is required/],
    ["name: [unclosed\n", /site\.yaml: not valid YAML/],
  ];
  for (const [text, message] of cases) {
    assert.throws(
      () => parseSiteConfig(text),
      (e: unknown) => e instanceof SiteConfigError && message.test(e.message),
      text,
    );
  }
});

test("repository.push: on unless the configuration says false (the demo, inside the project's repository, says so)", async () => {
  assert.deepEqual(parseSiteConfig("name: X\nslug: x\n").repository, { push: true });
  assert.deepEqual(parseSiteConfig("name: X\nslug: x\nrepository: { push: false }\n").repository, { push: false });
  assert.deepEqual(parseSiteConfig(await Deno.readTextFile(`${DEMO_SITE}/site.yaml`)).repository, { push: false });
  for (const [text, message] of [["repository: yes", /repository must be a mapping/], ["repository: { push: no }", /repository\.push must be true or false/]] as const) {
    assert.throws(() => parseSiteConfig(`name: X\nslug: x\n${text}\n`), (e: unknown) => e instanceof SiteConfigError && message.test(e.message), text);
  }
});
