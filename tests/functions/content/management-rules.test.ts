// The management API's pure rules: versions, ids, the version header, and the write field rules.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { ContentError } from "../../../functions/content/envelope.ts";
import {
  checkVersion,
  entryIdFromFields,
  entryPathForId,
  isEntryLinkId,
  MAX_ENTRY_PATH,
  nextRevision,
  parseVersionHeader,
  slugify,
  versionOf,
} from "../../../functions/content/domain/management-rules.ts";
import { assetReferences, buildEntryValues, type LibraryLookup, requiredProblems } from "../../../functions/content/domain/management-fields.ts";
import { nextSweepAt } from "../../../functions/content/domain/management-uploads.ts";
import { normalizeModel } from "../../../shared/site/models.ts";
import type { ContentModel } from "../../../functions/content/domain/content-types.ts";

function refused(fn: () => unknown, id: string, status: number) {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof ContentError);
    assert.equal(error.id, id);
    assert.equal(error.status, status);
    return true;
  });
}

test("sys.version is revision × 2, plus 1 while pending", () => {
  assert.equal(versionOf({ revision: 0, pending: true }), 1);
  assert.equal(versionOf({ revision: 2, pending: false }), 4);
  assert.equal(versionOf({ revision: 2, pending: true }), 5);
});

test("every write moves sys.version up, whatever the pending state before and after", () => {
  for (let revision = 0; revision < 4; revision++) {
    for (const pending of [false, true]) {
      for (const after of [false, true]) {
        const before = versionOf({ revision, pending });
        const next = nextRevision({ revision, pending }, after);
        assert.ok(next >= revision);
        assert.ok(versionOf({ revision: next, pending: after }) > before, `${revision}/${pending} -> ${after}`);
        // and by the least step: one revision less would not be higher
        if (next > revision) assert.ok(versionOf({ revision: next - 1, pending: after }) <= before);
      }
    }
  }
  // the lifecycle the client sees: create 1, save 3, publish 4, save 5, unpublish 7
  let state = { revision: 0, pending: true };
  const versions = [versionOf(state)];
  for (const pendingAfter of [true, false, true, true]) {
    state = { revision: nextRevision(state, pendingAfter), pending: pendingAfter };
    versions.push(versionOf(state));
  }
  assert.deepEqual(versions, [1, 3, 4, 5, 7]);
});

test("the version header: absent, a whole number, or BadQuery", () => {
  assert.equal(parseVersionHeader(undefined), undefined);
  assert.equal(parseVersionHeader(""), undefined);
  assert.equal(parseVersionHeader(" 7 "), 7);
  refused(() => parseVersionHeader("seven"), "BadQuery", 400);
  refused(() => parseVersionHeader("-1"), "BadQuery", 400);
});

test("a stale or missing version is VersionMismatch 409 where one is required", () => {
  checkVersion(3, 3, true);
  checkVersion(undefined, 3, false);
  refused(() => checkVersion(2, 3, false), "VersionMismatch", 409);
  refused(() => checkVersion(undefined, 3, true), "VersionMismatch", 409);
});

test("a new entry's id comes from its slug, else its slugified title", () => {
  assert.deepEqual(entryIdFromFields("article", "articles", { slug: "guides/Set Up", title: "x" }), {
    id: "article.guides.set-up",
    path: "records/articles/guides/set-up.md",
  });
  assert.deepEqual(entryIdFromFields("article", "articles", { title: "Hello, Wörld!" }), {
    id: "article.hello-world",
    path: "records/articles/hello-world.md",
  });
  assert.equal(entryIdFromFields("article", "articles", {}), undefined);
  assert.equal(entryIdFromFields("article", "articles", { title: "!!!" }), undefined);
  assert.equal(slugify("  Ça va -- bien?  "), "ca-va-bien");
});

test("an entry made at a chosen id must be <type>.<path>", () => {
  assert.equal(entryPathForId("article.my-post", "article", "articles"), "records/articles/my-post.md");
  refused(() => entryPathForId("my-post", "article", "articles"), "BadQuery", 400);
  refused(() => entryPathForId("wiki.my-post", "article", "articles"), "BadQuery", 400);
  refused(() => entryPathForId("article.", "article", "articles"), "BadQuery", 400);
  // a trailing dot would make the file `x..md`
  refused(() => entryPathForId("article.x.", "article", "articles"), "BadQuery", 400);
  assert.equal(entryPathForId("article.x.y", "article", "articles"), "records/articles/x.y.md");
  const longest = "a".repeat(MAX_ENTRY_PATH);
  assert.equal(entryPathForId(`article.${longest}`, "article", "articles"), `records/articles/${longest}.md`);
  refused(() => entryPathForId(`article.${"a".repeat(MAX_ENTRY_PATH + 1)}`, "article", "articles"), "BadQuery", 400);
});

test("a derived id is bounded as a chosen one: a long title is cut, a long slug refused with the reason", () => {
  const long = entryIdFromFields("article", "articles", { title: `${"word ".repeat(60_000)}end` })!;
  assert.equal(long.id, `article.${"word-".repeat(60).slice(0, MAX_ENTRY_PATH).replace(/-$/, "")}`);
  assert.ok(long.id.length <= "article.".length + MAX_ENTRY_PATH);
  // what a cut title gives is an id PUT would take too
  assert.equal(entryPathForId(long.id, "article", "articles"), long.path);
  assert.throws(() => entryIdFromFields("article", "articles", { slug: `guides/${"s".repeat(MAX_ENTRY_PATH)}`, title: "t" }), (error) => {
    assert.ok(error instanceof ContentError);
    assert.equal(error.id, "ValidationFailed");
    const [problem] = (error.details as { errors: { name: string; path: string[]; details: string }[] }).errors;
    assert.deepEqual([problem.name, problem.path], ["invalid", ["fields", "slug"]]);
    assert.match(problem.details, new RegExp(`at most ${MAX_ENTRY_PATH} characters`));
    return true;
  });
});

// ---- field rules ----

const model: ContentModel = {
  ...normalizeModel({
    id: "note",
    folder: "notes",
    name: "Note",
    fields: [
      { id: "title", type: "Symbol", localized: true },
      { id: "slug", type: "Symbol" },
      { id: "count", type: "Integer" },
      { id: "tags", type: "Array", items: "Symbol" },
      { id: "cover", type: "Link", linkType: "Asset" },
      { id: "related", type: "Array", items: "Entry" },
      { id: "body", type: "RichText", localized: true },
    ],
  }, false),
  revision: 1,
  createdAt: "",
  updatedAt: "",
};
const ctx = { locales: ["en-US", "de-DE"], defaultLocale: "en-US" };
const library: LibraryLookup = { ids: new Set(["pic1"]), byPath: new Map([["media/a.png", "pic1"]]) };
const link = (linkType: string, id: string) => ({ sys: { type: "Link", linkType, id } });

test("plain values are stored by locale; empty values and empty arrays are omitted", () => {
  const built = buildEntryValues(model, {
    title: { "en-US": "Hi", "de-DE": "Hallo" },
    count: { "en-US": 3 },
    tags: { "en-US": [] },
    slug: { "en-US": "" },
    related: { "en-US": [link("Entry", "note.other")] },
    cover: { "en-US": link("Asset", "pic1") },
  }, ctx, library);
  assert.deepEqual(built.problems, []);
  const { fields, links, assetLinks, searchText } = built.values!;
  assert.deepEqual(Object.keys(fields).sort(), ["count", "cover", "related", "title"]);
  assert.deepEqual(fields.title, { "en-US": "Hi", "de-DE": "Hallo" });
  assert.deepEqual(links, ["note.other"]);
  assert.deepEqual(assetLinks, ["pic1"]);
  assert.match(searchText, /Hallo/);
});

test("the markdown twin wins over a document and makes it; pictures resolve to library files", () => {
  const document = { nodeType: "document", data: {}, content: [] };
  const built = buildEntryValues(model, {
    body: { "en-US": document, "de-DE": document },
    bodyMarkdown: { "en-US": "Hello **world** ![a](media/a.png)" },
  }, ctx, library);
  assert.deepEqual(built.problems, []);
  const { fields, assetLinks, searchText } = built.values!;
  assert.equal(fields.bodyMarkdown["en-US"], "Hello **world** ![a](media/a.png)\n");
  assert.equal(fields.bodyMarkdown["de-DE"], undefined); // a document alone has no twin
  assert.deepEqual(fields.body["de-DE"], document);
  const text = JSON.stringify(fields.body["en-US"]);
  assert.match(text, /"value":"world","marks":\[\{"type":"bold"\}\]/);
  assert.match(text, /embedded-asset-block/);
  assert.deepEqual(assetLinks, ["pic1"]);
  assert.match(searchText, /Hello/);
});

test("every refusal is listed: unknown field, bad locale, bad value, unresolvable asset", () => {
  const built = buildEntryValues(model, {
    nope: { "en-US": 1 },
    slug: { "de-DE": "x" },
    title: { "fr-FR": "x" },
  }, ctx, library);
  assert.deepEqual(built.problems.map((p) => [p.name, p.path.join(".")]), [
    ["unknown", "fields.nope"],
    ["invalid", "fields.slug"],
    ["invalid", "fields.title"],
  ]);
  const values = buildEntryValues(model, {
    count: { "en-US": "many" },
    cover: { "en-US": link("Asset", "missing") },
    related: { "en-US": link("Entry", "x") },
    body: { "en-US": { nodeType: "paragraph" } },
    bodyMarkdown: { "de-DE": "![b](media/missing.png)" },
  }, ctx, library);
  assert.deepEqual(values.problems.map((p) => [p.name, p.path.join(".")]), [
    ["invalid", "fields.count"],
    ["notResolvable", "fields.cover"],
    ["invalid", "fields.related"],
    ["invalid", "fields.body"],
    ["notResolvable", "fields.bodyMarkdown"],
  ]);
});

test("an Entry link must name an entry of a type the field's linkContentType allows", () => {
  const linked: ContentModel = {
    ...normalizeModel({
      id: "guide",
      folder: "guides",
      name: "Guide",
      fields: [
        { id: "parent", type: "Link", linkType: "Entry", linkContentType: ["guide"] },
        { id: "related", type: "Array", items: "Entry", linkContentType: ["guide", "note"] },
        { id: "any", type: "Link", linkType: "Entry" },
      ],
    }, false),
    revision: 1,
    createdAt: "",
    updatedAt: "",
  };
  const ok = buildEntryValues(linked, {
    parent: { "en-US": link("Entry", "guide.start") },
    related: { "en-US": [link("Entry", "note.a"), link("Entry", "guide.b")] },
    any: { "en-US": link("Entry", "article.whatever") },
  }, ctx, library);
  assert.deepEqual(ok.problems, []);
  const refusedLinks = buildEntryValues(linked, {
    parent: { "en-US": link("Entry", "note.start") },
    related: { "en-US": [link("Entry", "guide.b"), link("Entry", "article.x")] },
  }, ctx, library);
  assert.deepEqual(refusedLinks.problems.map((p) => [p.name, p.path.join("."), p.value]), [
    ["invalid", "fields.parent", "note.start"],
    ["invalid", "fields.related", "article.x"],
  ]);
  assert.match(refusedLinks.problems[1].details, /not an entry of a type this field links to \(guide, note\)/);
});

test("short texts hold at most 256 characters, and entry links must look like entry ids", () => {
  const long = "x".repeat(257);
  const built = buildEntryValues(model, {
    slug: { "en-US": long },
    tags: { "en-US": ["fine", long] },
    title: { "en-US": "x".repeat(256) },
    related: { "en-US": [link("Entry", "no id"), link("Entry", `note.${long}`)] },
    body: {
      "en-US": {
        nodeType: "document",
        data: {},
        content: [{ nodeType: "embedded-entry-block", data: { target: link("Entry", "x".repeat(3000)) }, content: [] }],
      },
    },
  }, ctx, library);
  assert.deepEqual(built.problems.map((p) => [p.name, p.path.join(".")]), [
    ["invalid", "fields.slug"],
    ["invalid", "fields.tags"],
    ["invalid", "fields.related"],
    ["invalid", "fields.related"],
    ["invalid", "fields.body"],
  ]);
  assert.match(built.problems[0].details, /at most 256 characters/);
  assert.ok(isEntryLinkId("note.guides.set-up") && isEntryLinkId(`note.${"a".repeat(256)}`));
  assert.ok(!isEntryLinkId("note") && !isEntryLinkId(".x") && !isEntryLinkId(`note.${"a".repeat(257)}`));
});

test("a rich-text document that does not fit the node model is refused at its field, with the node named", () => {
  const bodies: unknown[] = [
    { nodeType: "document", data: {}, content: [{ nodeType: "paragraph", data: {}, content: "x" }] },
    { nodeType: "document", data: {}, content: [null] },
    { nodeType: "document", data: {}, content: [{ nodeType: "marquee", data: {}, content: [] }] },
    { nodeType: "document", data: {}, content: [{ nodeType: "embedded-asset-block", data: { target: "x" }, content: [] }] },
  ];
  for (const body of bodies) {
    const built = buildEntryValues(model, { body: { "en-US": body } }, ctx, library);
    assert.deepEqual(built.problems.map((p) => [p.name, p.path]), [["invalid", ["fields", "body"]]], JSON.stringify(body));
    assert.match(built.problems[0].details, /content\[0\]/);
  }
});

test("asset references are collected from links, documents and twins for one lookup", () => {
  const refs = assetReferences(model, {
    cover: { "en-US": link("Asset", "c1") },
    body: { "en-US": { nodeType: "document", content: [{ nodeType: "embedded-asset-block", data: { target: link("Asset", "d1") }, content: [] }] } },
    bodyMarkdown: { "en-US": "![x](media/x.png) ![y](https://elsewhere.example/y.png)" },
  });
  assert.deepEqual(refs.paths, ["media/x.png"]);
  assert.ok(refs.ids.includes("c1") && refs.ids.includes("d1"));
});

test("publishing needs every required field in the default locale; other locales fall back", () => {
  const strict: ContentModel = {
    ...normalizeModel({
      id: "talk",
      folder: "talks",
      name: "Talk",
      fields: [
        { id: "title", type: "Symbol", localized: true, required: true },
        { id: "speakers", type: "Array", items: "Symbol", required: true },
        { id: "body", type: "RichText", required: true },
        { id: "room", type: "Symbol" },
      ],
    }, false),
    revision: 1,
    createdAt: "",
    updatedAt: "",
  };
  const doc = { nodeType: "document", data: {}, content: [] };
  assert.deepEqual(
    requiredProblems(strict, { title: { "de-DE": "Nur Deutsch" }, speakers: { "en-US": [] }, body: { "en-US": doc } }, "en-US"),
    [
      { name: "required", path: ["fields", "title"], details: "title is required (in en-US) to publish a talk" },
      { name: "required", path: ["fields", "speakers"], details: "speakers is required (in en-US) to publish a talk" },
    ],
  );
  assert.deepEqual(
    requiredProblems(strict, { title: { "en-US": "" }, speakers: { "en-US": ["ada"] } }, "en-US").map((p) => p.path[1]),
    ["title", "body"],
  );
  assert.deepEqual(requiredProblems(strict, { title: { "en-US": "T" }, speakers: { "en-US": ["ada"] }, body: { "en-US": doc } }, "en-US"), []);
});

test("the daily sweep is due next at 04:50 UTC: later today, or tomorrow once it has passed", () => {
  assert.equal(nextSweepAt(new Date("2026-03-01T01:00:00Z")).toISOString(), "2026-03-01T04:50:00.000Z");
  assert.equal(nextSweepAt(new Date("2026-03-01T04:50:00Z")).toISOString(), "2026-03-02T04:50:00.000Z");
  assert.equal(nextSweepAt(new Date("2026-12-31T23:59:00Z")).toISOString(), "2027-01-01T04:50:00.000Z");
});
