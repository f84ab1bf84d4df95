// Helpers for the Store API tests: a storefront key on the test host and a GraphQL call over real HTTP.
import assert from "node:assert/strict";
import { testHost } from "../../helpers/host.ts";

export const host = await testHost();
export const storefrontKey = await host.key("storefront");
export const endpoint = `${host.baseUrl}/api/store/api/2024-10/graphql.json`;

export interface GqlAnswer {
  status: number;
  headers: Headers;
  body: any;
}

/**
 * The key of a call that names none: a test file makes its requests in bursts (on a fast server a whole
 * file runs within a second), so each key makes at most 50 before the next takes over, well within the
 * per-second limit of a key, which only the rate-limit tests mean to reach.
 */
let current = { key: storefrontKey, used: 0 };
async function nextKey(): Promise<string> {
  if (current.used++ >= 50) current = { key: await host.key("storefront"), used: 1 };
  return current.key;
}

export async function gql(
  query: string,
  variables?: Record<string, unknown>,
  options: { key?: string | null; url?: string; headers?: Record<string, string> } = {},
): Promise<GqlAnswer> {
  const key = options.key === undefined ? await nextKey() : options.key;
  const res = await fetch(options.url ?? endpoint, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(key ? { "x-shopify-storefront-access-token": key } : {}),
      ...options.headers,
    },
    body: JSON.stringify({ query, variables }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** The data of a query that must succeed without GraphQL errors. */
export async function data(query: string, variables?: Record<string, unknown>): Promise<any> {
  const r = await gql(query, variables);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.errors, undefined, JSON.stringify(r.body.errors));
  return r.body.data;
}

export const CART_FIELDS = `
  id checkoutUrl totalQuantity note createdAt updatedAt
  attributes { key value }
  buyerIdentity { email phone countryCode }
  cost { totalAmount { amount currencyCode } subtotalAmount { amount currencyCode } checkoutChargeAmount { amount }
         totalTaxAmount { amount } totalDutyAmount { amount } }
  lines(first: 250) { nodes { id quantity attributes { key value }
    merchandise { ... on ProductVariant { id sku title product { handle } } }
    cost { amountPerQuantity { amount } subtotalAmount { amount } totalAmount { amount } compareAtAmountPerQuantity { amount } } } }`;

export const PAYLOAD =
  `cart { ${CART_FIELDS} } userErrors { code field message } warnings { code message target }`;

export async function createCart(input: Record<string, unknown> = {}): Promise<any> {
  const d = await data(`mutation($input: CartInput) { cartCreate(input: $input) { ${PAYLOAD} } }`, { input });
  assert.deepEqual(d.cartCreate.userErrors, []);
  return d.cartCreate.cart;
}

export const variant = (key: string) => `gid://shopify/ProductVariant/${key}`;
