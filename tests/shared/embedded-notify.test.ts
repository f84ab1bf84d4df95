// The embedded PGlite socket behaves like a Postgres server for LISTEN/NOTIFY: a notification committed
// on one connection reaches every other connection that listens on its channel.
import assert from "node:assert/strict";
import { connect } from "../../shared/db.ts";
import { startEmbeddedPostgres } from "../../shared/embedded.ts";
import { test } from "../helpers/test.ts";

// one in-memory PGlite for the file (starting one is the slow part); each test uses its own channels
const pg = await startEmbeddedPostgres();
globalThis.addEventListener("unload", () => pg.stop());

function nextNotification(received: string[], count: number): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const check = () => {
      if (received.length >= count) return resolve();
      if (Date.now() - started > 5000) return reject(new Error(`only ${received.length} notifications arrived`));
      setTimeout(check, 5);
    };
    check();
  });
}

test("a NOTIFY committed on one connection reaches the listener on another, and only its channel", async () => {
  const listener = connect(pg.url, { max: 1 });
  const writer = connect(pg.url, { max: 2 });
  try {
    const heard: string[] = [];
    const other: string[] = [];
    await listener.listen("live_one", (payload) => heard.push(payload));
    await listener.listen("live_two", (payload) => other.push(payload));
    await writer`select pg_notify('live_one', 'first')`;
    await writer.begin(async (tx) => {
      await tx`select pg_notify('live_one', 'in a transaction')`;
      await tx`select 1`;
    });
    await nextNotification(heard, 2);
    assert.deepEqual(heard, ["first", "in a transaction"]);
    assert.deepEqual(other, []);
  } finally {
    await listener.end();
    await writer.end();
  }
});

test("one connection's UNLISTEN leaves another connection listening on the shared backend", async () => {
  const first = connect(pg.url, { max: 1 });
  const second = connect(pg.url, { max: 1 });
  const writer = connect(pg.url, { max: 1 });
  try {
    const heardFirst: string[] = [];
    const heardSecond: string[] = [];
    const subscription = await first.listen("shared_channel", (payload) => heardFirst.push(payload));
    await second.listen("shared_channel", (payload) => heardSecond.push(payload));
    await writer`select pg_notify('shared_channel', 'both')`;
    await nextNotification(heardSecond, 1);
    await nextNotification(heardFirst, 1);
    await subscription.unlisten();
    await writer`select pg_notify('shared_channel', 'second only')`;
    await nextNotification(heardSecond, 2);
    assert.deepEqual(heardSecond, ["both", "second only"]);
    assert.deepEqual(heardFirst, ["both"]);
  } finally {
    await first.end();
    await second.end();
    await writer.end();
  }
});
