// shared/flat-text.ts: the text is the parts' own, whatever shape V8 would have kept them in.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import { flatText } from "../../shared/flat-text.ts";

test("flatText answers the parts joined: several parts, empty ones, one long part alone, and none", () => {
  const long = "records/books/a-rather-long-file-name.md".slice(14);
  assert.equal(
    flatText("gid://shopify/", "ProductVariant", "/", "BB-5-P-HARDCOVER"),
    "gid://shopify/ProductVariant/BB-5-P-HARDCOVER",
  );
  assert.equal(flatText(long), "a-rather-long-file-name.md");
  assert.equal(flatText("", long, ""), "a-rather-long-file-name.md");
  assert.equal(flatText("short"), "short");
  assert.equal(flatText("\u{1F600} a face in a handle"), "\u{1F600} a face in a handle");
  assert.equal(flatText(), "");
});
