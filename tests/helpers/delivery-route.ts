// A function's own webhook delivery route (POST /functions/v1/<fn>/webhooks/deliver), the one pg_net and
// pg_cron call on Supabase: the callers it refuses, and that it sends only its own API's due rows.
import assert from "node:assert/strict";
import { serviceKey } from "../../shared/service-key.ts";
import type { TestHost } from "./host.ts";

/** POSTs to the function's delivery route as `token` presents itself (none, a key, the service key). */
export async function callDelivery(
  host: TestHost,
  fn: string,
  token: string | undefined,
  method = "POST",
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${host.baseUrl}/functions/v1/${fn}/webhooks/deliver`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), "content-type": "application/json" },
    // pg_net posts a JSON body; whatever it holds, the route only delivers
    body: method === "GET" ? undefined : "{}",
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * The auth matrix: no key, a revoked key and a live key of the function's own kind, a key of another kind:
 * each gets `refused` (the function's own envelope); the service key gets the counts.
 */
export async function assertServiceKeyOnly(
  host: TestHost,
  fn: string,
  ownKind: Parameters<TestHost["key"]>[0],
  refused: (r: { status: number; body: any }) => void,
): Promise<void> {
  const otherKind = ownKind === "delivery" ? "management" : "delivery";
  for (const wrong of [undefined, await host.revokedKey(ownKind), await host.key(ownKind), await host.key(otherKind)]) {
    refused(await callDelivery(host, fn, wrong));
  }
  const right = await callDelivery(host, fn, await serviceKey(host.ctx));
  assert.equal(right.status, 200, JSON.stringify(right.body));
  assert.deepEqual(Object.keys(right.body).sort(), ["claimed", "delivered", "failed", "retrying"]);
}
