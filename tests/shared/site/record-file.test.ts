// The record serializer (shared/site/record-file.ts) against the import's own reading of a record
// (readRecordText, the code the site import runs): what it writes reads back as the record it came from.
import assert from "node:assert/strict";
import fc from "fast-check";
import { test } from "../../helpers/test.ts";
import { readSiteDir } from "../../../shared/site/content-dir.ts";
import { readRecordText, richTextFromMarkdown } from "../../../shared/site/record-entry.ts";
import type { RecordText } from "../../../shared/site/snapshot.ts";
import { recordFiles, recordPaths, type RecordToWrite } from "../../../shared/site/record-file.ts";
import { apiAssetPath, assetIdForPath } from "../../../shared/site/media.ts";
import { type Model, normalizeModel } from "../../../shared/site/models.ts";
import { STOCK_MODELS } from "../../../shared/site/stock-models.ts";
import { DEFAULT_LOCALE, type SiteLocale } from "../../../shared/site/config.ts";
import { DEMO_SITE } from "./temp-site.ts";

const LOCALES: SiteLocale[] = [
  DEFAULT_LOCALE,
  { code: "de-DE", name: "German", default: false, fallbackCode: "en-US", optional: false },
];
const CONFIG = { defaultLocale: "en-US", locales: LOCALES };
const model = (id: string) => STOCK_MODELS.find((m) => m.id === id)!;

/** Writes the record, reads the files back as the import does, and answers what it read. */
function roundTrip(record: RecordToWrite & { id: string }, library: { id: string; path: string }[] = []) {
  const files = recordFiles(record, {
    defaultLocale: "en-US",
    locales: LOCALES.map((l) => l.code),
    assetPath: (id) => library.find((a) => a.id === id)?.path,
  });
  const read = readRecordText({
    id: record.id,
    model: record.model as Model,
    files,
    config: CONFIG,
    library,
  });
  return { files, ...read };
}

function assertSame(record: RecordToWrite & { id: string }, back: ReturnType<typeof roundTrip>) {
  assert.deepStrictEqual(back.entry.fields, record.fields, back.files.map((f) => f.text).join("\n~~~\n"));
  assert.equal(back.entry.published, record.published);
  assert.equal(back.entry.access, record.access);
  if (record.createdAt) assert.equal(back.entry.createdAt.toISOString(), record.createdAt.toISOString());
}

test("every record of the demo site reads back from its serialized files: fields, links, flags, dates", async () => {
  const site = await readSiteDir(DEMO_SITE);
  const library = site.assets.map((a) => ({ id: a.id, path: a.path }));
  const known = new Set(library.map((a) => a.id));
  let checked = 0;
  for (const entry of site.entries) {
    // a link to a file the library lacks keeps only a hash of the missing path: nothing to write back
    if (!entry.assetLinks.every((id) => known.has(id))) continue;
    const model = site.models.find((m) => m.id === entry.modelId)!;
    const files = recordFiles(
      {
        path: entry.path,
        model,
        fields: entry.fields,
        published: entry.published,
        access: entry.access,
        createdAt: entry.createdAt,
      },
      {
        defaultLocale: site.config.defaultLocale,
        locales: site.config.locales.map((l) => l.code),
        assetPath: (id) => library.find((a) => a.id === id)?.path,
      },
    );
    assert.deepEqual(
      files.map((f) => f.path),
      entry.files.toSorted((a, b) => (a === entry.path ? -1 : b === entry.path ? 1 : a.localeCompare(b))),
    );
    const back = readRecordText({
      id: entry.id,
      model,
      files,
      config: site.config,
      library,
      entryIds: site.entries.map((e) => e.id),
      models: site.models,
    }).entry;
    const label = `${entry.path}\n${files.map((f) => f.text).join("\n~~~\n")}`;
    assert.deepStrictEqual(back.fields, entry.fields, label);
    assert.deepEqual([back.published, back.access, back.searchText], [
      entry.published,
      entry.access,
      entry.searchText,
    ], label);
    assert.deepEqual([back.links, back.assetLinks], [entry.links, entry.assetLinks], label);
    // a dated model's createdAt is its date field; any other record carries its createdAt as `date`
    if (!model.fields.some((f) => f.id === "date") || entry.fields.date) {
      assert.equal(back.createdAt.toISOString(), entry.createdAt.toISOString(), label);
    }
    checked++;
  }
  assert.ok(checked > 150, `${checked} records`);
});

test("what the management API stores: documents without markdown, API files, locales, drafts, gated access", () => {
  const apiFile = "k3yApiAsset01";
  const media = { id: assetIdForPath("media/photos/harbor.jpg"), path: "media/photos/harbor.jpg" };
  const document = {
    nodeType: "document",
    data: {},
    content: [{
      nodeType: "paragraph",
      data: {},
      content: [{ nodeType: "text", value: "Only a document", marks: [], data: {} }],
    }],
  };
  const record = {
    id: "article.from-the-api",
    path: "records/articles/from-the-api.md",
    model: model("article"),
    published: false,
    access: "member" as const,
    fields: {
      title: { "en-US": "From the API", "de-DE": "Aus der API" },
      date: { "en-US": "2026-03-01T09:30:00Z" },
      summary: { "en-US": "line one\nline two\n\n  indented\r\nwith a carriage return" },
      // " \n": the yaml library's block scalar would lose the space; U+2028 then ---: not a line end
      tags: { "en-US": ["yes", "123", "2024-01-01", "- dash", "#hash", " \n", "a\u2028---"] },
      readingTime: { "en-US": 7 },
      rating: { "en-US": 4.25 },
      featured: { "en-US": false },
      cover: { "en-US": { sys: { type: "Link", linkType: "Asset", id: apiFile } } },
      related: { "en-US": [{ sys: { type: "Link", linkType: "Entry", id: "wiki.index" } }] },
      seo: { "en-US": { title: "x: y", nested: [1, "two", { three: null }] } },
      body: { "en-US": document, "de-DE": document },
    },
  };
  const back = roundTrip(record, [media, { id: apiFile, path: apiAssetPath(apiFile, "pic one.png") }]);
  assertSame(record, back);
  assert.deepEqual(back.files.map((f) => f.path), [
    "records/articles/from-the-api.md",
    "records/articles/from-the-api.de-DE.md",
  ]);
  const [own, german] = back.files.map((f) => f.text);
  assert.match(
    own,
    /\npublished: false\naccess: member\n---\n$/,
    "the record's own keys close its front matter; no body",
  );
  assert.match(
    own,
    /\ncover: content\/uploads\/api\/k3yApiAsset01\/pic one.png\n/,
    "an API file by its library path",
  );
  assert.match(own, /\nrelated:\n {2}- wiki\.index\n/, "an entry by its id");
  assert.doesNotMatch(own, /\ndate: .*\n[\s\S]*\ndate:/, "a dated model's date is its field, written once");
  assert.match(german, /^---\ntitle: Aus der API\nbody:\n {2}nodeType: document\n/);
});

test("markdown: the body is the file's body, other rich text is front matter, odd markdown stays exact", () => {
  const wiki = model("wiki");
  const rich = (markdown: string) => richTextFromMarkdown(markdown, () => undefined);
  const body = rich("# Setup\n\n---\n\nA rule above, **bold** below.\n");
  const record = {
    id: "wiki.setup",
    path: "records/wiki/setup.md",
    model: wiki,
    published: true,
    access: "guest" as const,
    createdAt: new Date("2026-11-22T10:11:12.345Z"),
    fields: {
      title: { "en-US": "Setup" },
      body: { "en-US": body.document, "de-DE": rich("  \n").document },
      bodyMarkdown: { "en-US": body.markdown, "de-DE": rich("  \n").markdown },
    },
  };
  const back = roundTrip(record);
  assertSame(record, back);
  assert.equal(
    back.files[0].text,
    "---\ntitle: Setup\ndate: 2026-11-22T10:11:12.345Z\n---\n# Setup\n\n---\n\nA rule above, **bold** below.\n",
    "an undated model's createdAt is `date`; the markdown body follows the front matter",
  );
  assert.match(
    back.files[1].text,
    /^---\nbody: .*\n.*\n---\n$/,
    "white space only is no file body: it stays in the front matter",
  );

  // a rich-text field other than the body: its markdown is a front matter string
  const text = rich("Some *emphasis*,\nover two lines.\n");
  const withIntro = {
    id: "modelThing.intro",
    path: "records/things/intro.md",
    model: SYNTHETIC,
    published: true,
    access: "guest" as const,
    fields: {
      title: { "en-US": "X" },
      intro: { "en-US": text.document },
      introMarkdown: { "en-US": text.markdown },
    },
  };
  const introBack = roundTrip(withIntro);
  assertSame(withIntro, introBack);
  assert.equal(
    introBack.files[0].text,
    "---\ntitle: X\nintro: |\n  Some *emphasis*,\n  over two lines.\n---\n",
  );
});

test("a record at a path has its own file and one sibling per other locale", () => {
  assert.deepEqual(recordPaths("records/docs/a/b.md", ["en-US", "de-DE", "fr"], "en-US"), [
    "records/docs/a/b.md",
    "records/docs/a/b.de-DE.md",
    "records/docs/a/b.fr.md",
  ]);
});

// ---- any values of every field type --------------------------------------------------------------

const SYNTHETIC = normalizeModel(
  {
    id: "modelThing",
    folder: "things",
    name: "Thing",
    description: "",
    fields: [
      { id: "title", type: "Symbol", localized: true },
      { id: "note", type: "Text", localized: true },
      { id: "count", type: "Integer" },
      { id: "ratio", type: "Number" },
      { id: "flag", type: "Boolean" },
      { id: "when", type: "Date" },
      { id: "labels", type: "Array", items: "Symbol" },
      { id: "data", type: "Object" },
      { id: "intro", type: "RichText" },
      { id: "body", type: "RichText", localized: true },
    ],
  },
  false,
  "models/things.yaml",
);

// text as people and clients write it: any characters (no NUL, which the database cannot hold), plus
// the pieces YAML and front matter treat specially
const tricky = fc.constantFrom(
  "---",
  "...",
  "\n",
  "\r\n",
  " ",
  "\t",
  "#",
  ": ",
  "- ",
  "'",
  '"',
  "yes",
  "null",
  "~",
  "0x1F",
  "2024-01-01",
  "|",
  ">",
  "&a",
  "*a",
  "\u2028",
);
const text = fc.array(fc.oneof(fc.string({ unit: "grapheme", minLength: 1 }), tricky), {
  minLength: 1,
  maxLength: 6,
})
  .map((parts) => parts.join("").replaceAll("\0", ""));
const markdownText = text.map((t) => t.replace(/!/g, "")).filter((t) => t.trim() !== ""); // no pictures: no library to name
const json = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown); // as jsonb gives it back (-0 is 0)

const thing = fc.record({
  title: fc.option(fc.record({ en: text, de: fc.option(text) }), { nil: undefined }),
  note: fc.option(text, { nil: undefined }),
  count: fc.option(fc.integer(), { nil: undefined }),
  ratio: fc.option(
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)),
    { nil: undefined },
  ),
  flag: fc.option(fc.boolean(), { nil: undefined }),
  when: fc.option(
    fc.date({ min: new Date("1900-01-01"), max: new Date("2199-12-31"), noInvalidDate: true }),
    { nil: undefined },
  ),
  labels: fc.option(fc.array(text, { minLength: 1, maxLength: 4 }), { nil: undefined }),
  data: fc.option(
    fc.oneof(fc.dictionary(fc.string(), json), fc.array(json, { minLength: 1 })).map((v) =>
      JSON.parse(JSON.stringify(v))
    ),
    { nil: undefined },
  ),
  body: fc.option(fc.record({ en: markdownText, de: fc.option(markdownText) }), { nil: undefined }),
  published: fc.boolean(),
  access: fc.constantFrom("guest", "member", "supporter", "staff") as fc.Arbitrary<"guest">,
  createdAt: fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }),
});

test("any values of every field type, in both locales, read back exactly (property)", () => {
  fc.assert(
    fc.property(thing, (t) => {
      const fields: Record<string, Record<string, unknown>> = {};
      const put = (field: string, locale: string, value: unknown) => {
        if (value !== undefined && value !== null) (fields[field] ??= {})[locale] = value;
      };
      put("title", "en-US", t.title?.en);
      put("title", "de-DE", t.title?.de);
      put("note", "en-US", t.note);
      put("count", "en-US", t.count);
      put("ratio", "en-US", t.ratio);
      put("flag", "en-US", t.flag);
      put("when", "en-US", t.when?.toISOString());
      put("labels", "en-US", t.labels);
      put("data", "en-US", t.data);
      for (const [locale, markdown] of [["en-US", t.body?.en], ["de-DE", t.body?.de]] as const) {
        if (!markdown) continue;
        const rich = richTextFromMarkdown(markdown, () => undefined);
        put("body", locale, rich.document);
        put("bodyMarkdown", locale, rich.markdown);
      }
      // the content type's field order, as the rows hold them
      const ordered = Object.fromEntries(
        SYNTHETIC.fields.filter((f) => fields[f.id]).map((f) => [f.id, fields[f.id]]),
      );
      const record = {
        id: "modelThing.any",
        path: "records/things/any.md",
        model: SYNTHETIC,
        published: t.published,
        access: t.access,
        createdAt: t.createdAt,
        fields: ordered,
      };
      assertSame(record, roundTrip(record));
    }),
    { numRuns: 300 },
  );
});

test("files read back through readRecordText name a sibling only for another locale of the site", () => {
  const files: RecordText[] = [
    { path: "records/wiki/a.md", text: "---\ntitle: A\n---\n" },
    { path: "records/wiki/a.fr-FR.md", text: "---\ntitle: A\n---\n" },
  ];
  assert.throws(
    () => readRecordText({ id: "wiki.a", model: model("wiki"), files, config: CONFIG, library: [] }),
    /not a locale sibling/,
  );
});
