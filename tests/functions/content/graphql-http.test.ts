// The GraphQL address over HTTP: POST and GET, the key matrix (no key, revoked, another kind, the right
// kinds, preview), and every failure in the GraphQL envelope with its code under extensions.contentful.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { addresses, codes, data, post } from "./graphql-support.ts";

const host = await testHost();
const { graphql } = addresses(host);
const delivery = await host.key("delivery");
const preview = await host.key("preview");
const QUERY = `{ articleCollection(limit: 1, order: [sys_id_ASC]) { total items { sys { id } } } }`;
const DRAFTS =
  `{ articleCollection(preview: true, where: { sys: { id: "article.draft-notes" } }) { items { title } } }`;

function only(answer: { body: any }, code: string) {
  assert.deepEqual(codes(answer), [code], JSON.stringify(answer.body));
  const [error] = answer.body.errors;
  assert.equal(typeof error.message, "string");
  assert.match(error.extensions.contentful.requestId, /^[0-9a-f]{32}$/);
  return error;
}

test("POST answers data with the rate-limit and request-id headers; the request id is the errors' too", async () => {
  const ok = await post(graphql, delivery, QUERY);
  assert.equal(ok.status, 200);
  assert.match(ok.headers.get("content-type")!, /^application\/json/);
  assert.ok(ok.body.data.articleCollection.total >= 100);
  assert.equal(ok.headers.get("x-contentful-ratelimit-second-limit"), "78");
  assert.equal(ok.headers.get("x-contentful-ratelimit-hour-limit"), "36000");
  const bad = await post(graphql, delivery, "{ nope }");
  assert.equal(
    bad.body.errors[0].extensions.contentful.requestId,
    bad.headers.get("x-contentful-request-id"),
  );
});

test("GET takes query, variables (JSON) and operationName from the query string", async () => {
  const query =
    `query One($limit: Int) { articleCollection(limit: $limit) { limit items { sys { id } } } } query Two { __typename }`;
  const url = `${graphql}?${new URLSearchParams({
    query,
    variables: JSON.stringify({ limit: 2 }),
    operationName: "One",
  })}`;
  const res = await fetch(url, { headers: { authorization: `Bearer ${delivery}` } });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.equal(body.data.articleCollection.limit, 2);
  assert.equal(body.data.articleCollection.items.length, 2);
  const viaToken = await fetch(`${graphql}?${new URLSearchParams({ query: QUERY, access_token: delivery })}`);
  assert.equal(viaToken.status, 200);
  assert.equal((await viaToken.json()).data.articleCollection.items.length, 1);
});

test("the function's own address and the address without /environments/master answer too", async () => {
  for (
    const url of [
      `${host.baseUrl}/functions/v1/content/content/v1/spaces/${host.space}/environments/master`,
      `${host.baseUrl}/api/content/content/v1/spaces/${host.space}`,
    ]
  ) {
    assert.equal((await data(url, delivery, QUERY)).articleCollection.items.length, 1, url);
  }
});

test("a form-encoded POST is read like JSON", async () => {
  const res = await fetch(graphql, {
    method: "POST",
    headers: { authorization: `Bearer ${delivery}`, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ query: QUERY }),
  });
  assert.equal(res.status, 200);
  assert.equal((await res.json()).data.articleCollection.items.length, 1);
});

test("keys: none reads a public site; delivery, preview and management keys read; revoked 401; another kind 403", async () => {
  assert.equal((await data(graphql, undefined, QUERY)).articleCollection.items.length, 1);
  for (const kind of ["delivery", "preview", "management"] as const) {
    assert.equal((await data(graphql, await host.key(kind), QUERY)).articleCollection.items.length, 1, kind);
  }
  for (const kind of ["delivery", "preview"] as const) {
    const revoked = await post(graphql, await host.revokedKey(kind), QUERY);
    assert.equal(revoked.status, 401);
    only(revoked, "ACCESS_TOKEN_INVALID");
    assert.equal(revoked.body.data, undefined);
  }
  const unknown = await post(graphql, `pk_delivery_${"x".repeat(32)}`, QUERY);
  assert.equal(unknown.status, 401);
  only(unknown, "ACCESS_TOKEN_INVALID");
  for (const kind of ["forms", "storefront", "support"] as const) {
    const other = await post(graphql, await host.key(kind), QUERY);
    assert.equal(other.status, 403, kind);
    only(other, "ACCESS_DENIED");
  }
});

test("preview: true needs a preview key (ACCESS_DENIED 403 otherwise); a preview key reads drafts with it", async () => {
  for (const key of [delivery, undefined]) {
    const denied = await post(graphql, key, DRAFTS);
    assert.equal(denied.status, 403);
    only(denied, "ACCESS_DENIED");
  }
  // hidden in a fragment and behind a variable, it is still found before anything runs
  const sneaky = await post(
    graphql,
    delivery,
    `query($p: Boolean) { ...F } fragment F on Query { article(id: "article.hello", preview: $p) { title } }`,
    { p: true },
  );
  assert.equal(sneaky.status, 403);
  const drafts = await data(graphql, preview, DRAFTS);
  assert.equal(drafts.articleCollection.items.length, 1);
  // without preview: true a preview key reads what is published
  const published = await data(graphql, preview, DRAFTS.replace("preview: true, ", ""));
  assert.equal(published.articleCollection.items.length, 0);
});

test("a malformed query, an unknown field, a missing query, a body that is not JSON: INVALID_QUERY 400", async () => {
  const syntax = await post(graphql, delivery, "{ articleCollection { items { title }");
  assert.equal(syntax.status, 400);
  const error = only(syntax, "INVALID_QUERY");
  assert.ok(error.locations?.length, "a syntax error says where");
  const unknown = await post(graphql, delivery, "{ articleCollection { items { nope } } }");
  assert.equal(unknown.status, 400);
  only(unknown, "INVALID_QUERY");
  const missing = await post(graphql, delivery, "");
  assert.equal(missing.status, 400);
  only(missing, "INVALID_QUERY");
  for (const body of ["{not json", "[1, 2]", '"text"']) {
    const res = await fetch(graphql, {
      method: "POST",
      headers: { authorization: `Bearer ${delivery}` },
      body,
    });
    assert.equal(res.status, 400, body);
    only({ body: await res.json() }, "INVALID_QUERY");
  }
  const getNoQuery = await fetch(graphql, { headers: { authorization: `Bearer ${delivery}` } });
  assert.equal(getNoQuery.status, 400);
  only({ body: await getNoQuery.json() }, "INVALID_QUERY");
});

test("variables that are not JSON, not an object or of the wrong type, and an unknown operationName: 400", async () => {
  const query = `query($n: Int!) { articleCollection(limit: $n) { total } }`;
  const notJson = await fetch(`${graphql}?${new URLSearchParams({ query, variables: "{n:" })}`, {
    headers: { authorization: `Bearer ${delivery}` },
  });
  assert.equal(notJson.status, 400);
  only({ body: await notJson.json() }, "INVALID_QUERY");
  for (const variables of [[1], { n: "two" }, {}]) {
    const answer = await post(graphql, delivery, query, variables);
    assert.equal(answer.status, 400, JSON.stringify(variables));
    assert.ok(codes(answer).every((c) => c === "INVALID_QUERY") && codes(answer).length > 0);
  }
  const res = await fetch(graphql, {
    method: "POST",
    headers: { authorization: `Bearer ${delivery}`, "content-type": "application/json" },
    body: JSON.stringify({ query: "query A { __typename } query B { __typename }", operationName: "C" }),
  });
  assert.equal(res.status, 400);
  only({ body: await res.json() }, "INVALID_QUERY");
});

test("complexity over 11 000 is TOO_COMPLEX_QUERY 400 with maximumCost and cost; at the limit it runs", async () => {
  const heavy = await post(
    graphql,
    delivery,
    `{ articleCollection(limit: 200) { items { relatedCollection(limit: 60) { items { __typename } } } } }`,
  );
  assert.equal(heavy.status, 400);
  const error = only(heavy, "TOO_COMPLEX_QUERY");
  assert.deepEqual(error.extensions.contentful.details, { maximumCost: 11000, cost: 200 + 200 * 60 });
  assert.equal(heavy.body.data, undefined);
  // 100 + 100 × 100 + 100 × 9 single links = 11 000: allowed
  const edge = await post(
    graphql,
    delivery,
    `{ articleCollection(limit: 100) { items { relatedCollection(limit: 100) { items { __typename } } cover { url } } } }`,
  );
  assert.equal(edge.status, 200, JSON.stringify(edge.body.errors));
});

test("collection arguments out of range are INVALID_QUERY 400", async () => {
  for (const args of ["limit: 1001", "limit: -1", "skip: -5"]) {
    const answer = await post(graphql, delivery, `{ articleCollection(${args}) { total } }`);
    assert.equal(answer.status, 400, args);
    only(answer, "INVALID_QUERY");
  }
  const zero = await data(
    graphql,
    delivery,
    `{ articleCollection(limit: 0) { total items { sys { id } } } }`,
  );
  assert.ok(zero.articleCollection.total >= 100, "limit 0 still tells the total");
  assert.equal(zero.articleCollection.items.length, 0);
});

test("an unknown locale is UNKNOWN_LOCALE at its path, with the rest of the data (200)", async () => {
  const answer = await post(
    graphql,
    delivery,
    `{ a: article(id: "article.hello", locale: "xx-XX") { title } b: article(id: "article.hello") { title t: title(locale: "fr") } }`,
  );
  assert.equal(answer.status, 200);
  assert.deepEqual(codes(answer), ["UNKNOWN_LOCALE", "UNKNOWN_LOCALE"]);
  assert.equal(answer.body.data.a, null);
  assert.equal(answer.body.data.b.title, "Hello, world");
  assert.equal(answer.body.data.b.t, null);
  assert.deepEqual(answer.body.errors.map((e: any) => e.path), [["a"], ["b", "t"]]);
});

test("bad image transforms are refused before anything runs", async () => {
  for (
    const transform of ["{ width: 0 }", "{ width: 4001 }", "{ quality: 101 }", `{ backgroundColor: "red" }`]
  ) {
    const answer = await post(
      graphql,
      delivery,
      `{ assetCollection(limit: 1) { items { url(transform: ${transform}) } } }`,
    );
    assert.equal(answer.status, 400, transform);
    only(answer, "INVALID_QUERY");
  }
  const viaVariables = await post(
    graphql,
    delivery,
    `query($t: ImageTransformOptions) { assetCollection(limit: 1) { items { url(transform: $t) } } }`,
    { t: { height: 9999 } },
  );
  assert.equal(viaVariables.status, 400);
  // a radius below -1 reaches the door's own check, at its path
  const radius = await post(
    graphql,
    delivery,
    `{ assetCollection(limit: 1) { items { url(transform: { cornerRadius: -4 }) } } }`,
  );
  assert.equal(radius.status, 200);
  assert.deepEqual(codes(radius), ["INVALID_QUERY"]);
});

test("another space or environment is UNKNOWN_SPACE / UNKNOWN_ENVIRONMENT; other methods 405; other paths 404", async () => {
  const space = await post(
    `${host.baseUrl}/api/content/content/v1/spaces/elsewhere/environments/master`,
    delivery,
    QUERY,
  );
  assert.equal(space.status, 404);
  assert.deepEqual(only(space, "UNKNOWN_SPACE").extensions.contentful.details, {
    type: "Space",
    id: "elsewhere",
  });
  const environment = await post(
    `${host.baseUrl}/api/content/content/v1/spaces/${host.space}/environments/staging`,
    delivery,
    QUERY,
  );
  assert.equal(environment.status, 404);
  only(environment, "UNKNOWN_ENVIRONMENT");
  const put = await fetch(graphql, {
    method: "PUT",
    headers: { authorization: `Bearer ${delivery}` },
    body: "{}",
  });
  assert.equal(put.status, 405);
  only({ body: await put.json() }, "METHOD_NOT_ALLOWED");
  const other = await fetch(`${graphql}/elsewhere`, { headers: { authorization: `Bearer ${delivery}` } });
  assert.equal(other.status, 404);
  only({ body: await other.json() }, "NOT_FOUND");
});

test("a browser's preflight is answered with Authorization allowed", async () => {
  const res = await fetch(graphql, {
    method: "OPTIONS",
    headers: {
      origin: "https://app.example",
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization,content-type",
    },
  });
  assert.ok(res.status === 204 || res.status === 200);
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  assert.match(res.headers.get("access-control-allow-headers") ?? "", /authorization/i);
  await res.body?.cancel();
});

test("introspection answers the generated schema, as code generators ask it", async () => {
  const { getIntrospectionQuery, buildClientSchema } = await import("graphql");
  const answer = await data(graphql, delivery, getIntrospectionQuery());
  const schema = buildClientSchema(answer);
  const query = schema.getQueryType()!.getFields();
  for (const name of ["article", "articleCollection", "asset", "assetCollection", "entryCollection", "modelEventCollection"]) {
    assert.ok(query[name], name);
  }
  assert.ok(schema.getType("ArticleFilter") && schema.getType("ArticleOrder") && schema.getType("ImageTransformOptions"));
});

test("a mutation or a subscription is refused before it runs: INVALID_QUERY 400", async () => {
  for (const query of ["mutation { x }", "subscription { x }", "mutation Named { x } "]) {
    const answer = await post(graphql, delivery, query);
    assert.equal(answer.status, 400, query);
    const error = only(answer, "INVALID_QUERY");
    assert.match(error.message, /queries only/);
    assert.equal(answer.body.data, undefined);
  }
});

test("text no filter can hold (NUL, a lone surrogate) in a literal or a variable is INVALID_QUERY 400", async () => {
  const literals = [
    `{ articleCollection(where: { title: "a\\u0000b" }) { total } }`,
    `{ articleCollection(where: { title_contains: "\\u0000" }) { total } }`,
    `{ articleCollection(where: { body_contains: "x\\u0000" }) { total } }`,
    `{ article(id: "article.hello\\u0000") { title } }`,
    `{ asset(id: "a\\u0000") { title } }`,
  ];
  for (const query of literals) {
    const answer = await post(graphql, delivery, query);
    assert.equal(answer.status, 400, query);
    assert.match(only(answer, "INVALID_QUERY").message, /NUL/);
  }
  const byVariable = [
    [`query($t: String) { articleCollection(where: { title: $t }) { total } }`, { t: "a\u0000b" }],
    [`query($t: String!) { article(id: $t) { title } }`, { t: "article.hello\u0000" }],
    [`query($t: String!) { asset(id: $t) { title } }`, { t: "\ud800" }],
    [`query($w: ArticleFilter) { articleCollection(where: $w) { total } }`, { w: { OR: [{ title_contains: "\u0000" }] } }],
  ] as const;
  for (const [query, variables] of byVariable) {
    const answer = await post(graphql, delivery, query, variables);
    assert.equal(answer.status, 400, JSON.stringify(variables));
    assert.match(only(answer, "INVALID_QUERY").message, /^variables\./);
  }
  // and the same over GET, in the variables or in the query text itself
  for (
    const params of [
      { query: byVariable[0][0], variables: JSON.stringify(byVariable[0][1]) } as Record<string, string>,
      { query: `{ article(id: "a\u0000") { title } }` },
      { query: `{ article(id: "a\\u0000") { title } }` },
    ]
  ) {
    const res = await fetch(`${graphql}?${new URLSearchParams(params)}`, { headers: { authorization: `Bearer ${delivery}` } });
    assert.equal(res.status, 400, JSON.stringify(params));
    only({ body: await res.json() }, "INVALID_QUERY");
  }
});

test("a DateTime filter takes real dates in years 0001 to 9999 only: INVALID_QUERY 400 otherwise", async () => {
  for (const date of ["0000-01-01", "99999-01-01", "2024-02-30", "9999-12-31T23:59:59-14:00", "soon"]) {
    const literal = await post(graphql, delivery, `{ articleCollection(where: { date_gt: "${date}" }) { total } }`);
    assert.equal(literal.status, 400, date);
    only(literal, "INVALID_QUERY");
    const variable = await post(graphql, delivery, `query($d: DateTime) { articleCollection(where: { date_gt: $d }) { total } }`, { d: date });
    assert.equal(variable.status, 400, date);
    assert.ok(codes(variable).length && codes(variable).every((c) => c === "INVALID_QUERY"), JSON.stringify(variable.body));
  }
  // the bounds themselves are dates
  for (const date of ["0001-01-01", "9999-12-31T23:59:59Z"]) {
    const answer = await post(graphql, delivery, `{ articleCollection(where: { date_gt: "${date}" }) { total } }`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(typeof answer.body.data.articleCollection.total, "number");
  }
});

test("a body over 1 MB is PAYLOAD_TOO_LARGE 413, as in every API", async () => {
  const res = await fetch(graphql, {
    method: "POST",
    headers: { authorization: `Bearer ${delivery}`, "content-type": "application/json" },
    body: JSON.stringify({ query: `{ __typename } # ${"x".repeat(1024 * 1024)}` }),
  });
  assert.equal(res.status, 413);
  assert.match(only({ body: await res.json() }, "PAYLOAD_TOO_LARGE").message, /larger than 1 MB/);
});

test("the per-second limit answers 429 RATE_LIMIT_EXCEEDED with the reset header", async () => {
  const key = await host.key("delivery");
  let limited: Response | undefined;
  for (let round = 0; round < 5 && !limited; round++) {
    const answers = await Promise.all(Array.from({ length: 90 }, () =>
      fetch(graphql, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ query: "{ __typename }" }),
      })
    ));
    for (const r of answers) {
      if (r.status === 429 && !limited) limited = r;
      else await r.body?.cancel();
    }
  }
  assert.ok(limited, "expected a 429 within five bursts of 90 requests");
  only({ body: await limited.json() }, "RATE_LIMIT_EXCEEDED");
  assert.ok(Number(limited.headers.get("x-contentful-ratelimit-reset")) >= 1);
});
