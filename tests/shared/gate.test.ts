// The admission statement (shared/gate.ts) on its own: the key's last_used_at touched at most once a
// minute with no update sent in between, and its commit not waited for without that leaking into the
// pooled connection's next transaction.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import postgres from "postgres";
import { connect, type Sql } from "../../shared/db.ts";
import { testDatabaseUrl, testSql } from "../helpers/db.ts";
import { admit } from "../../shared/gate.ts";
import { createKey, revokeKey } from "../../shared/keys.ts";

const windows = [{ seconds: 3600, limit: 1000 }, { seconds: 1, limit: 1000 }];

async function lastUsed(id: string): Promise<number | null> {
  const [row] = await testSql()<{ at: Date | null }[]>`select last_used_at as at from public.api_keys where id = ${id}`;
  return row.at?.getTime() ?? null;
}

/** Admissions of `key` at a number of seconds after `t0`, and that instant. */
function clockedAdmissions(key: string, t0: Date) {
  const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
  const enter = (seconds: number) =>
    admit(testSql(), { api: "gate-test", token: key, clientAddress: "192.0.2.1", windows, now: at(seconds) });
  return { at, enter };
}

test("a key's last_used_at is touched by its first use and again only once a minute has passed", async () => {
  const sql = testSql();
  const { key, id } = await createKey(sql, { name: "gate touch", kind: "delivery" });
  const t0 = new Date("2031-03-01T10:00:00Z");
  const { at, enter } = clockedAdmissions(key, t0);

  assert.equal((await enter(0)).key?.id, id);
  assert.equal(await lastUsed(id), t0.getTime());
  await enter(30);
  assert.equal(await lastUsed(id), t0.getTime(), "within the minute it stays");
  await enter(61);
  assert.equal(await lastUsed(id), at(61).getTime(), "a minute on it moves");
});

test("a touch by another instance within the minute is respected, and no update is sent meanwhile", async () => {
  const sql = testSql();
  const { key, id } = await createKey(sql, { name: "gate other instance", kind: "delivery" });
  const { at, enter } = clockedAdmissions(key, new Date("2031-03-02T10:00:00Z"));

  await enter(0);
  // another instance touched it at 50 s (this process never saw that)
  await sql`update public.api_keys set last_used_at = ${at(50)} where id = ${id}`;
  await enter(70); // this process's minute has passed: the statement asks, the row says not yet
  assert.equal(await lastUsed(id), at(50).getTime());
  await enter(100);
  assert.equal(await lastUsed(id), at(50).getTime(), "it learnt the other touch from the row");
  await enter(111);
  assert.equal(await lastUsed(id), at(111).getTime());
});

test("admissions within the minute send no update of api_keys at all", async () => {
  const sent: string[] = [];
  // the driver's debug hook sees each statement's text as sent
  const sql = postgres(testDatabaseUrl(), { max: 1, debug: (_connection, query) => sent.push(query) });
  try {
    const { key } = await createKey(sql as unknown as Sql, { name: "gate quiet", kind: "delivery" });
    const now = new Date("2031-03-03T10:00:00Z");
    const enter = () =>
      admit(sql as unknown as Sql, { api: "gate-test", token: key, clientAddress: "192.0.2.1", windows, now });
    const updates = () => sent.filter((text) => /update public\.api_keys/.test(text)).length;
    await enter();
    assert.equal(updates(), 1, "the first admission asks for the touch");
    for (let i = 0; i < 5; i++) await enter();
    assert.equal(updates(), 1);
  } finally {
    await sql.end();
  }
});

test("a revoked key is refused at once, whatever the process remembers of its touch", async () => {
  const sql = testSql();
  const { key, id } = await createKey(sql, { name: "gate revoked", kind: "delivery" });
  const now = new Date();
  const enter = () => admit(sql, { api: "gate-test", token: key, clientAddress: "192.0.2.1", windows, now });
  assert.equal((await enter()).key?.revoked, false);
  await revokeKey(sql, id);
  assert.equal((await enter()).key?.revoked, true);
});

test("the admission's commit is not waited for, and the setting ends with its transaction", async () => {
  const sql = connect(testDatabaseUrl(), { max: 1 });
  try {
    const { key } = await createKey(sql, { name: "gate commit", kind: "delivery" });
    await admit(sql, { api: "gate-test", token: key, clientAddress: "192.0.2.1", windows, now: new Date() });
    const [{ synchronous_commit }] = await sql<{ synchronous_commit: string }[]>`show synchronous_commit`;
    assert.equal(synchronous_commit, "on", "the one pooled connection's next statement commits as configured");
  } finally {
    await sql.end();
  }
});

test("each window counts on while now falls in it and starts over when it rolls", async () => {
  const { key } = await createKey(testSql(), { name: "gate windows", kind: "delivery" });
  // 10:00:58 and on: the one-second window rolls every second, the hour's only at 11:00
  const { enter } = clockedAdmissions(key, new Date("2031-03-04T10:59:58Z"));
  const counts = async (seconds: number) => (await enter(seconds)).windows.map((w) => [w.seconds, w.hits]);
  assert.deepEqual(await counts(0), [[3600, 1], [1, 1]]);
  assert.deepEqual(await counts(0.5), [[3600, 2], [1, 2]], "the same second: both count on");
  assert.deepEqual(await counts(1), [[3600, 3], [1, 1]], "the next second: the short window starts over");
  assert.deepEqual(await counts(2), [[3600, 1], [1, 1]], "11:00: the hour starts over too");
  const late = await enter(2.25);
  assert.equal(late.windows[0].resetIn, 3600, "the hour's window resets at 12:00");
  assert.equal(late.windows[1].resetIn, 1);
});

test("a bucket counted under other windows starts over in all of them", async () => {
  const { key } = await createKey(testSql(), { name: "gate other windows", kind: "delivery" });
  const now = new Date("2031-03-05T10:00:00Z");
  const enter = (ws: typeof windows) =>
    admit(testSql(), { api: "gate-test", token: key, clientAddress: "192.0.2.1", windows: ws, now });
  await enter(windows);
  await enter(windows);
  const other = await enter([{ seconds: 60, limit: 10 }, { seconds: 3600, limit: 1000 }]);
  assert.deepEqual(other.windows.map((w) => w.hits), [1, 1]);
  assert.deepEqual((await enter(windows)).windows.map((w) => w.hits), [1, 1]);
});

test("past a window's limit the admission names it, and made-up tokens share the address's budget", async () => {
  const now = new Date("2031-03-06T10:00:00Z");
  const address = `198.51.100.${Math.floor(Math.random() * 250) + 1}`;
  const tight = [{ seconds: 3600, limit: 2 }, { seconds: 1, limit: 100 }];
  const enter = (token: string) =>
    admit(testSql(), { api: "gate-test", token, clientAddress: address, windows: tight, now, unknownTokensBy: "address" });
  const first = await enter("made-up-1");
  assert.equal(first.unknownKey, true);
  assert.equal(first.exceeded, undefined);
  await enter("made-up-2");
  const third = await enter("made-up-3");
  assert.equal(third.exceeded?.seconds, 3600, "three made-up tokens, one address: its hour's two are spent");
  assert.equal(third.windows[0].remaining, 0);
});

test("the site settings are read again only once their version moved", async () => {
  const sent: string[] = [];
  const sql = postgres(testDatabaseUrl(), { max: 1, debug: (_connection, query) => sent.push(query) });
  try {
    const enter = () =>
      admit(sql as unknown as Sql, { api: "gate-test", clientAddress: "192.0.2.9", windows, now: new Date() });
    const reads = () => sent.filter((text) => /from public\.site_settings/.test(text)).length;
    const before = await enter();
    assert.ok(before.site, "the test database has a site");
    const first = reads();
    await enter();
    await enter();
    assert.equal(reads(), first, "an unchanged version: no read");
    await testSql()`update public.site_settings set name = name`;
    const after = await enter();
    assert.equal(reads(), first + 1, "a moved version: one read");
    assert.deepEqual(after.site?.name, before.site?.name);
  } finally {
    await sql.end();
  }
});
