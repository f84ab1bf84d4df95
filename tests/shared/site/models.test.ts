import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import {
  fieldHoldsSearchedText,
  fieldLinkContentTypes,
  ModelError,
  normalizeModel,
  singular,
  siteModelId,
} from "../../../shared/site/models.ts";
import { STOCK_MODEL_IDS, STOCK_MODELS, stockModel } from "../../../shared/site/stock-models.ts";

test("the stock models are the thirteen the spec names, each in its records folder", () => {
  assert.deepEqual(STOCK_MODEL_IDS, [
    "article",
    "book",
    "wiki",
    "doc",
    "page",
    "companion",
    "product",
    "collection",
    "ad",
    "experiment",
    "session",
    "site",
    "storefront",
  ]);
  assert.deepEqual(STOCK_MODELS.map((m) => m.folder), [
    "articles",
    "books",
    "wiki",
    "docs",
    "pages",
    "companions",
    "products",
    "collections",
    "ads",
    "experiments",
    "sessions",
    "site",
    "storefront",
  ]);
  for (const model of STOCK_MODELS) {
    assert.equal(model.displayField, "title", model.id);
    assert.equal(model.fields[0].id, "title");
    assert.equal(model.stock, true);
  }
});

test("every field has the content-type shape, and a rich-text field is followed by its markdown twin", () => {
  for (const model of STOCK_MODELS) {
    model.fields.forEach((field, i) => {
      assert.deepEqual(
        Object.keys(field).filter((k) => !["linkType", "items"].includes(k)).sort(),
        ["disabled", "id", "localized", "name", "omitted", "required", "type", "validations"],
      );
      assert.equal(field.disabled, false);
      assert.equal(field.omitted, false);
      if (field.type === "RichText") {
        const twin = model.fields[i + 1];
        assert.equal(twin.id, `${field.id}Markdown`, `${model.id}.${field.id}`);
        assert.equal(twin.type, "Text");
        assert.equal(twin.localized, field.localized);
      }
    });
  }
});

test("the article model covers every field type", () => {
  const article = stockModel("article")!;
  const byId = Object.fromEntries(article.fields.map((f) => [f.id, f]));
  assert.deepEqual(byId.title, {
    id: "title",
    name: "Title",
    type: "Symbol",
    localized: true,
    required: true,
    disabled: false,
    omitted: false,
    validations: [],
  });
  assert.deepEqual(byId.category.validations, [{ in: ["news", "guide", "opinion", "review", "release"] }]);
  assert.deepEqual(byId.tags.items, { type: "Symbol", validations: [] });
  assert.equal(byId.readingTime.type, "Integer");
  assert.equal(byId.rating.type, "Number");
  assert.equal(byId.date.type, "Date");
  assert.equal(byId.featured.type, "Boolean");
  assert.equal(byId.seo.type, "Object");
  assert.deepEqual([byId.cover.type, byId.cover.linkType], ["Link", "Asset"]);
  assert.deepEqual(byId.related.items, {
    type: "Link",
    linkType: "Entry",
    validations: [{ linkContentType: ["article", "wiki", "doc", "page", "book"] }],
  });
  assert.deepEqual(article.fields.slice(-2).map((f) => f.id), ["body", "bodyMarkdown"]);
});

test("the terse authoring syntax becomes the content-type field shape", () => {
  const model = normalizeModel({
    id: "modelEvent",
    folder: "events",
    name: "Event",
    fields: [
      { id: "title", type: "Symbol" },
      { id: "kind", type: "Symbol", choices: ["talk", "workshop"] },
      { id: "poster", type: "Asset" },
      { id: "host", type: "Link", linkType: "Entry", linkContentType: ["page"] },
      { id: "topics", type: "Array", items: { type: "Symbol", choices: ["a", "b"] } },
      { id: "speakers", type: "Array", items: "Entry", linkContentType: ["page"] },
      { id: "notes", type: "RichText" },
    ],
  }, false);
  const f = Object.fromEntries(model.fields.map((x) => [x.id, x]));
  assert.deepEqual(f.kind.validations, [{ in: ["talk", "workshop"] }]);
  assert.deepEqual([f.poster.type, f.poster.linkType, f.poster.validations], ["Link", "Asset", []]);
  assert.deepEqual(f.host.validations, [{ linkContentType: ["page"] }]);
  assert.deepEqual(f.topics.items, { type: "Symbol", validations: [{ in: ["a", "b"] }] });
  assert.deepEqual(f.speakers.items, {
    type: "Link",
    linkType: "Entry",
    validations: [{ linkContentType: ["page"] }],
  });
  assert.deepEqual(model.fields.map((x) => x.id).slice(-2), ["notes", "notesMarkdown"]);
  assert.equal(model.displayField, "title");
  assert.equal(f.speakers.name, "Speakers");
});

test("a link field's allowed content types: its own or its items' linkContentType, only the names in it", () => {
  const model = normalizeModel({
    id: "event",
    folder: "events",
    name: "Event",
    fields: [
      { id: "host", type: "Link", linkType: "Entry", linkContentType: ["page"] },
      { id: "speakers", type: "Array", items: "Entry", linkContentType: ["page", "person"] },
      { id: "anyone", type: "Entry" },
      { id: "raw", type: "Entry", validations: [{ linkContentType: ["page", 7, null] }] },
    ],
  }, false);
  const f = Object.fromEntries(model.fields.map((x) => [x.id, x]));
  assert.deepEqual(fieldLinkContentTypes(f.host), ["page"]);
  assert.deepEqual(fieldLinkContentTypes(f.speakers), ["page", "person"]);
  assert.equal(fieldLinkContentTypes(f.anyone), undefined);
  assert.deepEqual(fieldLinkContentTypes(f.raw), ["page"]);
});

test("query searches text, lists and objects as they are, not links, numbers or a rich-text document", () => {
  const model = normalizeModel({
    id: "event",
    folder: "events",
    name: "Event",
    fields: [
      { id: "title", type: "Symbol" },
      { id: "summary", type: "Text" },
      { id: "tags", type: "Array" },
      { id: "extra", type: "Object" },
      { id: "host", type: "Entry" },
      { id: "speakers", type: "Array", items: "Entry" },
      { id: "seats", type: "Integer" },
      { id: "notes", type: "RichText" },
    ],
  }, false);
  // the markdown twin is a Text field: callers leave it out as part of the body
  assert.deepEqual(
    model.fields.filter(fieldHoldsSearchedText).map((f) => f.id),
    ["title", "summary", "tags", "extra", "notesMarkdown"],
  );
});

test("a bad field definition says which field and why", () => {
  const bad = (fields: unknown[]) => () =>
    normalizeModel({ id: "m", folder: "ms", name: "M", fields: fields as never }, false, "models/ms.yaml");
  assert.throws(
    bad([{ id: "x", type: "Strng" }]),
    (e: unknown) => e instanceof ModelError && /models\/ms\.yaml: field x: type Strng/.test(e.message),
  );
  assert.throws(bad([{ id: "x", type: "Link" }]), /linkType must be Entry or Asset/);
  assert.throws(bad([{ id: "x", type: "Symbol" }, { id: "x", type: "Text" }]), /declared twice/);
  assert.throws(bad([{ id: "xMarkdown", type: "Text" }]), /reserved/);
  assert.throws(bad([{ id: "x", type: "Array", items: "Number" }]), /items must be/);
});

test("a site model's id is its folder's singular in camelCase under the model namespace", () => {
  assert.equal(siteModelId("events"), "modelEvent");
  assert.equal(siteModelId("categories"), "modelCategory");
  assert.equal(siteModelId("video-talks"), "modelVideoTalk");
  assert.equal(siteModelId("boxes"), "modelBox");
  assert.equal(siteModelId("news"), "modelNews");
  assert.equal(singular("status"), "status");
});
