// The catalog through the Storefront API: every QueryRoot field, connections and cursors, sort keys,
// the query search, Node and nodes, recommendations, localization and @inContext, shop, and the
// platform fields the site lacks answering null or empty.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import postgres from "postgres";
import type { Sql } from "../../../shared/db.ts";
import { createStorefrontApp } from "../../../functions/storefront-api/app.ts";
import { testDatabaseUrl } from "../../helpers/db.ts";
import { data, gql, host } from "./support.ts";

const DEMO_ORDER = ["field-guide", "letterpress-print", "night-garden", "mug", "poster", "tee"];

const handles = (connection: any) => connection.nodes.map((n: any) => n.handle);

test("products follow the records' order; unpublished records are absent; first defaults to 20", async () => {
  const d = await data("{ products { nodes { handle } pageInfo { hasNextPage hasPreviousPage } } }");
  assert.deepEqual(handles(d.products), DEMO_ORDER);
  assert.deepEqual(d.products.pageInfo, { hasNextPage: false, hasPreviousPage: false });
});

test("products page with opaque cursors: first/after, last/before, reverse, and edges match nodes", async () => {
  const q = `query($first: Int, $after: String, $last: Int, $before: String, $reverse: Boolean) {
    products(first: $first, after: $after, last: $last, before: $before, reverse: $reverse) {
      edges { cursor node { handle } } nodes { handle } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;
  const p1 = (await data(q, { first: 4 })).products;
  assert.deepEqual(handles(p1), DEMO_ORDER.slice(0, 4));
  assert.deepEqual(p1.edges.map((e: any) => e.node.handle), handles(p1));
  assert.equal(p1.pageInfo.startCursor, p1.edges[0].cursor);
  assert.equal(p1.pageInfo.endCursor, p1.edges[3].cursor);
  assert.deepEqual([p1.pageInfo.hasNextPage, p1.pageInfo.hasPreviousPage], [true, false]);
  const p2 = (await data(q, { first: 4, after: p1.pageInfo.endCursor })).products;
  assert.deepEqual(handles(p2), DEMO_ORDER.slice(4));
  assert.deepEqual([p2.pageInfo.hasNextPage, p2.pageInfo.hasPreviousPage], [false, true]);

  const last = (await data(q, { last: 2 })).products;
  assert.deepEqual(handles(last), DEMO_ORDER.slice(4));
  assert.deepEqual([last.pageInfo.hasNextPage, last.pageInfo.hasPreviousPage], [false, true]);
  const before = (await data(q, { last: 2, before: last.pageInfo.startCursor })).products;
  assert.deepEqual(handles(before), DEMO_ORDER.slice(2, 4));
  assert.equal(before.pageInfo.hasNextPage, true);

  const reversed = (await data(q, { first: 3, reverse: true })).products;
  assert.deepEqual(handles(reversed), [...DEMO_ORDER].reverse().slice(0, 3));
  const reversed2 = (await data(q, { first: 3, reverse: true, after: reversed.pageInfo.endCursor })).products;
  assert.deepEqual(handles(reversed2), [...DEMO_ORDER].reverse().slice(3));

  const none = (await data(q, { first: 0 })).products;
  assert.deepEqual([none.nodes, none.pageInfo.startCursor, none.pageInfo.endCursor], [[], null, null]);
});

test("sortKey: TITLE, PRICE, CREATED_AT, UPDATED_AT, PRODUCT_TYPE, VENDOR; ID, RELEVANCE and BEST_SELLING keep the store's order", async () => {
  const q =
    `query($sort: ProductSortKeys, $reverse: Boolean) { products(first: 50, sortKey: $sort, reverse: $reverse) {
    nodes { handle title createdAt productType vendor priceRange { minVariantPrice { amount } } } } }`;
  const by = async (sort: string, reverse = false) => (await data(q, { sort, reverse })).products.nodes;
  const titles = (await by("TITLE")).map((n: any) => n.title.toLowerCase());
  assert.deepEqual(titles, [...titles].sort());
  const prices = (await by("PRICE")).map((n: any) => Number(n.priceRange.minVariantPrice.amount));
  assert.deepEqual(prices, [...prices].sort((a, b) => a - b));
  const desc = (await by("PRICE", true)).map((n: any) => Number(n.priceRange.minVariantPrice.amount));
  assert.deepEqual(desc, [...prices].reverse());
  const created = (await by("CREATED_AT")).map((n: any) => n.createdAt);
  assert.deepEqual(created, [...created].sort());
  const types = (await by("PRODUCT_TYPE")).map((n: any) => n.productType);
  assert.deepEqual(types, [...types].sort());
  const vendors = (await by("VENDOR")).map((n: any) => n.vendor);
  assert.deepEqual(vendors, [...vendors].sort());
  for (const sort of ["ID", "RELEVANCE", "BEST_SELLING"]) {
    assert.deepEqual((await by(sort)).map((n: any) => n.handle), DEMO_ORDER, sort);
  }
  // paging keeps a sort: the second page of PRICE continues where the first stopped
  const page =
    `query($after: String) { products(first: 3, sortKey: PRICE, after: $after) { nodes { handle } pageInfo { endCursor } } }`;
  const a = (await data(page)).products;
  const b = (await data(page, { after: a.pageInfo.endCursor })).products;
  assert.deepEqual([...handles(a), ...handles(b)], (await by("PRICE")).map((n: any) => n.handle));
});

/** The GraphQL errors of a query that must fail as the caller's fault, with nothing logged as a server fault. */
async function inputErrorOf(query: string, variables: Record<string, unknown>): Promise<string> {
  const logged: unknown[][] = [];
  const error = console.error;
  console.error = (...args: unknown[]) => logged.push(args);
  try {
    const r = await gql(query, variables);
    assert.equal(r.status, 200);
    assert.deepEqual(logged, [], "no server fault is logged");
    return r.body.errors?.[0]?.extensions?.code;
  } finally {
    console.error = error;
  }
}

test("a cursor is read only under the sort that made it: a cursor of another sortKey, connection sort or a forged one is BAD_USER_INPUT (every sort key)", async () => {
  const productSorts: Record<string, string> = {
    TITLE: "title",
    PRICE: "price",
    CREATED_AT: "created",
    UPDATED_AT: "updated",
    PRODUCT_TYPE: "type",
    VENDOR: "vendor",
    ID: "position",
    RELEVANCE: "position",
    BEST_SELLING: "position",
  };
  const page = (sort: string) =>
    `query($after: String) { products(first: 2, sortKey: ${sort}, after: $after) { nodes { handle } pageInfo { endCursor } } }`;
  const cursors: Record<string, string> = {};
  for (const sort of Object.keys(productSorts)) {
    cursors[sort] = (await data(page(sort))).products.pageInfo.endCursor;
  }
  for (const [made, cursor] of Object.entries(cursors)) {
    for (const [used, order] of Object.entries(productSorts)) {
      if (order === productSorts[made]) {
        // the same order (ID, RELEVANCE and BEST_SELLING are one) continues where the first page stopped
        const next = await data(page(used), { after: cursor });
        assert.equal(next.products.nodes.length, 2, `${made} -> ${used}`);
      } else {
        assert.equal(
          await inputErrorOf(page(used), { after: cursor }),
          "BAD_USER_INPUT",
          `${made} -> ${used}`,
        );
      }
    }
  }

  // a collection's products sort by the collection's own order by default, or by their own keys
  const collectionSorts: Record<string, string> = {
    COLLECTION_DEFAULT: "collection",
    MANUAL: "collection",
    RELEVANCE: "collection",
    BEST_SELLING: "collection",
    ID: "position",
    TITLE: "title",
    PRICE: "price",
    CREATED: "created",
  };
  const inCollection = (sort: string) =>
    `query($after: String) { collection(handle: "reading") { products(first: 1, sortKey: ${sort}, after: $after) {
      nodes { handle } pageInfo { endCursor } } } }`;
  for (const [sort, order] of Object.entries(collectionSorts)) {
    const cursor = (await data(inCollection(sort))).collection.products.pageInfo.endCursor;
    assert.equal(
      (await data(inCollection(sort), { after: cursor })).collection.products.nodes.length,
      1,
      sort,
    );
    for (const [used, other] of Object.entries(productSorts)) {
      if (other === order) continue;
      assert.equal(
        await inputErrorOf(page(used), { after: cursor }),
        "BAD_USER_INPUT",
        `collection ${sort} -> products ${used}`,
      );
    }
    const products = (await data(page("TITLE"))).products.pageInfo.endCursor;
    if (order !== "title") {
      assert.equal(
        await inputErrorOf(inCollection(sort), { after: products }),
        "BAD_USER_INPUT",
        `TITLE -> ${sort}`,
      );
    }
  }

  // collections: ID and RELEVANCE, TITLE, UPDATED_AT
  const collectionsPage = (sort: string) =>
    `query($before: String) { collections(last: 1, sortKey: ${sort}, before: $before) { nodes { handle } pageInfo { startCursor } } }`;
  const byTitle = (await data(collectionsPage("TITLE"))).collections.pageInfo.startCursor;
  assert.equal(await inputErrorOf(collectionsPage("UPDATED_AT"), { before: byTitle }), "BAD_USER_INPUT");
  assert.equal(await inputErrorOf(collectionsPage("ID"), { before: byTitle }), "BAD_USER_INPUT");
  assert.equal((await data(collectionsPage("TITLE"), { before: byTitle })).collections.nodes.length, 1);

  // forged cursors: our encoding, values SQL could not take
  const forge = (parts: unknown[]) =>
    btoa(JSON.stringify(parts)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  for (
    const [sort, parts] of [
      ["PRICE", ["price", "cheap", "tee"]],
      ["CREATED_AT", ["created", "not a time", "tee"]],
      ["UPDATED_AT", ["updated", 12, "tee"]],
      ["TITLE", ["title", "tee", null]],
      ["TITLE", ["x", "y"]],
    ] as [string, unknown[]][]
  ) {
    assert.equal(
      await inputErrorOf(page(sort), { after: forge(parts) }),
      "BAD_USER_INPUT",
      JSON.stringify(parts),
    );
  }
  assert.equal(
    await inputErrorOf(inCollection("COLLECTION_DEFAULT"), { after: forge(["collection", "NaN", "tee"]) }),
    "BAD_USER_INPUT",
  );
});

test("query searches one word over title, description and tags; a title: prefix is dropped; no match is empty", async () => {
  const q = `query($q: String) { products(first: 20, query: $q) { nodes { handle } } }`;
  assert.deepEqual(handles((await data(q, { q: "poster" })).products), ["poster"]);
  assert.deepEqual(handles((await data(q, { q: "title:Poster" })).products), ["poster"]);
  assert.deepEqual(handles((await data(q, { q: "cotton" })).products), ["tee"], "tags and body");
  assert.deepEqual(handles((await data(q, { q: "essays" })).products), ["night-garden"]);
  assert.deepEqual(handles((await data(q, { q: "zzzz" })).products), []);
  assert.deepEqual(
    handles((await data(q, { q: "100%" })).products),
    [],
    "LIKE wildcards are taken literally",
  );
});

test("product(id), product(handle) and productByHandle; an unknown or unpublished product is null", async () => {
  const q =
    `query($id: ID, $handle: String, $h: String!) { a: product(id: $id) { handle } b: product(handle: $handle) { handle } c: productByHandle(handle: $h) { id } }`;
  const d = await data(q, { id: "gid://shopify/Product/mug", handle: "poster", h: "tee" });
  assert.deepEqual(d, {
    a: { handle: "mug" },
    b: { handle: "poster" },
    c: { id: "gid://shopify/Product/tee" },
  });
  const gone = await data(q, { id: "gid://shopify/Product/retired-cap", handle: "unreleased", h: "nope" });
  assert.deepEqual(gone, { a: null, b: null, c: null });
  assert.deepEqual(await data(`{ product { handle } }`), { product: null });
});

test("a product's fields: options, variants, price ranges, images on the images door, seo, and the lacking platform fields", async () => {
  const d = await data(`{ productByHandle(handle: "poster") {
    id handle title description descriptionHtml productType vendor tags availableForSale isGiftCard createdAt updatedAt publishedAt
    onlineStoreUrl totalInventory requiresSellingPlan seo { title description }
    short: description(truncateAt: 12)
    options { id name values optionValues { name firstSelectableVariant { id } } }
    priceRange { minVariantPrice { amount currencyCode } maxVariantPrice { amount } }
    compareAtPriceRange { minVariantPrice { amount } maxVariantPrice { amount } }
    featuredImage { id url width height altText }
    images(first: 10) { nodes { url src originalSrc transformedSrc(maxWidth: 100) } }
    small: images(first: 1) { nodes { url(transform: { maxWidth: 120, maxHeight: 80, crop: CENTER, preferredContentType: WEBP }) } }
    variants(first: 10) { nodes { id title sku availableForSale currentlyNotInStock quantityAvailable requiresShipping weight weightUnit
      taxable barcode unitPrice { amount } unitPriceMeasurement { quantityValue } selectedOptions { name value }
      price { amount currencyCode } priceV2 { amount } compareAtPrice { amount } image { url } product { handle } } }
    metafield(key: "x") { value } metafields(identifiers: [{ namespace: "a", key: "b" }, { key: "c" }]) { value }
    sellingPlanGroups(first: 5) { nodes { name } }
    collections(first: 5) { nodes { handle } }
  } }`);
  const p = d.productByHandle;
  assert.equal(p.id, "gid://shopify/Product/poster");
  assert.equal(p.productType, "good");
  assert.equal(p.vendor, "Sitewire Demo");
  assert.deepEqual(p.tags, ["home", "print"]);
  assert.equal(p.description, "Printed on heavy matte paper.");
  assert.equal(p.short, "Printed on…");
  assert.equal(p.descriptionHtml, "<p>Printed on heavy matte paper.</p>");
  assert.deepEqual(p.seo, { title: "Mountain Poster", description: "A print of the mountain photo." });
  assert.deepEqual([
    p.availableForSale,
    p.isGiftCard,
    p.onlineStoreUrl,
    p.totalInventory,
    p.requiresSellingPlan,
  ], [true, false, null, null, false]);
  assert.deepEqual(p.options.map((o: any) => [o.name, o.values]), [["Size", ["A3", "A2"]]]);
  assert.equal(
    p.options[0].optionValues[1].firstSelectableVariant.id,
    "gid://shopify/ProductVariant/POSTER-01/a2",
  );
  assert.deepEqual(p.priceRange, {
    minVariantPrice: { amount: "19.5", currencyCode: "EUR" },
    maxVariantPrice: { amount: "19.5" },
  });
  assert.deepEqual(p.compareAtPriceRange, {
    minVariantPrice: { amount: "24.0" },
    maxVariantPrice: { amount: "24.0" },
  });
  assert.match(
    p.featuredImage.url,
    new RegExp(`^${host.baseUrl}/api/media/${host.space}/[^/]+/[0-9a-f]+/poster\\.png$`),
  );
  assert.equal(typeof p.featuredImage.width, "number");
  assert.match(p.featuredImage.id, /^gid:\/\/shopify\/ProductImage\//);
  // an image without a description of its own is described by its product's title
  assert.equal(p.featuredImage.altText, p.title);
  assert.equal(p.images.nodes.length, 2);
  assert.equal(p.images.nodes[0].src, p.images.nodes[0].url);
  assert.match(p.images.nodes[0].transformedSrc, /\?w=100$/);
  assert.match(p.small.nodes[0].url, /\?w=120&h=80&fit=fill&f=center&fm=webp$/);
  // the transformed address is served by the images door
  const image = await fetch(p.small.nodes[0].url);
  assert.equal(image.status, 200);
  assert.equal(image.headers.get("content-type"), "image/webp");
  await image.body?.cancel();

  const [a3, a2] = p.variants.nodes;
  assert.deepEqual(
    [
      a3.id,
      a3.title,
      a3.sku,
      a3.price,
      a3.priceV2.amount,
      a3.compareAtPrice.amount,
      a3.requiresShipping,
      a3.weight,
      a3.weightUnit,
    ],
    [
      "gid://shopify/ProductVariant/POSTER-01/a3",
      "A3",
      "POSTER-01",
      { amount: "19.5", currencyCode: "EUR" },
      "19.5",
      "24.0",
      true,
      0.1,
      "KILOGRAMS",
    ],
  );
  assert.deepEqual([
    a3.quantityAvailable,
    a3.currentlyNotInStock,
    a3.unitPrice,
    a3.unitPriceMeasurement,
    a3.barcode,
    a3.taxable,
  ], [null, false, null, null, null, true]);
  assert.deepEqual(a2.selectedOptions, [{ name: "Size", value: "A2" }]);
  assert.equal(a2.product.handle, "poster");
  assert.equal(a2.image.url, p.featuredImage.url);
  assert.equal(p.metafield, null);
  assert.deepEqual(p.metafields, [null, null]);
  assert.deepEqual(p.sellingPlanGroups.nodes, []);
  assert.deepEqual(handles(p.collections), ["home-goods"]);
});

test("a book: productType book, vendor the author, the cover as image, requiresShipping only for print", async () => {
  const d = await data(`{ productByHandle(handle: "field-guide") { productType vendor featuredImage { url }
    variants(first: 20) { nodes { title requiresShipping price { amount } } } } }`);
  const p = d.productByHandle;
  assert.equal(p.productType, "book");
  assert.equal(p.vendor, "Ada Example");
  assert.match(p.featuredImage.url, /field-guide\.png$/);
  assert.deepEqual(p.variants.nodes.map((v: any) => [v.title, v.requiresShipping, v.price.amount]), [
    ["Read online", false, "9.0"],
    ["Softcover", true, "29.0"],
    ["Hardcover", true, "29.0"],
    ["PDF", false, "12.0"],
    ["EPUB", false, "12.0"],
  ]);
});

test("variantBySelectedOptions: exact options, case-insensitive on request, unknown options ignored on request", async () => {
  const q =
    `query($h: String!, $o: [SelectedOptionInput!]!, $ci: Boolean, $ig: Boolean) { productByHandle(handle: $h) {
    variantBySelectedOptions(selectedOptions: $o, caseInsensitiveMatch: $ci, ignoreUnknownOptions: $ig) { id } } }`;
  const v = async (h: string, o: unknown[], ci = false, ig = false) =>
    (await data(q, { h, o, ci, ig })).productByHandle.variantBySelectedOptions?.id ?? null;
  assert.equal(await v("tee", [{ name: "Size", value: "M" }]), "gid://shopify/ProductVariant/TEE-01/m");
  assert.equal(await v("tee", [{ name: "size", value: "m" }]), null);
  assert.equal(await v("tee", [{ name: "size", value: "m" }], true), "gid://shopify/ProductVariant/TEE-01/m");
  assert.equal(await v("tee", [{ name: "Size", value: "M" }, { name: "Color", value: "Red" }]), null);
  assert.equal(
    await v("tee", [{ name: "Size", value: "M" }, { name: "Color", value: "Red" }], false, true),
    "gid://shopify/ProductVariant/TEE-01/m",
  );
  assert.equal(
    await v("letterpress-print", [
      { name: "Format", value: "Premium hardcover" },
      { name: "Contents", value: "Annotated" },
      { name: "Cloth", value: "Forest" },
      { name: "Foil", value: "Gold" },
    ]),
    "gid://shopify/ProductVariant/LP-LINEN/annotated.forest.gold",
  );
  assert.equal(
    await v("letterpress-print", [{ name: "Format", value: "Softcover" }, {
      name: "Cloth",
      value: "Forest",
    }]),
    null,
    "a softcover has no linen",
  );
  assert.equal(
    await v("field-guide", [{ name: "Format", value: "EPUB" }]),
    "gid://shopify/ProductVariant/FG-PDF-EPUB",
  );
});

test("collections: records' order, title sort, query; a collection lists its products in the record's order (by handle or sku)", async () => {
  const all = await data(
    `{ collections(first: 10) { nodes { id handle title description descriptionHtml updatedAt seo { title }
    image { id url } products(first: 10) { nodes { handle } } } pageInfo { hasNextPage } } }`,
  );
  assert.deepEqual(handles(all.collections), ["apparel", "home-goods", "reading"]);
  const home = all.collections.nodes[1];
  assert.equal(home.id, "gid://shopify/Collection/home-goods");
  assert.equal(home.description, "For the desk and the wall.");
  assert.equal(home.descriptionHtml, "<p>For the desk and the wall.</p>");
  assert.match(home.image.id, /^gid:\/\/shopify\/CollectionImage\//);
  assert.deepEqual(handles(home.products), ["mug", "poster"], "mug by handle, POSTER-01 by sku");
  assert.deepEqual(handles(all.collections.nodes[2].products), [
    "field-guide",
    "letterpress-print",
    "night-garden",
  ]);

  const titled = await data(`{ collections(first: 10, sortKey: TITLE, reverse: true) { nodes { handle } } }`);
  assert.deepEqual(handles(titled.collections), ["reading", "home-goods", "apparel"]);
  const found = await data(`{ collections(first: 10, query: "wear") { nodes { handle } } }`);
  assert.deepEqual(handles(found.collections), ["apparel"]);
  const byHandle = await data(
    `{ a: collection(handle: "reading") { handle } b: collection(id: "gid://shopify/Collection/apparel") { handle } c: collectionByHandle(handle: "nope") { handle } }`,
  );
  assert.deepEqual(byHandle, { a: { handle: "reading" }, b: { handle: "apparel" }, c: null });

  const sorted = await data(
    `{ collection(handle: "reading") { byPrice: products(first: 5, sortKey: PRICE) { nodes { handle } }
    paged: products(first: 2) { nodes { handle } pageInfo { hasNextPage endCursor } } } }`,
  );
  assert.deepEqual(handles(sorted.collection.byPrice), ["night-garden", "field-guide", "letterpress-print"]);
  assert.deepEqual(handles(sorted.collection.paged), ["field-guide", "letterpress-print"]);
  const rest = await data(
    `query($after: String) { collection(handle: "reading") { products(first: 2, after: $after) { nodes { handle } pageInfo { hasNextPage } } } }`,
    { after: sorted.collection.paged.pageInfo.endCursor },
  );
  assert.deepEqual(handles(rest.collection.products), ["night-garden"]);
  assert.equal(rest.collection.products.pageInfo.hasNextPage, false);
});

test("collections page like every connection (first/after, last/before, hasPreviousPage) and sort by UPDATED_AT", async () => {
  const q =
    `query($first: Int, $after: String, $last: Int, $before: String, $sort: CollectionSortKeys, $reverse: Boolean) {
    collections(first: $first, after: $after, last: $last, before: $before, sortKey: $sort, reverse: $reverse) {
      nodes { handle updatedAt } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;
  const p1 = (await data(q, { first: 2 })).collections;
  assert.deepEqual(handles(p1), ["apparel", "home-goods"]);
  assert.deepEqual([p1.pageInfo.hasNextPage, p1.pageInfo.hasPreviousPage], [true, false]);
  const p2 = (await data(q, { first: 2, after: p1.pageInfo.endCursor })).collections;
  assert.deepEqual(handles(p2), ["reading"]);
  assert.deepEqual([p2.pageInfo.hasNextPage, p2.pageInfo.hasPreviousPage], [false, true]);
  const last = (await data(q, { last: 1 })).collections;
  assert.deepEqual(handles(last), ["reading"]);
  assert.deepEqual([last.pageInfo.hasNextPage, last.pageInfo.hasPreviousPage], [false, true]);
  const before = (await data(q, { last: 2, before: last.pageInfo.startCursor })).collections;
  assert.deepEqual(handles(before), ["apparel", "home-goods"]);
  assert.equal(before.pageInfo.hasNextPage, true);

  const byUpdate = (await data(q, { first: 10, sort: "UPDATED_AT" })).collections.nodes;
  const keys = byUpdate.map((n: any) => `${n.updatedAt} ${n.handle}`);
  assert.deepEqual(keys, [...keys].sort(), "oldest change first, ties by handle");
  assert.equal(byUpdate.length, 3);
  const newestFirst = (await data(q, { first: 10, sort: "UPDATED_AT", reverse: true })).collections.nodes;
  assert.deepEqual(handles({ nodes: newestFirst }), handles({ nodes: byUpdate }).reverse());
  // and a page of it continues under the same sort
  const u1 = (await data(q, { first: 1, sort: "UPDATED_AT" })).collections;
  const u2 = (await data(q, { first: 2, sort: "UPDATED_AT", after: u1.pageInfo.endCursor })).collections;
  assert.deepEqual([...handles(u1), ...handles(u2)], handles({ nodes: byUpdate }));
});

test("CollectionConnection.totalCount counts every collection the query matches, not just the page, as a string of digits", async () => {
  const d = await data(
    `{ all: collections(first: 1) { totalCount nodes { handle } } found: collections(first: 5, query: "wear") { totalCount }
    none: collections(first: 5, query: "no-such-word") { totalCount }
    product(handle: "field-guide") { collections(first: 5) { totalCount } } }`,
  );
  assert.deepEqual(d.all, { totalCount: "3", nodes: [{ handle: "apparel" }] });
  assert.equal(d.found.totalCount, "1");
  assert.equal(d.none.totalCount, "0");
  assert.equal(d.product.collections.totalCount, "1");
});

test("node and nodes answer products, variants and collections by gid (order kept, null for unknown); __typename resolves", async () => {
  const d = await data(
    `{ node(id: "gid://shopify/ProductVariant/TEE-01/s") { __typename id ... on ProductVariant { title product { handle } } }
    nodes(ids: ["gid://shopify/Collection/apparel", "gid://shopify/Product/nope", "gid://shopify/Product/mug", "gid://shopify/Cart/x", "garbage"]) {
      __typename ... on Product { handle } ... on Collection { handle } } }`,
  );
  assert.deepEqual(d.node, {
    __typename: "ProductVariant",
    id: "gid://shopify/ProductVariant/TEE-01/s",
    title: "S",
    product: { handle: "tee" },
  });
  assert.deepEqual(d.nodes, [
    { __typename: "Collection", handle: "apparel" },
    null,
    { __typename: "Product", handle: "mug" },
    null,
    null,
  ]);
});

test("productRecommendations: other products of the same type in the records' order; null for an unknown product", async () => {
  const d = await data(`{ a: productRecommendations(productId: "gid://shopify/Product/tee") { handle }
    b: productRecommendations(productHandle: "night-garden") { handle } c: productRecommendations(productHandle: "nope") { handle } }`);
  assert.deepEqual(d.a.map((p: any) => p.handle), ["mug", "poster"]);
  assert.deepEqual(d.b.map((p: any) => p.handle), ["field-guide", "letterpress-print"]);
  assert.equal(d.c, null);
});

test("shop: name, description, domain, payment settings, ships-to countries, money format, policies from the storefront record", async () => {
  const d = await data(
    `{ shop { id name description moneyFormat shipsToCountries primaryDomain { host url sslEnabled }
    paymentSettings { currencyCode enabledPresentmentCurrencies countryCode acceptedCardBrands }
    refundPolicy { id title handle body url } shippingPolicy { title body } privacyPolicy { title } termsOfService { title } } }`,
  );
  const s = d.shop;
  assert.equal(s.name, "Sitewire Demo");
  assert.equal(s.description, "Things we make");
  assert.equal(s.moneyFormat, "€{{amount}}");
  assert.deepEqual(s.shipsToCountries, ["DE", "AT", "CH", "US"]);
  assert.deepEqual(s.primaryDomain, {
    host: new URL(host.baseUrl).host,
    url: host.baseUrl,
    sslEnabled: false,
  });
  assert.deepEqual([
    s.paymentSettings.currencyCode,
    s.paymentSettings.enabledPresentmentCurrencies,
    s.paymentSettings.countryCode,
  ], ["EUR", ["EUR"], "DE"]);
  assert.deepEqual([s.refundPolicy.title, s.refundPolicy.body], ["Refund policy", "30 days"]);
  assert.equal(s.shippingPolicy.body, "Flat rate within the EU");
  assert.equal(s.privacyPolicy, null);
  assert.equal(s.termsOfService, null);
});

test("localization and @inContext: the site's languages and ships-to countries; language DE answers German titles", async () => {
  const d = await data(
    `{ localization { country { isoCode name currency { isoCode symbol } unitSystem } language { isoCode }
    availableCountries { isoCode unitSystem } availableLanguages { isoCode endonymName } market { handle } } }`,
  );
  const l = d.localization;
  assert.deepEqual(l.availableCountries.map((c: any) => c.isoCode), ["DE", "AT", "CH", "US"]);
  assert.equal(l.availableCountries[3].unitSystem, "IMPERIAL_SYSTEM");
  assert.deepEqual(l.availableLanguages.map((x: any) => x.isoCode), ["EN", "DE"]);
  assert.equal(l.availableLanguages[1].endonymName, "Deutsch");
  assert.deepEqual([l.country.isoCode, l.country.currency.isoCode, l.language.isoCode], ["DE", "EUR", "EN"]);

  const de = await data(
    `query @inContext(language: DE, country: AT) { productByHandle(handle: "tee") { title description }
    localization { country { isoCode name } language { isoCode } } }`,
  );
  assert.equal(de.productByHandle.title, "Sitewire T-Shirt");
  assert.equal(de.productByHandle.description, "Auf Bio-Baumwolle gedruckt.");
  assert.deepEqual([
    de.localization.country.isoCode,
    de.localization.country.name,
    de.localization.language.isoCode,
  ], ["AT", "Österreich", "DE"]);
  // a language the site lacks falls back to the default locale
  const fr = await data(`query @inContext(language: FR) { productByHandle(handle: "tee") { title } }`);
  assert.equal(fr.productByHandle.title, "Sitewire Tee");
});

test("Accept-Language picks the language where no @inContext(language:) does (shopify-buy's language option); * and languages the site lacks answer the default", async () => {
  const q = `{ productByHandle(handle: "tee") { title } localization { language { isoCode } } }`;
  const titleIn = async (acceptLanguage: string, query = q) => {
    const r = await gql(query, undefined, { headers: { "accept-language": acceptLanguage } });
    assert.equal(r.status, 200);
    return [r.body.data.productByHandle.title, r.body.data.localization.language.isoCode];
  };
  assert.deepEqual(await titleIn("de-DE"), ["Sitewire T-Shirt", "DE"]);
  assert.deepEqual(await titleIn("fr-FR, de;q=0.8, en;q=0.5"), ["Sitewire T-Shirt", "DE"]);
  assert.deepEqual(await titleIn("en;q=0.4, de;q=0.9"), ["Sitewire T-Shirt", "DE"]);
  assert.deepEqual(await titleIn("*"), ["Sitewire Tee", "EN"]);
  assert.deepEqual(await titleIn("fr-FR"), ["Sitewire Tee", "EN"]);
  assert.deepEqual(await titleIn("de;q=0"), ["Sitewire Tee", "EN"]);
  assert.deepEqual(
    await titleIn("de-DE", `query @inContext(language: EN) ${q}`),
    ["Sitewire Tee", "EN"],
    "@inContext wins",
  );
});

test("productTags and productTypes list what the catalog holds", async () => {
  const d = await data(
    `{ productTags(first: 50) { edges { node } } productTypes(first: 10) { edges { node } } }`,
  );
  const tags = d.productTags.edges.map((e: any) => e.node);
  for (const tag of ["apparel", "cotton", "craft", "essays", "home", "print", "web"]) {
    assert.ok(tags.includes(tag), tag);
  }
  assert.deepEqual(tags, [...tags].sort());
  assert.deepEqual(d.productTypes.edges.map((e: any) => e.node), ["book", "good"]);
});

test("a page of products costs a fixed number of queries, however many products it holds (batch loading)", async () => {
  // the store app over its own pool, which counts every statement it runs
  let statements = 0;
  const sql = postgres(testDatabaseUrl(), {
    max: 4,
    debug: () => statements++,
    onnotice: () => {},
  }) as unknown as Sql;
  // keeping no answers (ANSWER_CACHE_MB=0): each request builds its answer, which is what is counted
  const ctx = { ...host.ctx, sql, config: { ...host.ctx.config, answerCacheBytes: 0 } };
  const app = createStorefrontApp(ctx, { forward: () => Promise.resolve(undefined) });
  const key = await host.key("storefront");
  const query = (first: number) =>
    `{ products(first: ${first}) { nodes { handle featuredImage { url } images(first: 5) { nodes { url } }
      collections(first: 5) { nodes { handle image { url } products(first: 5) { nodes { handle featuredImage { url } } } } }
      variants(first: 50) { nodes { image { url } product { handle } } } } } }`;
  const count = async (first: number) => {
    statements = 0;
    const res = await app.request(`${host.baseUrl}/api/2024-10/graphql.json`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-shopify-storefront-access-token": key },
      body: JSON.stringify({ query: query(first) }),
    });
    const body = await res.json();
    assert.equal(body.errors, undefined, JSON.stringify(body.errors));
    assert.equal(body.data.products.nodes.length, first);
    return statements;
  };
  try {
    await count(1); // the driver's first statements on a new connection (type lookups) are not the query's
    const one = await count(1);
    const six = await count(6);
    assert.equal(six, one, `1 product: ${one} statements, 6 products: ${six}`);
    assert.ok(six <= 10, `${six} statements`);
  } finally {
    await sql.end();
  }
});
