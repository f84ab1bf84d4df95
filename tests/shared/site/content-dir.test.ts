import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { readSiteConfigFile, readSiteDir } from "../../../shared/site/content-dir.ts";
import { type EntrySnapshot, SiteImportError } from "../../../shared/site/snapshot.ts";
import { assetIdForPath } from "../../../shared/site/media.ts";
import { DEMO_SITE, makeSite, MINIMAL_SITE_YAML, writeFiles } from "./temp-site.ts";

const demo = await readSiteDir(DEMO_SITE);
const entry = (id: string): EntrySnapshot => {
  const found = demo.entries.find((e) => e.id === id);
  assert.ok(found, `entry ${id}`);
  return found;
};
const link = (linkType: string, id: string) => ({ sys: { type: "Link", linkType, id } });

test("the demo has the stock models plus modelEvent, and at least 150 entries", () => {
  assert.equal(demo.models.length, 14);
  assert.deepEqual(demo.models.map((m) => m.position), [...Array(14).keys()]);
  const event = demo.models.at(-1)!;
  assert.deepEqual([event.id, event.folder, event.stock, event.name], [
    "modelEvent",
    "events",
    false,
    "Event",
  ]);
  assert.ok(demo.entries.length >= 150, `${demo.entries.length} entries`);
  const byModel = new Set(demo.entries.map((e) => e.modelId));
  for (const model of demo.models) assert.ok(byModel.has(model.id), `a record of ${model.id}`);
});

test("entry ids are <type>.<path with / replaced by .>", () => {
  assert.equal(entry("wiki.guides.advanced.tuning").path, "records/wiki/guides/advanced/tuning.md");
  assert.equal(entry("companion.field-guide.chapter-1").modelId, "companion");
  assert.equal(entry("modelEvent.launch-party").modelId, "modelEvent");
  assert.equal(entry("article.series.part-01").path, "records/articles/series/part-01.md");
});

test("values are keyed by locale; a de-DE sibling gives only the localized fields", () => {
  const hello = entry("article.hello");
  assert.deepEqual(hello.fields.title, { "en-US": "Hello, world", "de-DE": "Hallo, Welt" });
  assert.deepEqual(hello.fields.summary["de-DE"], "Der erste Artikel der Demo-Seite.");
  assert.deepEqual(Object.keys(hello.fields.slug), ["en-US"]);
  assert.equal(hello.fields.bodyMarkdown["de-DE"], "Willkommen auf der **Sitewire**-Demoseite.\n");
  assert.equal((hello.fields.body["de-DE"] as { nodeType: string }).nodeType, "document");
  assert.deepEqual(entry("page.about").fields.title, { "en-US": "About", "de-DE": "Über uns" });
});

test("front matter values take the field types: numbers, booleans, dates, objects, selects, lists", () => {
  const f = entry("article.hello").fields;
  assert.equal(f.readingTime["en-US"], 3);
  assert.equal(f.rating["en-US"], 4.5);
  assert.equal(f.featured["en-US"], true);
  assert.equal(f.date["en-US"], "2025-01-15");
  assert.equal(f.category["en-US"], "news");
  assert.deepEqual(f.tags["en-US"], ["welcome", "news"]);
  assert.deepEqual(f.seo["en-US"], {
    title: "Hello from the Sitewire demo",
    description: "A first article.",
    noindex: false,
  });
  assert.deepEqual(Object.keys(f), [
    "title",
    "slug",
    "date",
    "summary",
    "author",
    "tags",
    "category",
    "featured",
    "readingTime",
    "rating",
    "cover",
    "related",
    "seo",
    "body",
    "bodyMarkdown",
  ]);
});

test("links resolve from entry ids, record paths and media paths", () => {
  const hello = entry("article.hello");
  assert.deepEqual(hello.fields.cover["en-US"], link("Asset", assetIdForPath("media/photos/harbor.jpg")));
  assert.deepEqual(hello.fields.related["en-US"], [
    link("Entry", "article.rich-text-tour"),
    link("Entry", "wiki.index"),
  ]);
  assert.deepEqual(hello.links, ["article.rich-text-tour", "wiki.index"]);
  assert.deepEqual(hello.assetLinks, [assetIdForPath("media/photos/harbor.jpg")]);
  assert.deepEqual(
    entry("wiki.guides.advanced.tuning").fields.parent["en-US"],
    link("Entry", "wiki.guides.setup"),
  );
  assert.deepEqual(
    entry("companion.field-guide.chapter-1").fields.book["en-US"],
    link("Entry", "book.field-guide"),
  );
  assert.deepEqual(entry("modelEvent.launch-party").fields.related["en-US"], link("Entry", "article.hello"));
});

test("the rich text tour uses every node kind and embeds the forest picture", () => {
  const tour = entry("article.rich-text-tour");
  const kinds = new Set<string>();
  const marks = new Set<string>();
  const walk = (n: { nodeType: string; content?: unknown[]; marks?: { type: string }[] }) => {
    kinds.add(n.nodeType);
    n.marks?.forEach((m) => marks.add(m.type));
    (n.content as typeof n[] | undefined)?.forEach(walk);
  };
  walk(tour.fields.body["en-US"] as never);
  for (
    const kind of [
      "document",
      "heading-1",
      "heading-2",
      "heading-3",
      "heading-4",
      "heading-5",
      "heading-6",
      "paragraph",
      "unordered-list",
      "ordered-list",
      "list-item",
      "blockquote",
      "hr",
      "table",
      "table-row",
      "table-header-cell",
      "table-cell",
      "hyperlink",
      "embedded-asset-block",
      "text",
    ]
  ) assert.ok(kinds.has(kind), kind);
  assert.deepEqual([...marks].sort(), ["bold", "code", "italic"]);
  assert.deepEqual(tour.assetLinks, [assetIdForPath("media/photos/forest.webp")]);
  assert.equal(typeof tour.fields.bodyMarkdown["en-US"], "string");
});

test("gated and unpublished records are marked; dates drive createdAt", () => {
  assert.equal(entry("article.members-only").access, "member");
  assert.equal(entry("article.supporters-corner").access, "supporter");
  assert.equal(entry("wiki.staff-handbook").access, "staff");
  assert.equal(entry("article.hello").access, "guest");
  for (
    const id of [
      "article.draft-notes",
      "book.unreleased",
      "product.retired-cap",
      "modelEvent.cancelled-meetup",
    ]
  ) {
    assert.equal(entry(id).published, false, id);
  }
  assert.equal(entry("article.hello").published, true);
  assert.equal(entry("article.hello").createdAt.toISOString(), "2025-01-15T00:00:00.000Z");
  assert.equal(entry("article.rich-text-tour").createdAt.toISOString(), "2025-01-20T09:30:00.000Z");
});

test("links to unpublished or missing entries and files are kept, with warnings for the missing", () => {
  const broken = entry("article.broken-links");
  assert.deepEqual(broken.links, ["article.does-not-exist", "article.draft-notes", "article.hello"]);
  assert.deepEqual(broken.fields.cover["en-US"], link("Asset", assetIdForPath("media/photos/missing.jpg")));
  assert.ok(broken.assetLinks.includes(assetIdForPath("media/photos/gone.png")));
  assert.ok(demo.warnings.some((w) => w.includes("broken-links.md") && w.includes("article.does-not-exist")));
  assert.ok(demo.warnings.some((w) => w.includes("media/photos/missing.jpg")));
  assert.ok(!demo.warnings.some((w) => w.includes("draft-notes")), "an unpublished entry exists: no warning");
});

test("the series is a chain of twelve links (include depth)", () => {
  for (let i = 1; i < 12; i++) {
    const id = `article.series.part-${String(i).padStart(2, "0")}`;
    assert.deepEqual(entry(id).links, [`article.series.part-${String(i + 1).padStart(2, "0")}`], id);
  }
  assert.deepEqual(entry("article.series.part-12").links, []);
  assert.deepEqual(entry("article.series.part-12").assetLinks, [assetIdForPath("media/photos/mountain.jpg")]);
});

test("media: every library file is an asset; a picture named by its address is an external asset", () => {
  const harbor = demo.assets.find((a) => a.path === "media/photos/harbor.jpg")!;
  assert.deepEqual(
    [
      harbor.id,
      harbor.fileName,
      harbor.contentType,
      harbor.width,
      harbor.height,
      harbor.storageKey,
      harbor.external,
    ],
    [
      assetIdForPath("media/photos/harbor.jpg"),
      "harbor.jpg",
      "image/jpeg",
      640,
      480,
      "media/photos/harbor.jpg",
      false,
    ],
  );
  assert.deepEqual(harbor.title, { "en-US": "harbor" });
  assert.deepEqual(harbor.description, {});
  const pdf = demo.assets.find((a) => a.path === "media/docs/price-list.pdf")!;
  assert.deepEqual([pdf.contentType, pdf.width, pdf.height], ["application/pdf", null, null]);
  const external = demo.assets.find((a) => a.external)!;
  assert.equal(external.path, "https://images.example.com/photos/lighthouse.jpg");
  assert.deepEqual(entry("article.external-cover").assetLinks, [external.id]);
  assert.deepEqual([external.contentType, external.size, external.width], ["image/jpeg", 0, null]);
  assert.equal(external.createdAt.getTime(), entry("article.external-cover").createdAt.getTime());
  assert.ok(demo.assets.filter((a) => !a.external).length >= 12);
});

test("search text holds every locale's strings and the body text, not the markdown", () => {
  const hello = entry("article.hello");
  assert.ok(hello.searchText.includes("Hallo, Welt"));
  assert.ok(hello.searchText.includes("Welcome to the Sitewire demo site."));
  assert.ok(hello.searchText.includes("welcome"));
  assert.ok(!hello.searchText.includes("**"));
});

// --- errors and edge cases on small directories ------------------------------------------------------

async function readError(files: Record<string, string>): Promise<string> {
  const dir = await makeSite(files);
  try {
    await readSiteDir(dir);
  } catch (error) {
    assert.ok(error instanceof SiteImportError, String(error));
    return error.message;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
  throw new Error("expected an error");
}

test("the configuration is site.yaml, else site.yml; without either it is no content directory", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sitewire-site-" });
  try {
    await assert.rejects(
      () => readSiteConfigFile(dir),
      (error) =>
        error instanceof SiteImportError &&
        error.message === `${dir}: no site.yaml (is this a content directory?)`,
    );
    await writeFiles(dir, { "site.yml": MINIMAL_SITE_YAML.replace("mode: git", "mode: cloud") });
    assert.equal((await readSiteConfigFile(dir)).mode, "cloud");
    await writeFiles(dir, { "site.yaml": MINIMAL_SITE_YAML });
    assert.equal((await readSiteConfigFile(dir)).mode, "git");
    await writeFiles(dir, { "site.yaml": "name: Tiny\n" });
    await assert.rejects(
      () => readSiteConfigFile(dir),
      (error) => error instanceof SiteImportError && error.file === "site.yaml",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

test("malformed front matter names the file and the reason", async () => {
  const message = await readError({ "records/articles/bad.md": "---\ntitle: [unclosed\n---\nbody\n" });
  assert.match(message, /^records\/articles\/bad\.md: front matter is not valid YAML/);
  assert.match(
    await readError({ "records/articles/open.md": "---\ntitle: x\n" }),
    /records\/articles\/open\.md: the front matter is not closed/,
  );
  assert.match(
    await readError({ "records/articles/list.md": "---\n- a\n---\n" }),
    /list\.md: the front matter must be a mapping/,
  );
});

test("wrong values name the file and the field", async () => {
  assert.match(
    await readError({ "records/articles/a.md": "---\ntitle: A\nreadingTime: soon\n---\n" }),
    /a\.md: readingTime must be a whole number/,
  );
  assert.match(
    await readError({ "records/articles/a.md": "---\ntitle: A\ncategory: gossip\n---\n" }),
    /a\.md: category must be one of news/,
  );
  assert.match(
    await readError({ "records/articles/a.md": "---\ntitle: A\ndate: yesterday\n---\n" }),
    /a\.md: date must be an ISO 8601 date/,
  );
  assert.match(
    await readError({ "records/articles/a.md": "---\ntitle: A\naccess: vip\n---\n" }),
    /a\.md: access must be one of guest/,
  );
  assert.match(
    await readError({ "records/articles/a.md": "---\ntitle: A\npublished: maybe\n---\n" }),
    /a\.md: published must be true or false/,
  );
  assert.match(
    await readError({ "records/articles/a.md": "---\ntitle: A\nfeatured: 3\n---\n" }),
    /featured must be true or false/,
  );
});

test("records need a model folder, a base file for a locale sibling, and unique ids", async () => {
  assert.match(
    await readError({ "records/recipes/a.md": "x" }),
    /records\/recipes\/a\.md: no model has the folder recipes/,
  );
  assert.match(
    await readError({ "records/articles/a.de-DE.md": "x" }),
    /a\.de-DE\.md: no records\/articles\/a\.md/,
  );
  assert.match(
    await readError({ "records/articles/a.en-US.md": "x", "records/articles/a.md": "x" }),
    /default locale/,
  );
  assert.match(
    await readError({
      "records/wiki/a/b.md": "---\ntitle: 1\n---\n",
      "records/wiki/a.b.md": "---\ntitle: 2\n---\n",
    }),
    /entry id wiki\.a\.b is also the id of/,
  );
  assert.match(await readError({ "records/articles/my file.md": "x" }), /may hold only letters/);
  assert.match(
    await readError({ "models/articles.yaml": "fields: []" }),
    /models\/articles\.yaml: articles is the folder of the stock model article/,
  );
  assert.match(
    await readError({ "models/things.yaml": "fields: [{ id: x, type: Nope }]" }),
    /models\/things\.yaml: field x: type Nope/,
  );
  assert.match(await readError({ "site.yaml": "name: X\n" }), /site\.yaml: slug is required/);
});

test("warnings: unknown front matter keys, non-localized values in a sibling, typos in links", async () => {
  const dir = await makeSite({
    "records/articles/a.md":
      "---\ntitle: A\ntitel: typo\nrelated: [articles/b, articles/nope]\ncover: media/nope.png\n---\nBody\n",
    "records/articles/a.de-DE.md": "---\ntitle: A (de)\nslug: a-de\n---\n",
    "records/articles/b.md": "---\ntitle: B\n---\n",
  });
  try {
    const site = await readSiteDir(dir);
    const text = site.warnings.join("\n");
    assert.match(text, /a\.md: titel is not a field of article/);
    assert.match(text, /a\.de-DE\.md: slug is not localized/);
    assert.match(text, /a\.md: links to articles\/nope, which is no record/);
    assert.match(text, /a\.md: names media\/nope\.png, which is not in the media library/);
    const a = site.entries.find((e) => e.id === "article.a")!;
    assert.deepEqual(a.fields.title, { "en-US": "A", "de-DE": "A (de)" });
    assert.deepEqual(Object.keys(a.fields.slug ?? {}), []);
    assert.deepEqual(a.links, ["article.b", "article.nope"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

test("a record without front matter is all body; empty values leave the field absent", async () => {
  const dir = await makeSite({
    "records/pages/plain.md": "Just text.\n",
    "records/pages/empty.md": "---\ntitle: E\nsummary: ''\nseo: null\n---\n",
  });
  try {
    const site = await readSiteDir(dir);
    const plain = site.entries.find((e) => e.id === "page.plain")!;
    assert.deepEqual(Object.keys(plain.fields), ["body", "bodyMarkdown"]);
    assert.equal(plain.fields.bodyMarkdown["en-US"], "Just text.\n");
    const empty = site.entries.find((e) => e.id === "page.empty")!;
    assert.deepEqual(Object.keys(empty.fields), ["title"]);
    assert.ok(site.warnings.some((w) => w.includes("plain.md: required field title is empty")));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
