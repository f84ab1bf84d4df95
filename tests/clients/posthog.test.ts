// The real posthog-node client against the running host (host `{base_url}/api/events`): its captures
// (gzip batches to /batch/) land in analytics_events, and its flag reads (/flags/?v=2) answer the site's
// configured flags, variants and payloads.
import assert from "node:assert/strict";
import { PostHog } from "posthog-node";
import { test } from "../helpers/test.ts";
import { testHost } from "../helpers/host.ts";
import { testSql } from "../helpers/db.ts";
import { flagHash } from "../../functions/content/analytics/flags.ts";

const host = await testHost();
const sql = testSql();
const TOKEN = "phc_sitewire_demo";

function client(): PostHog {
  return new PostHog(TOKEN, { host: `${host.baseUrl}/api/events`, flushAt: 1, flushInterval: 0, fetchRetryCount: 0 });
}

test("posthog-node: capture and identify are stored with their properties", async () => {
  const posthog = client();
  const who = `node-${crypto.randomUUID().slice(0, 8)}`;
  posthog.capture({ distinctId: who, event: "order placed", properties: { total: 42, currency: "EUR" } });
  posthog.identify({ distinctId: who, properties: { email: `${who}@example.test` } });
  await posthog.shutdown();
  const rows = await sql<{ event: string; properties: Record<string, unknown> }[]>`
    select event, properties from public.analytics_events where distinct_id = ${who} order by id`;
  assert.deepEqual(rows.map((r) => r.event), ["order placed", "$identify"]);
  assert.equal(rows[0].properties.total, 42);
  assert.equal(rows[0].properties.$lib, "posthog-node");
  assert.deepEqual(rows[1].properties.$set, { email: `${who}@example.test` });
});

test("posthog-node: flags, variants and payloads come from site.yaml", async () => {
  const posthog = client();
  const who = "node-flag-reader";
  try {
    const flags = await posthog.evaluateFlags(who);
    assert.equal(flags.isEnabled("new-checkout"), true);
    assert.equal(flags.isEnabled("legacy-footer"), false);
    const variant = (await flagHash("hero-copy", who, "variant")) < 0.5 ? "control" : "bold";
    assert.equal(flags.getFlag("hero-copy"), variant);
    assert.deepEqual(flags.getFlagPayload("hero-copy"), {
      headline: variant === "bold" ? "Your site, your data, your APIs" : "Small sites, built to last",
    });
    const all = await posthog.getAllFlags(who);
    assert.equal(all["beta-banner"], (await flagHash("beta-banner", who)) <= 0.25);
  } finally {
    await posthog.shutdown();
  }
});
