// The analytics routes through the running host, as PostHog's clients call them: capture in every body
// form, dedup by uuid, the stored rows, flags and remote config, PostHog's error envelope for every
// refusal, the origin echo for credentialed browsers, and the rate limit.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { testSql } from "../../helpers/db.ts";
import { analyticsRoutes } from "../../../functions/content/routes/analytics.ts";
import { flagHash } from "../../../functions/content/analytics/flags.ts";

const host = await testHost();
const sql = testSql();
const TOKEN = "phc_sitewire_demo";
const EVENTS = `${host.baseUrl}/api/events`;

interface Row {
  uuid: string;
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  timestamp: Date;
  sent_at: Date | null;
  ip: string | null;
}

const rowsOf = (distinctId: string) =>
  sql<Row[]>`select uuid, event, distinct_id, properties, "timestamp", sent_at, ip
             from public.analytics_events where distinct_id = ${distinctId} order by id`;

const unique = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}`;

async function gzip(text: string): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function refused(res: Response, status: number, code: string) {
  assert.equal(res.status, status);
  assert.match(res.headers.get("content-type") ?? "", /application\/json/);
  const body = await res.json();
  assert.deepEqual(Object.keys(body).sort(), ["attr", "code", "detail", "type"]);
  assert.equal(body.code, code);
  return body;
}

test("POST /api/events with the documented body stores the event and answers { status: 1 }", async () => {
  const who = unique("api-user");
  const res = await fetch(EVENTS, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      api_key: TOKEN,
      event: "signed up",
      distinct_id: who,
      properties: { plan: "pro" },
      timestamp: "2026-01-02T03:04:05Z",
    }),
  });
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { status: 1 });
  const [row] = await rowsOf(who);
  assert.equal(row.event, "signed up");
  assert.deepEqual(row.properties, { plan: "pro" });
  assert.equal(row.timestamp.toISOString(), "2026-01-02T03:04:05.000Z");
  assert.equal(row.sent_at, null);
  assert.equal(row.ip, "127.0.0.1");
});

test("/api/events/e/ takes posthog-js's gzip batch with ?_= and corrects the sender's clock", async () => {
  const who = unique("js-visitor");
  const sentAt = Date.now() - 3600_000; // the browser's clock is an hour slow
  const batch = [
    { event: "$pageview", uuid: crypto.randomUUID(), timestamp: new Date(sentAt - 1000).toISOString(), properties: { token: TOKEN, distinct_id: who, $current_url: "/a" } },
    { event: "clicked", uuid: crypto.randomUUID(), timestamp: new Date(sentAt).toISOString(), properties: { token: TOKEN, distinct_id: who } },
  ];
  const res = await fetch(`${EVENTS}/e/?ip=1&_=${sentAt}&ver=1.200.0&compression=gzip-js`, {
    method: "POST",
    headers: { "content-type": "text/plain" },
    body: await gzip(JSON.stringify(batch)),
  });
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { status: 1 });
  const rows = await rowsOf(who);
  assert.deepEqual(rows.map((r) => [r.uuid, r.event]), batch.map((e) => [e.uuid, e.event]));
  const skew = Math.abs(rows[1].timestamp.getTime() - Date.now());
  assert.ok(skew < 60_000, `the event is placed at the server's now, not an hour back (off by ${skew} ms)`);
  assert.equal(rows[0].sent_at?.getTime(), sentAt);
});

test("/api/events/batch/ takes the server libraries' { api_key, batch, sent_at }, and a base64 form works too", async () => {
  const who = unique("server-lib");
  const res = await fetch(`${EVENTS}/batch/`, {
    method: "POST",
    headers: { "content-type": "application/json", "content-encoding": "gzip" },
    body: await gzip(JSON.stringify({
      api_key: TOKEN,
      sent_at: new Date().toISOString(),
      batch: [
        { event: "a", distinct_id: who, properties: {}, type: "capture" },
        { event: "b", distinct_id: who, $set: { email: "x@example.test" } },
      ],
    })),
  });
  assert.equal(res.status, 200);
  const form = `data=${encodeURIComponent(btoa(JSON.stringify({ event: "c", properties: { token: TOKEN, distinct_id: who } })))}`;
  const viaForm = await fetch(`${EVENTS}/e/?compression=base64`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form,
  });
  assert.equal(viaForm.status, 200);
  const rows = await rowsOf(who);
  assert.deepEqual(rows.map((r) => r.event), ["a", "b", "c"]);
  assert.deepEqual(rows[1].properties, { $set: { email: "x@example.test" } });
});

test("an event sent twice with the same uuid is stored once; the function's own address answers too", async () => {
  const who = unique("retry");
  const body = JSON.stringify({ api_key: TOKEN, event: "paid", distinct_id: who, uuid: crypto.randomUUID() });
  for (const url of [`${EVENTS}/e/`, `${host.baseUrl}/functions/v1/content/events/e/`]) {
    const res = await fetch(url, { method: "POST", body });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  }
  assert.equal((await rowsOf(who)).length, 1);
});

test("refusals answer PostHog's envelope: no data, bad JSON, no token, another token, bad events", async () => {
  const who = unique("refused");
  const post = (path: string, body: BodyInit) => fetch(`${EVENTS}${path}`, { method: "POST", body });
  await refused(await post("/e/", ""), 400, "no_data");
  await refused(await fetch(`${EVENTS}/e/`), 400, "no_data");
  const bad = await refused(await post("/e/", "{nope"), 400, "invalid_payload");
  assert.equal(bad.type, "validation_error");
  const missing = await refused(await post("/e/", JSON.stringify({ event: "a", distinct_id: who })), 401, "missing_api_key");
  assert.equal(missing.type, "authentication_error");
  await refused(await post("/batch/", JSON.stringify({ api_key: "phc_other", batch: [{ event: "a", distinct_id: who }] })), 401, "invalid_api_key");
  const noId = await refused(await post("/", JSON.stringify({ api_key: TOKEN, event: "a" })), 400, "invalid_payload");
  assert.equal(noId.attr, "distinct_id");
  await refused(await post("/e/", JSON.stringify([{ api_key: TOKEN, event: "a", distinct_id: who }, null])), 400, "invalid_payload");
  assert.equal((await rowsOf(who)).length, 0, "a refused batch stores nothing");
});

test("dates outside years 0001 to 9999 or not on the calendar are invalid_payload 400, never a 5xx", async () => {
  const who = unique("dates");
  const batch = (extra: Record<string, unknown>, event: Record<string, unknown> = {}) =>
    fetch(`${EVENTS}/batch/`, {
      method: "POST",
      body: JSON.stringify({ api_key: TOKEN, batch: [{ event: "a", distinct_id: who, ...event }], ...extra }),
    });
  for (const sent_at of ["0000-01-01T00:00:00Z", "99999-01-01T00:00:00Z", "2026-02-30T00:00:00Z", "9999-12-31T23:59:59-14:00"]) {
    const body = await refused(await batch({ sent_at }), 400, "invalid_payload");
    assert.equal(body.attr, "sent_at", sent_at);
  }
  // ?_= past year 9999 in milliseconds
  const far = await fetch(`${EVENTS}/e/?_=${8_000_000_000_000_000}`, {
    method: "POST",
    body: JSON.stringify({ api_key: TOKEN, event: "a", distinct_id: who }),
  });
  assert.equal((await refused(far, 400, "invalid_payload")).attr, "sent_at");
  for (const timestamp of ["0000-01-01T00:00:00Z", "2026-02-30T10:00:00Z", "+010000-01-01T00:00:00Z"]) {
    const body = await refused(await batch({}, { timestamp }), 400, "invalid_payload");
    assert.equal(body.attr, "timestamp", timestamp);
  }
  assert.equal((await rowsOf(who)).length, 0);
  // a lowercase t and z, as some senders write them, are still ISO 8601
  const lower = await batch({ sent_at: "2026-03-01t11:00:00z" }, { timestamp: "2026-03-01t10:59:00z" });
  assert.equal(lower.status, 200, await lower.text());
  assert.equal((await rowsOf(who)).length, 1);
});

test("another method on a route is 405, an unknown route under /api/events is 404, both in the envelope", async () => {
  const put = await refused(await fetch(`${EVENTS}/e/`, { method: "PUT", body: "{}" }), 405, "method_not_allowed");
  assert.match(put.detail, /"PUT" not allowed/);
  await refused(await fetch(`${EVENTS}/array/${TOKEN}/config.js`, { method: "POST", body: "{}" }), 405, "method_not_allowed");
  await refused(await fetch(`${EVENTS}/decide/`), 404, "not_found");
});

// the demo site's domain is demo.sitewire.dev (site.yaml); the test host's public address is its own
const SITE_ORIGINS = () => ["https://demo.sitewire.dev", "https://blog.demo.sitewire.dev", new URL(host.baseUrl).origin];
const ELSEWHERE = ["https://reader.example", "http://demo.sitewire.dev", "https://demo.sitewire.dev.evil.example", "null"];

test("the site's own origins are echoed with credentials allowed (posthog-js's XHR sends cookies)", async () => {
  for (const origin of SITE_ORIGINS()) {
    const res = await fetch(`${EVENTS}/e/`, {
      method: "POST",
      headers: { origin },
      body: JSON.stringify({ api_key: TOKEN, event: "a", distinct_id: unique("cors") }),
    });
    await res.body?.cancel();
    assert.equal(res.headers.get("access-control-allow-origin"), origin);
    assert.equal(res.headers.get("access-control-allow-credentials"), "true");
    const refusal = await fetch(`${EVENTS}/e/`, { method: "POST", headers: { origin }, body: "" });
    await refusal.body?.cancel();
    assert.equal(refusal.headers.get("access-control-allow-origin"), origin, "errors too");
  }
});

test("any other origin gets the open CORS without credentials, on answers and preflights", async () => {
  for (const origin of ELSEWHERE) {
    const res = await fetch(`${EVENTS}/e/`, {
      method: "POST",
      headers: { origin },
      body: JSON.stringify({ api_key: TOKEN, event: "a", distinct_id: unique("cors") }),
    });
    await res.body?.cancel();
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), "*", origin);
    assert.equal(res.headers.get("access-control-allow-credentials"), null, origin);
    const preflight = await fetch(`${EVENTS}/e/`, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    });
    await preflight.body?.cancel();
    assert.equal(preflight.headers.get("access-control-allow-credentials"), null, origin);
    assert.notEqual(preflight.headers.get("access-control-allow-origin"), origin);
  }
});

test("a site origin's preflight gets its origin echoed with credentials allowed, so credentialed XHR may follow", async () => {
  for (const path of ["", "/", "/e/", "/batch/", "/flags/", "/e"]) {
    const res = await fetch(`${EVENTS}${path}`, {
      method: "OPTIONS",
      headers: {
        origin: "https://demo.sitewire.dev",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
      },
    });
    await res.body?.cancel();
    assert.ok(res.status >= 200 && res.status < 300, `${path}: ${res.status}`);
    assert.equal(res.headers.get("access-control-allow-origin"), "https://demo.sitewire.dev", path);
    assert.equal(res.headers.get("access-control-allow-credentials"), "true", path);
    assert.match(res.headers.get("access-control-allow-methods") ?? "", /POST/, path);
    assert.match(res.headers.get("access-control-allow-headers") ?? "", /content-type/i, path);
    assert.match(res.headers.get("vary") ?? "", /Origin/, path);
  }
  // the content API's own preflights stay open (*), without credentials
  const content = await fetch(`${host.baseUrl}/api/content/spaces/${host.space}/entries`, {
    method: "OPTIONS",
    headers: { origin: "https://reader.example", "access-control-request-method": "GET" },
  });
  await content.body?.cancel();
  assert.equal(content.headers.get("access-control-allow-origin"), "*");
  assert.equal(content.headers.get("access-control-allow-credentials"), null);
});

test("/api/events/flags/ answers the site's flags for the distinct id, in both shapes", async () => {
  const who = "flag-reader-7";
  const legacy = await fetch(`${EVENTS}/flags/`, { method: "POST", body: JSON.stringify({ api_key: TOKEN, distinct_id: who }) });
  assert.equal(legacy.status, 200);
  const body = await legacy.json();
  const bold = (await flagHash("hero-copy", who, "variant")) >= 0.5;
  assert.deepEqual(body.featureFlags, {
    "new-checkout": true,
    "legacy-footer": false,
    "beta-banner": (await flagHash("beta-banner", who)) <= 0.25,
    "hero-copy": bold ? "bold" : "control",
  });
  assert.deepEqual(JSON.parse(body.featureFlagPayloads["hero-copy"]), {
    headline: bold ? "Your site, your data, your APIs" : "Small sites, built to last",
  });
  assert.equal(body.errorsWhileComputingFlags, false);
  assert.match(body.requestId, /^[0-9a-f-]{36}$/);

  const v2 = await (await fetch(`${EVENTS}/flags/?v=2&config=true`, {
    method: "POST",
    body: await gzip(JSON.stringify({ token: TOKEN, distinct_id: who, person_properties: { plan: "pro" } })),
    headers: { "content-encoding": "gzip" },
  })).json();
  assert.equal(v2.flags["new-checkout"].enabled, true);
  assert.equal(v2.flags["hero-copy"].variant, bold ? "bold" : "control");
  assert.equal(v2.flags["beta-banner"].metadata.description, "The banner inviting readers to the beta.");
  assert.deepEqual(v2.supportedCompression, ["gzip", "gzip-js"]);
  assert.equal(v2.featureFlags, undefined);
});

test("flags refuse a request without distinct_id (400) or token (401), in the envelope", async () => {
  const noId = await refused(await fetch(`${EVENTS}/flags/?v=2`, { method: "POST", body: JSON.stringify({ token: TOKEN }) }), 400, "invalid_payload");
  assert.equal(noId.attr, "distinct_id");
  await refused(await fetch(`${EVENTS}/flags/`, { method: "POST", body: JSON.stringify({ distinct_id: "d" }) }), 401, "missing_api_key");
  await refused(await fetch(`${EVENTS}/flags/`, { method: "POST", body: JSON.stringify({ token: "phc_x", distinct_id: "d" }) }), 401, "invalid_api_key");
});

test("config.js is the script posthog-js loads; /config the same as JSON; a malformed token 400, another 404", async () => {
  const res = await fetch(`${EVENTS}/array/${TOKEN}/config.js`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^application\/javascript/);
  assert.equal(res.headers.get("cache-control"), "public, max-age=300");
  const window: Record<string, any> = {};
  new Function("window", await res.text())(window);
  const loaded = window._POSTHOG_REMOTE_CONFIG[TOKEN];
  assert.equal(loaded.config.token, TOKEN);
  assert.equal(loaded.config.hasFeatureFlags, true);
  assert.deepEqual(loaded.config.analytics, { endpoint: "/e/" });
  const json = await (await fetch(`${EVENTS}/array/${TOKEN}/config`)).json();
  assert.deepEqual({ ...json, siteApps: undefined }, { ...loaded.config, siteApps: undefined });
  await refused(await fetch(`${EVENTS}/array/bad.token/config.js`), 400, "invalid_token");
  await refused(await fetch(`${EVENTS}/array/phc_someone_else/config.js`), 404, "not_found");
});

test("past the rate limit the caller gets 429 with Retry-After, in the envelope, and nothing is stored", async () => {
  const app = analyticsRoutes(host.ctx, { windows: [{ seconds: 7200, limit: 2 }] });
  const address = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
  const who = unique("flood");
  const send = () =>
    app.request("/e/", {
      method: "POST",
      headers: { "x-forwarded-for": address },
      body: JSON.stringify({ api_key: TOKEN, event: "tick", distinct_id: who }),
    });
  assert.equal((await send()).status, 200);
  assert.equal((await send()).status, 200);
  const third = await send();
  const body = await refused(third, 429, "rate_limit_exceeded");
  assert.equal(body.detail, "Rate limit exceeded");
  assert.ok(Number(third.headers.get("retry-after")) > 0);
  assert.equal((await rowsOf(who)).length, 2);
});
