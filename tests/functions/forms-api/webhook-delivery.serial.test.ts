// The forms function delivers its own webhooks at POST /webhooks/deliver (pg_net and pg_cron call it on
// Supabase): service key only, in the Forms API's envelope; it sends the forms API's due rows and leaves
// every other API's to that API's function. Serial: the route drains every due forms row, not only this
// file's.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { assertServiceKeyOnly, callDelivery } from "../../helpers/delivery-route.ts";
import { serviceKey } from "../../../shared/service-key.ts";
import { enqueueWebhook } from "../../../shared/webhooks/outbox.ts";
import { startReceiver } from "../../shared/webhooks/support.ts";
import { makeForm, respond } from "./support.ts";

const host = await testHost();
const sql = host.ctx.sql;

test("POST /webhooks/deliver: only the service key, every other caller AUTHENTICATION_FAILED", async () => {
  await assertServiceKeyOnly(host, "forms-api", "forms", (r) => {
    assert.equal(r.status, 401, JSON.stringify(r.body));
    assert.equal(r.body.code, "AUTHENTICATION_FAILED");
  });
});

test("POST /webhooks/deliver sends the form's due deliveries, signed, and leaves other APIs' rows", async () => {
  const receiver = startReceiver();
  try {
    const slug = await makeForm(host, "routed", "## Only\nname* text: Name?\n", { webhook: `${receiver.url}/document` });
    const { token } = await respond(host, slug, { name: "Ann" });
    const content = await enqueueWebhook(sql, { api: "content", subscriptionId: "gone", event: "e", url: `${receiver.url}/content`, body: "{}" });
    const run = await callDelivery(host, "forms-api", await serviceKey(host.ctx));
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.ok(run.body.delivered >= 1, JSON.stringify(run.body));
    const mine = receiver.receipts.filter((r) => r.path === "/document" && r.body.includes(token));
    assert.equal(mine.length, 1);
    assert.match(mine[0].headers.get("x-form-signature") ?? "", /^sha256=[0-9a-f]{64}$/);
    assert.equal(receiver.receipts.filter((r) => r.path === "/content").length, 0);
    const [row] = await sql<{ status: string }[]>`select status from public.webhook_outbox where id = ${content}`;
    assert.equal(row.status, "pending", "content's row waits for the content function");
    await sql`delete from public.webhook_outbox where id = ${content}`;
  } finally {
    await receiver.close();
  }
});
