import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import {
  markdownToRichText,
  type RichTextBlock,
  richTextLinks,
  richTextPlainText,
  text,
} from "../../shared/richtext.ts";

const p = (...content: unknown[]) => ({ nodeType: "paragraph", data: {}, content });
const node = (nodeType: string, content: unknown[], data: Record<string, unknown> = {}) => ({
  nodeType,
  data,
  content,
});
const doc = (...content: unknown[]) => ({ nodeType: "document", data: {}, content });
const t = (value: string, ...marks: string[]) => ({
  nodeType: "text",
  value,
  marks: marks.map((type) => ({ type })),
  data: {},
});
const asset = (id: string) =>
  node("embedded-asset-block", [], { target: { sys: { type: "Link", linkType: "Asset", id } } });

const resolveAsset = (
  src: string,
) => (src.includes("missing") ? undefined : `asset:${src.replace(/^\//, "")}`);

test("the empty document is document > paragraph > text ''", () => {
  assert.deepEqual(markdownToRichText(""), doc(p(t(""))));
  assert.deepEqual(markdownToRichText("   \n\n"), doc(p(t(""))));
});

test("text nodes always carry marks and data", () => {
  assert.deepEqual(text("x"), { nodeType: "text", value: "x", marks: [], data: {} });
  assert.deepEqual(markdownToRichText("plain"), doc(p(t("plain"))));
});

test("headings 1 to 6 become heading-1 to heading-6", () => {
  const md = "# one\n\n## two\n\n### three\n\n#### four\n\n##### five\n\n###### six\n";
  assert.deepEqual(
    markdownToRichText(md),
    doc(
      node("heading-1", [t("one")]),
      node("heading-2", [t("two")]),
      node("heading-3", [t("three")]),
      node("heading-4", [t("four")]),
      node("heading-5", [t("five")]),
      node("heading-6", [t("six")]),
    ),
  );
});

test("bold, italic and code become marks; nested emphasis stacks them", () => {
  assert.deepEqual(
    markdownToRichText("a **b** *c* `d` ***e***"),
    doc(
      p(
        t("a "),
        t("b", "bold"),
        t(" "),
        t("c", "italic"),
        t(" "),
        t("d", "code"),
        t(" "),
        t("e", "italic", "bold"),
      ),
    ),
  );
});

test("a link becomes a hyperlink with its uri and text content", () => {
  assert.deepEqual(
    markdownToRichText("see [the **docs**](https://example.com/docs) now"),
    doc(
      p(
        t("see "),
        node("hyperlink", [t("the "), t("docs", "bold")], { uri: "https://example.com/docs" }),
        t(" now"),
      ),
    ),
  );
});

test("reference-style links resolve through their definitions", () => {
  assert.deepEqual(
    markdownToRichText("read [this][ref]\n\n[ref]: https://example.com/ref"),
    doc(p(t("read "), node("hyperlink", [t("this")], { uri: "https://example.com/ref" }))),
  );
});

test("unordered and ordered lists wrap each item's text in a paragraph", () => {
  assert.deepEqual(
    markdownToRichText("- a\n- b\n  1. c\n"),
    doc(
      node("unordered-list", [
        node("list-item", [p(t("a"))]),
        node("list-item", [p(t("b")), node("ordered-list", [node("list-item", [p(t("c"))])])]),
      ]),
    ),
  );
  assert.deepEqual(
    markdownToRichText("1. first\n2. second\n"),
    doc(node("ordered-list", [node("list-item", [p(t("first"))]), node("list-item", [p(t("second"))])])),
  );
});

test("a blockquote holds paragraphs only (a list inside is flattened)", () => {
  assert.deepEqual(
    markdownToRichText("> one **b**\n>\n> two\n>\n> - item\n"),
    doc(node("blockquote", [p(t("one "), t("b", "bold")), p(t("two")), p(t("item"))])),
  );
});

test("a thematic break becomes hr", () => {
  assert.deepEqual(markdownToRichText("a\n\n---\n\nb"), doc(p(t("a")), node("hr", []), p(t("b"))));
});

test("a table becomes table > table-row > table-header-cell / table-cell > paragraph", () => {
  assert.deepEqual(
    markdownToRichText("| A | B |\n|---|---|\n| 1 | *2* |\n| 3 |  |\n"),
    doc(
      node("table", [
        node("table-row", [node("table-header-cell", [p(t("A"))]), node("table-header-cell", [p(t("B"))])]),
        node("table-row", [node("table-cell", [p(t("1"))]), node("table-cell", [p(t("2", "italic"))])]),
        node("table-row", [node("table-cell", [p(t("3"))]), node("table-cell", [p(t(""))])]),
      ]),
    ),
  );
});

test("an image alone becomes an embedded-asset-block linking the resolved asset", () => {
  assert.deepEqual(
    markdownToRichText("![Forest](/media/photos/forest.webp)", { resolveAsset }),
    doc(asset("asset:media/photos/forest.webp")),
  );
});

test("an image inside a paragraph splits it: never an embedded asset inside a paragraph", () => {
  assert.deepEqual(
    markdownToRichText("before ![x](media/a.png) after", { resolveAsset }),
    doc(p(t("before")), asset("asset:media/a.png"), p(t("after"))),
  );
});

test("an image inside a list item follows its paragraph inside the item", () => {
  assert.deepEqual(
    markdownToRichText("- look ![x](media/a.png)\n", { resolveAsset }),
    doc(node("unordered-list", [node("list-item", [p(t("look")), asset("asset:media/a.png")])])),
  );
});

test("an image the resolver does not know stays a hyperlink to its address", () => {
  assert.deepEqual(
    markdownToRichText("![gone](media/missing.png)", { resolveAsset }),
    doc(p(node("hyperlink", [t("gone")], { uri: "media/missing.png" }))),
  );
  assert.deepEqual(
    markdownToRichText("![alt](x.png)"),
    doc(p(node("hyperlink", [t("alt")], { uri: "x.png" }))),
  );
});

test("fenced and indented code become a paragraph whose text has the code mark", () => {
  assert.deepEqual(
    markdownToRichText("```ts\nconst a = 1;\nconst b = 2;\n```"),
    doc(p(t("const a = 1;\nconst b = 2;", "code"))),
  );
  assert.deepEqual(markdownToRichText("    indented\n"), doc(p(t("indented", "code"))));
});

test("a hard line break is a newline in the text", () => {
  assert.deepEqual(markdownToRichText("one  \ntwo"), doc(p(t("one\ntwo"))));
});

test("strikethrough keeps its text without a mark (the seed uses bold, italic and code)", () => {
  assert.deepEqual(markdownToRichText("~~old~~ new"), doc(p(t("old new"))));
});

test("every node of a document carries data and content, every text marks and data", () => {
  const md =
    "# h\n\ntext **b** [l](https://x.y)\n\n- i\n\n> q\n\n---\n\n| a |\n|---|\n| b |\n\n![i](media/x.png)\n";
  const walk = (n: Record<string, unknown>) => {
    assert.ok(n.data && typeof n.data === "object", `${n.nodeType} has data`);
    if (n.nodeType === "text") {
      assert.ok(Array.isArray(n.marks));
      assert.equal(typeof n.value, "string");
      return;
    }
    assert.ok(Array.isArray(n.content), `${n.nodeType} has content`);
    if (n.nodeType === "paragraph") {
      for (const c of n.content as RichTextBlock[]) {
        assert.ok(["text", "hyperlink"].includes(c.nodeType), `${c.nodeType} in paragraph`);
      }
    }
    (n.content as Record<string, unknown>[]).forEach(walk);
  };
  walk(markdownToRichText(md, { resolveAsset }) as unknown as Record<string, unknown>);
});

test("plain text and links are read back from a document", () => {
  const d = markdownToRichText("Hello **world**\n\n![x](media/a.png)\n\n- item", { resolveAsset });
  assert.equal(richTextPlainText(d), "Hello world\nitem");
  assert.deepEqual(richTextLinks(d), { entries: [], assets: ["asset:media/a.png"] });
});
