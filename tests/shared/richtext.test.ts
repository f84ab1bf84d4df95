import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import {
  markdownToRichText,
  type RichTextBlock,
  richTextLinks,
  richTextPlainText,
  richTextProblem,
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

test("every document the markdown converter makes is one the rich-text check accepts", async () => {
  const md = [
    "# Title\n\nSome *text* with `code`, **bold** and a [link](https://x.y) and [ref][r].\n\n[r]: https://r.example",
    "- one\n  - nested\n    1. deeper\n- ![pic](media/x.png)\n- ## heading in an item\n\n  > quote in an item",
    "> quote\n>\n> - list in a quote\n> ![pic](media/x.png)\n\n---\n\n```\ncode\n```",
    "| a | b |\n|---|---|\n| ![x](media/x.png) | [l](https://l.example) |\n\n- | t |\n  |---|\n  | c |",
    "![missing](media/missing.png) ![]() text[^1]\n\n[^1]: a footnote\n\n<div>html</div>",
    "",
  ];
  for (const sample of md) {
    const document = markdownToRichText(sample, { resolveAsset });
    assert.equal(richTextProblem(document), undefined, sample);
  }
  // and so are the documents of the demo site's records
  const records = `${Deno.env.get("DEMO_SITE_DIR")}/records`;
  let checked = 0;
  for await (const file of walkMarkdown(records)) {
    const body = (await Deno.readTextFile(file)).replace(/^---\n[\s\S]*?\n---\n/, "");
    assert.equal(richTextProblem(markdownToRichText(body, { resolveAsset })), undefined, file);
    checked++;
  }
  assert.ok(checked > 5, `${checked} records checked`);
});

async function* walkMarkdown(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* walkMarkdown(path);
    else if (entry.name.endsWith(".md")) yield path;
  }
}

test("the rich-text check refuses what a renderer cannot walk, naming the node", () => {
  const link = (linkType: string, id: unknown = "x") => ({ sys: { type: "Link", linkType, id } });
  const cases: [unknown, RegExp][] = [
    [null, /is a document/],
    [{ nodeType: "paragraph", data: {}, content: [] }, /is a document/],
    [{ nodeType: "document", data: {}, content: "x" }, /the document: a document needs a content list/],
    [{ nodeType: "document", content: [] }, /needs a data object/],
    [doc(null), /content\[0\] is not a node/],
    [
      doc({ nodeType: "paragraph", data: {}, content: "x" }),
      /content\[0\]: a paragraph needs a content list/,
    ],
    [doc(node("marquee", [])), /content\[0\] has the unknown nodeType "marquee"/],
    [
      doc(p({ nodeType: "text", marks: [], data: {} })),
      /content\[0\]\.content\[0\]: a text node needs a string value/,
    ],
    [doc(p({ nodeType: "text", value: "v", data: {} })), /needs a marks list/],
    [doc(p({ nodeType: "text", value: "v", marks: [{ type: "blink" }], data: {} })), /a mark is one of/],
    [doc(p({ nodeType: "text", value: "v", marks: [] })), /a text needs a data object/],
    [doc(t("bare text")), /a text cannot stand there/],
    [doc(p(p(t("x")))), /content\[0\]\.content\[0\]: a paragraph cannot stand there/],
    [doc(node("unordered-list", [p(t("x"))])), /a paragraph cannot stand there \(it may hold list-item\)/],
    [doc(node("blockquote", [node("heading-1", [t("x")])])), /a heading-1 cannot stand there/],
    [doc(p(node("hyperlink", [t("x")]))), /a hyperlink needs data.uri/],
    [
      doc(node("embedded-asset-block", [], { target: "x" })),
      /needs data.target \{ sys: \{ type: 'Link', linkType: 'Asset'/,
    ],
    [doc(node("embedded-asset-block", [], { target: link("Entry") })), /linkType: 'Asset'/],
    [doc(node("embedded-entry-block", [], { target: link("Entry", "") })), /linkType: 'Entry'/],
    [doc(node("embedded-asset-block", [t("x")], { target: link("Asset") })), /holds no content/],
    [doc(node("table", [node("table-cell", [p(t("x"))])])), /a table-cell cannot stand there/],
  ];
  for (const [value, reason] of cases) {
    assert.match(richTextProblem(value) ?? "accepted", reason, JSON.stringify(value));
  }
  const every = doc(
    p(
      t("a", "bold", "underline", "strikethrough", "superscript"),
      node("entry-hyperlink", [t("e")], { target: link("Entry") }),
      node("asset-hyperlink", [t("a")], { target: link("Asset") }),
      node("embedded-entry-inline", [], { target: link("Entry") }),
    ),
    node("embedded-entry-block", [], { target: link("Entry") }),
    node("table", [
      node("table-row", [
        node("table-cell", [node("ordered-list", [node("list-item", [p(t("x"))])])], { colspan: 2 }),
      ]),
    ]),
  );
  assert.equal(richTextProblem(every), undefined);
});

test("plain text reads what it can of a malformed document and never throws", () => {
  const bad = {
    nodeType: "document",
    data: {},
    content: [
      null,
      7,
      { nodeType: "paragraph", content: "x" },
      p({ nodeType: "text", value: 3 }),
      p(t("kept")),
      { content: [t("orphan")] },
    ],
  };
  assert.equal(richTextPlainText(bad as never), "kept\norphan");
  assert.equal(richTextPlainText(null as never), "");
});
