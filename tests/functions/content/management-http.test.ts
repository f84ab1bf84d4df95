// The management API over real HTTP while the demo site is in git mode (the parallel batch): management
// reads, the auth matrix of every management route, git mode's refusal of every write, the sweep's key.
// Cloud-mode writes are tested in tests/functions/content/management*.serial.test.ts.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { serviceKey } from "../../../functions/content/routes/management-uploads.ts";

const host = await testHost();
const space = `${host.baseUrl}/api/content/spaces/${host.space}`;
const env = `${space}/environments/master`;
const MANAGEMENT = "application/vnd.contentful.management.v1+json";
const keys = {
  management: await host.key("management"),
  delivery: await host.key("delivery"),
  preview: await host.key("preview"),
  forms: await host.key("forms"),
  revoked: await host.revokedKey("management"),
};

async function call(
  method: string,
  url: string,
  key?: string,
  body?: string,
  headers: Record<string, string> = {},
) {
  const res = await fetch(url, {
    method,
    headers: { "content-type": MANAGEMENT, ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    body,
  });
  const text = await res.text();
  return { res, status: res.status, body: text ? JSON.parse(text) : undefined };
}

function assertError(r: { status: number; body: any }, status: number, id: string) {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.sys.type, "Error");
  assert.equal(r.body.sys.id, id);
  assert.equal(typeof r.body.requestId, "string");
}

test("a management read answers the management shape: fields keyed by locale, versions, user links", async () => {
  const r = await call("GET", `${env}/entries/article.hello`, keys.management);
  assert.equal(r.status, 200);
  assert.equal(r.res.headers.get("content-type"), MANAGEMENT);
  assert.equal(r.res.headers.get("cache-control"), "no-store");
  const { sys, fields } = r.body;
  assert.equal(sys.type, "Entry");
  assert.equal(sys.version, sys.publishedVersion); // published and unchanged: revision × 2
  assert.equal(sys.version % 2, 0);
  assert.equal(typeof sys.publishedAt, "string");
  assert.equal(typeof sys.firstPublishedAt, "string");
  assert.ok(sys.publishedCounter >= 1);
  assert.deepEqual(sys.contentType.sys, { type: "Link", linkType: "ContentType", id: "article" });
  assert.equal(fields.title["en-US"], "Hello, world");
  assert.equal(typeof fields.title["de-DE"], "string");
  assert.equal(fields.body["en-US"].nodeType, "document");
});

test("a draft that was never published answers version revision × 2 + 1 and no publishedVersion", async () => {
  const list = await call("GET", `${env}/entries?content_type=article&limit=1000`, keys.management);
  assert.equal(list.status, 200);
  const draft = list.body.items.find((e: any) => e.sys.id === "article.draft-notes");
  assert.ok(draft, "the demo's unpublished article is listed (management reads see drafts)");
  assert.equal(draft.sys.version % 2, 1);
  assert.equal(draft.sys.publishedVersion, undefined);
  assert.equal(draft.sys.publishedCounter, 0);
});

test("management lists take content_type, skip and limit", async () => {
  const page = await call("GET", `${env}/entries?content_type=article&skip=1&limit=2`, keys.management);
  assert.equal(page.status, 200);
  assert.equal(page.body.sys.type, "Array");
  assert.equal(page.body.skip, 1);
  assert.equal(page.body.limit, 2);
  assert.equal(page.body.items.length, 2);
  assert.ok(page.body.items.every((e: any) => e.sys.contentType.sys.id === "article"));
  assertError(await call("GET", `${env}/entries?limit=0`, keys.management), 400, "BadQuery");
  assertError(await call("GET", `${env}/entries?content_type=nope`, keys.management), 400, "InvalidQuery");
  const assets = await call("GET", `${env}/assets?limit=2`, keys.management);
  assert.equal(assets.status, 200);
  assert.equal(assets.body.items.length, 2);
  const asset = await call("GET", `${env}/assets/${assets.body.items[0].sys.id}`, keys.management);
  assert.equal(asset.status, 200);
  assert.ok(asset.body.fields.file["en-US"].url);
  assertError(await call("GET", `${env}/entries/article.nope`, keys.management), 404, "NotFound");
  assertError(await call("GET", `${env}/assets/nope`, keys.management), 404, "NotFound");
});

test("the management asset list takes the delivery list's arguments and answers the same assets", async () => {
  const read = async (query: string) => {
    const management = await call("GET", `${env}/assets?${query}`, keys.management);
    const delivery = await call("GET", `${env}/assets?${query}`, keys.delivery, undefined, {
      "content-type": "application/json",
    });
    assert.equal(management.status, 200, `${query}: ${JSON.stringify(management.body)}`);
    assert.equal(management.res.headers.get("content-type"), MANAGEMENT);
    // git mode: every asset is a library file, so both lists hold the same ones in the same order
    assert.deepEqual(
      management.body.items.map((a: any) => a.sys.id),
      delivery.body.items.map((a: any) => a.sys.id),
      query,
    );
    assert.equal(management.body.total, delivery.body.total, query);
    return management.body;
  };
  const images = await read("mimetype_group=image&order=fields.title&limit=1000");
  assert.ok(images.items.length >= 5);
  assert.ok(images.items.every((a: any) => a.fields.file["en-US"].contentType.startsWith("image/")));
  const reversed = await read("mimetype_group=image&order=-fields.title&limit=1000");
  assert.deepEqual(
    reversed.items.map((a: any) => a.sys.id),
    images.items.map((a: any) => a.sys.id).reverse(),
  );
  const pdf = await read("fields.file.contentType=application/pdf");
  assert.deepEqual(pdf.items.map((a: any) => a.fields.file["en-US"].fileName), ["price-list.pdf"]);
  const named = await read("fields.file.fileName[match]=harbor");
  assert.equal(named.items.length, 1);
  const twoIds = images.items.slice(0, 2).map((a: any) => a.sys.id);
  const byId = await read(`sys.id[in]=${twoIds.join(",")}&order=-sys.id`);
  assert.deepEqual(byId.items.map((a: any) => a.sys.id), [...twoIds].sort().reverse());
  const page = await read("order=sys.createdAt&skip=1&limit=2");
  assert.deepEqual([page.skip, page.limit, page.items.length], [1, 2, 2]);
  // select keeps sys whole and the named fields only, in the management shape (fields keyed by locale)
  const selected = await read(`sys.id[in]=${twoIds[0]}&select=sys.id,fields.file`);
  assert.deepEqual(Object.keys(selected.items[0]), ["sys", "fields"]);
  assert.deepEqual(Object.keys(selected.items[0].fields), ["file"]);
  assert.equal(typeof selected.items[0].sys.version, "number");
  assert.ok(selected.items[0].fields.file["en-US"].url);
  assertError(await call("GET", `${env}/assets?mimetype_group=sculpture`, keys.management), 400, "BadQuery");
  assertError(await call("GET", `${env}/assets?limit=1001`, keys.management), 400, "BadQuery");
  assertError(await call("GET", `${env}/assets?order=fields.colour`, keys.management), 400, "BadQuery");
});

test("management reads: no key or a revoked key is 401, a lesser key 403, a management key reads", async () => {
  for (
    const path of [
      `${env}/entries`,
      `${env}/entries/article.hello`,
      `${env}/assets`,
      `${space}/webhook_definitions`,
    ]
  ) {
    assertError(await call("GET", path), 401, "AccessTokenInvalid");
    assertError(await call("GET", path, keys.revoked), 401, "AccessTokenInvalid");
    for (const lesser of [keys.delivery, keys.preview, keys.forms]) {
      assertError(await call("GET", path, lesser), 403, "AccessDenied");
    }
    assert.equal((await call("GET", path, keys.management)).status, 200, path);
  }
  // uploads are management things whatever the media type
  assertError(
    await call("GET", `${space}/uploads/none`, keys.delivery, undefined, {
      "content-type": "application/json",
    }),
    403,
    "AccessDenied",
  );
  assertError(await call("GET", `${space}/uploads/none`, keys.management), 404, "NotFound");
});

test("reading one upload or one webhook definition: 401 without a key or revoked, 403 for a lesser key, 404 when none", async () => {
  for (
    const path of [
      `${space}/uploads/some-upload`,
      `${env}/uploads/some-upload`,
      `${space}/webhook_definitions/some-hook`,
    ]
  ) {
    assertError(await call("GET", path), 401, "AccessTokenInvalid");
    assertError(await call("GET", path, keys.revoked), 401, "AccessTokenInvalid");
    for (const lesser of [keys.delivery, keys.preview, keys.forms]) {
      assertError(await call("GET", path, lesser), 403, "AccessDenied");
    }
    assertError(await call("GET", path, keys.management), 404, "NotFound");
  }
});

test("management requests share the per-second limit: 429 RateLimitExceeded with the reset header", async () => {
  const key = await host.key("management");
  let limited: Response | undefined;
  for (let round = 0; round < 5 && !limited; round++) {
    const answers = await Promise.all(
      Array.from({ length: 90 }, () =>
        fetch(`${env}/entries?limit=1`, {
          headers: { authorization: `Bearer ${key}`, "content-type": MANAGEMENT },
        })),
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
});

test("without the management media type a management key reads the delivery shape", async () => {
  const r = await call("GET", `${env}/entries/article.hello`, keys.management, undefined, {
    "content-type": "application/json",
  });
  assert.equal(r.status, 200);
  assert.equal(r.body.sys.version, undefined);
  assert.equal(r.body.fields.title, "Hello, world");
});

const WRITES: [string, string, string?][] = [
  ["POST", `${env}/entries`, "{}"],
  ["PUT", `${env}/entries/article.hello`, "{}"],
  ["PUT", `${env}/entries/article.hello/published`],
  ["DELETE", `${env}/entries/article.hello/published`],
  ["DELETE", `${env}/entries/article.hello`],
  ["PUT", `${env}/entries/article.hello/archived`],
  ["DELETE", `${env}/entries/article.hello/archived`],
  ["POST", `${env}/assets`, "{}"],
  ["PUT", `${env}/assets/some-asset`, "{}"],
  ["PUT", `${env}/assets/some-asset/files/en-US/process`],
  ["PUT", `${env}/assets/some-asset/published`],
  ["DELETE", `${env}/assets/some-asset/published`],
  ["DELETE", `${env}/assets/some-asset`],
  ["PUT", `${env}/assets/some-asset/archived`],
  ["POST", `${space}/uploads`, "bytes"],
  ["POST", `${env}/uploads`, "bytes"],
  ["DELETE", `${space}/uploads/some-upload`],
  ["DELETE", `${env}/uploads/some-upload`],
  ["POST", `${space}/webhook_definitions`, "{}"],
  ["PUT", `${space}/webhook_definitions/some-hook`, "{}"],
  ["DELETE", `${space}/webhook_definitions/some-hook`],
  ["PUT", `${env}/content_types/article`, "{}"],
  ["PUT", `${env}/locales/en-US`, "{}"],
];

test("every write: no key or a revoked key 401, a key of another kind 403, never a 5xx", async () => {
  for (const [method, url, body] of WRITES) {
    assertError(await call(method, url, undefined, body), 401, "AccessTokenInvalid");
    assertError(await call(method, url, keys.revoked, body), 401, "AccessTokenInvalid");
    for (const lesser of [keys.delivery, keys.preview, keys.forms]) {
      assertError(await call(method, url, lesser, body), 403, "AccessDenied");
    }
  }
});

test("in git mode every write under a management key is BadRequest 405 with the reason", async () => {
  for (const [method, url, body] of WRITES.filter(([, url]) => !/content_types|locales/.test(url))) {
    const r = await call(method, url, keys.management, body);
    assertError(r, 405, "BadRequest");
    assert.match(r.body.message, /git mode/, `${method} ${url}`);
  }
});

test("content types and locales are never written: 405 with where they come from", async () => {
  const types = await call("PUT", `${env}/content_types/article`, keys.management, "{}");
  assertError(types, 405, "BadRequest");
  assert.match(types.body.message, /models/);
  const locales = await call("POST", `${env}/locales`, keys.management, "{}");
  assertError(locales, 405, "BadRequest");
  assert.match(locales.body.message, /configuration/);
});

test("the sweep takes the service key only", async () => {
  const sweep = `${host.baseUrl}/api/content/sweep-uploads`;
  assertError(await call("POST", sweep), 401, "AccessTokenInvalid");
  assertError(await call("POST", sweep, keys.management), 401, "AccessTokenInvalid");
  const service = await serviceKey(host.ctx);
  assertError(await call("POST", `${sweep}?older_than_ms=soon`, service), 400, "BadQuery");
  // a run with the default cutoff removes only what is a day old: nothing this suite made
  const run = await call("POST", sweep, service);
  assert.equal(run.status, 200);
  assert.equal(typeof run.body.uploads, "number");
  assert.equal(typeof run.body.assets, "number");
});
