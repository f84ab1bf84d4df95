// The real shopify-buy (JS Buy SDK v3) against the running host, its stock documents unchanged. It
// builds https://<domain>/api/2025-01/graphql; the loopback host speaks http, so the SDK is given a fetch
// that sends the same request over http (the SDK's own fetchFunction argument).
import assert from "node:assert/strict";
import Client from "shopify-buy";
import { test } from "../helpers/test.ts";
import { testHost } from "../helpers/host.ts";

const host = await testHost();
const key = await host.key("storefront");
const paths: string[] = [];
const overHttp = (url: string, init: RequestInit) => {
  const address = url.replace(/^https:/, "http:");
  paths.push(new URL(address).pathname);
  return fetch(address, init);
};
const client = (Client as any).buildClient({ domain: host.host, storefrontAccessToken: key }, overHttp);

test("product.fetchAll, fetch, fetchByHandle, fetchMultiple: products with images and variants as the SDK maps them", async () => {
  const products = await client.product.fetchAll();
  assert.deepEqual(products.map((p: any) => p.handle), [
    "field-guide",
    "letterpress-print",
    "night-garden",
    "mug",
    "poster",
    "tee",
  ]);
  assert.ok(paths.every((p) => p === "/api/2025-01/graphql"));
  const tee = products.find((p: any) => p.handle === "tee");
  assert.equal(tee.id, "gid://shopify/Product/tee");
  assert.equal(tee.variants.length, 4);
  assert.equal(tee.variants[1].title, "M");
  assert.equal(tee.variants[1].price.amount, "25.0");
  assert.equal(tee.variants[1].available, true);
  assert.equal(tee.images.length, 1);
  assert.match(tee.images[0].src, /\/api\/media\//);

  const byId = await client.product.fetch("gid://shopify/Product/poster");
  assert.equal(byId.title, "Mountain Poster");
  assert.deepEqual(byId.options.map((o: any) => o.name), ["Size"]);
  const byHandle = await client.product.fetchByHandle("field-guide");
  assert.equal(byHandle.vendor, "Ada Example");
  const many = await client.product.fetchMultiple(["gid://shopify/Product/mug", "gid://shopify/Product/tee"]);
  assert.deepEqual(many.map((p: any) => p.handle), ["mug", "tee"]);
  assert.equal(await client.product.fetch("gid://shopify/Product/nope"), null);
});

test("product.fetchQuery with a sort key and paging with fetchNextPage", async () => {
  const sorted = await client.product.fetchQuery({ first: 2, sortKey: "TITLE", reverse: true });
  assert.equal(sorted.length, 2);
  const next = await client.fetchNextPage(sorted);
  assert.equal(next.model.length, 2);
  assert.ok(!sorted.map((p: any) => p.id).includes(next.model[0].id));
  const found = await client.product.fetchQuery({ first: 10, query: "poster" });
  assert.deepEqual(found.map((p: any) => p.handle), ["poster"]);
  const recommendations = await client.product.fetchRecommendations("gid://shopify/Product/tee");
  assert.deepEqual(recommendations.map((p: any) => p.handle), ["mug", "poster"]);
});

test("product.fetchAll pages through fetchNextPage to the end; fetchQuery without arguments sends the SDK's default sort key ID", async () => {
  const first = await client.product.fetchAll(4);
  assert.deepEqual(first.map((p: any) => p.handle), [
    "field-guide",
    "letterpress-print",
    "night-garden",
    "mug",
  ]);
  const second = await client.fetchNextPage(first);
  assert.deepEqual(second.model.map((p: any) => p.handle), ["poster", "tee"]);
  assert.equal(second.model[second.model.length - 1].hasNextPage, false);
  const byDefault = await client.product.fetchQuery();
  assert.deepEqual(byDefault.map((p: any) => p.handle), [
    "field-guide",
    "letterpress-print",
    "night-garden",
    "mug",
    "poster",
    "tee",
  ]);
});

test("collection.fetchAll, fetch and fetchQuery (default sort key ID; title, reverse, query, fetchNextPage)", async () => {
  const all = await client.collection.fetchAll();
  assert.deepEqual(all.map((c: any) => c.handle), ["apparel", "home-goods", "reading"]);
  const one = await client.collection.fetch("gid://shopify/Collection/reading");
  assert.equal(one.title, "Reading");
  assert.equal(await client.collection.fetch("gid://shopify/Collection/nope"), null);
  const byDefault = await client.collection.fetchQuery();
  assert.deepEqual(byDefault.map((c: any) => c.handle), ["apparel", "home-goods", "reading"]);
  const titled = await client.collection.fetchQuery({ first: 1, sortKey: "TITLE", reverse: true });
  assert.deepEqual(titled.map((c: any) => c.handle), ["reading"]);
  const next = await client.fetchNextPage(titled);
  assert.deepEqual(next.model.map((c: any) => c.handle), ["home-goods"]);
  const found = await client.collection.fetchQuery({ query: "wear" });
  assert.deepEqual(found.map((c: any) => c.handle), ["apparel"]);
});

test("the SDK's own fetcher (no fetch function given) reads the host's answers: Content-Type application/json on every one", async () => {
  // the SDK's built-in fetcher calls the global fetch with https://<domain>/api/2025-01/graphql and reads
  // the answer's Content-Type itself; only the scheme is taken down to the loopback host's http
  const real = globalThis.fetch;
  const seen: string[] = [];
  globalThis.fetch = ((url: string | URL | Request, init?: RequestInit) => {
    seen.push(String(url));
    return real(String(url).replace(/^https:/, "http:"), init);
  }) as typeof fetch;
  try {
    const stock = (Client as any).buildClient({ domain: host.host, storefrontAccessToken: key });
    const tee = await stock.product.fetchByHandle("tee");
    assert.equal(tee.variants.length, 4);
    const checkout = await stock.checkout.create({
      lineItems: [{ variantId: tee.variants[0].id, quantity: 1 }],
    });
    assert.equal(checkout.lineItems.length, 1);
    assert.equal(checkout.totalPrice.amount, "25.0");
    assert.ok(seen.length >= 2 && seen.every((u) => u === `https://${host.host}/api/2025-01/graphql`));
  } finally {
    globalThis.fetch = real;
  }
});

test("collection.fetchAllWithProducts, fetchWithProducts, fetchByHandle", async () => {
  const collections = await client.collection.fetchAllWithProducts();
  assert.deepEqual(collections.map((c: any) => c.handle), ["apparel", "home-goods", "reading"]);
  assert.deepEqual(collections[1].products.map((p: any) => p.handle), ["mug", "poster"]);
  const one = await client.collection.fetchWithProducts("gid://shopify/Collection/reading", {
    productsFirst: 2,
  });
  assert.deepEqual(one.products.map((p: any) => p.handle), ["field-guide", "letterpress-print"]);
  const byHandle = await client.collection.fetchByHandle("apparel");
  assert.equal(byHandle.title, "Apparel");
  assert.deepEqual(byHandle.products.map((p: any) => p.handle), ["tee"]);
});

test("a client built with language (Accept-Language) reads the site's translations; without it the default language", async () => {
  const german = (Client as any).buildClient(
    { domain: host.host, storefrontAccessToken: key, language: "de-DE" },
    overHttp,
  );
  const tee = await german.product.fetchByHandle("tee");
  assert.equal(tee.title, "Sitewire T-Shirt");
  assert.equal(tee.description, "Auf Bio-Baumwolle gedruckt.");
  assert.equal((await client.product.fetchByHandle("tee")).title, "Sitewire Tee");
});

test("shop.fetchInfo and fetchPolicies", async () => {
  const shop = await client.shop.fetchInfo();
  assert.equal(shop.name, "Sitewire Demo");
  assert.deepEqual(shop.paymentSettings.enabledPresentmentCurrencies.map((c: any) => c.key ?? c), ["EUR"]);
  const policies = await client.shop.fetchPolicies();
  assert.equal(policies.refundPolicy.body, "30 days");
  assert.equal(policies.privacyPolicy, null);
});

test("the checkout methods, mapped by the SDK onto carts: create, add, update, remove, replace, attributes, email, address, discounts, gift cards", async () => {
  let checkout = await client.checkout.create({
    lineItems: [{ variantId: "gid://shopify/ProductVariant/TEE-01/m", quantity: 2 }],
    email: "sdk@example.org",
    note: "from the SDK",
    customAttributes: [{ key: "channel", value: "buy-sdk" }],
    shippingAddress: { address1: "Ring 1", city: "Wien", country: "AT" },
  });
  assert.match(checkout.id, /^gid:\/\/shopify\/Cart\//);
  assert.equal(checkout.webUrl, `${host.baseUrl}/cart/c/${checkout.id.split("/").pop()}?_fd=0`);
  assert.equal(checkout.totalPrice.amount, "50.0");
  assert.equal(checkout.email, "sdk@example.org");
  assert.equal(checkout.note, "from the SDK");
  assert.equal(checkout.lineItems.length, 1);
  assert.equal(checkout.lineItems[0].quantity, 2);

  checkout = await client.checkout.addLineItems(checkout.id, [{
    variantId: "gid://shopify/ProductVariant/FG-PDF",
    quantity: 1,
  }]);
  assert.equal(checkout.lineItems.length, 2);
  assert.equal(checkout.totalPrice.amount, "62.0");
  const tee = checkout.lineItems.find((l: any) => l.variant.id.endsWith("TEE-01/m"));
  checkout = await client.checkout.updateLineItems(checkout.id, [{ id: tee.id, quantity: 3 }]);
  assert.equal(checkout.lineItems.find((l: any) => l.id === tee.id).quantity, 3);
  checkout = await client.checkout.removeLineItems(checkout.id, [tee.id]);
  assert.equal(checkout.lineItems.length, 1);
  checkout = await client.checkout.replaceLineItems(checkout.id, [{
    variantId: "gid://shopify/ProductVariant/MUG-01",
    quantity: 2,
  }]);
  assert.deepEqual(checkout.lineItems.map((l: any) => [l.variant.id, l.quantity]), [[
    "gid://shopify/ProductVariant/MUG-01",
    2,
  ]]);
  assert.equal(checkout.totalPrice.amount, "28.0");

  checkout = await client.checkout.updateAttributes(checkout.id, {
    note: "new note",
    customAttributes: [{ key: "a", value: "b" }],
  });
  assert.equal(checkout.note, "new note");
  checkout = await client.checkout.updateEmail(checkout.id, "other@example.org");
  assert.equal(checkout.email, "other@example.org");
  checkout = await client.checkout.updateShippingAddress(checkout.id, { country: "DE" });
  checkout = await client.checkout.addDiscount(checkout.id, "SAVE10");
  assert.equal(checkout.totalPrice.amount, "28.0", "the site has no discounts");
  checkout = await client.checkout.removeDiscount(checkout.id);
  checkout = await client.checkout.addGiftCards(checkout.id, ["GIFT"]);
  checkout = await client.checkout.removeGiftCard(checkout.id, "gid://shopify/AppliedGiftCard/1");
  assert.deepEqual([...checkout.appliedGiftCards], []);
  const fetched = await client.checkout.fetch(checkout.id);
  assert.equal(fetched.id, checkout.id);
  assert.equal(fetched.lineItems.length, 1);
});

test("the SDK's errors: an unknown cart rejects with code INVALID; an unknown variant comes back as the checkout's userErrors LINE_ITEM_NOT_FOUND", async () => {
  assert.equal(await client.checkout.fetch("gid://shopify/Cart/00000000000000000000000000000000"), null);
  await assert.rejects(
    client.checkout.addLineItems("gid://shopify/Cart/00000000000000000000000000000000", [{
      variantId: "gid://shopify/ProductVariant/MUG-01",
      quantity: 1,
    }]),
    (e: any) => {
      const errors = Array.isArray(e) ? e : JSON.parse(e.message);
      assert.equal(errors[0].code, "INVALID");
      return true;
    },
  );
  const checkout = await client.checkout.create({ lineItems: [] });
  // the cart comes back unchanged with the error, as the SDK maps a cart that has userErrors
  const same = await client.checkout.addLineItems(checkout.id, [{
    variantId: "gid://shopify/ProductVariant/NOPE",
    quantity: 1,
  }]);
  assert.equal(same.lineItems.length, 0);
  assert.equal(same.userErrors[0].code, "LINE_ITEM_NOT_FOUND");
  assert.deepEqual(same.userErrors[0].field, ["lines", "0", "merchandiseId"]);
});
