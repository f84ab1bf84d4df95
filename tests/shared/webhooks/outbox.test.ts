import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { fixedClock } from "../../../shared/clock.ts";
import { backoffSeconds, claimDue, enqueueWebhook, recordOutcome } from "../../../shared/webhooks/outbox.ts";
import { onPGlite, pool, uniqueApi } from "./support.ts";

const sql = await pool();
const pglite = await onPGlite();

test("backoff doubles from 10 seconds and stops at one hour", () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 20, 1000].map(backoffSeconds), [
    10,
    20,
    40,
    80,
    160,
    320,
    640,
    1280,
    2560,
    3600,
    3600,
  ]);
});

test("an event enqueued in a transaction that rolls back is never delivered", async () => {
  const api = uniqueApi();
  const now = new Date();
  await assert.rejects(
    sql.begin(async (tx) => {
      await enqueueWebhook(tx, {
        api,
        subscriptionId: 1,
        event: "x.created",
        url: "http://127.0.0.1:9/",
        body: "{}",
      });
      throw new Error("the change failed");
    }),
    /the change failed/,
  );
  const claimed = await claimDue(sql, {
    limit: 10,
    now: new Date(now.getTime() + 1000),
    leaseSeconds: 60,
    apis: [api],
  });
  assert.deepEqual(claimed, []);
});

test("enqueue stores the exact body and headers and claim hands them back with attempts bumped", async () => {
  const api = uniqueApi();
  const clock = fixedClock(new Date());
  const body = '{ "b":  [1, 2], "unicode": "é✓" }';
  const id = await enqueueWebhook(sql, {
    api,
    subscriptionId: "sub-1",
    event: "form_response",
    url: "https://hooks.example/in",
    headers: { "X-Custom": "yes" },
    body,
    at: clock.now(),
  });
  const [row] = await claimDue(sql, { limit: 5, now: clock.now(), leaseSeconds: 60, apis: [api] });
  assert.equal(row.id, id);
  assert.equal(row.body, body);
  assert.deepEqual(row.headers, { "X-Custom": "yes" });
  assert.equal(row.subscriptionId, "sub-1");
  assert.equal(row.attempts, 1);
  assert.equal(row.maxAttempts, 8);
  assert.equal(row.claimedUntil?.getTime(), clock.now().getTime() + 60_000);
});

test("a claimed row stays out of reach until its lease runs out", async () => {
  const api = uniqueApi();
  const clock = fixedClock(new Date());
  await enqueueWebhook(sql, {
    api,
    subscriptionId: 1,
    event: "e",
    url: "https://x.example/",
    body: "1",
    at: clock.now(),
  });
  assert.equal(
    (await claimDue(sql, { limit: 5, now: clock.now(), leaseSeconds: 30, apis: [api] })).length,
    1,
  );
  clock.advance(29_000);
  assert.equal(
    (await claimDue(sql, { limit: 5, now: clock.now(), leaseSeconds: 30, apis: [api] })).length,
    0,
  );
  clock.advance(2_000);
  const [again] = await claimDue(sql, { limit: 5, now: clock.now(), leaseSeconds: 30, apis: [api] });
  assert.equal(again.attempts, 2, "a dispatcher that died mid-send counts as an attempt");
});

test("rows are claimed in due order, only when due, and only for the APIs asked for", async () => {
  const api = uniqueApi();
  const other = uniqueApi();
  const clock = fixedClock(new Date());
  const t = clock.now().getTime();
  const later = await enqueueWebhook(sql, {
    api,
    subscriptionId: 1,
    event: "e",
    url: "https://x.example/",
    body: "b",
    at: new Date(t - 1000),
  });
  const first = await enqueueWebhook(sql, {
    api,
    subscriptionId: 1,
    event: "e",
    url: "https://x.example/",
    body: "a",
    at: new Date(t - 5000),
  });
  await enqueueWebhook(sql, {
    api,
    subscriptionId: 1,
    event: "e",
    url: "https://x.example/",
    body: "future",
    at: new Date(t + 5000),
  });
  await enqueueWebhook(sql, {
    api: other,
    subscriptionId: 1,
    event: "e",
    url: "https://x.example/",
    body: "o",
    at: new Date(t - 9000),
  });
  const rows = await claimDue(sql, { limit: 10, now: clock.now(), leaseSeconds: 60, apis: [api] });
  assert.deepEqual(rows.map((r) => r.id), [first, later]);
  const limited = await claimDue(sql, {
    limit: 1,
    now: new Date(t + 6000),
    leaseSeconds: 60,
    apis: [api, other],
  });
  assert.equal(limited.length, 1);
  assert.equal(limited[0].api, other);
});

test("recording a failure schedules the next try with backoff, and a success marks it delivered", async () => {
  const api = uniqueApi();
  const clock = fixedClock(new Date());
  await enqueueWebhook(sql, {
    api,
    subscriptionId: 1,
    event: "e",
    url: "https://x.example/",
    body: "{}",
    at: clock.now(),
  });
  const [row] = await claimDue(sql, { limit: 1, now: clock.now(), leaseSeconds: 60, apis: [api] });
  const failed = await recordOutcome(
    sql,
    row,
    { delivered: false, status: 503, error: "HTTP 503" },
    clock.now(),
  );
  assert.equal(failed?.status, "pending");
  assert.equal(failed?.lastStatus, 503);
  assert.equal(failed?.lastError, "HTTP 503");
  assert.equal(failed?.claimedUntil, null);
  assert.equal(failed?.nextAttemptAt.getTime(), clock.now().getTime() + 10_000);

  clock.advance(10_000);
  const [retry] = await claimDue(sql, { limit: 1, now: clock.now(), leaseSeconds: 60, apis: [api] });
  const done = await recordOutcome(sql, retry, { delivered: true, status: 204 }, clock.now());
  assert.equal(done?.status, "delivered");
  assert.equal(done?.deliveredAt?.getTime(), clock.now().getTime());
  assert.equal(done?.lastStatus, 204);
  assert.equal(done?.lastError, null);
  assert.equal(done?.attempts, 2);
});

test("a stale claim cannot record over a newer one", async () => {
  const api = uniqueApi();
  const clock = fixedClock(new Date());
  await enqueueWebhook(sql, {
    api,
    subscriptionId: 1,
    event: "e",
    url: "https://x.example/",
    body: "{}",
    at: clock.now(),
  });
  const [stale] = await claimDue(sql, { limit: 1, now: clock.now(), leaseSeconds: 10, apis: [api] });
  clock.advance(11_000);
  const [fresh] = await claimDue(sql, { limit: 1, now: clock.now(), leaseSeconds: 10, apis: [api] });
  assert.equal(await recordOutcome(sql, stale, { delivered: true, status: 200 }, clock.now()), null);
  assert.equal(
    (await recordOutcome(sql, fresh, { delivered: true, status: 200 }, clock.now()))?.status,
    "delivered",
  );
});

test("a final failure fails the row at once whatever attempts remain", async () => {
  const api = uniqueApi();
  const clock = fixedClock(new Date());
  await enqueueWebhook(sql, {
    api,
    subscriptionId: 1,
    event: "e",
    url: "https://x.example/",
    body: "{}",
    at: clock.now(),
  });
  const [row] = await claimDue(sql, { limit: 1, now: clock.now(), leaseSeconds: 60, apis: [api] });
  const out = await recordOutcome(sql, row, {
    delivered: false,
    error: "refused: private address 10.0.0.1",
    final: true,
  }, clock.now());
  assert.equal(out?.status, "failed");
  assert.equal(out?.attempts, 1);
});

Deno.test({
  name: "enqueueing wakes listeners on the webhook_outbox channel with the row id",
  ignore: pglite, // see onPGlite: NOTIFY does not cross the embedded socket's connections
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const api = uniqueApi();
  const heard: string[] = [];
  const got = Promise.withResolvers<void>();
  // other tests enqueue at the same time: wait for this row's notification, not just any
  // deno-lint-ignore prefer-const -- set once the row exists, after the listener that reads it
  let wanted: string | undefined;
  const listener = await sql.listen("webhook_outbox", (payload) => {
    heard.push(payload);
    if (payload === wanted) got.resolve();
  });
  const id = await enqueueWebhook(sql, {
    api,
    subscriptionId: 1,
    event: "e",
    url: "https://x.example/",
    body: "{}",
  });
  wanted = String(id);
  if (heard.includes(wanted)) got.resolve();
  await Promise.race([
    got.promise,
    new Promise((_, reject) => setTimeout(() => reject(new Error("no notification")), 3000)),
  ]);
  await listener.unlisten();
  assert.ok(heard.includes(String(id)));
});

test("targets narrow a claim to rows addressed under those URL prefixes (a % or _ in a prefix is literal)", async () => {
  const api = uniqueApi();
  const now = new Date();
  for (const url of ["http://127.0.0.1:7001/hook", "http://127.0.0.1:7002/hook", "http://127.0.0.1:7001x/hook", "http://h/a_b"]) {
    await enqueueWebhook(sql, { api, subscriptionId: 1, event: "x", url, body: "{}", at: new Date(now.getTime() - 1000) });
  }
  const mine = await claimDue(sql, { limit: 10, now, leaseSeconds: 60, apis: [api], targets: ["http://127.0.0.1:7001/"] });
  assert.deepEqual(mine.map((r) => r.url), ["http://127.0.0.1:7001/hook"]);
  const underscore = await claimDue(sql, { limit: 10, now, leaseSeconds: 60, apis: [api], targets: ["http://h/a_"] });
  assert.deepEqual(underscore.map((r) => r.url), ["http://h/a_b"]);
  const literal = await claimDue(sql, { limit: 10, now, leaseSeconds: 60, apis: [api], targets: ["http://127.0.0.1:700_/"] });
  assert.deepEqual(literal, []);
  const rest = await claimDue(sql, { limit: 10, now, leaseSeconds: 60, apis: [api] });
  assert.deepEqual(rest.map((r) => r.url).sort(), ["http://127.0.0.1:7001x/hook", "http://127.0.0.1:7002/hook"]);
});

test("a row made due by now() is claimable by a clock reading the same millisecond", async () => {
  const api = uniqueApi();
  await enqueueWebhook(sql, { api, subscriptionId: 1, event: "x", url: "http://127.0.0.1:9/", body: "{}" });
  // made due as an operator or a test does it, by the database's own microsecond clock (+ 123 µs, so the
  // row is never on a whole millisecond by chance)
  const [{ due }] = await sql<{ due: Date }[]>`
    update public.webhook_outbox set next_attempt_at = date_trunc('milliseconds', now()) + interval '123 microseconds'
    where api = ${api} returning next_attempt_at as due`;
  // postgres.js hands back whole milliseconds: this clock reads the row's own millisecond, microseconds dropped
  const before = await claimDue(sql, { limit: 5, now: new Date(due.getTime() - 1), leaseSeconds: 60, apis: [api] });
  assert.equal(before.length, 0, "a millisecond earlier it is not due");
  const sameMillisecond = new Date(due.getTime());
  const claimed = await claimDue(sql, { limit: 5, now: sameMillisecond, leaseSeconds: 60, apis: [api] });
  assert.equal(claimed.length, 1);
});
