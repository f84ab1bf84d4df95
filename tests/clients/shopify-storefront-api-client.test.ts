// The real @shopify/storefront-api-client against the running host, queries as its users write them.
// The client keeps only the origin of storeDomain and forces https; the loopback host speaks http, so
// the one thing given to the client is a fetch that takes the same request over http (customFetchApi,
// the client's own option for supplying fetch). Everything the client sends and reads is unchanged.
import assert from "node:assert/strict";
import { createStorefrontApiClient } from "@shopify/storefront-api-client";
import { test } from "../helpers/test.ts";
import { testHost } from "../helpers/host.ts";
import { fixedClock } from "../../shared/clock.ts";
import { createStorefrontApp } from "../../functions/storefront-api/app.ts";

const host = await testHost();
const key = await host.key("storefront");
const sent: { url: string; headers: Headers }[] = [];
const overHttp = (url: string | URL | Request, init?: RequestInit) => {
  const address = String(url).replace(/^https:/, "http:");
  sent.push({ url: address, headers: new Headers(init?.headers) });
  return fetch(address, init);
};

function client(
  options: { publicAccessToken?: string; privateAccessToken?: string; apiVersion?: string } = {
    publicAccessToken: key,
  },
) {
  return createStorefrontApiClient({
    storeDomain: `${host.baseUrl}/ignored/path`,
    apiVersion: options.apiVersion ?? "2024-10",
    ...(options.privateAccessToken
      ? { privateAccessToken: options.privateAccessToken }
      : { publicAccessToken: options.publicAccessToken! }),
    customFetchApi: overHttp as never,
    logger: () => {},
  } as never);
}

test("a products query with variables: data as the client returns it, sent to /api/<version>/graphql.json with the SDK's headers", async () => {
  const { data, errors } = await client().request(
    `query Products($first: Int!) { products(first: $first, sortKey: TITLE) { edges { node { title handle
      priceRange { minVariantPrice { amount currencyCode } } variants(first: 5) { nodes { id title price { amount } } } } } } }`,
    { variables: { first: 3 } },
  );
  assert.equal(errors, undefined);
  const titles = data.products.edges.map((e: any) => e.node.title);
  assert.deepEqual(
    titles,
    [...titles].sort((a: string, b: string) => a.toLowerCase().localeCompare(b.toLowerCase())),
  );
  assert.equal(data.products.edges.length, 3);
  const last = sent[sent.length - 1];
  assert.equal(new URL(last.url).pathname, "/api/2024-10/graphql.json", "the path of storeDomain is dropped");
  assert.equal(last.headers.get("x-shopify-storefront-access-token"), key);
  assert.equal(last.headers.get("x-sdk-variant"), "storefront-api-client");
});

test("a cart made and filled through the client; amounts in Shopify's decimal form", async () => {
  const c = client();
  const created = await c.request(
    `mutation Create($input: CartInput!) { cartCreate(input: $input) { cart { id checkoutUrl totalQuantity } userErrors { code field message } warnings { code } } }`,
    {
      variables: {
        input: { lines: [{ merchandiseId: "gid://shopify/ProductVariant/TEE-01/m", quantity: 1 }] },
      },
    },
  );
  assert.deepEqual(created.data.cartCreate.userErrors, []);
  const cartId = created.data.cartCreate.cart.id;
  const added = await c.request(
    `mutation Add($cartId: ID!, $lines: [CartLineInput!]!) { cartLinesAdd(cartId: $cartId, lines: $lines) {
      cart { totalQuantity cost { totalAmount { amount currencyCode } } } userErrors { code } } }`,
    {
      variables: {
        cartId,
        lines: [{ merchandiseId: "gid://shopify/ProductVariant/POSTER-01/a2", quantity: 2 }],
      },
    },
  );
  assert.equal(added.data.cartLinesAdd.cart.totalQuantity, 3);
  assert.deepEqual(added.data.cartLinesAdd.cart.cost.totalAmount, { amount: "64.0", currencyCode: "EUR" });
  const read = await c.request(
    `query Cart($id: ID!) { cart(id: $id) { checkoutUrl lines(first: 10) { nodes { quantity } } } }`,
    { variables: { id: cartId } },
  );
  assert.equal(read.data.cart.checkoutUrl, created.data.cartCreate.cart.checkoutUrl);
});

test("a fault in the query comes back as the client's graphQLErrors (HTTP 200)", async () => {
  const { data, errors } = await client().request(`query { shop { nonsense } }`);
  assert.equal(data, undefined);
  assert.equal(errors?.networkStatusCode, 200);
  assert.ok(errors?.graphQLErrors?.length);
  assert.match(errors!.graphQLErrors![0].message, /nonsense/);
});

test("a revoked key is the client's networkStatusCode 401; a key of another kind 403", async () => {
  const revoked = await client({ publicAccessToken: await host.revokedKey("storefront") }).request(
    `{ shop { name } }`,
  );
  assert.equal(revoked.errors?.networkStatusCode, 401);
  const other = await client({ publicAccessToken: await host.key("delivery") }).request(`{ shop { name } }`);
  assert.equal(other.errors?.networkStatusCode, 403);
});

test("any API version is accepted, per client and per request; a private token works server side", async () => {
  const { data } = await client({ publicAccessToken: key, apiVersion: "2025-01" }).request(
    `{ shop { name } }`,
    { apiVersion: "unstable" },
  );
  assert.equal(data.shop.name, "Sitewire Demo");
  assert.equal(new URL(sent[sent.length - 1].url).pathname, "/api/unstable/graphql.json");
  const priv = await client({ privateAccessToken: key }).request(`{ shop { name } }`);
  assert.equal(priv.data.shop.name, "Sitewire Demo");
  assert.equal(sent[sent.length - 1].headers.get("shopify-storefront-private-token"), key);
});

test("paging as the client's users do: endCursor into after until hasNextPage is false; client.fetch answers the raw JSON", async () => {
  const c = client();
  const query =
    `query Page($first: Int!, $after: String) { products(first: $first, after: $after) { pageInfo { hasNextPage endCursor } nodes { handle } } }`;
  const seen: string[] = [];
  let after: string | null = null;
  for (let page = 0; page < 5; page++) {
    const { data, errors }: any = await c.request(query, { variables: { first: 4, after } });
    assert.equal(errors, undefined);
    seen.push(...data.products.nodes.map((n: any) => n.handle));
    if (!data.products.pageInfo.hasNextPage) break;
    after = data.products.pageInfo.endCursor;
  }
  assert.deepEqual(seen, ["field-guide", "letterpress-print", "night-garden", "mug", "poster", "tee"]);
  const raw = await c.fetch(`{ shop { name } }`);
  assert.equal(raw.status, 200);
  assert.match(raw.headers.get("content-type")!, /application\/json/);
  assert.deepEqual(await raw.json(), { data: { shop: { name: "Sitewire Demo" } } });
});

test("a throttled key: the client retries the 429 as many times as asked (Retry-After), then answers networkStatusCode 429", async () => {
  // one visitor within one second of a fixed clock, so the per-second limit is reached for sure
  const app = createStorefrontApp({ ...host.ctx, clock: fixedClock(new Date()) }, {
    forward: () => Promise.resolve(undefined),
  });
  let sentCount = 0;
  const throttled = createStorefrontApiClient({
    storeDomain: host.baseUrl,
    apiVersion: "2025-01",
    publicAccessToken: await host.key("storefront"),
    retries: 2,
    customFetchApi: ((url: string, init: RequestInit) => {
      sentCount++;
      const headers = new Headers(init.headers);
      headers.set("x-forwarded-for", "203.0.113.61");
      return app.request(url.replace(/^https:/, "http:"), { ...init, headers });
    }) as never,
    logger: () => {},
  } as never);
  let answered = 0;
  let refused: any;
  while (!refused && answered < 200) {
    const r = await throttled.request(`{ shop { name } }`);
    if (r.errors) refused = r.errors;
    else answered++;
  }
  assert.equal(refused?.networkStatusCode, 429);
  assert.equal(sentCount, answered + 3, "the refused request was sent once and retried twice");
});
