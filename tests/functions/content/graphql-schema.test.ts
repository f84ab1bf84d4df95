// Schema generation from content types (names, reserved and colliding names, field types, filters,
// orders), the complexity rule, and the mapping of url(transform) to the images door. No database.
import assert from "node:assert/strict";
import { getOperationAST, parse } from "graphql";
import { test } from "../../helpers/test.ts";
import { field } from "./graphql-support.ts";
import type { ContentModel, ContentTypeField } from "../../../functions/content/domain/content-types.ts";
import { queryNameOf, typeNameOf } from "../../../functions/content/graphql/names.ts";
import { buildContentSchema } from "../../../functions/content/graphql/schema.ts";
import { analyze } from "../../../functions/content/graphql/cost.ts";
import { GraphqlFailure } from "../../../functions/content/graphql/envelope.ts";
import { transformQuery } from "../../../functions/content/graphql/image-url.ts";


function model(id: string, fields: ContentTypeField[]): ContentModel {
  return {
    id,
    name: id,
    description: "",
    displayField: null,
    fields,
    revision: 1,
    createdAt: "2024-01-01T00:00:00Z",
    updatedAt: "2024-01-01T00:00:00Z",
  };
}

const links = (types: string[]) => ({ validations: [{ linkContentType: types }] });
const author = model("author", [field("name", "Symbol"), field("age", "Integer")]);
const blogPost = model("blog-post", [
  field("title", "Symbol"),
  field("summary", "Text"),
  field("score", "Number"),
  field("published", "Date"),
  field("draft", "Boolean"),
  field("extra", "Object"),
  field("tags", "Array", { items: { type: "Symbol", validations: [] } }),
  field("author", "Link", { linkType: "Entry", ...links(["author"]) }),
  field("either", "Link", { linkType: "Entry", ...links(["author", "blog-post"]) }),
  field("anything", "Link", { linkType: "Entry" }),
  field("image", "Link", { linkType: "Asset" }),
  field("related", "Array", {
    items: { type: "Link", linkType: "Entry", ...links(["blog-post"]) },
    validations: [{ size: { max: 4 } }],
  }),
  field("gallery", "Array", { items: { type: "Link", linkType: "Asset", validations: [] } }),
  field("body", "RichText"),
]);
const { schema, plan } = buildContentSchema([author, blogPost]);

function signature(type: string, name: string): string {
  const f = (schema.getType(type) as any).getFields()[name];
  return `${
    f.args.map((a: any) =>
      `${a.name}: ${a.type}${a.defaultValue !== undefined ? ` = ${a.defaultValue}` : ""}`
    ).join(", ")
  } => ${f.type}`;
}

test("type names: PascalCase of the id, non-alphanumerics stripped; reserved or digit-led names take ContentType", () => {
  assert.equal(typeNameOf("my-2content-type"), "My2ContentType");
  assert.equal(typeNameOf("modelEvent"), "ModelEvent");
  assert.equal(typeNameOf("location"), "ContentTypeLocation");
  assert.equal(typeNameOf("asset"), "ContentTypeAsset");
  assert.equal(typeNameOf("5TbTQ4S6xqSeAU6WGQmQ2e"), "ContentType5TbTQ4S6xqSeAU6WGQmQ2e");
  assert.equal(queryNameOf("ContentTypeLocation"), "contentTypeLocation");
  const { schema } = buildContentSchema([model("location", [field("title", "Symbol")])]);
  assert.ok(schema.getQueryType()!.getFields().contentTypeLocationCollection);
});

test("colliding type names, reserved and colliding field names refuse the schema (422 codes)", () => {
  const failure = (models: ContentModel[]) => {
    try {
      buildContentSchema(models);
    } catch (error) {
      assert.ok(error instanceof GraphqlFailure);
      return [error.code, error.status];
    }
    assert.fail("the schema was built");
  };
  assert.deepEqual(failure([model("a_car", []), model("a-car", [])]), ["COLLIDING_TYPE_NAMES", 422]);
  assert.deepEqual(failure([model("post", []), model("postCollection", [])]), ["COLLIDING_TYPE_NAMES", 422]);
  assert.deepEqual(failure([model("post", [field("sys", "Symbol")])]), ["RESERVED_FIELD_NAME", 422]);
  assert.deepEqual(failure([model("post", [field("linkedFrom", "Symbol")])]), ["RESERVED_FIELD_NAME", 422]);
  assert.deepEqual(
    failure([
      model("post", [
        field("items", "Array", { items: { type: "Link", linkType: "Asset", validations: [] } }),
        field("itemsCollection", "Symbol"),
      ]),
    ]),
    ["COLLIDING_FIELD_NAMES", 422],
  );
});

test("fields take the GraphQL types of their content types; links to one, several or any type", () => {
  const post = "BlogPost";
  assert.equal(signature(post, "title"), "locale: String => String");
  assert.equal(signature(post, "summary"), "locale: String => String");
  assert.equal(signature(post, "score"), "locale: String => Float");
  assert.equal(signature(post, "published"), "locale: String => DateTime");
  assert.equal(signature(post, "draft"), "locale: String => Boolean");
  assert.equal(signature(post, "extra"), "locale: String => JSON");
  assert.equal(signature(post, "tags"), "locale: String => [String]");
  assert.equal(signature(post, "author"), "preview: Boolean, locale: String, where: AuthorFilter => Author");
  assert.equal(signature(post, "either"), "preview: Boolean, locale: String => BlogPostEither");
  assert.deepEqual((schema.getType("BlogPostEither") as any).getTypes().map(String), ["Author", "BlogPost"]);
  assert.equal(signature(post, "anything"), "preview: Boolean, locale: String => Entry");
  assert.equal(signature(post, "image"), "preview: Boolean, locale: String => Asset");
  assert.equal(
    signature(post, "relatedCollection"),
    "skip: Int = 0, limit: Int = 100, preview: Boolean, locale: String, where: BlogPostFilter, order: [BlogPostOrder] => BlogPostRelatedCollection",
  );
  assert.equal(
    signature(post, "galleryCollection"),
    "skip: Int = 0, limit: Int = 100, preview: Boolean, locale: String => AssetCollection",
  );
  assert.equal(signature(post, "body"), "locale: String => BlogPostBody");
  assert.equal(signature("BlogPostBody", "links"), " => BlogPostBodyLinks!");
  assert.equal(signature("BlogPostBodyEntries", "block"), " => [Entry]!");
  assert.equal(signature("BlogPostBodyAssets", "hyperlink"), " => [Asset]!");
  assert.equal(signature(post, "linkedFrom"), "allowedLocales: [String] => BlogPostLinkingCollections");
  assert.deepEqual(Object.keys((schema.getType("AuthorLinkingCollections") as any).getFields()), [
    "entryCollection",
    "blogPostCollection",
  ]);
  assert.deepEqual((schema.getType(post) as any).getInterfaces().map(String), ["Entry"]);
  const query = schema.getQueryType()!.getFields();
  assert.equal(String(query.blogPost.type), post);
  assert.equal(
    signature("Query", "blogPostCollection"),
    "skip: Int = 0, limit: Int = 100, preview: Boolean, locale: String, where: BlogPostFilter, order: [BlogPostOrder] => BlogPostCollection",
  );
  for (const name of ["asset", "assetCollection", "entryCollection", "author", "authorCollection"]) {
    assert.ok(query[name], name);
  }
});

test("filters by field type, nested link filters one level deep, sys, AND and OR", () => {
  const inputs = (name: string) => Object.keys((schema.getType(name) as any).getFields());
  const filter = inputs("BlogPostFilter");
  for (
    const name of [
      "sys",
      "title",
      "title_not",
      "title_exists",
      "title_in",
      "title_not_in",
      "title_contains",
      "title_not_contains",
      "score_gt",
      "score_gte",
      "score_lt",
      "score_lte",
      "score_in",
      "published_gt",
      "draft",
      "draft_not",
      "draft_exists",
      "extra_exists",
      "tags_exists",
      "tags_contains_all",
      "tags_contains_some",
      "tags_contains_none",
      "author",
      "author_exists",
      "either",
      "anything_exists",
      "image_exists",
      "related",
      "relatedCollection_exists",
      "galleryCollection_exists",
      "body_exists",
      "body_contains",
      "body_not_contains",
      "AND",
      "OR",
    ]
  ) assert.ok(filter.includes(name), name);
  for (
    const absent of [
      "draft_gt",
      "draft_in",
      "title_gt",
      "extra",
      "tags",
      "anything",
      "image",
      "body",
      "tags_in",
    ]
  ) {
    assert.ok(!filter.includes(absent), absent);
  }
  assert.deepEqual(inputs("CfAuthorNestedFilter"), [
    "sys",
    "name",
    "name_not",
    "name_exists",
    "name_in",
    "name_not_in",
    "name_contains",
    "name_not_contains",
    "age",
    "age_not",
    "age_exists",
    "age_in",
    "age_not_in",
    "age_gt",
    "age_gte",
    "age_lt",
    "age_lte",
    "AND",
    "OR",
  ]);
  // several types: the fields they share
  assert.deepEqual(inputs("CfBlogPostEitherMultiTypeNestedFilter"), ["sys", "AND", "OR"]);
  assert.ok(!inputs("CfBlogPostNestedFilter").includes("author"), "no link filters below a link filter");
  assert.deepEqual(inputs("SysFilter").slice(0, 7), [
    "id",
    "id_not",
    "id_exists",
    "id_in",
    "id_not_in",
    "id_contains",
    "id_not_contains",
  ]);
  assert.ok(
    inputs("SysFilter").includes("publishedVersion_gte") &&
      inputs("SysFilter").includes("firstPublishedAt_lt"),
  );
  assert.deepEqual(inputs("EntryFilter"), ["sys", "AND", "OR"]);
});

test("orders: Symbol, Integer, Number, Date and Boolean fields, and sys, both ways", () => {
  const values = (name: string) => (schema.getType(name) as any).getValues().map((v: any) => v.name);
  assert.deepEqual(values("BlogPostOrder"), [
    "title_ASC",
    "title_DESC",
    "score_ASC",
    "score_DESC",
    "published_ASC",
    "published_DESC",
    "draft_ASC",
    "draft_DESC",
    "sys_id_ASC",
    "sys_id_DESC",
    "sys_publishedAt_ASC",
    "sys_publishedAt_DESC",
    "sys_firstPublishedAt_ASC",
    "sys_firstPublishedAt_DESC",
    "sys_publishedVersion_ASC",
    "sys_publishedVersion_DESC",
  ]);
  assert.deepEqual(values("EntryOrder"), values("BlogPostOrder").filter((v: string) => v.startsWith("sys_")));
  assert.ok(values("AssetOrder").includes("size_DESC") && values("AssetOrder").includes("fileName_ASC"));
  assert.deepEqual(plan.orders.get("BlogPostOrder")!.get("sys_publishedAt_DESC"), {
    target: { kind: "sys", field: "updatedAt" },
    descending: true,
  });
});

function cost(query: string, variables: Record<string, unknown> = {}) {
  const document = parse(query);
  return analyze(schema, document, getOperationAST(document)!, variables, plan);
}

test("complexity counts each collection's limit times the collections above it, and 1 per single link", () => {
  assert.equal(cost(`{ blogPost(id: "x") { title } }`).cost, 1);
  assert.equal(cost(`{ blogPostCollection { items { title } } }`).cost, 100);
  assert.equal(cost(`query($n: Int) { blogPostCollection(limit: $n) { total } }`, { n: 7 }).cost, 7);
  assert.equal(
    cost(`{ blogPostCollection(limit: 10) { items { author { name } image { url } } } }`).cost,
    10 + 10 + 10,
  );
  // the size validation caps a link list: related holds at most 4
  assert.equal(
    cost(`{ blogPostCollection(limit: 10) { items { relatedCollection { items { title } } } } }`).cost,
    10 + 40,
  );
  assert.equal(
    cost(`{ blogPostCollection(limit: 10) { items { galleryCollection(limit: 20) { items { url } } } } }`)
      .cost,
    10 + 200,
  );
  assert.equal(
    cost(
      `{ blogPostCollection(limit: 100) { items { linkedFrom { blogPostCollection(limit: 100) { items { author { name } } } } } } }`,
    ).cost,
    100 + 100 * 100 + 100 * 100,
  );
  // fragments and inline fragments count where they are spread; @skip removes what it skips
  assert.equal(
    cost(`{ ...F } fragment F on Query { authorCollection(limit: 3) { items { name } } }`).cost,
    3,
  );
  assert.equal(
    cost(`query($s: Boolean!) { a: authorCollection(limit: 3) @skip(if: $s) { total } }`, { s: true }).cost,
    0,
  );
  assert.equal(
    cost(`{ entryCollection(limit: 2) { items { ... on BlogPost { author { name } } } } }`).cost,
    2 + 2,
  );
  // rich-text links count like one linked entity each
  assert.equal(
    cost(
      `{ blogPostCollection(limit: 5) { items { body { links { entries { block { sys { id } } inline { sys { id } } } } } } } }`,
    ).cost,
    5 + 5 + 5,
  );
  assert.equal(cost(`{ blogPostCollection(preview: true, limit: 1) { total } }`).preview, true);
  assert.equal(
    cost(`{ blogPostCollection(limit: 1) { items { author(preview: true) { name } } } }`).preview,
    true,
  );
  assert.equal(cost(`{ blogPostCollection(limit: 1) { total } }`).preview, false);
  assert.deepEqual(cost(`{ blogPostCollection(limit: 1001, skip: -1) { total } }`).problems.length, 2);
});

test("url(transform) maps to the door's w h q r fit f bg fm (and fl), which the door accepts", () => {
  const mapped = (t: Record<string, unknown>) => Object.fromEntries(transformQuery(t));
  assert.deepEqual(mapped({ width: 100, height: 50, quality: 80 }), { w: "100", h: "50", q: "80" });
  assert.deepEqual(mapped({ cornerRadius: -1 }), { r: "max" });
  assert.deepEqual(mapped({ cornerRadius: 12 }), { r: "12" });
  assert.deepEqual(mapped({ width: 10, resizeStrategy: "FIT" }), { w: "10" });
  for (const fit of ["PAD", "FILL", "SCALE", "CROP", "THUMB"]) {
    assert.deepEqual(mapped({ width: 10, resizeStrategy: fit }), { w: "10", fit: fit.toLowerCase() });
  }
  for (
    const focus of [
      "CENTER",
      "TOP",
      "TOP_RIGHT",
      "RIGHT",
      "BOTTOM_RIGHT",
      "BOTTOM",
      "BOTTOM_LEFT",
      "LEFT",
      "TOP_LEFT",
      "FACE",
      "FACES",
    ]
  ) {
    assert.equal(mapped({ resizeFocus: focus }).f, focus.toLowerCase());
  }
  assert.deepEqual(mapped({ backgroundColor: "rgb:a0b1c2" }), { bg: "rgb:a0b1c2" });
  assert.deepEqual(mapped({ backgroundColor: "#A0B1C2" }), { bg: "rgb:A0B1C2" });
  assert.deepEqual(mapped({ format: "JPG_PROGRESSIVE" }), { fm: "jpg", fl: "progressive" });
  assert.deepEqual(mapped({ format: "PNG8" }), { fm: "png", fl: "png8" });
  for (const [format, fm] of [["JPG", "jpg"], ["PNG", "png"], ["WEBP", "webp"], ["AVIF", "avif"]]) {
    assert.deepEqual(mapped({ format }), { fm });
  }
  assert.throws(
    () => transformQuery({ cornerRadius: -2 }),
    (e: any) => e.extensions.contentful.code === "INVALID_QUERY",
  );
});
