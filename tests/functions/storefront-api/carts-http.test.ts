// Carts over real HTTP: every mutation, the spec's rules 1 to 7 (rule 6, prices recomputed on every read,
// changes the catalog: tests/functions/storefront-api/switches.serial.test.ts), the userErrors codes, concurrent adds
// under the row lock, and the retention sweep.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { createCart, data, gql, host, PAYLOAD, variant } from "./support.ts";

const ADD =
  `mutation($cartId: ID!, $lines: [CartLineInput!]!) { cartLinesAdd(cartId: $cartId, lines: $lines) { ${PAYLOAD} } }`;
const UPDATE =
  `mutation($cartId: ID!, $lines: [CartLineUpdateInput!]!) { cartLinesUpdate(cartId: $cartId, lines: $lines) { ${PAYLOAD} } }`;
const REMOVE =
  `mutation($cartId: ID!, $lineIds: [ID!]!) { cartLinesRemove(cartId: $cartId, lineIds: $lineIds) { ${PAYLOAD} } }`;
const BUYER =
  `mutation($cartId: ID!, $b: CartBuyerIdentityInput!) { cartBuyerIdentityUpdate(cartId: $cartId, buyerIdentity: $b) { ${PAYLOAD} } }`;
const ATTRIBUTES =
  `mutation($cartId: ID!, $a: [AttributeInput!]!) { cartAttributesUpdate(cartId: $cartId, attributes: $a) { ${PAYLOAD} } }`;
const NOTE =
  `mutation($cartId: ID!, $note: String) { cartNoteUpdate(cartId: $cartId, note: $note) { ${PAYLOAD} } }`;
const READ =
  `query($id: ID!) { cart(id: $id) { id totalQuantity cost { totalAmount { amount } } lines(first: 10) { nodes { quantity } } } }`;

test("cartCreate makes a cart: gid id, checkoutUrl on the site, lines priced from the catalog, cost sums, no tax or duties", async () => {
  const cart = await createCart({
    lines: [{ merchandiseId: variant("TEE-01/m"), quantity: 2 }, { merchandiseId: variant("MUG-01") }],
    note: "gift wrap",
    attributes: [{ key: "source", value: "app" }],
    buyerIdentity: { email: "buyer@example.org", countryCode: "DE", phone: "+49 151 1234 5678" },
  });
  assert.match(cart.id, /^gid:\/\/shopify\/Cart\/[0-9A-Za-z]{32}$/);
  const token = cart.id.split("/").pop();
  assert.equal(cart.checkoutUrl, `${host.baseUrl}/cart/c/${token}`);
  assert.equal(cart.totalQuantity, 3);
  assert.equal(cart.note, "gift wrap");
  assert.deepEqual(cart.attributes, [{ key: "source", value: "app" }]);
  assert.deepEqual(cart.buyerIdentity, {
    email: "buyer@example.org",
    phone: "+4915112345678",
    countryCode: "DE",
  });
  const [tee, mug] = cart.lines.nodes;
  assert.equal(tee.merchandise.id, variant("TEE-01/m"));
  assert.equal(tee.merchandise.product.handle, "tee");
  assert.deepEqual([
    tee.quantity,
    tee.cost.amountPerQuantity.amount,
    tee.cost.totalAmount.amount,
    tee.cost.compareAtAmountPerQuantity.amount,
  ], [2, "25.0", "50.0", "30.0"]);
  assert.deepEqual([mug.quantity, mug.cost.totalAmount.amount, mug.cost.compareAtAmountPerQuantity], [
    1,
    "14.0",
    null,
  ]);
  assert.deepEqual(cart.cost.totalAmount, { amount: "64.0", currencyCode: "EUR" });
  assert.deepEqual(cart.cost.subtotalAmount, cart.cost.totalAmount);
  assert.equal(cart.cost.checkoutChargeAmount.amount, "64.0");
  assert.equal(cart.cost.totalTaxAmount, null);
  assert.equal(cart.cost.totalDutyAmount, null);
});

test("Cart.attribute(key) and CartLine.attribute(key) answer one attribute (null when absent); createdAt and updatedAt are the cart's times", async () => {
  const before = Date.now();
  const d = await data(
    `mutation($input: CartInput) { cartCreate(input: $input) { cart { createdAt updatedAt
      source: attribute(key: "source") { key value } none: attribute(key: "nope") { value }
      lines(first: 5) { nodes { gift: attribute(key: "gift") { key value } none: attribute(key: "nope") { value } } } } } }`,
    {
      input: {
        attributes: [{ key: "source", value: "app" }, { key: "ref", value: "x" }],
        lines: [{ merchandiseId: variant("MUG-01"), attributes: [{ key: "gift", value: "yes" }] }],
      },
    },
  );
  const cart = d.cartCreate.cart;
  assert.deepEqual(cart.source, { key: "source", value: "app" });
  assert.equal(cart.none, null);
  assert.deepEqual(cart.lines.nodes[0].gift, { key: "gift", value: "yes" });
  assert.equal(cart.lines.nodes[0].none, null);
  assert.match(cart.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  assert.equal(cart.updatedAt, cart.createdAt, "a new cart was last changed when it was made");
  const made = Date.parse(cart.createdAt);
  assert.ok(made >= before - 1000 && made <= Date.now() + 1000, cart.createdAt);
});

test("a change moves updatedAt on (retention counts from it); a mutation refused with userErrors leaves it as it was", async () => {
  const TIMES = `query($id: ID!) { cart(id: $id) { createdAt updatedAt totalQuantity } }`;
  const cart = await createCart();
  await new Promise((r) => setTimeout(r, 15));
  const added = await data(ADD, { cartId: cart.id, lines: [{ merchandiseId: variant("MUG-01") }] });
  const changed = added.cartLinesAdd.cart;
  assert.ok(
    Date.parse(changed.updatedAt) > Date.parse(cart.updatedAt),
    `${cart.updatedAt} -> ${changed.updatedAt}`,
  );
  assert.equal(changed.createdAt, cart.createdAt);
  const [row] = await host.ctx.sql<{ updated_at: Date }[]>`
    select updated_at from public.storefront_carts where id = ${cart.id.split("/").pop()}`;
  assert.equal(row.updated_at.toISOString(), changed.updatedAt, "the stored time the sweep reads");

  await new Promise((r) => setTimeout(r, 15));
  const refused = await data(ADD, { cartId: cart.id, lines: [{ merchandiseId: variant("NOPE-1") }] });
  assert.equal(refused.cartLinesAdd.userErrors.length, 1);
  const after = (await data(TIMES, { id: cart.id })).cart;
  assert.equal(after.updatedAt, changed.updatedAt, "nothing changed, so neither did updatedAt");
  assert.equal(after.totalQuantity, 1);
});

test("a connection without first or last answers 20 (lines of a cart with 25)", async () => {
  const cart = await createCart({
    lines: Array.from({ length: 25 }, (_, i) => ({
      merchandiseId: variant("MUG-01"),
      attributes: [{ key: "n", value: String(i) }],
    })),
  });
  const d = await data(
    `query($id: ID!) { cart(id: $id) { totalQuantity lines { nodes { attribute(key: "n") { value } }
      pageInfo { hasNextPage endCursor } } } }`,
    { id: cart.id },
  );
  assert.equal(d.cart.totalQuantity, 25);
  assert.deepEqual(
    d.cart.lines.nodes.map((l: any) => l.attribute.value),
    Array.from({ length: 20 }, (_, i) => String(i)),
  );
  assert.equal(d.cart.lines.pageInfo.hasNextPage, true);
  const rest = await data(
    `query($id: ID!, $after: String) { cart(id: $id) { lines(after: $after) { nodes { attribute(key: "n") { value } } pageInfo { hasNextPage } } } }`,
    { id: cart.id, after: d.cart.lines.pageInfo.endCursor },
  );
  assert.deepEqual(rest.cart.lines.nodes.map((l: any) => l.attribute.value), ["20", "21", "22", "23", "24"]);
  assert.equal(rest.cart.lines.pageInfo.hasNextPage, false);
});

test("cartCreate without input makes an empty cart; with a bad line it makes none and says why", async () => {
  const empty = await data(`mutation { cartCreate { ${PAYLOAD} } }`);
  assert.equal(empty.cartCreate.cart.totalQuantity, 0);
  assert.equal(empty.cartCreate.cart.cost.totalAmount.amount, "0.0");
  const bad = await data(`mutation($input: CartInput) { cartCreate(input: $input) { ${PAYLOAD} } }`, {
    input: {
      lines: [{ merchandiseId: variant("NOPE-1") }, { merchandiseId: variant("MUG-01"), quantity: -1 }],
    },
  });
  assert.equal(bad.cartCreate.cart, null);
  assert.deepEqual(bad.cartCreate.userErrors.map((e: any) => [e.code, e.field]), [
    ["INVALID_MERCHANDISE_LINE", ["input", "lines", "0", "merchandiseId"]],
    ["QUANTITY_MUST_BE_POSITIVE", ["input", "lines", "1", "quantity"]],
  ]);
  assert.deepEqual(bad.cartCreate.warnings, []);
});

test("rule 1: a merchandiseId names a variant; a product id, an unknown tail or an unpublished product is INVALID_MERCHANDISE_LINE", async () => {
  const cart = await createCart();
  for (
    const id of [
      "gid://shopify/Product/tee",
      variant("TEE-01/xxl"),
      variant("CAP-01"),
      variant("UB-READ"),
      "not-a-gid",
    ]
  ) {
    const r = await data(ADD, { cartId: cart.id, lines: [{ merchandiseId: id }] });
    assert.deepEqual(r.cartLinesAdd.userErrors.map((e: any) => [e.code, e.field]), [[
      "INVALID_MERCHANDISE_LINE",
      ["lines", "0", "merchandiseId"],
    ]], id);
    assert.equal(r.cartLinesAdd.cart.totalQuantity, 0, "nothing changes");
  }
});

test("rule 2: a stackable line adds up to the bag cap of 10; a book read online or a download stands at one", async () => {
  const cart = await createCart();
  const first = await data(ADD, {
    cartId: cart.id,
    lines: [{ merchandiseId: variant("POSTER-01/a3"), quantity: 7 }],
  });
  assert.deepEqual(first.cartLinesAdd.warnings, []);
  const second = await data(ADD, {
    cartId: cart.id,
    lines: [{ merchandiseId: variant("POSTER-01/a3"), quantity: 7 }],
  });
  const lines = second.cartLinesAdd.cart.lines.nodes;
  assert.equal(lines.length, 1, "the same merchandise joins its line");
  assert.equal(lines[0].quantity, 10);
  assert.equal(second.cartLinesAdd.warnings[0].code, "MERCHANDISE_NOT_ENOUGH_STOCK");
  assert.equal(second.cartLinesAdd.warnings[0].target, lines[0].id);

  const books = await data(ADD, {
    cartId: cart.id,
    lines: [{ merchandiseId: variant("FG-READ"), quantity: 3 }, {
      merchandiseId: variant("FG-PDF"),
      quantity: 2,
    }, { merchandiseId: variant("FG-PRINT"), quantity: 4 }],
  });
  const byId = new Map(books.cartLinesAdd.cart.lines.nodes.map((l: any) => [l.merchandise.id, l.quantity]));
  assert.equal(byId.get(variant("FG-READ")), 1);
  assert.equal(byId.get(variant("FG-PDF")), 1);
  assert.equal(byId.get(variant("FG-PRINT")), 4, "a printed format stacks");
  // the same merchandise with other attributes is a line of its own
  const gift = await data(ADD, {
    cartId: cart.id,
    lines: [{ merchandiseId: variant("POSTER-01/a3"), attributes: [{ key: "gift", value: "yes" }] }],
  });
  assert.equal(
    gift.cartLinesAdd.cart.lines.nodes.filter((l: any) => l.merchandise.id === variant("POSTER-01/a3"))
      .length,
    2,
  );
});

test("rule 2 through cartLinesUpdate: a line changed to another line's merchandise and attributes joins it, under the cap; a download stays one line of one", async () => {
  const cart = await createCart({
    lines: [
      { merchandiseId: variant("TEE-01/m"), quantity: 4 },
      { merchandiseId: variant("TEE-01/l"), quantity: 9 },
      { merchandiseId: variant("FG-PDF") },
      { merchandiseId: variant("NG-EPUB") },
    ],
  });
  const [m, l, pdf, epub] = cart.lines.nodes;
  const joined = await data(UPDATE, {
    cartId: cart.id,
    lines: [{ id: l.id, merchandiseId: variant("TEE-01/m") }, {
      id: epub.id,
      merchandiseId: variant("FG-PDF"),
    }],
  });
  assert.deepEqual(joined.cartLinesUpdate.userErrors, []);
  assert.deepEqual(
    joined.cartLinesUpdate.cart.lines.nodes.map((n: any) => [n.id, n.merchandise.id, n.quantity]),
    [[m.id, variant("TEE-01/m"), 10], [pdf.id, variant("FG-PDF"), 1]],
    "the earlier line keeps its id and takes the other's quantity, capped",
  );
  assert.deepEqual(joined.cartLinesUpdate.warnings.map((w: any) => [w.code, w.target]), [
    ["MERCHANDISE_NOT_ENOUGH_STOCK", m.id],
    ["MERCHANDISE_NOT_ENOUGH_STOCK", pdf.id],
  ]);
  // other attributes keep a line of its own
  const gift = await createCart({
    lines: [{ merchandiseId: variant("MUG-01") }, {
      merchandiseId: variant("MUG-01"),
      attributes: [{ key: "gift", value: "yes" }],
    }],
  });
  const [plain, wrapped] = gift.lines.nodes;
  const unwrapped = await data(UPDATE, { cartId: gift.id, lines: [{ id: wrapped.id, attributes: [] }] });
  assert.deepEqual(unwrapped.cartLinesUpdate.cart.lines.nodes.map((n: any) => [n.id, n.quantity]), [[
    plain.id,
    2,
  ]]);
});

test("rule 3: cartLinesUpdate sets quantities, quantity 0 removes, a negative one is refused; cartLinesRemove takes line ids", async () => {
  const cart = await createCart({
    lines: [{ merchandiseId: variant("TEE-01/s"), quantity: 2 }, { merchandiseId: variant("MUG-01") }],
  });
  const [tee, mug] = cart.lines.nodes;
  const updated = await data(UPDATE, {
    cartId: cart.id,
    lines: [{ id: tee.id, quantity: 5 }, { id: mug.id, quantity: 0 }],
  });
  assert.deepEqual(updated.cartLinesUpdate.userErrors, []);
  assert.deepEqual(updated.cartLinesUpdate.cart.lines.nodes.map((l: any) => [l.id, l.quantity]), [[
    tee.id,
    5,
  ]]);

  const capped = await data(UPDATE, { cartId: cart.id, lines: [{ id: tee.id, quantity: 50 }] });
  assert.equal(capped.cartLinesUpdate.cart.lines.nodes[0].quantity, 10);
  assert.equal(capped.cartLinesUpdate.warnings.length, 1);

  // rule 2 holds for updates too: a book read online or a download stays at one
  const single = await createCart({
    lines: [{ merchandiseId: variant("FG-READ") }, { merchandiseId: variant("NG-EPUB") }],
  });
  const [read, epub] = single.lines.nodes;
  const five = await data(UPDATE, {
    cartId: single.id,
    lines: [{ id: read.id, quantity: 5 }, { id: epub.id, quantity: 3 }],
  });
  assert.deepEqual(five.cartLinesUpdate.userErrors, []);
  assert.deepEqual(five.cartLinesUpdate.cart.lines.nodes.map((l: any) => l.quantity), [1, 1]);
  assert.deepEqual(
    five.cartLinesUpdate.warnings.map((w: any) => [w.code, w.target]),
    [["MERCHANDISE_NOT_ENOUGH_STOCK", read.id], ["MERCHANDISE_NOT_ENOUGH_STOCK", epub.id]],
  );

  const negative = await data(UPDATE, { cartId: cart.id, lines: [{ id: tee.id, quantity: -2 }] });
  assert.deepEqual(negative.cartLinesUpdate.userErrors.map((e: any) => [e.code, e.field]), [[
    "QUANTITY_MUST_BE_POSITIVE",
    ["lines", "0", "quantity"],
  ]]);

  const swapped = await data(UPDATE, {
    cartId: cart.id,
    lines: [{ id: tee.id, merchandiseId: variant("TEE-01/xl"), quantity: 1 }],
  });
  assert.equal(swapped.cartLinesUpdate.cart.lines.nodes[0].merchandise.id, variant("TEE-01/xl"));

  const unknownLine = await data(UPDATE, {
    cartId: cart.id,
    lines: [{ id: "gid://shopify/CartLine/nope", quantity: 1 }],
  });
  assert.deepEqual(unknownLine.cartLinesUpdate.userErrors.map((e: any) => [e.code, e.field]), [[
    "INVALID_MERCHANDISE_LINE",
    ["lines", "0", "id"],
  ]]);

  const removeUnknown = await data(REMOVE, { cartId: cart.id, lineIds: ["gid://shopify/CartLine/nope"] });
  assert.deepEqual(removeUnknown.cartLinesRemove.userErrors.map((e: any) => [e.code, e.field]), [[
    "INVALID_MERCHANDISE_LINE",
    ["lineIds", "0"],
  ]]);
  assert.equal(removeUnknown.cartLinesRemove.cart.totalQuantity, 1, "nothing removed");

  const removed = await data(REMOVE, { cartId: cart.id, lineIds: [tee.id] });
  assert.deepEqual(removed.cartLinesRemove.userErrors, []);
  assert.equal(removed.cartLinesRemove.cart.totalQuantity, 0);
});

test("rule 4: cartBuyerIdentityUpdate keeps email, phone and countryCode; other buyer fields are taken and dropped; bad values are INVALID", async () => {
  const cart = await createCart();
  const r = await data(BUYER, {
    cartId: cart.id,
    b: {
      email: "someone@example.org",
      countryCode: "AT",
      deliveryAddressPreferences: [{ deliveryAddress: { address1: "Ring 1", city: "Wien", country: "AT" } }],
    },
  });
  assert.deepEqual(r.cartBuyerIdentityUpdate.cart.buyerIdentity, {
    email: "someone@example.org",
    phone: null,
    countryCode: "AT",
  });
  const phone = await data(BUYER, { cartId: cart.id, b: { phone: "+43 660 1234567" } });
  assert.deepEqual(phone.cartBuyerIdentityUpdate.cart.buyerIdentity, {
    email: "someone@example.org",
    phone: "+436601234567",
    countryCode: "AT",
  });
  const bad = await data(BUYER, { cartId: cart.id, b: { email: "not-an-address", phone: "12" } });
  assert.deepEqual(bad.cartBuyerIdentityUpdate.userErrors.map((e: any) => [e.code, e.field]), [
    ["INVALID", ["buyerIdentity", "email"]],
    ["INVALID", ["buyerIdentity", "phone"]],
  ]);
  const cleared = await data(BUYER, { cartId: cart.id, b: { email: null } });
  assert.equal(cleared.cartBuyerIdentityUpdate.cart.buyerIdentity.email, null);
  // a country that is not a CountryCode is a fault in the query itself
  const notCountry = await gql(BUYER, { cartId: cart.id, b: { countryCode: "XX" } });
  assert.equal(notCountry.status, 200);
  assert.ok(notCountry.body.errors.length > 0);
});

test("cartAttributesUpdate replaces the attributes; cartNoteUpdate sets and clears the note; both check their limits", async () => {
  const cart = await createCart({ attributes: [{ key: "a", value: "1" }] });
  const r = await data(ATTRIBUTES, {
    cartId: cart.id,
    a: [{ key: "b", value: "2" }, { key: "c", value: "3" }],
  });
  assert.deepEqual(r.cartAttributesUpdate.cart.attributes, [{ key: "b", value: "2" }, {
    key: "c",
    value: "3",
  }]);
  const blank = await data(ATTRIBUTES, { cartId: cart.id, a: [{ key: " ", value: "x" }] });
  assert.deepEqual(blank.cartAttributesUpdate.userErrors.map((e: any) => [e.code, e.field]), [["INVALID", [
    "attributes",
    "0",
  ]]]);
  const note = await data(NOTE, { cartId: cart.id, note: "leave at the door" });
  assert.equal(note.cartNoteUpdate.cart.note, "leave at the door");
  const cleared = await data(NOTE, { cartId: cart.id, note: null });
  assert.equal(cleared.cartNoteUpdate.cart.note, null);
  const long = await data(NOTE, { cartId: cart.id, note: "x".repeat(5001) });
  assert.equal(long.cartNoteUpdate.userErrors[0].code, "INVALID");
});

test("rule 5: a cart made under one key answers alike under another (the token is the secret)", async () => {
  const cart = await createCart({ lines: [{ merchandiseId: variant("MUG-01") }] });
  const other = await host.key("storefront");
  const read = await gql(READ, { id: cart.id }, { key: other });
  assert.equal(read.body.data.cart.totalQuantity, 1);
  const add = await gql(ADD, { cartId: cart.id, lines: [{ merchandiseId: variant("MUG-01") }] }, {
    key: other,
  });
  assert.equal(add.body.data.cartLinesAdd.cart.totalQuantity, 2);
});

test("rule 7: cart(id) of an unknown token is null; every mutation on an unknown cart answers userErrors INVALID on cartId", async () => {
  for (
    const id of ["gid://shopify/Cart/00000000000000000000000000000000", "gid://shopify/Cart/short", "garbage"]
  ) {
    assert.equal((await data(READ, { id })).cart, null, id);
  }
  const cartId = "gid://shopify/Cart/00000000000000000000000000000000";
  const calls: [string, Record<string, unknown>, string][] = [
    [ADD, { cartId, lines: [{ merchandiseId: variant("MUG-01") }] }, "cartLinesAdd"],
    [UPDATE, { cartId, lines: [{ id: "gid://shopify/CartLine/x", quantity: 1 }] }, "cartLinesUpdate"],
    [REMOVE, { cartId, lineIds: ["gid://shopify/CartLine/x"] }, "cartLinesRemove"],
    [BUYER, { cartId, b: { email: "a@b.co" } }, "cartBuyerIdentityUpdate"],
    [ATTRIBUTES, { cartId, a: [] }, "cartAttributesUpdate"],
    [NOTE, { cartId, note: "x" }, "cartNoteUpdate"],
  ];
  for (const [query, variables, name] of calls) {
    const r = await data(query, variables);
    assert.equal(r[name].cart, null, name);
    assert.deepEqual(r[name].userErrors.map((e: any) => [e.code, e.field]), [["INVALID", ["cartId"]]], name);
    assert.deepEqual(r[name].warnings, [], name);
  }
});

test("a cart's id may carry Shopify's ?key= suffix; discount codes and gift cards leave the cart as it is", async () => {
  const cart = await createCart({ lines: [{ merchandiseId: variant("MUG-01") }] });
  assert.equal((await data(READ, { id: `${cart.id}?key=abc` })).cart.totalQuantity, 1);
  const codes = await data(
    `mutation($id: ID!) { cartDiscountCodesUpdate(cartId: $id, discountCodes: ["SAVE10"]) { cart { discountCodes { code applicable } cost { totalAmount { amount } } } userErrors { code } warnings { code } } }`,
    { id: cart.id },
  );
  assert.deepEqual(codes.cartDiscountCodesUpdate.cart.discountCodes, [{ code: "SAVE10", applicable: false }]);
  assert.equal(codes.cartDiscountCodesUpdate.cart.cost.totalAmount.amount, "14.0");
  const gift = await data(
    `mutation($id: ID!) { cartGiftCardCodesUpdate(cartId: $id, giftCardCodes: ["G1"]) { cart { appliedGiftCards { id } } warnings { code target } } }`,
    { id: cart.id },
  );
  assert.deepEqual(gift.cartGiftCardCodesUpdate.cart.appliedGiftCards, []);
  assert.equal(gift.cartGiftCardCodesUpdate.warnings[0].code, "PAYMENTS_GIFT_CARDS_UNAVAILABLE");
});

test("concurrent cartLinesAdd on one cart lose no line: each mutation holds the cart's row lock", async () => {
  const cart = await createCart();
  const keys = [
    "TEE-01/s",
    "TEE-01/m",
    "TEE-01/l",
    "TEE-01/xl",
    "MUG-01",
    "POSTER-01/a3",
    "POSTER-01/a2",
    "FG-PRINT",
    "FG-PDF",
    "NG-EPUB",
    "FG-READ",
    "LP-PRINT/standard",
  ];
  const results = await Promise.all(
    keys.map((key) => gql(ADD, { cartId: cart.id, lines: [{ merchandiseId: variant(key), quantity: 1 }] })),
  );
  for (const r of results) assert.deepEqual(r.body.data.cartLinesAdd.userErrors, []);
  // and the same line from many at once adds up exactly
  await Promise.all(
    Array.from(
      { length: 8 },
      () => gql(ADD, { cartId: cart.id, lines: [{ merchandiseId: variant("MUG-01") }] }),
    ),
  );
  const final = await data(
    `query($id: ID!) { cart(id: $id) { lines(first: 50) { nodes { quantity merchandise { ... on ProductVariant { id } } } } } }`,
    { id: cart.id },
  );
  const got = new Map(final.cart.lines.nodes.map((l: any) => [l.merchandise.id, l.quantity]));
  assert.equal(got.size, keys.length);
  assert.equal(got.get(variant("MUG-01")), 9);
});

test("lines page like every connection (first/after, last/before)", async () => {
  const cart = await createCart({
    lines: ["TEE-01/s", "TEE-01/m", "TEE-01/l", "MUG-01", "POSTER-01/a2"].map((k) => ({
      merchandiseId: variant(k),
    })),
  });
  const q = `query($id: ID!, $first: Int, $after: String, $last: Int, $before: String) { cart(id: $id) {
    lines(first: $first, after: $after, last: $last, before: $before) { edges { cursor node { merchandise { ... on ProductVariant { sku title } } } }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`;
  const page1 = (await data(q, { id: cart.id, first: 2 })).cart.lines;
  assert.deepEqual(page1.edges.map((e: any) => e.node.merchandise.title), ["S", "M"]);
  assert.deepEqual([page1.pageInfo.hasNextPage, page1.pageInfo.hasPreviousPage], [true, false]);
  const page2 = (await data(q, { id: cart.id, first: 2, after: page1.pageInfo.endCursor })).cart.lines;
  assert.deepEqual(page2.edges.map((e: any) => e.node.merchandise.title), ["L", "Default Title"]);
  assert.equal(page2.pageInfo.hasPreviousPage, true);
  const last = (await data(q, { id: cart.id, last: 2 })).cart.lines;
  assert.deepEqual(last.edges.map((e: any) => e.node.merchandise.sku), ["MUG-01", "POSTER-01"]);
  assert.deepEqual([last.pageInfo.hasNextPage, last.pageInfo.hasPreviousPage], [false, true]);
  const before = (await data(q, { id: cart.id, last: 1, before: last.pageInfo.startCursor })).cart.lines;
  assert.deepEqual(before.edges.map((e: any) => e.node.merchandise.title), ["L"]);
});

test("the retention sweep clears carts thirty days after their last change and keeps younger ones", async () => {
  const { sweepCarts } = await import("../../../functions/storefront-api/store/carts.ts");
  const sql = host.ctx.sql;
  const now = new Date();
  const day = 24 * 3600 * 1000;
  const token = (n: number) => `Sweep${String(n).padStart(27, "0")}`;
  await sql`insert into public.storefront_carts (id, updated_at, created_at) values
    (${token(1)}, ${new Date(now.getTime() - 31 * day)}, ${new Date(now.getTime() - 40 * day)}),
    (${token(2)}, ${new Date(now.getTime() - 29 * day)}, ${new Date(now.getTime() - 40 * day)})`;
  try {
    const swept = await sweepCarts(sql, now);
    assert.ok(swept >= 1);
    const left = (await sql<{ id: string }[]>`select id from public.storefront_carts where id like 'Sweep%'`)
      .map((r) => r.id);
    assert.deepEqual(left, [token(2)]);
    // a change counts: the young cart's read through the API still answers
    assert.equal((await data(READ, { id: `gid://shopify/Cart/${token(2)}` })).cart.totalQuantity, 0);
    assert.equal((await data(READ, { id: `gid://shopify/Cart/${token(1)}` })).cart, null);
  } finally {
    await sql`delete from public.storefront_carts where id like 'Sweep%'`;
  }
});
