// Pure pieces of the store: money text as Shopify prints it, global ids, connection windows.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { decimalText, money } from "../../../functions/storefront-api/domain/money.ts";
import { gid, idOf, parseGid, splitVariantKey } from "../../../functions/storefront-api/domain/ids.ts";
import { connectionOfList, windowOf } from "../../../functions/storefront-api/domain/paging.ts";
import {
  encodeCursor,
  keysetCursor,
  keysetReader,
  type KeysetSort,
  positionReader,
} from "../../../functions/storefront-api/domain/cursor.ts";
import {
  isCartToken,
  isCountryCode,
  isEmail,
  storableText,
  unstorablePath,
} from "../../../functions/storefront-api/domain/input.ts";
import { StoreInputError } from "../../../functions/storefront-api/domain/errors.ts";
import { tailPart, type VariantKind } from "../../../functions/storefront-api/domain/catalog.ts";
import {
  checkBag,
  guestMayBuy,
  type ResolvedLine,
} from "../../../functions/storefront-api/domain/checkout.ts";

test("MoneyV2 amounts print like Shopify's Decimal: one decimal at least, no trailing zero after it", () => {
  assert.equal(decimalText(2500, "EUR"), "25.0");
  assert.equal(decimalText(1950, "EUR"), "19.5");
  assert.equal(decimalText(1255, "EUR"), "12.55");
  assert.equal(decimalText(0, "EUR"), "0.0");
  assert.equal(decimalText(5, "EUR"), "0.05");
  assert.equal(decimalText(1500, "JPY"), "1500.0");
  assert.equal(decimalText(1235, "BHD"), "1.235");
  assert.deepEqual(money(990, "USD"), { amount: "9.9", currencyCode: "USD" });
});

test("amounts print the same when their texts are kept: the same amount in two currencies, and past the bounds", () => {
  assert.equal(decimalText(1500, "EUR"), "15.0");
  assert.equal(decimalText(1500, "JPY"), "1500.0");
  assert.equal(decimalText(1500, "EUR"), "15.0");
  for (let minor = 0; minor < 5000; minor++) {
    assert.equal(
      decimalText(minor, "USD"),
      `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, "0").replace(/0+$/, "") || "0"}`,
    );
  }
  for (let c = 0; c < 70; c++) decimalText(100, `X${String.fromCharCode(65 + (c % 26))}${c}`);
  assert.equal(decimalText(1235, "BHD"), "1.235");
  assert.equal(decimalText(4999, "USD"), "49.99");
});

test("gids: ours parse, others do not; a cart id drops Shopify's ?key= suffix; a variant key splits at its first slash", () => {
  assert.equal(gid("Product", "tee"), "gid://shopify/Product/tee");
  assert.deepEqual(parseGid("gid://shopify/ProductVariant/TEE-01/m"), {
    type: "ProductVariant",
    id: "TEE-01/m",
  });
  for (
    const bad of [
      "gid://other/Product/x",
      "gid://shopify/Product/",
      "gid://shopify//x",
      "Product/x",
      42,
      null,
    ]
  ) {
    assert.equal(parseGid(bad), undefined, String(bad));
  }
  assert.equal(idOf("gid://shopify/Cart/abc?key=zzz", "Cart"), "abc");
  assert.equal(idOf("gid://shopify/Cart/abc", "Product"), undefined);
  assert.deepEqual(splitVariantKey("LP-LINEN/standard.navy.gold"), {
    sku: "LP-LINEN",
    tail: "standard.navy.gold",
  });
  assert.deepEqual(splitVariantKey("MUG-01"), { sku: "MUG-01", tail: null });
  assert.equal(tailPart(" Navy Blue/2 "), "navy-blue-2");
});

test("connection windows: first defaults to 20, 0 to 250 allowed, anything else and foreign cursors are input errors", () => {
  const read = keysetReader("title");
  assert.equal(windowOf({}, read).size, 20);
  assert.deepEqual([windowOf({ last: 3 }, read).size, windowOf({ last: 3 }, read).fromEnd], [3, true]);
  for (
    const args of [{ first: 251 }, { first: -1 }, { last: 300 }, { first: 1.5 }, { after: "nope" }, {
      before: btoa("[1,2,3]"),
    }]
  ) {
    assert.throws(() => windowOf(args, read), StoreInputError, JSON.stringify(args));
  }
});

test("a keyset cursor is read only under the sort it was made for, and only with a value of that sort's type", () => {
  const at = new Date("2025-03-01T10:00:00.000Z");
  const made: [KeysetSort, unknown][] = [
    ["position", "records/products/tee.md"],
    ["title", "sitewire tee"],
    ["type", "good"],
    ["vendor", "Ada Example"],
    ["price", "25.00"],
    ["created", at],
    ["updated", at],
    ["collection", 3],
  ];
  for (const [sort, value] of made) {
    const cursor = keysetCursor(sort, value, "tee");
    assert.deepEqual(keysetReader(sort)(cursor), [
      value instanceof Date ? value.toISOString() : value,
      "tee",
    ]);
    for (const [other] of made) {
      if (other !== sort) {
        assert.throws(() => keysetReader(other)(cursor), StoreInputError, `${sort} -> ${other}`);
      }
    }
  }
  // forged cursors with the right sort but a value SQL could not take, or text Postgres cannot hold
  const forged: [KeysetSort, unknown[]][] = [
    ["price", ["price", "cheap", "tee"]],
    ["price", ["price", "1e400", "tee"]],
    ["created", ["created", "yesterday", "tee"]],
    ["updated", ["updated", "2025-02-30T99:00:00Z", "tee"]],
    ["collection", ["collection", "NaN", "tee"]],
    ["collection", ["collection", 1.5, "tee"]],
    ["title", ["title", 42, "tee"]],
    ["title", ["title", "a\u0000b", "tee"]],
    ["position", ["position", "x", "a\u0000"]],
    ["position", ["position", "x", 7]],
    ["position", ["x", "y"]],
  ];
  for (const [sort, parts] of forged) {
    assert.throws(() => keysetReader(sort)(encodeCursor(parts)), StoreInputError, JSON.stringify(parts));
  }
  assert.deepEqual(positionReader(encodeCursor([4])), [4]);
  for (const parts of [[-1], ["4"], [1.5], [1, 2]]) {
    assert.throws(() => positionReader(encodeCursor(parts)), StoreInputError, JSON.stringify(parts));
  }
});

test("text Postgres cannot hold (NUL, a lone surrogate) is found anywhere in a JSON value; emails, countries and cart tokens have one rule each", () => {
  assert.equal(storableText("plain ü ✓ 𝄞"), true);
  assert.equal(storableText("a\u0000b"), false);
  assert.equal(storableText("a\ud800b"), false);
  assert.equal(unstorablePath({ lines: [{ sku: "A" }, { sku: "B\u0000" }] }), "$.lines[1].sku");
  assert.equal(unstorablePath({ ["k\u0000"]: 1 }), "$");
  assert.equal(unstorablePath([[["\udc00"]]]), "$[0][0][0]");
  assert.equal(unstorablePath({ a: [1, null, true, "ok"], b: { c: "fine" } }), undefined);
  for (const good of ["a@b.co", "first.last+tag@example.org"]) assert.equal(isEmail(good), true, good);
  for (const bad of ["a\u0000b@c.de", "a@b", "a b@c.de", "a@b.c\u0007", "@b.co", `${"a".repeat(250)}@b.co`]) {
    assert.equal(isEmail(bad), false, JSON.stringify(bad));
  }
  assert.deepEqual(["DE", "de", "DEU", "D1", "x\u0000"].map(isCountryCode), [
    true,
    false,
    false,
    false,
    false,
  ]);
  assert.equal(isCartToken("a".repeat(32)), true);
  assert.equal(isCartToken("%ZZ"), false);
});

test("a list in memory pages both ways, reversed too, and first with last keeps the last of the first", () => {
  const items = ["a", "b", "c", "d", "e"];
  const page = connectionOfList(items, { first: 2 });
  assert.deepEqual(page.nodes, ["a", "b"]);
  const next = connectionOfList(items, { first: 2, after: page.pageInfo.endCursor });
  assert.deepEqual(next.nodes, ["c", "d"]);
  assert.deepEqual(connectionOfList(items, { last: 2 }).nodes, ["d", "e"]);
  const reversed = connectionOfList(items, { first: 2, reverse: true });
  assert.deepEqual(reversed.nodes, ["e", "d"]);
  assert.deepEqual(
    connectionOfList(items, { first: 2, reverse: true, after: reversed.pageInfo.endCursor }).nodes,
    ["c", "b"],
  );
  const both = connectionOfList(items, { first: 4, last: 2 });
  assert.deepEqual(both.nodes, ["c", "d"]);
  assert.equal(both.pageInfo.hasPreviousPage, true);
  const between = connectionOfList(items, {
    after: page.pageInfo.startCursor,
    before: next.pageInfo.endCursor,
  });
  assert.deepEqual(between.nodes, ["b", "c"]);
  assert.deepEqual(connectionOfList([], { first: 5 }).pageInfo, {
    hasNextPage: false,
    hasPreviousPage: false,
    startCursor: null,
    endCursor: null,
  });
});

test("who may buy (spec: Cart handoff): a guest only print and download lines; a good or a line read online needs the sign-in", () => {
  assert.equal(guestMayBuy(["print", "download"]), true);
  assert.equal(guestMayBuy(["print"]), true);
  assert.equal(guestMayBuy(["download"]), true);
  assert.equal(guestMayBuy([]), true);
  for (const kinds of [["good"], ["unlock"], ["print", "good"], ["download", "unlock"]] as VariantKind[][]) {
    assert.equal(guestMayBuy(kinds), false, kinds.join(" "));
  }
  const line = (kind: VariantKind) => {
    const bag = { sku: kind.toUpperCase(), variant: null, quantity: 1 };
    const variant = { kind, available: true, stackable: false, currency: "EUR", requiresShipping: false };
    return { bag, resolved: { line: bag, product: {}, variant } as unknown as ResolvedLine };
  };
  const check = (kinds: VariantKind[], signedIn: boolean) => {
    const lines = kinds.map(line);
    return checkBag(lines.map((l) => l.bag), lines.map((l) => l.resolved), {
      signedIn,
      country: null,
      shipsTo: [],
    })
      ?.code;
  };
  assert.equal(check(["print", "download"], false), undefined);
  assert.equal(check(["print", "good"], false), "SIGN_IN_REQUIRED");
  assert.equal(check(["unlock"], false), "SIGN_IN_REQUIRED");
  assert.equal(check(["good", "unlock"], true), undefined);
});
