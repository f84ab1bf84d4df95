// The Delivery and Preview REST surface over real HTTP: addresses, errors, headers and the auth matrix.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { createKey, hashKey, revokeKey } from "../../../shared/keys.ts";
import { freePort } from "../../../shared/embedded.ts";
import { serveHost } from "../../../web/host.ts";
import { CONTENT_RATE_LIMITS } from "../../../functions/content/access.ts";
import { fillWindow } from "../../helpers/rate-limits.ts";

const host = await testHost();
const deliveryKey = await host.key("delivery");
const base = `${host.baseUrl}/api/content/spaces/${host.space}`;
const env = `${base}/environments/master`;

async function get(path: string, key: string | null = deliveryKey, headers: Record<string, string> = {}) {
  const res = await fetch(path, {
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
  });
  const text = await res.text();
  return { res, status: res.status, body: text ? JSON.parse(text) : undefined };
}

function assertError(r: { status: number; body: any }, status: number, id: string) {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.sys.type, "Error");
  assert.equal(r.body.sys.id, id);
  assert.equal(typeof r.body.message, "string");
  assert.equal(typeof r.body.requestId, "string");
}

test("the space answers at its address, with the trailing slash the client sends", async () => {
  const r = await get(`${base}/`);
  assert.equal(r.status, 200);
  assert.deepEqual(r.body.sys, { type: "Space", id: host.space });
  assert.ok(r.body.locales.some((l: any) => l.default));
});

test("the environment master answers; another environment or space is NotFound with details", async () => {
  assert.deepEqual((await get(env)).body.sys, {
    type: "Environment",
    id: "master",
    space: { sys: { type: "Link", linkType: "Space", id: host.space } },
  });
  const otherEnv = await get(`${base}/environments/staging/entries`);
  assertError(otherEnv, 404, "NotFound");
  assert.deepEqual(otherEnv.body.details, { type: "Environment", id: "staging" });
  const otherSpace = await get(`${host.baseUrl}/api/content/spaces/nope/environments/master/entries`);
  assertError(otherSpace, 404, "NotFound");
  assert.deepEqual(otherSpace.body.details, { type: "Space", id: "nope" });
});

test("the /environments/master part may be omitted, and the function address answers too", async () => {
  const a = await get(`${base}/entries?limit=3&order=sys.id`);
  const b = await get(`${env}/entries?limit=3&order=sys.id`);
  const c = await get(
    `${host.baseUrl}/functions/v1/content/spaces/${host.space}/entries?limit=3&order=sys.id`,
  );
  assert.equal(a.status, 200);
  assert.deepEqual(a.body.items.map((i: any) => i.sys.id), b.body.items.map((i: any) => i.sys.id));
  assert.deepEqual(a.body.items.map((i: any) => i.sys.id), c.body.items.map((i: any) => i.sys.id));
});

test("an unknown route is NotFound in the content envelope", async () => {
  assertError(await get(`${env}/nothing-here`), 404, "NotFound");
  assertError(await get(`${env}/entries/no.such.entry`), 404, "NotFound");
  assertError(await get(`${env}/assets/nosuchasset`), 404, "NotFound");
  assertError(await get(`${env}/content_types/nosuchtype`), 404, "NotFound");
});

test("out-of-range collection arguments are BadQuery", async () => {
  for (
    const q of [
      "limit=0",
      "limit=1001",
      "limit=abc",
      "skip=-1",
      "include=11",
      "include=-1",
      "locale=xx-XX",
      "select=fields.a.b.c",
    ]
  ) {
    assertError(await get(`${env}/entries?${q}`), 400, "BadQuery");
  }
  assertError(await get(`${env}/entries?fields.title=x`), 400, "BadQuery");
  assertError(await get(`${env}/assets?mimetype_group=nonsense`), 400, "BadQuery");
});

test("an unknown content type is InvalidQuery naming unknownContentType", async () => {
  const r = await get(`${env}/entries?content_type=nosuchtype`);
  assertError(r, 400, "InvalidQuery");
  assert.equal(r.body.details.errors[0].name, "unknownContentType");
});

test("[near] and [within] are InvalidQuery: the site has no location fields", async () => {
  assertError(await get(`${env}/entries?content_type=article&fields.title[near]=1,2`), 400, "InvalidQuery");
  assertError(
    await get(`${env}/entries?content_type=article&fields.title[within]=1,2,3,4`),
    400,
    "InvalidQuery",
  );
  assertError(await get(`${env}/entries?content_type=article&fields.title[bogus]=1`), 400, "InvalidQuery");
});

test("a sync token the service did not issue is BadQuery", async () => {
  assertError(await get(`${env}/sync?sync_token=forged`), 400, "BadQuery");
  assertError(await get(`${env}/sync?sync_token=eyJ2IjoxfQ.AAAAAAAAAAAAAAAAAAAAAAAA`), 400, "BadQuery");
  assertError(await get(`${env}/sync`), 400, "BadQuery");
});

test("auth matrix: no key (public delivery), revoked key, key of another kind, right key", async () => {
  assert.equal((await get(`${env}/entries?limit=1`, null)).status, 200);
  assertError(
    await get(`${env}/entries?limit=1`, await host.revokedKey("delivery")),
    401,
    "AccessTokenInvalid",
  );
  assertError(
    await get(`${env}/entries?limit=1`, "pk_delivery_00000000000000000000000000000000"),
    401,
    "AccessTokenInvalid",
  );
  assertError(await get(`${env}/entries?limit=1`, await host.key("forms")), 403, "AccessDenied");
  assertError(await get(`${env}/entries?limit=1`, await host.key("storefront")), 403, "AccessDenied");
  assert.equal((await get(`${env}/entries?limit=1`, deliveryKey)).status, 200);
  assert.equal((await get(`${env}/entries?limit=1`, await host.key("preview"))).status, 200);
});

test("the key may also come as access_token in the query", async () => {
  const revoked = await host.revokedKey("delivery");
  assertError(await get(`${env}/entries?limit=1&access_token=${revoked}`, null), 401, "AccessTokenInvalid");
  assert.equal((await get(`${env}/entries?limit=1&access_token=${deliveryKey}`, null)).status, 200);
});

test("answers carry the media type, ETag, Cache-Control, request id and rate-limit headers", async () => {
  const { res, body } = await get(`${env}/entries?content_type=book&limit=2`);
  assert.equal(res.headers.get("content-type"), "application/vnd.contentful.delivery.v1+json");
  assert.equal(
    res.headers.get("cache-control"),
    "public, max-age=60, s-maxage=300, stale-while-revalidate=600",
  );
  assert.match(res.headers.get("x-contentful-request-id") ?? "", /^[0-9a-f]{32}$/);
  assert.equal(res.headers.get("x-contentful-ratelimit-hour-limit"), "36000");
  assert.equal(res.headers.get("x-contentful-ratelimit-second-limit"), "78");
  assert.ok(Number(res.headers.get("x-contentful-ratelimit-hour-remaining")) < 36000);
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  const etag = res.headers.get("etag")!;
  assert.ok(etag);
  const again = await fetch(`${env}/entries?content_type=book&limit=2`, {
    headers: { authorization: `Bearer ${deliveryKey}`, "if-none-match": etag },
  });
  assert.equal(again.status, 304);
  assert.equal(await again.text(), "");
  assert.equal(body.sys.type, "Array");
});

test("errors carry the request id they name and the rate-limit headers", async () => {
  const { res, body } = await get(`${env}/entries?limit=0`);
  assert.equal(res.headers.get("x-contentful-request-id"), body.requestId);
  assert.equal(res.headers.get("x-contentful-ratelimit-second-limit"), "78");
});

test("the ETag differs between delivery and preview keys for the same address", async () => {
  const a = await fetch(`${env}/content_types`, { headers: { authorization: `Bearer ${deliveryKey}` } });
  const b = await fetch(`${env}/content_types`, {
    headers: { authorization: `Bearer ${await host.key("preview")}` },
  });
  await a.body?.cancel();
  await b.body?.cancel();
  assert.notEqual(a.headers.get("etag"), b.headers.get("etag"));
});

test("a CORS preflight lists Authorization and the vendor headers", async () => {
  const res = await fetch(`${env}/entries`, {
    method: "OPTIONS",
    headers: {
      origin: "https://example.org",
      "access-control-request-method": "GET",
      "access-control-request-headers": "authorization,x-contentful-user-agent",
    },
  });
  await res.body?.cancel();
  assert.ok(res.status === 204 || res.status === 200);
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  const allowed = (res.headers.get("access-control-allow-headers") ?? "").toLowerCase();
  assert.ok(allowed.includes("authorization"));
  assert.ok(allowed.includes("x-contentful-user-agent"));
});

test("HEAD answers like GET without a body", async () => {
  const res = await fetch(`${env}/entries?limit=1`, {
    method: "HEAD",
    headers: { authorization: `Bearer ${deliveryKey}` },
  });
  assert.equal(res.status, 200);
  assert.equal(await res.text(), "");
  assert.ok(res.headers.get("etag"));
});

test("in git mode every write answers BadRequest 405 with the reason, never a 5xx", async () => {
  const management = await host.key("management");
  for (
    const [method, path] of [["POST", "/entries"], ["PUT", "/entries/article.hello"], [
      "DELETE",
      "/entries/article.hello",
    ], ["PUT", "/entries/article.hello/published"]]
  ) {
    const res = await fetch(`${env}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${management}`,
        "content-type": "application/vnd.contentful.management.v1+json",
      },
      body: method === "DELETE" ? undefined : "{",
    });
    const body = await res.json();
    assert.equal(res.status, 405, `${method} ${path}`);
    assert.equal(body.sys.id, "BadRequest");
    assert.match(body.message, /git mode/);
  }
});

test("the per-second limit answers 429 RateLimitExceeded with a reset in seconds", async () => {
  const key = await host.key("delivery");
  let limited: Response | undefined;
  for (let round = 0; round < 5 && !limited; round++) {
    const answers = await Promise.all(
      Array.from(
        { length: 90 },
        () => fetch(`${env}/locales`, { headers: { authorization: `Bearer ${key}` } }),
      ),
    );
    for (const r of answers) {
      if (r.status === 429 && !limited) limited = r;
      else await r.body?.cancel();
    }
  }
  assert.ok(limited, "expected a 429 within five bursts of 90 requests");
  const body = await limited.json();
  assert.equal(body.sys.id, "RateLimitExceeded");
  assert.ok(Number(limited.headers.get("x-contentful-ratelimit-reset")) >= 1);
  assert.ok(Number(limited.headers.get("retry-after")) >= 1);
});

test("NotFound for an entry, an asset or a content type names what was not found", async () => {
  const key = await host.key("delivery");
  for (
    const [path, type, id] of [["entries", "Entry", "no.such.entry"], ["assets", "Asset", "nosuchasset"], [
      "content_types",
      "ContentType",
      "nosuchtype",
    ]]
  ) {
    const r = await get(`${env}/${path}/${id}`, key);
    assertError(r, 404, "NotFound");
    assert.deepEqual(r.body.details, { type, id }, path);
  }
});

test("a NUL in the path is NotFound and in the query BadQuery, at every REST door, never a 5xx", async () => {
  const key = await host.key("delivery");
  for (
    const path of [
      `${env}/entries/%00`,
      `${env}/assets/a%00b`,
      `${env}/content_types/%00`,
      `${base}/entries/x%00`,
    ]
  ) {
    assertError(await get(path, key), 404, "NotFound");
  }
  const media = await get(`${host.baseUrl}/api/media/${host.space}/%00/x/y.png`, null);
  assertError(media, 404, "NotFound");
  for (
    const query of [
      "entries?query=%00",
      "entries?sys.id=%00",
      "entries?content_type=article&fields.title=a%00b",
      "entries?links_to_entry=%00",
      "entries?links_to_asset=%00",
      "entries?%00=1",
      "assets?fields.title=%00",
      "assets?query=%00",
      "sync?initial=true&type=%00",
    ]
  ) {
    assertError(await get(`${env}/${query}`, key), 400, "BadQuery");
  }
  assertError(await get(`${host.baseUrl}/api/media/${host.space}/x/y/z.png?w=%00`, null), 400, "BadQuery");
});

test("a number filter takes a decimal number only: blank, hex, Infinity or an empty list item is BadQuery", async () => {
  const key = await host.key("delivery");
  for (
    const query of [
      "sys.revision[gt]=",
      "sys.revision= ",
      "content_type=article&fields.rating=",
      "content_type=article&fields.rating=%20",
      "content_type=article&fields.readingTime[in]=",
      "content_type=article&fields.readingTime[in]=1,,2",
      "content_type=article&fields.readingTime[nin]=1,",
      "content_type=article&fields.rating=0x10",
      "content_type=article&fields.rating=Infinity",
      "content_type=article&fields.rating=NaN",
      "content_type=article&fields.rating[lt]=1e999",
      `content_type=article&fields.rating=0.${"0".repeat(100)}1`,
    ]
  ) {
    assertError(await get(`${env}/entries?${query}`, key), 400, "BadQuery");
  }
  for (
    const query of [
      "content_type=article&fields.rating[gte]=4.5",
      "content_type=article&fields.readingTime[in]=3,%204",
      "sys.revision[gte]=1e0",
    ]
  ) {
    assert.equal((await get(`${env}/entries?${query}`, key)).status, 200, query);
  }
});

test("a date filter takes a real ISO 8601 date or instant in years 0001 to 9999; anything else is BadQuery", async () => {
  const key = await host.key("delivery");
  for (
    const value of [
      "1",
      "March%207",
      "2024-02-30",
      "2023-02-29",
      "2024-13-01",
      "2024-03-01T25:00",
      "0000-12-31",
      "10000-01-01",
      "2024-3-1",
      "",
      "yesterday",
    ]
  ) {
    for (const name of ["sys.createdAt[gte]", "sys.updatedAt[lt]"]) {
      assertError(await get(`${env}/entries?${name}=${value}`, key), 400, "BadQuery");
    }
    assertError(
      await get(`${env}/entries?content_type=article&fields.date[gt]=${value}`, key),
      400,
      "BadQuery",
    );
    assertError(await get(`${env}/assets?sys.createdAt[gt]=${value}`, key), 400, "BadQuery");
  }
  for (
    const value of [
      "2024-02-29",
      "2024-03-01T10:00:00Z",
      "2024-03-01T10:00:00.5%2B01:00",
      "0001-01-01",
      "9999-12-31",
    ]
  ) {
    assert.equal((await get(`${env}/entries?sys.createdAt[gte]=${value}`, key)).status, 200, value);
  }
});

test("auth matrix: revoked preview key, scheduling and support keys, management keys with and without the management media type", async () => {
  const management = { "content-type": "application/vnd.contentful.management.v1+json" };
  assertError(
    await get(`${env}/entries?limit=1`, await host.revokedKey("preview")),
    401,
    "AccessTokenInvalid",
  );
  assertError(await get(`${env}/entries?limit=1`, await host.key("scheduling")), 403, "AccessDenied");
  assertError(await get(`${env}/entries?limit=1`, await host.key("support")), 403, "AccessDenied");
  assertError(
    await get(`${env}/entries?limit=1`, await host.key("preview"), management),
    403,
    "AccessDenied",
  );
  assertError(
    await get(`${env}/entries?limit=1`, await host.key("delivery"), management),
    403,
    "AccessDenied",
  );
  assertError(await get(`${env}/entries?limit=1`, null, management), 401, "AccessTokenInvalid");
  // a management key without the management media type reads what delivery serves, gated bodies too
  const managementKey = await host.key("management");
  const gated = await get(`${env}/entries/article.members-only`, managementKey);
  assert.equal(gated.status, 200);
  assert.equal(gated.res.headers.get("content-type"), "application/vnd.contentful.delivery.v1+json");
  assert.equal(gated.body.fields.body.nodeType, "document");
  assertError(await get(`${env}/entries/article.draft-notes`, managementKey), 404, "NotFound");
  const revoked = await host.revokedKey("delivery");
  assertError(await get(`${env}/sync?initial=true`, revoked), 401, "AccessTokenInvalid");
  assertError(await get(`${base}/`, revoked), 401, "AccessTokenInvalid");
  assertError(await get(env, revoked), 401, "AccessTokenInvalid");
});

test("a key in use is refused as soon as it is revoked", async () => {
  const { key, id } = await createKey(host.ctx.sql, { name: "revoked in use", kind: "delivery" });
  assert.equal((await get(`${env}/locales`, key)).status, 200);
  assert.equal((await get(`${env}/entries?limit=1`, key)).status, 200);
  await revokeKey(host.ctx.sql, id);
  assertError(await get(`${env}/locales`, key), 401, "AccessTokenInvalid");
});

test("last_used_at is set by a key's first request and touched at most once a minute", async () => {
  const { key, id } = await createKey(host.ctx.sql, { name: "last used", kind: "delivery" });
  const lastUsed = async () =>
    (await host.ctx.sql<
      { at: Date | null }[]
    >`select last_used_at as at from public.api_keys where id = ${id}`)[0].at;
  assert.equal(await lastUsed(), null);
  const before = Date.now();
  assert.equal((await get(`${env}/locales`, key)).status, 200);
  const first = await lastUsed();
  assert.ok(first && first.getTime() >= before - 1000 && first.getTime() <= Date.now() + 1000, String(first));
  assert.equal((await get(`${env}/locales`, key)).status, 200);
  assert.equal(
    (await lastUsed())?.getTime(),
    first.getTime(),
    "a second request within the minute leaves it",
  );
  // a minute later it moves on: tests/shared/gate.test.ts, with a clock
});

test("the hourly limit (36 000) answers 429 with the hour's reset once it is spent", async () => {
  const key = await host.key("delivery");
  const bucket = `content:key:${(await hashKey(key)).slice(0, 24)}`;
  // this hour's window at one short of the limit
  await fillWindow(host.ctx.sql, bucket, CONTENT_RATE_LIMITS, 3600, 35999);
  const last = await get(`${env}/locales`, key);
  assert.equal(last.status, 200);
  assert.equal(last.res.headers.get("x-contentful-ratelimit-hour-remaining"), "0");
  const over = await get(`${env}/locales`, key);
  assertError(over, 429, "RateLimitExceeded");
  const reset = Number(over.res.headers.get("x-contentful-ratelimit-reset"));
  assert.ok(reset >= 1 && reset <= 3600, String(reset));
  assert.equal(over.res.headers.get("retry-after"), String(reset));
  assert.equal(over.res.headers.get("x-contentful-ratelimit-hour-remaining"), "0");
  assert.equal(
    (await get(`${env}/locales`, await host.key("delivery"))).status,
    200,
    "other keys are not affected",
  );
});

test("anonymous limits count the socket's address: X-Forwarded-For counts only from proxies the host is told to trust", async () => {
  const counted = async (address: string) =>
    (await host.ctx
      .sql`select 1 from public.rate_limit_buckets where bucket = ${`content:ip:${address}`} limit 1`)
      .length > 0;
  const serve = (trustedProxies: number) => {
    const port = freePort();
    const controller = new AbortController();
    const server = serveHost({ ...host.ctx, config: { ...host.ctx.config, trustedProxies } }, {
      port,
      hostname: "127.0.0.1",
      signal: controller.signal,
      onListen: () => {},
    });
    return {
      url: `http://127.0.0.1:${port}/api/content/spaces/${host.space}/environments/master/locales`,
      close: () => (controller.abort(), server.finished),
    };
  };
  const unique = () => `198.51.100.${Math.floor(Math.random() * 250) + 1}-${crypto.randomUUID().slice(0, 8)}`;
  const plain = serve(0);
  const behindProxy = serve(1);
  try {
    // the dev host's default: a made-up header does not give a caller a budget of its own
    const spoofed = unique();
    const res = await fetch(plain.url, { headers: { "x-forwarded-for": spoofed } });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    assert.equal(await counted(spoofed), false, "a client's own X-Forwarded-For is not a bucket");
    assert.equal(await counted("127.0.0.1"), true, "the socket's address is");
    // behind one trusted proxy: the entry that proxy appended (the right-most), not the client's own before it
    const [written, appended] = [unique(), unique()];
    const proxied = await fetch(behindProxy.url, {
      headers: { "x-forwarded-for": `${written}, ${appended}` },
    });
    assert.equal(proxied.status, 200);
    await proxied.body?.cancel();
    assert.equal(await counted(appended), true);
    assert.equal(await counted(written), false);
  } finally {
    await plain.close();
    await behindProxy.close();
  }
});

test("every read route answers the auth matrix alike: no key, revoked, unknown, other kind, delivery, preview, management", async () => {
  const [{ id: assetId }] = await host.ctx.sql<{ id: string }[]>`
    select id from public.content_assets where published order by id limit 1`;
  const routes = [
    `${base}/`,
    env,
    `${env}/entries?limit=1`,
    `${env}/entries/article.hello`,
    `${env}/assets?limit=1`,
    `${env}/assets/${assetId}`,
    `${env}/content_types`,
    `${env}/content_types/article`,
    `${env}/locales`,
    `${env}/sync?initial=true&type=Asset`,
    `${base}/entries?limit=1`,
    `${base}/sync?initial=true&type=Asset`,
  ];
  // anonymous calls count against an address: this test's own, so parallel test files keep theirs
  const own = {
    "x-forwarded-for": `203.0.113.${Math.floor(Math.random() * 250) + 1}-${crypto.randomUUID()}`,
  };
  const management = { ...own, "content-type": "application/vnd.contentful.management.v1+json" };
  const keys = {
    revoked: await host.revokedKey("delivery"),
    revokedManagement: await host.revokedKey("management"),
    forms: await host.key("forms"),
    storefront: await host.key("storefront"),
    preview: await host.key("preview"),
    management: await host.key("management"),
  };
  for (const route of routes) {
    assert.equal((await get(route, null, own)).status, 200, `no key on public delivery: ${route}`);
    assertError(await get(route, null, management), 401, "AccessTokenInvalid");
    for (
      const key of [
        keys.revoked,
        keys.revokedManagement,
        "pk_delivery_00000000000000000000000000000000",
        "junk",
      ]
    ) {
      assertError(await get(route, key), 401, "AccessTokenInvalid");
    }
    for (const key of [keys.forms, keys.storefront]) assertError(await get(route, key), 403, "AccessDenied");
    for (const key of [deliveryKey, keys.preview]) {
      assert.equal((await get(route, key)).status, 200, route);
      assertError(await get(route, key, management), 403, "AccessDenied");
    }
    assert.equal((await get(route, keys.management)).status, 200, route);
    assert.equal((await get(route, keys.management, management)).status, 200, route);
  }
});

test("tokens that match no key spend the caller's address budget: made-up tokens get no fresh budget each", async () => {
  const address = `198.18.0.${Math.floor(Math.random() * 250) + 1}-${crypto.randomUUID()}`;
  const tokens = Array.from(
    { length: 100 },
    () => `pk_delivery_${crypto.randomUUID().replaceAll("-", "").slice(0, 32)}`,
  );
  const statuses: number[] = [];
  for (let round = 0; round < 3 && !statuses.includes(429); round++) {
    const answers = await Promise.all(
      tokens.map((token) =>
        fetch(`${env}/locales`, { headers: { authorization: `Bearer ${token}`, "x-forwarded-for": address } })
      ),
    );
    for (const answer of answers) {
      statuses.push(answer.status);
      await answer.body?.cancel();
    }
  }
  assert.ok(statuses.every((s) => s === 401 || s === 429), String(new Set(statuses)));
  assert.ok(
    statuses.includes(429),
    "a burst of made-up tokens from one address is limited like that address",
  );
  const [{ count }] = await host.ctx.sql<{ count: number }[]>`
    select count(*)::int as count from public.rate_limit_buckets where bucket = any(${await Promise.all(
    tokens.map(async (t) => `content:key:${(await hashKey(t)).slice(0, 24)}`),
  )}::text[])`;
  assert.equal(count, 0, "no counter is made per made-up token");
  const [{ hits }] = await host.ctx.sql<{ hits: number }[]>`
    select max(h)::int as hits from public.rate_limit_buckets, unnest(hits) as h
    where bucket = ${`content:ip:${address}`}`;
  assert.ok(hits >= 100, "they count under the address");
});
