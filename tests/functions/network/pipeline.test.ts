// Statements a write's transaction sends without waiting for their answers (store/pipeline.ts): a
// failure among them still fails the transaction, whether it comes before the work returns (the driver
// reports the first failure, not the "transaction is aborted" of the statements behind it) or after (the
// COMMIT sent behind it rolls back, and settled() reports it), and nothing of it is kept.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { testSql } from "../../helpers/db.ts";
import type { Db } from "../../../shared/db.ts";
import { deferred } from "../../../functions/network/store/pipeline.ts";

const sql = testSql();

/** network_crawls has one row per relay: a second insert of the same relay fails with 23505. */
const relay = () => `https://pipeline-${crypto.randomUUID()}.test`;
const insertCrawl = (db: Db, name: string) =>
  db`insert into public.network_crawls (relay, asked_at, status, answer) values (${name}, now(), 200, 'pipeline')`;
const kept = async (name: string) => (await sql`select 1 from public.network_crawls where relay = ${name}`).length;

test("a statement not waited for that fails after the work returned: the COMMIT behind it rolls back, and settled() says so", async () => {
  const name = relay();
  const sent = deferred();
  const answer = await sql.begin(async (tx) => {
    await insertCrawl(tx, name);
    sent.later(insertCrawl(tx, name)); // fails, but nobody waits for it here
    return "returned";
  });
  assert.equal(answer, "returned", "the work returned before the failure was known");
  await assert.rejects(sent.settled(), (error: { code?: string }) => error.code === "23505");
  assert.equal(await kept(name), 0, "nothing of the transaction is kept");
});

test("a statement not waited for that fails before a later one: the transaction fails with the first failure", async () => {
  const name = relay();
  const sent = deferred();
  await assert.rejects(
    sql.begin(async (tx) => {
      await insertCrawl(tx, name);
      sent.later(insertCrawl(tx, name));
      // sent behind the failed insert, so it fails as "transaction is aborted" (25P02)
      await tx`select 1`;
    }),
    (error: { code?: string }) => error.code === "23505",
  );
  await assert.rejects(sent.settled(), (error: { code?: string }) => error.code === "23505");
  assert.equal(await kept(name), 0);
});

test("statements not waited for are kept when they succeed, in the order they were sent", async () => {
  const name = relay();
  const sent = deferred();
  await sql.begin(async (tx) => {
    sent.later(insertCrawl(tx, name));
    sent.later(tx`update public.network_crawls set answer = 'second' where relay = ${name}`);
  });
  await sent.settled();
  const [row] = await sql<{ answer: string }[]>`select answer from public.network_crawls where relay = ${name}`;
  assert.equal(row.answer, "second");
  await sql`delete from public.network_crawls where relay = ${name}`;
});
