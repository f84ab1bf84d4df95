// Truthful rate-limit headers in every API: the legacy headers describe one window consistently (the one
// that will refuse first), the IETF RateLimit-Policy / RateLimit fields name every window, and a 429
// always carries Retry-After.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import { testHost } from "../helpers/host.ts";
import { hashKey, type KeyKind } from "../../shared/keys.ts";
import { fillWindow } from "../helpers/rate-limits.ts";
import { CONTENT_RATE_LIMITS } from "../../functions/content/access.ts";
import { FORMS_RATE_LIMITS } from "../../functions/forms-api/access.ts";
import { SCHEDULING_RATE_LIMITS } from "../../functions/scheduling-api/access.ts";
import { STORE_RATE_LIMITS } from "../../functions/storefront-api/access.ts";

const host = await testHost();

interface Api {
  name: string;
  kind: KeyKind;
  windows: { seconds: number; limit: number }[];
  /** the counter bucket of this key from this address (shared/gate.ts) */
  bucket(hash: string, address: string): string;
  request(key: string, address: string): Promise<Response>;
  /** the legacy headers, as one window: limit, remaining, reset */
  legacy(headers: Headers): { limit: number; remaining: number; reset: number }[];
}

const xRateLimit = (h: Headers) => [{
  limit: Number(h.get("x-ratelimit-limit")),
  remaining: Number(h.get("x-ratelimit-remaining")),
  reset: Number(h.get("x-ratelimit-reset")),
}];

const APIS: Api[] = [
  {
    name: "content",
    kind: "delivery",
    windows: CONTENT_RATE_LIMITS,
    bucket: (hash) => `content:key:${hash.slice(0, 24)}`,
    request: (key, address) =>
      fetch(`${host.baseUrl}/api/content/spaces/${host.space}/entries?limit=1`, {
        headers: { authorization: `Bearer ${key}`, "x-forwarded-for": address },
      }),
    // Contentful's own pair of windows, each with its own limit and remaining
    legacy: (h) => [
      {
        limit: Number(h.get("x-contentful-ratelimit-hour-limit")),
        remaining: Number(h.get("x-contentful-ratelimit-hour-remaining")),
        reset: NaN,
      },
      {
        limit: Number(h.get("x-contentful-ratelimit-second-limit")),
        remaining: Number(h.get("x-contentful-ratelimit-second-remaining")),
        reset: NaN,
      },
    ],
  },
  {
    name: "forms",
    kind: "forms",
    windows: FORMS_RATE_LIMITS,
    bucket: (hash) => `forms:key:${hash.slice(0, 24)}`,
    request: (key, address) =>
      fetch(`${host.baseUrl}/api/me`, { headers: { authorization: `Bearer ${key}`, "x-forwarded-for": address } }),
    legacy: xRateLimit,
  },
  {
    name: "scheduling",
    kind: "scheduling",
    windows: SCHEDULING_RATE_LIMITS,
    bucket: (hash) => `scheduling:key:${hash.slice(0, 24)}`,
    request: (key, address) =>
      fetch(`${host.baseUrl}/api/scheduling/v2/me`, {
        headers: { authorization: `Bearer ${key}`, "x-forwarded-for": address },
      }),
    legacy: xRateLimit,
  },
  {
    name: "store",
    kind: "storefront",
    windows: STORE_RATE_LIMITS,
    bucket: (hash, address) => `storefront@${address}:key:${hash.slice(0, 24)}`,
    request: (key, address) =>
      fetch(`${host.baseUrl}/api/2025-01/graphql.json`, {
        method: "POST",
        headers: { "x-shopify-storefront-access-token": key, "content-type": "application/json", "x-forwarded-for": address },
        body: JSON.stringify({ query: "{ shop { name } }" }),
      }),
    legacy: xRateLimit,
  },
];

/** `"minute";q=6000;w=60, ...` or `"minute";r=5999;t=42, ...` as { name: { q, w } } */
function parseList(field: string | null): Record<string, Record<string, number>> {
  assert.ok(field, "the field is sent");
  const out: Record<string, Record<string, number>> = {};
  for (const item of field.split(",")) {
    const [name, ...params] = item.trim().split(";");
    out[JSON.parse(name)] = Object.fromEntries(params.map((p) => p.split("=")).map(([k, v]) => [k, Number(v)]));
  }
  return out;
}

const address = () => `203.0.113.${Math.floor(Math.random() * 250) + 1}`;

function checkFields(api: Api, headers: Headers) {
  const policy = parseList(headers.get("ratelimit-policy"));
  const state = parseList(headers.get("ratelimit"));
  assert.deepEqual(
    Object.values(policy).map((p) => ({ seconds: p.w, limit: p.q })).sort((a, b) => a.seconds - b.seconds),
    [...api.windows].sort((a, b) => a.seconds - b.seconds),
    `${api.name}: RateLimit-Policy names every window`,
  );
  assert.deepEqual(Object.keys(state).sort(), Object.keys(policy).sort(), `${api.name}: RateLimit names every window`);
  return { policy, state };
}

for (const api of APIS) {
  test(`${api.name}: the headers describe one window, the one that will refuse first, and name every window`, async () => {
    const key = await host.key(api.kind);
    const from = address();
    const [long, short] = [...api.windows].sort((a, b) => b.seconds - a.seconds);

    // a fresh key: the short window has the fewest left
    const fresh = await api.request(key, from);
    await fresh.body?.cancel();
    assert.equal(fresh.status, 200, api.name);
    const { policy, state } = checkFields(api, fresh.headers);
    for (const window of api.legacy(fresh.headers)) {
      const named = Object.keys(policy).find((n) => policy[n].q === window.limit);
      assert.ok(named, `${api.name}: the legacy limit ${window.limit} is one window's`);
      assert.equal(window.remaining, state[named].r, `${api.name}: limit and remaining of the same window (${named})`);
      if (!Number.isNaN(window.reset)) assert.equal(window.reset, state[named].t, `${api.name}: and its reset`);
    }
    if (api.name !== "content") {
      assert.equal(Number(fresh.headers.get("x-ratelimit-limit")), short.limit, `${api.name}: the short window refuses first`);
      assert.equal(Number(fresh.headers.get("x-ratelimit-remaining")), short.limit - 1);
    }

    // the long window nearly spent: now it refuses first
    await fillWindow(host.ctx.sql, api.bucket(await hashKey(key), from), api.windows, long.seconds, long.limit - 5);
    const spent = await api.request(key, from);
    await spent.body?.cancel();
    assert.equal(spent.status, 200, api.name);
    const after = checkFields(api, spent.headers);
    const longName = Object.keys(after.policy).find((n) => after.policy[n].w === long.seconds)!;
    assert.equal(after.state[longName].r, 4);
    if (api.name !== "content") {
      assert.equal(Number(spent.headers.get("x-ratelimit-limit")), long.limit);
      assert.equal(Number(spent.headers.get("x-ratelimit-remaining")), 4);
      assert.equal(Number(spent.headers.get("x-ratelimit-reset")), after.state[longName].t);
    }
  });

  test(`${api.name}: past a window's limit the answer is 429 with Retry-After and the fields`, async () => {
    const key = await host.key(api.kind);
    const from = address();
    const [long] = [...api.windows].sort((a, b) => b.seconds - a.seconds);
    await fillWindow(host.ctx.sql, api.bucket(await hashKey(key), from), api.windows, long.seconds, long.limit);
    const refused = await api.request(key, from);
    await refused.body?.cancel();
    assert.equal(refused.status, 429, api.name);
    assert.ok(Number(refused.headers.get("retry-after")) >= 1, `${api.name}: Retry-After`);
    const { state, policy } = checkFields(api, refused.headers);
    const longName = Object.keys(policy).find((n) => policy[n].w === long.seconds)!;
    assert.equal(state[longName].r, 0);
  });
}
