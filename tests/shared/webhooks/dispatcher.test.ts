import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { fixedClock, systemClock } from "../../../shared/clock.ts";
import type { Sql } from "../../../shared/db.ts";
import { enqueueWebhook, type OutboxRow } from "../../../shared/webhooks/outbox.ts";
import {
  createDispatcher,
  deliverDue,
  type WakeSource,
  type WebhookAdapter,
} from "../../../shared/webhooks/dispatcher.ts";
import { hmacSha256Hex } from "../../../shared/webhooks/sign.ts";
import { databaseUrl, onPGlite, pool, startReceiver, uniqueApi } from "./support.ts";

const sql = await pool();
const pglite = await onPGlite();

/** An adapter like the APIs': signs with a secret it looks up (here a constant) and records outcomes. */
function testAdapter(secret = "whsec") {
  const recorded: { id: number; status: string; error: string | null }[] = [];
  const adapter: WebhookAdapter = {
    async sign(row: OutboxRow) {
      return { "x-test-signature": await hmacSha256Hex(secret, row.body), "x-delivery-id": String(row.id) };
    },
    record(_sql: Sql, row: OutboxRow) {
      recorded.push({ id: row.id, status: row.status, error: row.lastError });
      return Promise.resolve();
    },
  };
  return { adapter, recorded };
}

async function outboxRow(id: number) {
  const [row] = await sql<
    {
      status: string;
      attempts: number;
      last_status: number | null;
      last_error: string | null;
      next_attempt_at: Date;
      delivered_at: Date | null;
    }[]
  >`select status, attempts, last_status, last_error, next_attempt_at, delivered_at from public.webhook_outbox where id = ${id}`;
  return row;
}

test("delivers the exact body with the stored headers, the adapter's signature and a content type", async () => {
  const receiver = startReceiver();
  try {
    const api = uniqueApi();
    const clock = fixedClock(new Date());
    const { adapter, recorded } = testAdapter("s3cret");
    const body = '{"event_id":"01","form_response":{ "answers": [ ] },"ü":"✓"}';
    const id = await enqueueWebhook(sql, {
      api,
      subscriptionId: "hook-1",
      event: "form_response",
      url: `${receiver.url}/hooks/in?x=1`,
      headers: { "X-Custom": "from-definition" },
      body,
      at: clock.now(),
    });
    const dispatcher = createDispatcher({ sql, clock, adapters: { [api]: adapter }, allowPrivate: true });
    assert.deepEqual(await dispatcher.runOnce(), { claimed: 1, delivered: 1, retrying: 0, failed: 0 });

    assert.equal(receiver.receipts.length, 1);
    const [got] = receiver.receipts;
    assert.equal(got.path, "/hooks/in");
    assert.equal(got.body, body);
    assert.equal(got.headers.get("x-custom"), "from-definition");
    assert.equal(got.headers.get("x-test-signature"), await hmacSha256Hex("s3cret", body));
    assert.equal(got.headers.get("content-type"), "application/json");
    assert.equal(got.headers.get("x-delivery-id"), String(id));

    const row = await outboxRow(id);
    assert.equal(row.status, "delivered");
    assert.equal(row.attempts, 1);
    assert.equal(row.last_status, 200);
    assert.equal(row.delivered_at?.getTime(), clock.now().getTime());
    assert.deepEqual(recorded, [{ id, status: "delivered", error: null }]);
    assert.deepEqual(await dispatcher.runOnce(), { claimed: 0, delivered: 0, retrying: 0, failed: 0 });
  } finally {
    await receiver.close();
  }
});

test("a content type stored with the event is kept", async () => {
  const receiver = startReceiver();
  try {
    const api = uniqueApi();
    const clock = fixedClock(new Date());
    await enqueueWebhook(sql, {
      api,
      subscriptionId: 1,
      event: "Entry.publish",
      url: receiver.url,
      headers: { "Content-Type": "application/vnd.contentful.management.v1+json" },
      body: "{}",
      at: clock.now(),
    });
    await deliverDue({ sql, clock, adapters: { [api]: testAdapter().adapter }, allowPrivate: true });
    assert.equal(
      receiver.receipts[0].headers.get("content-type"),
      "application/vnd.contentful.management.v1+json",
    );
  } finally {
    await receiver.close();
  }
});

test("retries after a 500 with backoff and last_error recorded, then delivers on the next due run", async () => {
  const receiver = startReceiver();
  try {
    const api = uniqueApi();
    const clock = fixedClock(new Date());
    const { adapter, recorded } = testAdapter();
    receiver.reply = (n) => (n === 0 ? "500" : "ok");
    const id = await enqueueWebhook(sql, {
      api,
      subscriptionId: 7,
      event: "BOOKING_CREATED",
      url: receiver.url,
      body: '{"a":1}',
      at: clock.now(),
    });
    const dispatcher = createDispatcher({ sql, clock, adapters: { [api]: adapter }, allowPrivate: true });

    assert.deepEqual(await dispatcher.runOnce(), { claimed: 1, delivered: 0, retrying: 1, failed: 0 });
    let row = await outboxRow(id);
    assert.equal(row.status, "pending");
    assert.equal(row.last_status, 500);
    assert.equal(row.last_error, "HTTP 500");
    assert.equal(row.next_attempt_at.getTime(), clock.now().getTime() + 10_000);

    clock.advance(9_999);
    assert.equal((await dispatcher.runOnce()).claimed, 0, "not due before the backoff ends");
    clock.advance(1);
    assert.deepEqual(await dispatcher.runOnce(), { claimed: 1, delivered: 1, retrying: 0, failed: 0 });
    row = await outboxRow(id);
    assert.equal(row.status, "delivered");
    assert.equal(row.attempts, 2);
    assert.equal(row.last_error, null);
    assert.equal(receiver.receipts.length, 2);
    assert.equal(receiver.receipts[1].body, '{"a":1}');
    assert.deepEqual(recorded.map((r) => [r.status, r.error]), [["pending", "HTTP 500"], [
      "delivered",
      null,
    ]]);
  } finally {
    await receiver.close();
  }
});

test("gives up with status failed once max_attempts are used, backing off 10 s, 20 s, 40 s", async () => {
  const receiver = startReceiver();
  try {
    const api = uniqueApi();
    const clock = fixedClock(new Date());
    receiver.reply = "500";
    const id = await enqueueWebhook(sql, {
      api,
      subscriptionId: 1,
      event: "e",
      url: receiver.url,
      body: "{}",
      maxAttempts: 4,
      at: clock.now(),
    });
    const dispatcher = createDispatcher({
      sql,
      clock,
      adapters: { [api]: testAdapter().adapter },
      allowPrivate: true,
    });
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 4; attempt++) {
      const counts = await dispatcher.runOnce();
      assert.equal(counts.claimed, 1, `attempt ${attempt} is due`);
      const row = await outboxRow(id);
      assert.equal(row.attempts, attempt);
      if (attempt < 4) {
        assert.equal(row.status, "pending");
        waits.push(row.next_attempt_at.getTime() - clock.now().getTime());
        clock.set(row.next_attempt_at);
      } else {
        assert.deepEqual(counts, { claimed: 1, delivered: 0, retrying: 0, failed: 1 });
        assert.equal(row.status, "failed");
        assert.equal(row.last_error, "HTTP 500");
      }
    }
    assert.deepEqual(waits, [10_000, 20_000, 40_000]);
    clock.advance(24 * 3600_000);
    assert.equal((await dispatcher.runOnce()).claimed, 0, "a failed row is never tried again");
    assert.equal(receiver.receipts.length, 4);
  } finally {
    await receiver.close();
  }
});

test("a receiver that does not answer in time is a failed attempt with a timeout error", async () => {
  const receiver = startReceiver();
  try {
    const api = uniqueApi();
    const clock = fixedClock(new Date());
    receiver.reply = "hang";
    const id = await enqueueWebhook(sql, {
      api,
      subscriptionId: 1,
      event: "e",
      url: receiver.url,
      body: "{}",
      at: clock.now(),
    });
    const dispatcher = createDispatcher({
      sql,
      clock,
      adapters: { [api]: testAdapter().adapter },
      allowPrivate: true,
      timeoutMs: 300,
    });
    const started = performance.now();
    assert.deepEqual(await dispatcher.runOnce(), { claimed: 1, delivered: 0, retrying: 1, failed: 0 });
    const took = performance.now() - started;
    assert.ok(took >= 290 && took < 3000, `gave up after ${took} ms`);
    const row = await outboxRow(id);
    assert.equal(row.last_error, "timeout after 300 ms");
    assert.equal(row.last_status, null);
    assert.equal(receiver.receipts.length, 1);
  } finally {
    await receiver.close();
  }
});

test("a network error is a failed attempt carrying the error message", async () => {
  const api = uniqueApi();
  const clock = fixedClock(new Date());
  // a port nobody listens on
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const id = await enqueueWebhook(sql, {
    api,
    subscriptionId: 1,
    event: "e",
    url: `http://127.0.0.1:${port}/`,
    body: "{}",
    at: clock.now(),
  });
  const counts = await deliverDue({
    sql,
    clock,
    adapters: { [api]: testAdapter().adapter },
    allowPrivate: true,
  });
  assert.equal(counts.retrying, 1);
  const row = await outboxRow(id);
  assert.equal(row.status, "pending");
  assert.ok(row.last_error && row.last_error.length <= 300, row.last_error ?? "");
  assert.match(row.last_error!, /connect|refused/i);
});

test("a private target is refused at send time without a request when private targets are not allowed", async () => {
  const receiver = startReceiver();
  try {
    const api = uniqueApi();
    const clock = fixedClock(new Date());
    const { adapter, recorded } = testAdapter();
    const id = await enqueueWebhook(sql, {
      api,
      subscriptionId: 1,
      event: "e",
      url: `${receiver.url}/x`,
      body: "{}",
      at: clock.now(),
    });
    const counts = await deliverDue({ sql, clock, adapters: { [api]: adapter }, allowPrivate: false });
    assert.deepEqual(counts, { claimed: 1, delivered: 0, retrying: 0, failed: 1 });
    const row = await outboxRow(id);
    assert.equal(row.status, "failed");
    assert.equal(row.last_error, "refused: loopback address 127.0.0.1");
    assert.equal(receiver.receipts.length, 0, "no request was sent");
    assert.deepEqual(recorded, [{ id, status: "failed", error: "refused: loopback address 127.0.0.1" }]);
  } finally {
    await receiver.close();
  }
});

test("a redirect is not followed and counts as a failed attempt", async () => {
  const api = uniqueApi();
  const clock = fixedClock(new Date());
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(null, { status: 307, headers: { location: "http://169.254.169.254/" } }),
  );
  try {
    const id = await enqueueWebhook(sql, {
      api,
      subscriptionId: 1,
      event: "e",
      url: `http://127.0.0.1:${server.addr.port}/`,
      body: "{}",
      at: clock.now(),
    });
    await deliverDue({ sql, clock, adapters: { [api]: testAdapter().adapter }, allowPrivate: true });
    const row = await outboxRow(id);
    assert.equal(row.last_error, "HTTP 307");
    assert.equal(row.status, "pending");
  } finally {
    await server.shutdown();
  }
});

test("an adapter answering null (subscription gone) fails the row for good without a request", async () => {
  const receiver = startReceiver();
  try {
    const api = uniqueApi();
    const clock = fixedClock(new Date());
    const id = await enqueueWebhook(sql, {
      api,
      subscriptionId: 1,
      event: "e",
      url: receiver.url,
      body: "{}",
      at: clock.now(),
    });
    const counts = await deliverDue({
      sql,
      clock,
      adapters: { [api]: { sign: () => Promise.resolve(null) } },
      allowPrivate: true,
    });
    assert.equal(counts.failed, 1);
    assert.equal((await outboxRow(id)).last_error, "subscription no longer active");
    assert.equal(receiver.receipts.length, 0);
  } finally {
    await receiver.close();
  }
});

test("a dispatcher leaves rows of APIs it has no adapter for", async () => {
  const api = uniqueApi();
  const clock = fixedClock(new Date());
  const id = await enqueueWebhook(sql, {
    api,
    subscriptionId: 1,
    event: "e",
    url: "http://127.0.0.1:9/",
    body: "{}",
    at: clock.now(),
  });
  const counts = await deliverDue({
    sql,
    clock,
    adapters: { [uniqueApi()]: testAdapter().adapter },
    allowPrivate: true,
  });
  assert.equal(counts.claimed, 0);
  assert.equal((await outboxRow(id)).attempts, 0);
});

test("two dispatchers on two connections never deliver the same row twice (SKIP LOCKED)", async () => {
  const receiver = startReceiver();
  const one = await pool(2);
  const two = await pool(2);
  try {
    const api = uniqueApi();
    const clock = fixedClock(new Date());
    const ids: number[] = [];
    for (let i = 0; i < 30; i++) {
      ids.push(
        await enqueueWebhook(sql, {
          api,
          subscriptionId: 1,
          event: "e",
          url: `${receiver.url}/${i}`,
          body: `{"n":${i}}`,
          at: clock.now(),
        }),
      );
    }
    const adapters = { [api]: testAdapter().adapter };
    const a = createDispatcher({ sql: one, clock, adapters, allowPrivate: true, batchSize: 4 });
    const b = createDispatcher({ sql: two, clock, adapters, allowPrivate: true, batchSize: 4 });
    const drain = async (d: typeof a) => {
      let delivered = 0;
      for (;;) {
        const counts = await d.runOnce();
        delivered += counts.delivered;
        if (!counts.claimed) return delivered;
      }
    };
    const [byA, byB] = await Promise.all([drain(a), drain(b)]);
    assert.equal(byA + byB, 30);
    assert.equal(receiver.receipts.length, 30);
    const seen = receiver.receipts.map((r) => Number(r.headers.get("x-delivery-id")));
    assert.equal(new Set(seen).size, 30, "every receipt is a different outbox row");
    assert.deepEqual([...seen].sort((x, y) => x - y), [...ids].sort((x, y) => x - y));
    const rows = await sql<{ status: string; attempts: number }[]>`
      select status, attempts from public.webhook_outbox where api = ${api}`;
    assert.ok(rows.every((r) => r.status === "delivered" && r.attempts === 1));
  } finally {
    await Promise.all([one.end(), two.end()]);
    await receiver.close();
  }
});

test("start() wakes on a signal from its wake source long before the poll interval", async () => {
  const receiver = startReceiver();
  try {
    const api = uniqueApi();
    let wake: (() => void) | undefined;
    let unlistened = false;
    const listen: WakeSource = (_channel, w) => {
      wake = w;
      return Promise.resolve({ unlisten: () => Promise.resolve(void (unlistened = true)) });
    };
    const dispatcher = createDispatcher({
      sql,
      clock: systemClock,
      adapters: { [api]: testAdapter().adapter },
      allowPrivate: true,
      pollIntervalMs: 60_000,
      listen,
    });
    const running = dispatcher.start();
    await dispatcher.ready;
    const started = performance.now();
    await enqueueWebhook(sql, { api, subscriptionId: 1, event: "e", url: receiver.url, body: "{}" });
    wake!();
    await receiver.waitFor(1, 5000);
    assert.ok(performance.now() - started < 2000);
    await dispatcher.stop();
    await running;
    assert.ok(unlistened, "stop() removes the listener");
  } finally {
    await receiver.close();
  }
});

Deno.test({
  name: "start() hears NOTIFY webhook_outbox and delivers long before the poll interval",
  ignore: pglite, // see onPGlite: on the embedded socket the poll does this job
  sanitizeOps: false,
  sanitizeResources: false,
}, async () => {
  const receiver = startReceiver();
  const own = await pool(2);
  try {
    const api = uniqueApi();
    const dispatcher = createDispatcher({
      sql: own,
      adapters: { [api]: testAdapter().adapter },
      allowPrivate: true,
      pollIntervalMs: 60_000,
    });
    const running = dispatcher.start();
    await dispatcher.ready;
    const started = performance.now();
    // written the way an API writes it: inside the transaction of the change
    await sql.begin((tx) =>
      enqueueWebhook(tx, { api, subscriptionId: 1, event: "e", url: receiver.url, body: '{"woke":true}' })
    );
    await receiver.waitFor(1, 5000);
    const took = performance.now() - started;
    assert.ok(took < 2000, `delivered after ${took} ms`);
    assert.equal(receiver.receipts[0].body, '{"woke":true}');
    await dispatcher.stop();
    await running;
  } finally {
    await own.end();
    await receiver.close();
  }
});

test("start() polls for retries that become due without any notification", async () => {
  const receiver = startReceiver();
  try {
    const api = uniqueApi();
    const dispatcher = createDispatcher({
      sql,
      adapters: { [api]: testAdapter().adapter },
      allowPrivate: true,
      pollIntervalMs: 100,
      listen: false,
    });
    const running = dispatcher.start();
    await dispatcher.ready;
    await enqueueWebhook(sql, { api, subscriptionId: 1, event: "e", url: receiver.url, body: "{}" });
    await receiver.waitFor(1, 3000);
    await dispatcher.stop();
    await running;
  } finally {
    await receiver.close();
  }
});

Deno.test({
  name: "stop() ends the loop and leaves no timer, listener or connection behind",
  // the sanitizers are on here: a poll timer (60 s) or listener that stop() left would fail this test
  sanitizeOps: true,
  sanitizeResources: true,
}, async () => {
  const own = await pool(2);
  const api = uniqueApi();
  const dispatcher = createDispatcher({
    sql: own,
    adapters: { [api]: testAdapter().adapter },
    allowPrivate: true,
    pollIntervalMs: 60_000,
    listen: pglite ? false : undefined,
  });
  const running = dispatcher.start();
  await dispatcher.ready;
  await dispatcher.stop();
  await running;
  await own.end();
});

test("nothing is sent after stop()", async () => {
  const api = uniqueApi();
  let sends = 0;
  const dispatcher = createDispatcher({
    sql,
    adapters: { [api]: testAdapter().adapter },
    allowPrivate: true,
    pollIntervalMs: 20,
    fetch: () => (sends++, Promise.resolve(new Response("ok"))),
    listen: false,
  });
  const running = dispatcher.start();
  await dispatcher.ready;
  await new Promise((r) => setTimeout(r, 60));
  await dispatcher.stop();
  await running;
  await enqueueWebhook(sql, { api, subscriptionId: 1, event: "e", url: "http://127.0.0.1:9/", body: "{}" });
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(sends, 0);
  const [row] = await sql<
    { attempts: number }[]
  >`select attempts from public.webhook_outbox where api = ${api}`;
  assert.equal(row.attempts, 0);
});

test("a stored header that cannot be sent is a failed attempt, not a lost row", async () => {
  const api = uniqueApi();
  const clock = fixedClock(new Date());
  const id = await enqueueWebhook(sql, {
    api,
    subscriptionId: 1,
    event: "e",
    url: "http://127.0.0.1:9/",
    headers: { "bad header name": "x" },
    body: "{}",
    at: clock.now(),
  });
  const counts = await deliverDue({
    sql,
    clock,
    adapters: { [api]: testAdapter().adapter },
    allowPrivate: true,
  });
  assert.equal(counts.retrying, 1);
  const row = await outboxRow(id);
  assert.equal(row.status, "pending");
  assert.ok(row.last_error);
});

test("deliverDue goes on while full batches come back, at most maxPasses of them, and adds their counts", async () => {
  const receiver = startReceiver();
  try {
    const api = uniqueApi();
    const clock = fixedClock(new Date());
    for (let i = 0; i < 5; i++) {
      await enqueueWebhook(sql, { api, subscriptionId: i, event: "e", url: `${receiver.url}/${i}`, body: "{}", at: clock.now() });
    }
    const options = { sql, clock, adapters: { [api]: testAdapter().adapter }, allowPrivate: true, batchSize: 2 };
    assert.deepEqual(await deliverDue(options, 2), { claimed: 4, delivered: 4, retrying: 0, failed: 0 });
    // a short batch ends the call before its passes are used up
    assert.deepEqual(await deliverDue(options, 5), { claimed: 1, delivered: 1, retrying: 0, failed: 0 });
    assert.equal(receiver.receipts.length, 5);
  } finally {
    await receiver.close();
  }
});

test("a dispatcher process killed between claiming rows and recording them loses nothing: another delivers them once the claim lapses", async () => {
  const receiver = startReceiver();
  const api = uniqueApi();
  const lease = 2;
  const ids: number[] = [];
  for (let i = 0; i < 3; i++) {
    ids.push(await enqueueWebhook(sql, { api, subscriptionId: 1, event: "e", url: `${receiver.url}/${i}`, body: `{"n":${i}}` }));
  }
  // the receiver takes the first requests and never answers them: the process is mid-delivery
  receiver.reply = "hang";
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", new URL("./dispatcher-process.ts", import.meta.url).pathname, (await databaseUrl()).url, api, String(lease)],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  try {
    await receiver.waitFor(3, 30_000);
    const claimed = await sql<{ status: string; attempts: number; claimed_until: Date | null }[]>`
      select status, attempts, claimed_until from public.webhook_outbox where api = ${api} order by id`;
    assert.ok(claimed.every((r) => r.status === "pending" && r.attempts === 1 && r.claimed_until), JSON.stringify(claimed));
    child.kill("SIGKILL");
    const status = await child.status;
    assert.equal(status.signal, "SIGKILL");

    // nothing was recorded; while the claim holds, no other dispatcher touches the rows
    receiver.reply = "ok";
    const other = createDispatcher({ sql, adapters: { [api]: testAdapter().adapter }, allowPrivate: true });
    assert.equal((await other.runOnce()).claimed, 0, "the dead process's claim still holds");
    await new Promise((resolve) => setTimeout(resolve, lease * 1000 + 200));
    assert.deepEqual(await other.runOnce(), { claimed: 3, delivered: 3, retrying: 0, failed: 0 });
    const rows = await sql<{ id: number; status: string; attempts: number }[]>`
      select id, status, attempts from public.webhook_outbox where api = ${api} order by id`;
    assert.deepEqual(rows.map((r) => [Number(r.id), r.status, r.attempts]), ids.map((id) => [id, "delivered", 2]));
    // each row reached the receiver once from each dispatcher: at least once, never dropped
    const byRow = receiver.receipts.map((r) => Number(r.headers.get("x-delivery-id")));
    for (const id of ids) assert.equal(byRow.filter((x) => x === id).length, 2);
  } finally {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await child.stdout.cancel().catch(() => {});
    await receiver.close();
  }
});
