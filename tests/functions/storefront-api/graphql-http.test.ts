// The Store API's HTTP surface: addresses (both endpoints, any version, the function address, GET),
// the auth matrix, the 400 shapes, faults in a query as GraphQL errors, introspection, CORS, and the
// depth and cost limits.
import assert from "node:assert/strict";
import { getIntrospectionQuery } from "graphql";
import { test } from "../../helpers/test.ts";
import postgres from "postgres";
import type { Sql } from "../../../shared/db.ts";
import { hashKey } from "../../../shared/keys.ts";
import { createStorefrontApp } from "../../../functions/storefront-api/app.ts";
import { testDatabaseUrl } from "../../helpers/db.ts";
import { endpoint, gql, host, storefrontKey } from "./support.ts";

const SHOP = "{ shop { name } }";

test("the endpoint answers at /api/store/api/<version>/graphql.json, /api/<version>/graphql(.json) and the function address, any version", async () => {
  for (
    const url of [
      `${host.baseUrl}/api/store/api/2024-10/graphql.json`,
      `${host.baseUrl}/api/2025-01/graphql.json`,
      `${host.baseUrl}/api/unstable/graphql.json`,
      `${host.baseUrl}/api/1999-01/graphql`,
      `${host.baseUrl}/api/store/api/2025-01/graphql`,
      `${host.baseUrl}/functions/v1/storefront-api/api/2024-10/graphql.json`,
    ]
  ) {
    const r = await gql(SHOP, undefined, { url });
    assert.equal(r.status, 200, url);
    assert.equal(r.body.data.shop.name, "Sitewire Demo", url);
    assert.match(r.headers.get("content-type")!, /^application\/json/);
    assert.ok(r.headers.get("x-request-id"));
  }
});

test("GET with query and JSON variables answers like POST; a mutation over GET is 405", async () => {
  const q = encodeURIComponent("query($h: String!) { productByHandle(handle: $h) { handle } }");
  const v = encodeURIComponent(JSON.stringify({ h: "tee" }));
  const r = await fetch(`${endpoint}?query=${q}&variables=${v}`, {
    headers: { "x-shopify-storefront-access-token": storefrontKey },
  });
  assert.equal(r.status, 200);
  assert.deepEqual(await r.json(), { data: { productByHandle: { handle: "tee" } } });

  const m = encodeURIComponent("mutation { cartCreate { cart { id } } }");
  const refused = await fetch(`${endpoint}?query=${m}`, {
    headers: { "x-shopify-storefront-access-token": storefrontKey },
  });
  assert.equal(refused.status, 405);
  assert.equal((await refused.json()).errors[0].extensions.code, "METHOD_NOT_ALLOWED");

  const badVariables = await fetch(`${endpoint}?query=${q}&variables=%7Bnope`, {
    headers: { "x-shopify-storefront-access-token": storefrontKey },
  });
  assert.equal(badVariables.status, 400);
  assert.equal(typeof (await badVariables.json()).errors[0].message, "string");

  for (const search of ["", "?query=", `?variables=${v}`]) {
    const noQuery = await fetch(`${endpoint}${search}`, {
      headers: { "x-shopify-storefront-access-token": storefrontKey },
    });
    assert.equal(noQuery.status, 400, search);
    assert.equal((await noQuery.json()).errors[0].extensions.code, "BAD_REQUEST", search);
  }
});

test("auth matrix: no key and a revoked key are 401, another kind is 403, a storefront key is 200 (each header it may come in)", async () => {
  const noKey = await gql(SHOP, undefined, { key: null });
  assert.equal(noKey.status, 401);
  assert.equal(typeof noKey.body.errors[0].message, "string");

  const revoked = await gql(SHOP, undefined, { key: await host.revokedKey("storefront") });
  assert.equal(revoked.status, 401);
  assert.equal(typeof revoked.body.errors[0].message, "string");

  const unknown = await gql(SHOP, undefined, { key: "pk_storefront_00000000000000000000000000000000" });
  assert.equal(unknown.status, 401);

  for (const kind of ["delivery", "preview", "management", "forms", "scheduling", "support"] as const) {
    const other = await gql(SHOP, undefined, { key: await host.key(kind) });
    assert.equal(other.status, 403, kind);
    assert.equal(typeof other.body.errors[0].message, "string");
  }

  for (
    const header of [
      "x-shopify-storefront-access-token",
      "x-vendor-storefront-access-token",
      "shopify-storefront-private-token",
    ]
  ) {
    const r = await gql(SHOP, undefined, { key: null, headers: { [header]: storefrontKey } });
    assert.equal(r.status, 200, header);
  }
  const bearer = await gql(SHOP, undefined, {
    key: null,
    headers: { authorization: `Bearer ${storefrontKey}` },
  });
  assert.equal(bearer.status, 200);

  // a bearer of another kind is that kind; a token that is no key at all is no key
  const otherBearer = await gql(SHOP, undefined, {
    key: null,
    headers: { authorization: `Bearer ${await host.key("delivery")}` },
  });
  assert.equal(otherBearer.status, 403);
  assert.equal(typeof otherBearer.body.errors[0].message, "string");
  for (const garbage of ["hello", "pk_storefront_", "Bearer"]) {
    const r = await gql(SHOP, undefined, { key: garbage });
    assert.equal(r.status, 401, garbage);
    assert.equal(typeof r.body.errors[0].message, "string");
  }

  // the key is taken from headers only, as Shopify's clients send it: never from the address
  const inQuery = await fetch(`${endpoint}?query=${encodeURIComponent(SHOP)}&access_token=${storefrontKey}`);
  assert.equal(inQuery.status, 401);
  assert.equal(typeof (await inQuery.json()).errors[0].message, "string");
  const postedWithQueryKey = await fetch(`${endpoint}?access_token=${storefrontKey}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: SHOP }),
  });
  assert.equal(postedWithQueryKey.status, 401);
  await postedWithQueryKey.body?.cancel();
});

test("a body that is not JSON, not an object, or without a query is 400 with { errors: [ { message } ] }", async () => {
  const post = async (body: string, type = "application/json") => {
    const res = await fetch(endpoint, {
      method: "POST",
      headers: { "content-type": type, "x-shopify-storefront-access-token": storefrontKey },
      body,
    });
    return { status: res.status, body: await res.json() };
  };
  for (
    const body of [
      "{nope",
      "[]",
      "null",
      "{}",
      '{"query": 42}',
      '{"query": ""}',
      '{"query": "{ shop { name } }", "variables": [1]}',
      '{"query": "{ shop { name } }", "operationName": 3}',
    ]
  ) {
    const r = await post(body);
    assert.equal(r.status, 400, body);
    assert.equal(typeof r.body.errors[0].message, "string", body);
  }
  const raw = await post("{ shop { name } }", "application/graphql");
  assert.equal(raw.status, 200);
  assert.equal(raw.body.data.shop.name, "Sitewire Demo");
});

test("faults in the query itself are HTTP 200 with GraphQL errors: syntax, unknown fields, bad variables, bad arguments", async () => {
  const syntax = await gql("{ shop { name ");
  assert.equal(syntax.status, 200);
  assert.equal(syntax.body.errors[0].extensions.code, "GRAPHQL_PARSE_FAILED");
  assert.equal(syntax.body.data, undefined);

  const unknown = await gql("{ shop { nope } }");
  assert.equal(unknown.status, 200);
  assert.equal(unknown.body.errors[0].extensions.code, "GRAPHQL_VALIDATION_FAILED");

  const missing = await gql("query($first: Int!) { products(first: $first) { nodes { id } } }", {});
  assert.equal(missing.status, 200);
  assert.match(missing.body.errors[0].message, /\$first/);

  const range = await gql("{ products(first: 251) { nodes { id } } }");
  assert.equal(range.status, 200);
  assert.equal(range.body.errors[0].extensions.code, "BAD_USER_INPUT");
  assert.deepEqual(range.body.errors[0].path, ["products"]);

  const cursor = await gql('{ products(first: 2, after: "not-a-cursor") { nodes { id } } }');
  assert.equal(cursor.status, 200);
  assert.equal(cursor.body.errors[0].extensions.code, "BAD_USER_INPUT");

  const unknownOperation = await gql("query A { shop { name } } query B { shop { name } }");
  assert.equal(unknownOperation.status, 200);
  assert.equal(unknownOperation.body.errors[0].extensions.code, "GRAPHQL_VALIDATION_FAILED");
  const named = await fetch(endpoint, {
    method: "POST",
    headers: { "content-type": "application/json", "x-shopify-storefront-access-token": storefrontKey },
    body: JSON.stringify({ query: "query A { shop { name } } query B { shop { id } }", operationName: "B" }),
  });
  assert.deepEqual(Object.keys((await named.json()).data.shop), ["id"]);
});

test("introspection is on and the schema carries the Storefront API's root names and types", async () => {
  const r = await gql(getIntrospectionQuery());
  assert.equal(r.status, 200, JSON.stringify(r.body.errors));
  const schema = r.body.data.__schema;
  assert.equal(schema.queryType.name, "QueryRoot");
  assert.equal(schema.mutationType.name, "Mutation");
  const types = new Map(schema.types.map((t: any) => [t.name, t]));
  for (
    const name of [
      "Product",
      "ProductVariant",
      "Collection",
      "Cart",
      "CartLine",
      "BaseCartLine",
      "CartUserError",
      "MoneyV2",
      "Shop",
      "Localization",
      "Node",
      "ProductSortKeys",
      "CurrencyCode",
      "CountryCode",
      "WeightUnit",
      "CropRegion",
    ]
  ) {
    assert.ok(types.has(name), name);
  }
  const sortKeys = (types.get("ProductSortKeys") as any).enumValues.map((v: any) => v.name);
  for (const key of ["TITLE", "PRICE", "CREATED_AT", "UPDATED_AT", "BEST_SELLING", "RELEVANCE", "ID"]) {
    assert.ok(sortKeys.includes(key), key);
  }
  const errorCodes = (types.get("CartErrorCode") as any).enumValues.map((v: any) => v.name);
  for (const code of ["INVALID", "INVALID_MERCHANDISE_LINE", "QUANTITY_MUST_BE_POSITIVE"]) {
    assert.ok(errorCodes.includes(code));
  }
  const queryRoot = types.get("QueryRoot") as any;
  for (
    const field of [
      "shop",
      "product",
      "productByHandle",
      "products",
      "collection",
      "collectionByHandle",
      "collections",
      "cart",
      "node",
      "nodes",
      "productRecommendations",
      "localization",
    ]
  ) {
    assert.ok(queryRoot.fields.some((f: any) => f.name === field), field);
  }
  const mutation = types.get("Mutation") as any;
  for (
    const field of [
      "cartCreate",
      "cartLinesAdd",
      "cartLinesUpdate",
      "cartLinesRemove",
      "cartBuyerIdentityUpdate",
      "cartAttributesUpdate",
      "cartNoteUpdate",
    ]
  ) {
    assert.ok(mutation.fields.some((f: any) => f.name === field), field);
  }
});

test("a query nested deeper than 15 levels is refused with MAX_DEPTH_EXCEEDED", async () => {
  let inner = "id";
  for (let i = 0; i < 8; i++) inner = `variants(first: 1) { nodes { product { ${inner} } } }`;
  const r = await gql(`{ products(first: 1) { nodes { ${inner} } } }`);
  assert.equal(r.status, 200);
  assert.equal(r.body.data, undefined);
  assert.equal(r.body.errors[0].extensions.code, "MAX_DEPTH_EXCEEDED");
});

test("lists nested in lists to multiply work are refused with MAX_COMPLEXITY_EXCEEDED before anything runs", async () => {
  const nested =
    `{ products(first: 250) { nodes { collections(first: 250) { nodes { products(first: 250) { nodes { id title } } } } } } }`;
  const r = await gql(nested);
  assert.equal(r.status, 200);
  assert.equal(r.body.data, undefined);
  assert.equal(r.body.errors[0].extensions.code, "MAX_COMPLEXITY_EXCEEDED");

  // the same small query under many aliases adds up too
  const aliases = Array.from(
    { length: 120 },
    (_, i) => `a${i}: products(first: 250) { nodes { variants(first: 100) { nodes { price { amount } } } } }`,
  ).join(" ");
  const many = await gql(`{ ${aliases} }`);
  assert.equal(many.body.errors[0].extensions.code, "MAX_COMPLEXITY_EXCEEDED");

  // nodes(ids:) counts each id
  const ids = Array.from({ length: 251 }, (_, i) => `"gid://shopify/Product/p${i}"`).join(",");
  const tooMany = await gql(`{ nodes(ids: [${ids}]) { id } }`);
  assert.equal(tooMany.status, 200);
  assert.ok(tooMany.body.errors.length > 0);

  // introspection nested to multiply is refused (graphql-js's own introspection depth rule)...
  const deepIntro =
    `{ __schema { types { fields { type { fields { type { fields { type { fields { name } } } } } } } } } }`;
  const intro = await gql(deepIntro);
  assert.equal(intro.body.data, undefined);
  assert.ok(intro.body.errors.length > 0);
  // ...and introspection under many aliases counts by the schema's sizes
  const introAliases = Array.from(
    { length: 200 },
    (_, i) => `i${i}: __schema { types { fields { args { type { name } } } enumValues { name } } }`,
  ).join(" ");
  const heavy = await gql(`{ ${introAliases} }`);
  assert.equal(heavy.body.errors[0].extensions.code, "MAX_COMPLEXITY_EXCEEDED");
});

/** The carts a key made (so tests running beside this one do not count). */
async function cartsOf(key: string): Promise<number> {
  const hash = await hashKey(key);
  const [{ n }] = await host.ctx.sql<{ n: number }[]>`
    select count(*)::int as n from public.storefront_carts c join public.api_keys k on k.id = c.key_id
    where k.hash = ${hash}`;
  return n;
}

test("an operation runs at most 10 mutation fields: aliased mutations beyond are refused (MAX_MUTATIONS_EXCEEDED) and none of them ran", async () => {
  const key = await host.key("storefront");
  const creates = (n: number) =>
    `mutation { ${Array.from({ length: n }, (_, i) => `c${i}: cartCreate { cart { id } }`).join(" ")} }`;

  const refused = await gql(creates(11), undefined, { key });
  assert.equal(refused.status, 200);
  assert.equal(refused.body.data, undefined);
  assert.deepEqual(refused.body.errors.map((e: any) => e.extensions.code), ["MAX_MUTATIONS_EXCEEDED"]);
  assert.equal(await cartsOf(key), 0, "no cart was made");

  // a fragment on Mutation counts its fields too
  const viaFragment = await gql(
    `mutation { ...Make } fragment Make on Mutation { ${
      Array.from({ length: 11 }, (_, i) => `f${i}: cartCreate { cart { id } }`).join(" ")
    } }`,
    undefined,
    { key },
  );
  assert.equal(viaFragment.body.errors[0].extensions.code, "MAX_MUTATIONS_EXCEEDED");

  // thousands of them weigh far over the cost limit as well
  const flood = await gql(creates(2000), undefined, { key });
  assert.deepEqual(flood.body.errors.map((e: any) => e.extensions.code).sort(), [
    "MAX_COMPLEXITY_EXCEEDED",
    "MAX_MUTATIONS_EXCEEDED",
  ]);
  assert.ok(
    flood.body.errors.find((e: any) => e.extensions.code === "MAX_COMPLEXITY_EXCEEDED").extensions.cost >=
      2000 * 1000,
    "each mutation weighs like a thousand objects",
  );
  assert.equal(await cartsOf(key), 0, "still no cart");

  const allowed = await gql(creates(10), undefined, { key });
  assert.equal(allowed.body.errors, undefined, JSON.stringify(allowed.body.errors));
  assert.equal(Object.keys(allowed.body.data).length, 10);
  assert.equal(await cartsOf(key), 10);
});

test("aliased cartLinesAdd beyond the cap change nothing", async () => {
  const cart = (await gql(`mutation { cartCreate { cart { id } } }`)).body.data.cartCreate.cart;
  const adds = Array.from(
    { length: 11 },
    (_, i) => `a${i}: cartLinesAdd(cartId: $c, lines: $l) { cart { id } }`,
  )
    .join(" ");
  const r = await gql(`mutation($c: ID!, $l: [CartLineInput!]!) { ${adds} }`, {
    c: cart.id,
    l: [{ merchandiseId: "gid://shopify/ProductVariant/MUG-01" }],
  });
  assert.equal(r.body.errors[0].extensions.code, "MAX_MUTATIONS_EXCEEDED");
  const read = await gql(`query($id: ID!) { cart(id: $id) { totalQuantity } }`, { id: cart.id });
  assert.equal(read.body.data.cart.totalQuantity, 0, "no line was added");
});

test("aliased cart(id) reads weigh what pricing a whole cart costs: many are refused before anything runs; those allowed share one query", async () => {
  const cart = (await gql(
    `mutation { cartCreate(input: { lines: [{ merchandiseId: "gid://shopify/ProductVariant/MUG-01" }] }) { cart { id } } }`,
  ))
    .body.data.cartCreate.cart;
  const reads = (n: number) =>
    `query($c: ID!) { ${
      Array.from({ length: n }, (_, i) => `r${i}: cart(id: $c) { totalQuantity }`).join(" ")
    } }`;
  const refused = await gql(reads(1200), { c: cart.id });
  assert.equal(refused.body.data, undefined);
  assert.equal(refused.body.errors[0].extensions.code, "MAX_COMPLEXITY_EXCEEDED");

  // the reads of one request are one query, however many aliases (the store app over a counting pool)
  let statements = 0;
  const sql = postgres(testDatabaseUrl(), {
    max: 2,
    debug: () => statements++,
    onnotice: () => {},
  }) as unknown as Sql;
  const app = createStorefrontApp({ ...host.ctx, sql }, { forward: () => Promise.resolve(undefined) });
  const count = async (n: number) => {
    statements = 0;
    const res = await app.request(`${host.baseUrl}/api/2024-10/graphql.json`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-shopify-storefront-access-token": storefrontKey },
      body: JSON.stringify({ query: reads(n), variables: { c: cart.id } }),
    });
    const body = await res.json();
    assert.equal(body.errors, undefined, JSON.stringify(body.errors));
    assert.equal(Object.values(body.data).filter((c: any) => c.totalQuantity === 1).length, n);
    return statements;
  };
  try {
    await count(1); // a new connection's first statements (type lookups) are not the query's
    const one = await count(1);
    const many = await count(200);
    assert.equal(many, one, `1 read: ${one} statements, 200 reads: ${many}`);
  } finally {
    await sql.end();
  }
});

test("a query document over 100 000 bytes is refused without parsing", async () => {
  const r = await gql(`{ shop { name } } # ${"x".repeat(100_001)}`);
  assert.equal(r.status, 200);
  assert.equal(r.body.errors[0].extensions.code, "MAX_QUERY_SIZE_EXCEEDED");
});

test("CORS: preflights allow the clients' headers from any origin; answers carry Access-Control-Allow-Origin", async () => {
  const pre = await fetch(endpoint, {
    method: "OPTIONS",
    headers: {
      origin: "https://elsewhere.example",
      "access-control-request-method": "POST",
      "access-control-request-headers":
        "content-type,x-shopify-storefront-access-token,x-sdk-variant,x-sdk-version",
    },
  });
  await pre.body?.cancel();
  assert.ok(pre.status === 204 || pre.status === 200);
  assert.equal(pre.headers.get("access-control-allow-origin"), "*");
  const allowed = pre.headers.get("access-control-allow-headers")!.toLowerCase();
  for (
    const h of [
      "x-shopify-storefront-access-token",
      "x-sdk-variant",
      "x-sdk-version",
      "content-type",
      "authorization",
    ]
  ) {
    assert.ok(allowed.includes(h), h);
  }
  const r = await gql(SHOP, undefined, { headers: { origin: "https://elsewhere.example" } });
  assert.equal(r.headers.get("access-control-allow-origin"), "*");
  // refusals too: a browser shows a client the status (networkStatusCode) only of an answer it may read
  const origin = { origin: "https://elsewhere.example" };
  const refusals = [
    await gql(SHOP, undefined, { key: null, headers: origin }),
    await gql(SHOP, undefined, { key: await host.key("delivery"), headers: origin }),
    await gql("{ shop { nope } }", undefined, { headers: origin }),
  ];
  assert.deepEqual(refusals.map((a) => a.status), [401, 403, 200]);
  for (const refused of refusals) assert.equal(refused.headers.get("access-control-allow-origin"), "*");
  const notJson = await fetch(endpoint, {
    method: "POST",
    headers: {
      ...origin,
      "content-type": "application/json",
      "x-shopify-storefront-access-token": storefrontKey,
    },
    body: "{nope",
  });
  await notJson.body?.cancel();
  assert.equal(notJson.status, 400);
  assert.equal(notJson.headers.get("access-control-allow-origin"), "*");

  // every other address of the store answers its preflight alike
  for (
    const path of [
      "/api/carts/00000000000000000000000000000000",
      "/api/store/carts/00000000000000000000000000000000",
      "/api/2025-01/graphql",
      "/api/store/api/2024-10/graphql",
      "/api/store/checkout",
      "/api/store/sign-in",
      "/functions/v1/storefront-api/api/2024-10/graphql.json",
    ]
  ) {
    const preflight = await fetch(`${host.baseUrl}${path}`, {
      method: "OPTIONS",
      headers: {
        origin: "https://elsewhere.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,x-shopify-storefront-access-token",
      },
    });
    await preflight.body?.cancel();
    assert.equal(preflight.status, 204, path);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "*", path);
    assert.ok(
      preflight.headers.get("access-control-allow-headers")!.toLowerCase().includes(
        "x-shopify-storefront-access-token",
      ),
      path,
    );
  }
});

test("an unknown path of the function is a 404 in the API's shape", async () => {
  const r = await fetch(`${host.baseUrl}/api/store/nothing-here`, {
    headers: { "x-shopify-storefront-access-token": storefrontKey },
  });
  assert.equal(r.status, 404);
  assert.equal(typeof (await r.json()).errors[0].message, "string");
});
