// Hostile GraphQL documents (ten thousand nested selections, list or object literals, a flood of tokens)
// against both GraphQL APIs: refused before parsing in each API's own words, never a runtime's message.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import { testHost } from "../helpers/host.ts";
import { DOCUMENT_LIMITS, nestingDepth, parseBounded } from "../../shared/graphql-input.ts";

const DEEP = 10_000;
const HOSTILE: Record<string, string> = {
  "nested selections": `{ ${"a { ".repeat(DEEP)}b${" }".repeat(DEEP)} }`,
  "a nested list literal": `{ a(x: ${"[".repeat(DEEP)}1${"]".repeat(DEEP)}) }`,
  "a nested object literal": `{ a(x: ${"{ y: ".repeat(DEEP)}1${" }".repeat(DEEP)}) }`,
  "too many tokens": `{ ${"a ".repeat(30_000)}}`,
};

test("nesting depth skips strings, block strings and comments", () => {
  assert.equal(nestingDepth(`{ a(x: "{{{[[[") { b } }`), 2);
  assert.equal(nestingDepth(`{ a(x: """ {{{ \\""" {{{ """) }`), 2);
  assert.equal(nestingDepth(`{ a # {{{{{{\n b }`), 1);
  assert.equal(nestingDepth(`{ a(x: [[{ y: 1 }]]) { b { c } } }`), 5);
});

test("a document within the bounds parses; beyond them the refusal says which bound", () => {
  assert.ok("document" in parseBounded(`{ ${"a { ".repeat(40)}b${" }".repeat(40)} }`));
  for (const [what, query] of Object.entries(HOSTILE)) {
    const parsed = parseBounded(query);
    assert.ok("error" in parsed, what);
    assert.doesNotMatch(parsed.error.message, /call stack|RangeError/, what);
  }
  assert.match((parseBounded(HOSTILE["nested selections"]) as any).error.message, /deeper than 100/);
  assert.match((parseBounded("{ a }".padEnd(DOCUMENT_LIMITS.size + 1)) as any).error.message, /longer than/);
});

const host = await testHost();
const delivery = await host.key("delivery");
const storefront = await host.key("storefront");

for (const [what, query] of Object.entries(HOSTILE)) {
  test(`content GraphQL refuses ${what} as INVALID_QUERY`, async () => {
    const res = await fetch(`${host.baseUrl}/api/content/content/v1/spaces/${host.space}/environments/master`, {
      method: "POST",
      headers: { authorization: `Bearer ${delivery}`, "content-type": "application/json" },
      body: JSON.stringify({ query }),
    });
    const text = await res.text();
    assert.equal(res.status, 400, text.slice(0, 300));
    assert.equal(JSON.parse(text).errors[0].extensions.contentful.code, "INVALID_QUERY");
    assert.doesNotMatch(text, /call stack|RangeError/);
  });

  test(`the store's GraphQL refuses ${what} with its own parse error`, async () => {
    const res = await fetch(`${host.baseUrl}/api/2025-01/graphql.json`, {
      method: "POST",
      headers: { "x-shopify-storefront-access-token": storefront, "content-type": "application/json" },
      body: JSON.stringify({ query }),
    });
    const text = await res.text();
    assert.equal(res.status, 200, text.slice(0, 300));
    assert.equal(JSON.parse(text).errors[0].extensions.code, "GRAPHQL_PARSE_FAILED");
    assert.doesNotMatch(text, /call stack|RangeError/);
  });
}

test("deeply nested variables are refused in each API's words, not a runtime's", async () => {
  let deep: unknown = 1;
  for (let i = 0; i < DEEP; i++) deep = [deep];
  const content = await fetch(`${host.baseUrl}/api/content/content/v1/spaces/${host.space}/environments/master`, {
    method: "POST",
    headers: { authorization: `Bearer ${delivery}`, "content-type": "application/json" },
    body: `{"query":"query($x: Int) { __typename }","variables":{"x":${JSON.stringify(deep)}}}`,
  });
  const contentText = await content.text();
  assert.ok(content.status < 500, contentText.slice(0, 300));
  assert.doesNotMatch(contentText, /call stack|RangeError/);
  const store = await fetch(`${host.baseUrl}/api/2025-01/graphql.json`, {
    method: "POST",
    headers: { "x-shopify-storefront-access-token": storefront, "content-type": "application/json" },
    body: `{"query":"query($x: String) { shop { name } }","variables":{"x":${JSON.stringify(deep)}}}`,
  });
  const storeText = await store.text();
  assert.ok(store.status < 500, storeText.slice(0, 300));
  assert.doesNotMatch(storeText, /call stack|RangeError/);
});
