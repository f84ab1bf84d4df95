// The embedded PGlite socket drops a connection's prepared statements when the connection closes, as a
// Postgres server does: its one backend holds every connection's statements, and a pool that reconnects
// (idle connections closed, old ones recycled) would otherwise leave a copy of each behind for good. A
// text prepared on several connections is one statement in the backend (shared/embedded-statements.ts).
import assert from "node:assert/strict";
import { connect } from "../../shared/db.ts";
import { startEmbeddedPostgres } from "../../shared/embedded.ts";
import { test } from "../helpers/test.ts";

const pg = await startEmbeddedPostgres();
globalThis.addEventListener("unload", () => pg.stop());

async function until(check: () => Promise<boolean>, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return await check();
}

test("a closed connection's prepared statements are deallocated; an open one's stay and still run", async () => {
  const observer = connect(pg.url, { max: 1 });
  const other = connect(pg.url, { max: 1 });
  try {
    const statements = async () =>
      (await observer<{ n: number }[]>`select count(*)::int as n from pg_prepared_statements`)[0].n;
    // the other connection prepares one statement and keeps it
    assert.equal((await other<{ v: number }[]>`select ${41}::int + 1 as v`)[0].v, 42);
    const before = await statements();
    for (let round = 0; round < 3; round++) {
      const pool = connect(pg.url, { max: 2 });
      await Promise.all([
        pool`select ${round}::int as a`,
        pool`select ${round}::text as b, now() as c`,
        pool`select ${round}::int as d, 'x' as e`,
      ]);
      assert.ok(await statements() > before, "the pool's statements are prepared on the backend");
      await pool.end();
      assert.ok(await until(async () => await statements() === before), `round ${round}: back to ${before}`);
    }
    // the statement of the connection still open was kept, and answers again without being prepared anew
    assert.equal((await other<{ v: number }[]>`select ${1}::int + 1 as v`)[0].v, 2);
    assert.equal(await statements(), before);
  } finally {
    await observer.end();
    await other.end();
  }
});

test("a connection that closes inside its transaction has it rolled back and its statements dropped", async () => {
  const observer = connect(pg.url, { max: 1 });
  try {
    const statements = async () =>
      (await observer<{ n: number }[]>`select count(*)::int as n from pg_prepared_statements`)[0].n;
    const before = await statements();
    const pool = connect(pg.url, { max: 1 });
    const reserved = await pool.reserve();
    await reserved`begin`;
    await reserved`select ${1}::int as inside`;
    // end the pool with the transaction open: the socket closes mid-transaction
    reserved.release();
    await pool.end({ timeout: 0 });
    assert.ok(await until(async () => await statements() === before), "statements dropped after the rollback");
    assert.equal((await observer<{ ok: number }[]>`select 1 as ok`)[0].ok, 1, "the backend serves others again");
  } finally {
    await observer.end();
  }
});

test("connections that prepare the same text share one backend statement, kept until the last of them closes", async () => {
  const observer = connect(pg.url, { max: 1 });
  const text = "select $1::int * 3 as tripled, 'shared statement' as tag";
  const copies = async () =>
    (await observer<{ n: number }[]>`select count(*)::int as n from pg_prepared_statements
      where statement = ${text}`)[0].n;
  const first = connect(pg.url, { max: 1 });
  const second = connect(pg.url, { max: 1 });
  try {
    assert.equal((await first.unsafe(text, [2], { prepare: true }))[0].tripled, 6);
    assert.equal((await second.unsafe(text, [3], { prepare: true }))[0].tripled, 9);
    assert.equal(await copies(), 1, "one statement in the backend for both connections");
    // the first goes: the second's statement is still there and answers without being prepared again
    await first.end();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal((await second.unsafe(text, [4], { prepare: true }))[0].tripled, 12);
    assert.equal(await copies(), 1);
    await second.end();
    assert.ok(await until(async () => await copies() === 0), "dropped once no connection uses it");
  } finally {
    await first.end();
    await second.end();
    await observer.end();
  }
});

test("a shared statement whose cached plan broke is prepared anew for each connection that runs it again", async () => {
  const admin = connect(pg.url, { max: 1 });
  const first = connect(pg.url, { max: 1 });
  const second = connect(pg.url, { max: 1 });
  try {
    await admin`create table if not exists public.shared_statement_probe (id int)`;
    await admin`insert into public.shared_statement_probe values (1)`;
    const text = "select * from public.shared_statement_probe where id = $1";
    assert.deepEqual([...await first.unsafe(text, [1], { prepare: true })], [{ id: 1 }]);
    assert.deepEqual([...await second.unsafe(text, [1], { prepare: true })], [{ id: 1 }]);
    // the statement's result changes shape: its cached plan can no longer answer (0A000), the driver
    // prepares it again, and that Parse must reach the backend rather than the broken statement
    await admin`alter table public.shared_statement_probe add column note text default 'n'`;
    assert.deepEqual([...await first.unsafe(text, [1], { prepare: true })], [{ id: 1, note: "n" }]);
    assert.deepEqual([...await second.unsafe(text, [1], { prepare: true })], [{ id: 1, note: "n" }]);
  } finally {
    await admin`drop table if exists public.shared_statement_probe`;
    await first.end();
    await second.end();
    await admin.end();
  }
});
