// The write path's transaction (store/pipeline.ts pipelinedTransaction): BEGIN goes out with the first
// statement, statements nobody waits for go to `later`, and the COMMIT follows them. A failure among them
// still fails the transaction, whether it comes before the work returns (reported as itself, not as the
// "transaction is aborted" of the statements behind it) or after (the COMMIT sent behind it rolls back),
// and nothing of it is kept; the first statement already runs inside the transaction.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { testDatabaseUrl, testSql } from "../../helpers/db.ts";
import { connect, type Db } from "../../../shared/db.ts";
import { pipelinedTransaction } from "../../../functions/network/store/pipeline.ts";

const sql = testSql();

/** network_crawls has one row per relay: a second insert of the same relay fails with 23505. */
const relay = () => `https://pipeline-${crypto.randomUUID()}.test`;
const insertCrawl = (db: Db, name: string) =>
  db`insert into public.network_crawls (relay, asked_at, status, answer) values (${name}, now(), 200, 'pipeline')`;
const kept = async (name: string) => (await sql`select 1 from public.network_crawls where relay = ${name}`).length;
const duplicate = (error: { code?: string }) => error.code === "23505";

test("a statement not waited for that fails after the work returned: the COMMIT behind it rolls back, and the transaction fails with it", async () => {
  const name = relay();
  let returned = false;
  await assert.rejects(
    pipelinedTransaction(sql, async (tx, later) => {
      await insertCrawl(tx, name);
      later(insertCrawl(tx, name)); // fails, but nobody waits for it here
      returned = true;
    }),
    duplicate,
  );
  assert.ok(returned, "the work returned before the failure was known");
  assert.equal(await kept(name), 0, "nothing of the transaction is kept");
});

test("a statement not waited for that fails before a later one: the transaction fails with the first failure", async () => {
  const name = relay();
  await assert.rejects(
    pipelinedTransaction(sql, async (tx, later) => {
      await insertCrawl(tx, name);
      later(insertCrawl(tx, name));
      // sent behind the failed insert, so it fails as "transaction is aborted" (25P02)
      await tx`select 1`;
    }),
    duplicate,
  );
  assert.equal(await kept(name), 0);
});

test("the first statement runs inside the transaction: work that fails keeps nothing, and the connection is whole after", async () => {
  const one = connect(testDatabaseUrl(), { max: 1 }); // the next statement goes to the same connection
  try {
    const name = relay();
    await assert.rejects(
      pipelinedTransaction(one, async (tx, later) => {
        later(insertCrawl(tx, name));
        await tx`select 1`;
        throw new Error("the work's own failure");
      }),
      /the work's own failure/,
    );
    assert.equal(await kept(name), 0);
    // the insert took a transaction id: still inside that transaction, the connection would answer it
    const [{ xid }] = await one<{ xid: string | null }[]>`select pg_current_xact_id_if_assigned()::text as xid`;
    assert.equal(xid, null, "the connection went back to the pool outside any transaction");
  } finally {
    await one.end();
  }
});

test("statements not waited for are kept when they succeed, in the order they were sent, with the work's answer", async () => {
  const name = relay();
  // deno-lint-ignore require-await -- work that awaits nothing: every statement is left for later
  const answer = await pipelinedTransaction(sql, async (tx, later) => {
    later(insertCrawl(tx, name));
    later(tx`update public.network_crawls set answer = 'second' where relay = ${name}`);
    return "answered";
  });
  assert.equal(answer, "answered");
  const [row] = await sql<{ answer: string }[]>`select answer from public.network_crawls where relay = ${name}`;
  assert.equal(row.answer, "second");
  await sql`delete from public.network_crawls where relay = ${name}`;
});
