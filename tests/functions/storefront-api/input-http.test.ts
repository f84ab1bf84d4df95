// Bad input never reaches Postgres as a fault: text Postgres cannot hold (a NUL character, a lone
// surrogate) in the checkout, the sign-in and every kind of GraphQL argument, an address that is no
// cart's token on the handoff page, and request bodies over the size limit. Each answers in the store's
// own shape (a 4xx, or a GraphQL error with HTTP 200), never a 500 or INTERNAL_SERVER_ERROR.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { createCart, endpoint, gql, host, PAYLOAD, storefrontKey, variant } from "./support.ts";

const base = host.baseUrl;
// the store's routes without a key are limited per address: this file's requests come from one of their
// own, so the test files running beside it (all on the loopback address) neither slow nor throttle it
const ADDRESS = { "x-forwarded-for": "198.51.100.61" };

async function post(path: string, body: unknown) {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...ADDRESS },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** The GraphQL answer refuses the input as the caller's fault and ran nothing. */
function assertBadUserInput(r: { status: number; body: any }, label: string) {
  assert.equal(r.status, 200, label);
  assert.equal(r.body.data, undefined, `${label}: nothing ran`);
  assert.equal(r.body.errors[0].extensions.code, "BAD_USER_INPUT", `${label}: ${JSON.stringify(r.body)}`);
}

test("the handoff page of an address that is no cart's token (even broken %-encoding) is a 404 page with the expired texts", async () => {
  for (const path of ["/cart/c/%ZZ", "/cart/c/%E0%A4%A", "/cart/c/short", `/cart/c/${"x".repeat(33)}`]) {
    const res = await fetch(`${base}${path}`);
    assert.equal(res.status, 404, path);
    assert.match(res.headers.get("content-type")!, /^text\/html/, path);
    assert.equal(res.headers.get("cache-control"), "no-store");
    const html = await res.text();
    assert.match(html, /<section data-state="expired"/, path);
    assert.match(html, /<h1 data-text="title">This cart has expired<\/h1>/, path);
  }
});

test("checkout refuses a NUL character or a lone surrogate in any member with 400 in the store's shape", async () => {
  const bodies = [
    { lines: [{ sku: "a\u0000", quantity: 1 }] },
    { lines: [{ sku: "TEE-01", variant: "m\u0000", quantity: 1 }] },
    { lines: [{ sku: "NG-EPUB", quantity: 1 }], email: "a\u0000@b.co" },
    { lines: [{ sku: "NG-EPUB", quantity: 1 }], country: "x\u0000" },
    { lines: [{ sku: "NG-EPUB", quantity: 1 }], cart: "\ud800" },
  ];
  for (const body of bodies) {
    const r = await post("/api/store/checkout", body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(r.body.errors[0].extensions.code, "BAD_REQUEST", JSON.stringify(body));
  }
});

test("checkout takes a country only as a two-letter code and an email only as an address (400 INVALID_COUNTRY, INVALID_EMAIL)", async () => {
  const lines = [{ sku: "NG-EPUB", quantity: 1 }];
  for (const country of ["DEU", "D", "1A", 42]) {
    const r = await post("/api/store/checkout", { lines, country });
    assert.equal(r.status, 400, String(country));
    assert.equal(r.body.errors[0].extensions.code, "INVALID_COUNTRY", String(country));
  }
  for (const email of ["not-an-address", "a b@c.de", "a@b", 7]) {
    const r = await post("/api/store/checkout", { lines, email });
    assert.equal(r.status, 400, String(email));
    assert.equal(r.body.errors[0].extensions.code, "INVALID_EMAIL", String(email));
  }
  // a lower-case code is the same country; no country and no email are fine
  const ok = await post("/api/store/checkout", { lines, country: "at", email: "guest@example.org" });
  assert.equal(ok.status, 201, JSON.stringify(ok.body));
  const [order] = await host.ctx.sql<{ country: string; email: string }[]>`
    select country, email from public.storefront_orders where id = ${ok.body.order}`;
  assert.deepEqual(order, { country: "AT", email: "guest@example.org" });
  assert.equal((await post("/api/store/checkout", { lines, country: null, email: null })).status, 201);
});

test("the sign-in refuses an address with a NUL or a control character: 400, never a 500", async () => {
  const nul = await post("/api/store/sign-in", { email: "a\u0000b@c.de" });
  assert.equal(nul.status, 400);
  assert.equal(nul.body.errors[0].extensions.code, "BAD_REQUEST");
  const bell = await post("/api/store/sign-in", { email: "a\u0007b@c.de" });
  assert.equal(bell.status, 400);
  assert.equal(bell.body.errors[0].extensions.code, "INVALID_EMAIL");
});

test("a NUL or a lone surrogate in any GraphQL string argument (variables or literals) is BAD_USER_INPUT, never an internal error", async () => {
  const cart = await createCart({ lines: [{ merchandiseId: variant("MUG-01") }] });
  const queries: [string, string, Record<string, unknown>?][] = [
    ["productByHandle", `query($h: String!) { productByHandle(handle: $h) { id } }`, { h: "a\u0000b" }],
    ["product(id)", `query($id: ID) { product(id: $id) { id } }`, { id: "gid://shopify/Product/a\u0000" }],
    ["collection", `query($h: String) { collection(handle: $h) { id } }`, { h: "\u0000" }],
    ["cart(id)", `query($id: ID!) { cart(id: $id) { id } }`, { id: "gid://shopify/Cart/a\u0000b" }],
    ["products(query)", `query($q: String) { products(first: 2, query: $q) { nodes { id } } }`, {
      q: "a\u0000b",
    }],
    ["collections(query)", `query($q: String) { collections(first: 2, query: $q) { nodes { id } } }`, {
      q: "\ud800",
    }],
    ["node(id)", `query($id: ID!) { node(id: $id) { id } }`, { id: "gid://shopify/ProductVariant/a\u0000b" }],
    ["nodes(ids)", `query($ids: [ID!]!) { nodes(ids: $ids) { id } }`, {
      ids: ["gid://shopify/Product/tee", "\u0000"],
    }],
    ["literal", `{ productByHandle(handle: "a\\u0000b") { id } }`],
    [
      "merchandiseId",
      `mutation($c: ID!, $l: [CartLineInput!]!) { cartLinesAdd(cartId: $c, lines: $l) { ${PAYLOAD} } }`,
      {
        c: cart.id,
        l: [{ merchandiseId: "gid://shopify/ProductVariant/a\u0000b" }],
      },
    ],
    ["note", `mutation($c: ID!, $n: String) { cartNoteUpdate(cartId: $c, note: $n) { ${PAYLOAD} } }`, {
      c: cart.id,
      n: "a\u0000b",
    }],
    ["note literal", `mutation($c: ID!) { cartNoteUpdate(cartId: $c, note: "a\\u0000b") { ${PAYLOAD} } }`, {
      c: cart.id,
    }],
    [
      "attributes",
      `mutation($c: ID!, $a: [AttributeInput!]!) { cartAttributesUpdate(cartId: $c, attributes: $a) { ${PAYLOAD} } }`,
      { c: cart.id, a: [{ key: "gift", value: "x\ud800y" }] },
    ],
    [
      "attribute literal",
      `mutation($c: ID!) { cartAttributesUpdate(cartId: $c, attributes: [{ key: "k", value: "a\\u0000b" }]) { ${PAYLOAD} } }`,
      { c: cart.id },
    ],
    ["cartCreate", `mutation($i: CartInput) { cartCreate(input: $i) { ${PAYLOAD} } }`, {
      i: { buyerIdentity: { email: "a\u0000@b.co" } },
    }],
  ];
  for (const [label, query, variables] of queries) assertBadUserInput(await gql(query, variables), label);
  // nothing of it reached the cart
  const after = await gql(`query($id: ID!) { cart(id: $id) { note attributes { key } totalQuantity } }`, {
    id: cart.id,
  });
  assert.deepEqual(after.body.data.cart, { note: null, attributes: [], totalQuantity: 1 });
});

test("a GraphQL request body over 1 MB is 413 in the store's shape and is not read to its end", async () => {
  const cart = await createCart();
  const big = JSON.stringify({
    query: "mutation($c: ID!, $n: String) { cartNoteUpdate(cartId: $c, note: $n) { userErrors { code } } }",
    variables: { c: cart.id, n: "x".repeat(1_100_000) },
  });
  const res = await fetch(endpoint, {
    method: "POST",
    headers: { "content-type": "application/json", "x-shopify-storefront-access-token": storefrontKey },
    body: big,
  });
  assert.equal(res.status, 413);
  assert.equal((await res.json()).errors[0].extensions.code, "PAYLOAD_TOO_LARGE");
  // just under the limit is a request like any other (the note's own limit answers)
  const under = await gql(
    "mutation($c: ID!, $n: String) { cartNoteUpdate(cartId: $c, note: $n) { userErrors { code } } }",
    { c: cart.id, n: "x".repeat(900_000) },
  );
  assert.equal(under.status, 200);
  assert.equal(under.body.data.cartNoteUpdate.userErrors[0].code, "INVALID");
  // the same limit holds for the checkout
  const bag = await fetch(`${base}/api/store/checkout`, {
    method: "POST",
    headers: { "content-type": "application/json", ...ADDRESS },
    body: JSON.stringify({ lines: [], pad: "x".repeat(1_100_000) }),
  });
  assert.equal(bag.status, 413);
  assert.equal((await bag.json()).errors[0].extensions.code, "PAYLOAD_TOO_LARGE");
});
