// The collection-argument parser on its own: every argument's range and error.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { ContentError } from "../../../functions/content/envelope.ts";
import { parseAssetsQuery, parseEntriesQuery } from "../../../functions/content/domain/entry-query.ts";
import type { ContentModel } from "../../../functions/content/domain/content-types.ts";

const article: ContentModel = {
  id: "article",
  name: "Article",
  description: "",
  displayField: "title",
  revision: 1,
  createdAt: "",
  updatedAt: "",
  fields: [
    { id: "title", name: "Title", type: "Symbol", localized: true, required: true, disabled: false, omitted: false, validations: [] },
    { id: "rating", name: "Rating", type: "Number", localized: false, required: false, disabled: false, omitted: false, validations: [] },
    { id: "date", name: "Date", type: "Date", localized: false, required: false, disabled: false, omitted: false, validations: [] },
    { id: "featured", name: "Featured", type: "Boolean", localized: false, required: false, disabled: false, omitted: false, validations: [] },
    { id: "tags", name: "Tags", type: "Array", localized: false, required: false, disabled: false, omitted: false, validations: [], items: { type: "Symbol", validations: [] } },
    { id: "author", name: "Author", type: "Link", linkType: "Entry", localized: false, required: false, disabled: false, omitted: false, validations: [] },
    { id: "related", name: "Related", type: "Array", localized: false, required: false, disabled: false, omitted: false, validations: [], items: { type: "Link", linkType: "Entry", validations: [] } },
    { id: "seo", name: "SEO", type: "Object", localized: false, required: false, disabled: false, omitted: false, validations: [] },
  ],
};
const ctx = { locales: ["en-US", "de-DE"], models: new Map([["article", article]]) };
const parse = (q: string) => parseEntriesQuery(new URLSearchParams(q), ctx);

function rejects(q: string, id: string, parser = parse) {
  assert.throws(() => parser(q), (e: unknown) => e instanceof ContentError && e.id === id, `${q} should be ${id}`);
}

test("defaults: limit 100, skip 0, include 1, the default locale, no filters", () => {
  const q = parse("");
  assert.equal(q.limit, 100);
  assert.equal(q.skip, 0);
  assert.equal(q.include, 1);
  assert.equal(q.locale, "en-US");
  assert.deepEqual(q.filters, []);
  assert.deepEqual(q.order, []);
});

test("limit 1..1000, skip from 0, include 0..10; anything else is BadQuery", () => {
  assert.equal(parse("limit=1000").limit, 1000);
  assert.equal(parse("include=10").include, 10);
  assert.equal(parse("include=0").include, 0);
  for (const q of ["limit=0", "limit=1001", "limit=1.5", "skip=-1", "skip=x", "include=11", "include=-1"]) rejects(q, "BadQuery");
});

test("locale: a site locale or *, any other is BadQuery", () => {
  assert.equal(parse("locale=de-DE").locale, "de-DE");
  assert.equal(parse("locale=*").locale, "*");
  rejects("locale=fr-FR", "BadQuery");
});

test("select: sys always, fields by name, two levels at most", () => {
  const s = parse("select=sys.id,fields.title,fields.rating").select!;
  assert.deepEqual([...(s.fields as Set<string>)], ["title", "rating"]);
  assert.equal(parse("select=fields").select!.fields, "all");
  assert.equal(parse("select=sys.id,sys.type").select!.fields, "none");
  rejects("select=fields.title.x", "BadQuery");
  rejects("select=nonsense", "BadQuery");
});

test("order: several keys, - for descending, fields need the content type", () => {
  const q = parse("content_type=article&order=-fields.rating,sys.createdAt");
  assert.equal(q.order.length, 2);
  assert.equal(q.order[0].descending, true);
  assert.deepEqual(q.order[0].target, { kind: "field", field: "rating", valueKind: "number" });
  rejects("order=fields.rating", "BadQuery");
  rejects("order=sys.nonsense", "BadQuery");
  rejects("content_type=article&order=fields.tags", "BadQuery");
});

test("filters: every operator parses with its values; in/nin/all split on commas", () => {
  const q = parse(
    "content_type=article&fields.title=Hi&fields.title[ne]=x&fields.tags[in]=a,b&fields.tags[nin]=c&fields.tags[all]=a,b" +
      "&fields.rating[gte]=3&fields.rating[lt]=5&fields.date[lte]=2024-01-01&fields.featured=true&fields.seo[exists]=true" +
      "&fields.title[match]=hello&fields.author.sys.id=author.ada&fields.related.sys.id[in]=a,b&sys.id[in]=x,y&sys.createdAt[gt]=2020-01-01",
  );
  assert.deepEqual(q.filters.map((f) => f.op), ["eq", "ne", "in", "nin", "all", "gte", "lt", "lte", "eq", "exists", "match", "eq", "in", "in", "gt"]);
  assert.deepEqual(q.filters[2].values, ["a", "b"]);
  assert.equal(q.filters[11].target.kind === "field" && q.filters[11].target.linkId, true);
});

test("filter values are checked against the field type", () => {
  rejects("content_type=article&fields.rating[gt]=many", "BadQuery");
  rejects("content_type=article&fields.date[lt]=someday", "BadQuery");
  rejects("content_type=article&fields.featured=maybe", "BadQuery");
  rejects("content_type=article&fields.seo[exists]=perhaps", "BadQuery");
  rejects("content_type=article&fields.tags[lt]=a", "InvalidQuery");
});

test("field filters need a content type; unknown fields, types and operators are refused", () => {
  rejects("fields.title=x", "BadQuery");
  rejects("content_type=nosuch", "InvalidQuery");
  rejects("content_type=article&fields.nosuch=x", "InvalidQuery");
  rejects("content_type=article&fields.title[near]=1,2", "InvalidQuery");
  rejects("content_type=article&fields.title[within]=1,2,3", "InvalidQuery");
  rejects("content_type=article&fields.title[regex]=x", "InvalidQuery");
  rejects("sys.nosuch=x", "InvalidQuery");
});

test("assets: mimetype_group, title and file filters, order by title", () => {
  const q = parseAssetsQuery(new URLSearchParams("mimetype_group=image&fields.title=logo&fields.file.contentType=image/png&order=fields.title"), ctx);
  assert.equal(q.mimetypeGroup, "image");
  assert.equal(q.filters.length, 2);
  assert.deepEqual(q.order[0].target, { kind: "asset", field: "title" });
  rejects("mimetype_group=pictures", "BadQuery", (s) => parseAssetsQuery(new URLSearchParams(s), ctx));
  rejects("order=fields.file", "BadQuery", (s) => parseAssetsQuery(new URLSearchParams(s), ctx));
});
