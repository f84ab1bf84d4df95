// The scheduling function delivers its own webhooks at POST /webhooks/deliver (pg_net and pg_cron call it
// on Supabase): service key only, in the scheduling envelope; it sends the scheduling API's due rows,
// signed as Cal signs, and leaves every other API's to that API's function. Serial: the route drains
// every due scheduling row, not only this file's.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { assertServiceKeyOnly, callDelivery } from "../../helpers/delivery-route.ts";
import { serviceKey } from "../../../shared/service-key.ts";
import { enqueueWebhook } from "../../../shared/webhooks/outbox.ts";
import { hmacSha256Hex } from "../../../shared/webhooks/sign.ts";
import { startReceiver } from "../../shared/webhooks/support.ts";
import { assertError, call, host } from "./support.ts";

const sql = host.ctx.sql;

test("POST /webhooks/deliver: only the service key, every other caller 401 UNAUTHORIZED", async () => {
  await assertServiceKeyOnly(host, "scheduling-api", "scheduling", (r) => assertError(r, 401, "UNAUTHORIZED"));
});

test("POST /webhooks/deliver sends the scheduling API's due rows, signed, and leaves other APIs' rows", async () => {
  const receiver = startReceiver();
  const key = await host.key("scheduling");
  try {
    const made = await call("POST", "/webhooks", key, {
      subscriberUrl: `${receiver.url}/cal`,
      triggers: ["BOOKING_CREATED"],
      secret: "route secret",
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const body = JSON.stringify({ triggerEvent: "BOOKING_CREATED", payload: { uid: "routed" } });
    await enqueueWebhook(sql, { api: "scheduling", subscriptionId: made.body.data.id, event: "BOOKING_CREATED", url: `${receiver.url}/cal`, body });
    const forms = await enqueueWebhook(sql, { api: "forms", subscriptionId: "gone", event: "form_response", url: `${receiver.url}/forms`, body: "{}" });
    const run = await callDelivery(host, "scheduling-api", await serviceKey(host.ctx));
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.ok(run.body.delivered >= 1, JSON.stringify(run.body));
    const mine = receiver.receipts.filter((r) => r.path === "/cal");
    assert.equal(mine.length, 1);
    assert.equal(mine[0].body, body);
    assert.equal(mine[0].headers.get("x-cal-signature-256"), await hmacSha256Hex("route secret", body));
    assert.equal(receiver.receipts.filter((r) => r.path === "/forms").length, 0);
    const [row] = await sql<{ status: string }[]>`select status from public.webhook_outbox where id = ${forms}`;
    assert.equal(row.status, "pending", "the forms row waits for the forms function");
    await sql`delete from public.webhook_outbox where id = ${forms}`;
    await call("DELETE", `/webhooks/${made.body.data.id}`, key);
  } finally {
    await receiver.close();
  }
});
