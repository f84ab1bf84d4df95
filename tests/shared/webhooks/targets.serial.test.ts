// One reading of the webhook-target setting (RuntimeConfig.allowPrivateWebhookTargets): with it unset,
// development (`task dev`) lets every API's webhooks point at a loopback receiver and a deployment
// refuses them in every API alike; ALLOW_PRIVATE_WEBHOOK_TARGETS overrides both. The dispatcher takes the
// same value (scripts/dev.ts).
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { readConfig } from "../../../shared/config.ts";
import type { FunctionContext } from "../../../shared/context.ts";
import { createContentApp } from "../../../functions/content/app.ts";
import { createFormsApp } from "../../../functions/forms-api/app.ts";
import { createSchedulingApp } from "../../../functions/scheduling-api/app.ts";
import { host, inCloudMode, makerKey, sql, unique } from "../../functions/content/management-support.ts";

const { key: management } = await makerKey();
const forms = await host.key("forms");
const scheduling = await host.key("scheduling");
const LOCAL = "http://127.0.0.1:9/hook";

type Attempt = (ctx: FunctionContext) => Promise<{ status: number; body: any }>;

async function answer(response: Response) {
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const ATTEMPTS: Record<string, Attempt> = {
  content: async (ctx) =>
    await answer(
      await createContentApp(ctx).request(`/spaces/${host.space}/webhook_definitions`, {
        method: "POST",
        headers: { authorization: `Bearer ${management}`, "content-type": "application/json" },
        body: JSON.stringify({ name: unique("local"), url: LOCAL, topics: ["Entry.publish"] }),
      }),
    ),
  forms: async (ctx) => {
    const app = createFormsApp(ctx);
    const list = await app.request("/forms?page_size=1", { headers: { authorization: `Bearer ${forms}` } });
    const [form] = (await list.json()).items;
    return await answer(
      await app.request(`/forms/${form.id}/webhooks/${unique("local")}`, {
        method: "PUT",
        headers: { authorization: `Bearer ${forms}`, "content-type": "application/json" },
        body: JSON.stringify({ url: LOCAL, enabled: true }),
      }),
    );
  },
  scheduling: async (ctx) =>
    await answer(
      await createSchedulingApp(ctx).request(`/v2/webhooks`, {
        method: "POST",
        headers: { authorization: `Bearer ${scheduling}`, "content-type": "application/json" },
        body: JSON.stringify({ subscriberUrl: LOCAL, triggers: ["BOOKING_CREATED"] }),
      }),
    ),
};

/** Removes what the attempts made, so no later test's change writes deliveries for them. */
async function cleanUp() {
  await sql`delete from public.content_webhook_definitions where url = ${LOCAL}`;
  await sql`delete from public.form_webhooks where url = ${LOCAL}`;
  await sql`delete from public.scheduling_webhooks where subscriber_url = ${LOCAL} or subscriber_url like '%.invalid/hook'`;
}

function contextFor(setting: boolean): FunctionContext {
  return { ...host.ctx, config: { ...host.ctx.config, allowPrivateWebhookTargets: setting } };
}

test("the setting is read once: development allows private targets, a deployment refuses, the variable decides both", () => {
  const read = (env: Record<string, string>, development: boolean) =>
    readConfig(new Map(Object.entries(env)), { development }).allowPrivateWebhookTargets;
  assert.equal(read({}, true), true);
  assert.equal(read({}, false), false);
  assert.equal(read({ ALLOW_PRIVATE_WEBHOOK_TARGETS: "false" }, true), false);
  assert.equal(read({ ALLOW_PRIVATE_WEBHOOK_TARGETS: "true" }, false), true);
  assert.equal(read({ ALLOW_PRIVATE_WEBHOOK_TARGETS: "1" }, false), true);
});

test("under development settings every API accepts a webhook at a loopback receiver", () =>
  inCloudMode(async () => {
    const ctx = contextFor(readConfig(new Map(), { development: true }).allowPrivateWebhookTargets);
    for (const [api, attempt] of Object.entries(ATTEMPTS)) {
      const made = await attempt(ctx);
      assert.ok(made.status === 200 || made.status === 201, `${api}: ${made.status} ${JSON.stringify(made.body)}`);
    }
  }).finally(cleanUp));

test("under deployment settings every API refuses a loopback target in its own envelope", () =>
  inCloudMode(async () => {
    const ctx = contextFor(readConfig(new Map(), { development: false }).allowPrivateWebhookTargets);
    const content = await ATTEMPTS.content(ctx);
    assert.equal(content.status, 422, JSON.stringify(content.body));
    assert.match(content.body.details.errors[0].details, /127\.0\.0\.1/);
    const form = await ATTEMPTS.forms(ctx);
    assert.equal(form.status, 400, JSON.stringify(form.body));
    assert.equal(form.body.code, "VALIDATION_ERROR");
    assert.match(form.body.description, /loopback/);
    const booking = await ATTEMPTS.scheduling(ctx);
    assert.equal(booking.status, 400, JSON.stringify(booking.body));
    assert.match(booking.body.error.message, /^subscriberUrl is refused: .*loopback/);
  }).finally(cleanUp));

test("a subscriberUrl whose host does not resolve is not refused with the resolver's text", async () => {
  const made = await createSchedulingApp(contextFor(false)).request(`/v2/webhooks`, {
    method: "POST",
    headers: { authorization: `Bearer ${scheduling}`, "content-type": "application/json" },
    body: JSON.stringify({ subscriberUrl: "https://no-such-host.invalid/hook", triggers: ["BOOKING_CREATED"] }),
  });
  const text = await made.text();
  await cleanUp();
  // names are judged when a delivery resolves them, as in every API
  assert.equal(made.status, 201, text);
  assert.doesNotMatch(text, /resolv|dns|os error/i);
});
