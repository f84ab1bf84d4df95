// The analytics domain without a server: decoding request bodies as PostHog's clients send them, the
// capture rules (token, distinct id, uuid, timestamps), PostHog's flag hash, the flags and remote config
// shapes, and the site.yaml `analytics` section.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { readPayload } from "../../../functions/content/analytics/payload.ts";
import { captureEvents, eventTimestamp, sentAt } from "../../../functions/content/analytics/events.ts";
import {
  evaluateFlag,
  flagHash,
  flagsResponse,
  remoteConfig,
  remoteConfigScript,
} from "../../../functions/content/analytics/flags.ts";
import { AnalyticsError } from "../../../functions/content/analytics/envelope.ts";
import { analyticsConfigOf, parseAnalyticsConfig } from "../../../shared/site/analytics-config.ts";
import { parseSiteConfig, SiteConfigError } from "../../../shared/site/config.ts";

const TOKEN = "phc_test_token";
const NOW = new Date("2026-03-01T12:00:00.000Z");

const post = (body: BodyInit, init: { query?: string; headers?: Record<string, string> } = {}) =>
  new Request(`http://site.test/api/events/e/${init.query ?? ""}`, { method: "POST", body, headers: init.headers });

async function gzip(text: string): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const base64 = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));

async function refusal(promise: Promise<unknown> | (() => unknown)): Promise<AnalyticsError> {
  try {
    await (typeof promise === "function" ? promise() : promise);
  } catch (error) {
    assert.ok(error instanceof AnalyticsError, `an AnalyticsError, not ${error}`);
    return error;
  }
  assert.fail("expected a refusal");
}

const event = { event: "$pageview", distinct_id: "visitor-1", properties: { token: TOKEN, $current_url: "/" } };

// ---- decoding ----

test("a JSON body, a gzip body (Content-Encoding or ?compression=gzip-js) and a base64 form all decode alike", async () => {
  const json = JSON.stringify(event);
  const plain = await readPayload(post(json, { headers: { "content-type": "application/json" } }));
  const gzHeader = await readPayload(post(await gzip(json), { headers: { "content-encoding": "gzip" } }));
  const gzQuery = await readPayload(post(await gzip(json), { query: "?compression=gzip-js", headers: { "content-type": "text/plain" } }));
  const form = await readPayload(post(`data=${encodeURIComponent(base64(json))}&compression=base64`, {
    headers: { "content-type": "application/x-www-form-urlencoded" },
  }));
  const unannouncedGzip = await readPayload(post(await gzip(json)));
  for (const payload of [plain, gzHeader, gzQuery, form, unannouncedGzip]) assert.deepEqual(payload.data, event);
  assert.equal(form.form?.get("compression"), "base64");
});

test("GET ?data= carries the payload too, base64 or JSON", async () => {
  const viaBase64 = await readPayload(new Request(`http://site.test/e/?data=${encodeURIComponent(base64(JSON.stringify(event)))}`));
  assert.deepEqual(viaBase64.data, event);
  const viaJson = await readPayload(new Request(`http://site.test/e/?data=${encodeURIComponent(JSON.stringify(event))}`));
  assert.deepEqual(viaJson.data, event);
});

test("no body is no_data; broken JSON, broken gzip and unknown compression are invalid_payload", async () => {
  const empty = await refusal(readPayload(post("")));
  assert.deepEqual([empty.status, empty.code], [400, "no_data"]);
  const get = await refusal(readPayload(new Request("http://site.test/e/")));
  assert.equal(get.code, "no_data");
  const broken = await refusal(readPayload(post('{"event": ')));
  assert.deepEqual([broken.status, broken.code], [400, "invalid_payload"]);
  assert.match(broken.message, /^Malformed request data: Invalid JSON/);
  // in our words: the JSON parser's and the decompressor's own messages are not the client's to read
  assert.doesNotMatch(broken.message, /Unexpected|position|SyntaxError/);
  const badGzip = await refusal(readPayload(post("not gzip", { headers: { "content-encoding": "gzip" } })));
  assert.match(badGzip.message, /Failed to decompress/);
  assert.doesNotMatch(badGzip.message, /TypeError|header|corrupt/i);
  const lz = await refusal(readPayload(post("abc", { query: "?compression=lz64" })));
  assert.match(lz.message, /unsupported compression lz64/);
  const badBase64 = await refusal(readPayload(post("data=%%%", {
    query: "?compression=base64",
    headers: { "content-type": "application/x-www-form-urlencoded" },
  })));
  assert.equal(badBase64.code, "invalid_payload");
});

test("a body past the limit is refused while reading, and so is a gzip that inflates past it", async () => {
  const big = await refusal(readPayload(post("x".repeat(2048)), 1024));
  assert.match(big.message, /larger than 20 MB/);
  assert.equal(big.status, 413);
  const bomb = await gzip(JSON.stringify({ ...event, properties: { pad: "a".repeat(100_000) } }));
  assert.ok(bomb.length < 1024, "the compressed body is small");
  const inflated = await refusal(readPayload(post(bomb, { headers: { "content-encoding": "gzip" } }), 1024));
  assert.equal(inflated.status, 413);
  assert.equal(inflated.code, "request_too_large");
});

// ---- capture rules ----

test("the token is found where PostHog looks: api_key, token, $token, properties.token, the query, the form", async () => {
  const bodies = [
    { api_key: TOKEN, event: "a", distinct_id: "d" },
    { token: TOKEN, event: "a", distinct_id: "d" },
    { $token: TOKEN, event: "a", distinct_id: "d" },
    { event: "a", distinct_id: "d", properties: { token: TOKEN } },
    [{ event: "a", properties: { token: TOKEN, distinct_id: "d" } }],
    { api_key: TOKEN, batch: [{ event: "a", distinct_id: "d" }] },
  ];
  for (const body of bodies) {
    const events = captureEvents(await readPayload(post(JSON.stringify(body))), TOKEN, NOW);
    assert.equal(events.length, 1, JSON.stringify(body));
    assert.equal(events[0].distinct_id, "d");
  }
  const viaQuery = await readPayload(post(JSON.stringify({ event: "a", distinct_id: "d" }), { query: `?token=${TOKEN}` }));
  assert.equal(captureEvents(viaQuery, TOKEN, NOW).length, 1);
});

test("no token is 401 missing_api_key; another token, or a batch mixing tokens, is 401 invalid_api_key", async () => {
  const missing = await refusal(async () => captureEvents(await readPayload(post(JSON.stringify({ event: "a", distinct_id: "d" }))), TOKEN, NOW));
  assert.deepEqual([missing.status, missing.type, missing.code], [401, "authentication_error", "missing_api_key"]);
  const wrong = await refusal(async () => captureEvents(await readPayload(post(JSON.stringify({ ...event, properties: { token: "phc_other" } }))), TOKEN, NOW));
  assert.deepEqual([wrong.status, wrong.code], [401, "invalid_api_key"]);
  const mixed = await refusal(async () =>
    captureEvents(
      await readPayload(post(JSON.stringify([event, { ...event, properties: { token: "phc_other" } }]))),
      TOKEN,
      NOW,
    )
  );
  assert.equal(mixed.code, "invalid_api_key");
  const unconfigured = await refusal(async () => captureEvents(await readPayload(post(JSON.stringify(event))), null, NOW));
  assert.equal(unconfigured.code, "invalid_api_key", "a site without analytics refuses every token");
});

test("each event needs a name and a distinct id; uuid and properties are checked; nulls and empty batches refused", async () => {
  const capture = async (body: unknown) => captureEvents(await readPayload(post(JSON.stringify(body))), TOKEN, NOW);
  const cases: [unknown, RegExp][] = [
    [{ api_key: TOKEN, distinct_id: "d" }, /event name field "event"/],
    [{ api_key: TOKEN, event: "" , distinct_id: "d" }, /event name field "event"/],
    [{ api_key: TOKEN, event: "a" }, /event field "distinct_id"/],
    [{ api_key: TOKEN, event: "a", distinct_id: "" }, /should not be blank/],
    [{ api_key: TOKEN, event: "a", distinct_id: { id: 1 } }, /must be a string or a number/],
    [{ api_key: TOKEN, event: "a", distinct_id: "d", properties: [1] }, /Properties must be a JSON object, received list!/],
    [{ api_key: TOKEN, event: "a", distinct_id: "d", uuid: "not-a-uuid" }, /"uuid" is not a valid UUID/],
    [{ api_key: TOKEN, event: "a", distinct_id: "d", timestamp: "yesterday" }, /"timestamp" must be an ISO 8601/],
    [{ api_key: TOKEN, batch: [] }, /holds no event/],
    [[], /holds no event/],
    [[event, null], /some events are null/],
    [[event, 5], /must be a JSON object/],
    ["just text", /must be an event, a list of events or a batch/],
  ];
  for (const [body, message] of cases) {
    const error = await refusal(() => capture(body));
    assert.equal(error.status, 400, JSON.stringify(body));
    assert.equal(error.code, "invalid_payload");
    assert.match(error.message, message, JSON.stringify(body));
  }
});

test("names and distinct ids keep 200 characters; NUL and lone surrogates are replaced; $set folds into properties", async () => {
  const [captured] = captureEvents(await readPayload(post(JSON.stringify({
    api_key: TOKEN,
    event: "e".repeat(250),
    distinct_id: 12345,
    $set: { plan: "pro" },
    properties: { "k\u0000": "v\u0000\ud800", nested: [{ deep: "x\u0000" }] },
  }))), TOKEN, NOW);
  assert.equal(captured.event.length, 200);
  assert.equal(captured.distinct_id, "12345");
  assert.deepEqual(captured.properties, {
    "k\uFFFD": "v\uFFFD\uFFFD",
    nested: [{ deep: "x\uFFFD" }],
    $set: { plan: "pro" },
  });
  assert.match(captured.uuid, /^[0-9a-f-]{36}$/, "an event without uuid gets one");
});

test("an event nested deeper than 64 levels is refused, however deep", async () => {
  let deep: unknown = "leaf";
  for (let i = 0; i < 100_000; i++) deep = [deep];
  const error = await refusal(async () =>
    captureEvents(await readPayload(post(JSON.stringify({ api_key: TOKEN, event: "a", distinct_id: "d", properties: { deep } }))), TOKEN, NOW)
  );
  assert.match(error.message, /nested more than 64/);
});

test("timestamps: the sender's clock error is corrected with sent_at, offset counts back from now, far future is now", () => {
  const sent = new Date("2026-03-01T11:00:00.000Z"); // the sender's clock is an hour slow
  assert.equal(
    eventTimestamp({ timestamp: "2026-03-01T10:59:00.000Z" }, sent, NOW).toISOString(),
    "2026-03-01T11:59:00.000Z",
  );
  assert.equal(eventTimestamp({ timestamp: "2026-03-01T10:59:00Z" }, null, NOW).toISOString(), "2026-03-01T10:59:00.000Z");
  assert.equal(eventTimestamp({ offset: 5000 }, sent, NOW).toISOString(), "2026-03-01T11:59:55.000Z");
  assert.equal(eventTimestamp({}, null, NOW).toISOString(), NOW.toISOString());
  assert.equal(eventTimestamp({ timestamp: "2026-03-03T00:00:00Z" }, null, NOW).toISOString(), NOW.toISOString());
});

test("timestamps: a result before year 0001 (a huge offset, a sender's clock far ahead) is now", () => {
  assert.equal(eventTimestamp({ offset: 1e14 }, null, NOW).toISOString(), NOW.toISOString());
  const farAhead = new Date("9999-01-01T00:00:00Z");
  assert.equal(
    eventTimestamp({ timestamp: "0001-01-01T00:00:00Z" }, farAhead, NOW).toISOString(),
    NOW.toISOString(),
  );
  // the earliest instant that is still a date is kept
  const first = new Date("0001-01-01T00:00:00.000Z");
  assert.equal(
    eventTimestamp({ offset: NOW.getTime() - first.getTime() }, null, NOW).toISOString(),
    first.toISOString(),
  );
});

test("sent_at: ?_= in milliseconds or seconds, the body's ISO sent_at; garbage is invalid_payload", async () => {
  const at = async (query: string, body: unknown = event) => sentAt(await readPayload(post(JSON.stringify(body), { query })));
  assert.equal((await at("?_=1772366400000"))?.toISOString(), "2026-03-01T12:00:00.000Z");
  assert.equal((await at("?_=1772366400"))?.toISOString(), "2026-03-01T12:00:00.000Z");
  assert.equal((await at("", { ...event, sent_at: "2026-03-01T11:00:00Z" }))?.toISOString(), "2026-03-01T11:00:00.000Z");
  assert.equal(await at(""), null);
  const error = await refusal(() => at("?_=soon"));
  assert.equal(error.attr, "sent_at");
});

// ---- flags ----

test("the flag hash is PostHog's (test-flag / distinct_id_1 = 0.35140843114131903)", async () => {
  assert.equal(await flagHash("test-flag", "distinct_id_1"), 0.35140843114131903);
  const h = await flagHash("test-flag", "distinct_id_1", "variant");
  assert.ok(h >= 0 && h <= 1 && h !== 0.35140843114131903);
});

const flagsSection = parseAnalyticsConfig({
  token: TOKEN,
  flags: {
    on: true,
    off: false,
    quarter: { rollout: 25, description: "A quarter." },
    hero: { variants: { control: 50, bold: 50 }, payloads: { bold: { headline: "Bold" } } },
    priced: { payload: { price: 9 } },
  },
}, (why) => {
  throw new Error(why);
});

test("a rollout answers by the hash: on at or below the share, off above it", async () => {
  const quarter = flagsSection.flags[2];
  let on = 0;
  for (let i = 0; i < 200; i++) {
    const id = `person-${i}`;
    const detail = await evaluateFlag(quarter, 2, id);
    assert.equal(detail.enabled, (await flagHash("quarter", id)) <= 0.25, id);
    if (detail.enabled) on++;
    assert.equal(detail.reason.code, detail.enabled ? "condition_match" : "out_of_rollout_bound");
  }
  assert.ok(on > 20 && on < 80, `about a quarter of 200 (${on})`);
});

test("variants split by the variant hash, and the same person always gets the same variant", async () => {
  const hero = flagsSection.flags[3];
  const seen = new Set<string>();
  for (let i = 0; i < 50; i++) {
    const id = `reader-${i}`;
    const detail = await evaluateFlag(hero, 3, id);
    const expected = (await flagHash("hero", id, "variant")) < 0.5 ? "control" : "bold";
    assert.equal(detail.variant, expected);
    assert.deepEqual(await evaluateFlag(hero, 3, id), detail);
    assert.equal(detail.metadata.payload, detail.variant === "bold" ? '{"headline":"Bold"}' : null);
    seen.add(detail.variant!);
  }
  assert.deepEqual([...seen].sort(), ["bold", "control"]);
});

test("/flags answers featureFlags and featureFlagPayloads, or with v=2 the flags' details; config=true adds remote config", async () => {
  const legacy = await flagsResponse(flagsSection, { distinctId: "reader-1", version: 1, withConfig: false }, "rid");
  const hero = (await evaluateFlag(flagsSection.flags[3], 3, "reader-1")).variant!;
  const quarter = (await flagHash("quarter", "reader-1")) <= 0.25;
  assert.deepEqual(legacy, {
    featureFlags: { on: true, off: false, quarter, hero, priced: true },
    featureFlagPayloads: { priced: '{"price":9}', ...(hero === "bold" ? { hero: '{"headline":"Bold"}' } : {}) },
    errorsWhileComputingFlags: false,
    requestId: "rid",
  });
  const v2 = await flagsResponse(flagsSection, { distinctId: "reader-1", version: 2, withConfig: true }, "rid");
  const flags = v2.flags as Record<string, { enabled: boolean; variant: string | null; metadata: { id: number; description: string | null } }>;
  assert.deepEqual(Object.keys(flags), ["on", "off", "quarter", "hero", "priced"]);
  assert.equal(flags.off.enabled, false);
  assert.equal(flags.hero.variant, hero);
  assert.deepEqual(flags.quarter.metadata, { id: 3, version: 1, description: "A quarter.", payload: null });
  assert.equal(v2.hasFeatureFlags, true);
  assert.deepEqual(v2.analytics, { endpoint: "/e/" });
  assert.equal(v2.featureFlags, undefined);
});

test("remote config: JSON, and the script that sets window._POSTHOG_REMOTE_CONFIG[token]", () => {
  const config = remoteConfig(flagsSection, TOKEN);
  assert.equal(config.token, TOKEN);
  assert.deepEqual(config.supportedCompression, ["gzip", "gzip-js"]);
  assert.equal(config.sessionRecording, false);
  const window: Record<string, any> = {};
  new Function("window", remoteConfigScript(flagsSection, TOKEN))(window);
  assert.deepEqual(window._POSTHOG_REMOTE_CONFIG[TOKEN].siteApps, []);
  const { siteApps: _s, ...rest } = config;
  assert.deepEqual(window._POSTHOG_REMOTE_CONFIG[TOKEN].config, rest);
  assert.equal(remoteConfig({ token: TOKEN, flags: [] }, TOKEN).hasFeatureFlags, false);
});

// ---- site.yaml ----

test("site.yaml analytics: token and flags are checked and normalised; the demo site has both", async () => {
  const demo = parseSiteConfig(await Deno.readTextFile(new URL("../../../demo-site/site.yaml", import.meta.url)));
  assert.equal(demo.analytics.token, "phc_sitewire_demo");
  assert.ok(demo.analytics.flags.some((f) => f.variants.length), "the demo has a multivariate flag");
  assert.deepEqual(analyticsConfigOf(demo.raw), demo.analytics, "site_settings.config holds the normalised section");
  assert.deepEqual(parseSiteConfig("name: X\nslug: x\n").analytics, { token: null, flags: [] });
  const bad: [string, RegExp][] = [
    ["analytics: 5", /analytics must be a mapping/],
    ["analytics: { token: 'has space' }", /analytics.token/],
    ["analytics: { colour: red }", /unknown setting colour/],
    ["analytics: { flags: [a] }", /analytics.flags must map/],
    ["analytics: { flags: { 'bad key!': true } }", /flag key/],
    ["analytics: { flags: { a: 3 } }", /must be true, false or a mapping/],
    ["analytics: { flags: { a: { rollout: 150 } } }", /rollout must be a percentage/],
    ["analytics: { flags: { a: { variants: { x: 60, y: 30 } } } }", /add up to 90, not 100/],
    ["analytics: { flags: { a: { variants: { x: 100 }, payload: 1 } } }", /payloads keyed by variant/],
    ["analytics: { flags: { a: { payloads: { maybe: 1 } } } }", /maybe is not one of the flag's answers/],
    ["analytics: { flags: { a: { payload: 1, payloads: { 'true': 1 } } } }", /not both/],
    ["analytics: { flags: { a: { enabled: yes please } } }", /enabled must be true or false/],
  ];
  for (const [yaml, message] of bad) {
    assert.throws(() => parseSiteConfig(`name: X\nslug: x\n${yaml}\n`), (e: Error) => {
      assert.ok(e instanceof SiteConfigError);
      assert.match(e.message, message, yaml);
      return true;
    });
  }
});
