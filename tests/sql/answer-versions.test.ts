// Content's and the site's answer versions are bumped when the changing transaction commits, once each
// however many rows it changed (migrations/20261126008700_content_answer_versions_at_commit.sql). The kept
// answers' freshness across instances rests on these bumps (tests/functions/content/answer-cache.serial.test.ts);
// which change bumps which scope is tests/shared/answer-cache.test.ts.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import { connect, type Sql, type Tx } from "../../shared/db.ts";
import { onRealServer, testDatabaseUrl, testSql } from "../helpers/db.ts";
import { database, rolledBack } from "./support.ts";

const version = async (tx: Tx, scope: string) =>
  Number((await tx<{ version: number }[]>`select version from public.answer_versions where scope = ${scope}`)[0].version);

/** Fires this transaction's deferred events now, as its commit would. */
const fire = (tx: Tx) => tx`set constraints all immediate`;

/** A content type of the case's own, so the case needs no imported site. */
async function model(db: Sql | Tx): Promise<string> {
  const tag = crypto.randomUUID().slice(0, 8);
  const id = `versionsProbe${tag}`;
  await db`insert into public.content_models (id, folder, name) values (${id}, ${"versions-" + tag}, 'Versions probe')`;
  return id;
}

async function entry(db: Sql | Tx, modelId: string, id: string, stage: "published" | "preview") {
  await db`insert into public.content_entries (stage, id, model_id, path, fields)
    values (${stage}, ${id}, ${modelId}, ${`records/versions/${id}.md`}, ${db.json({ title: { "en-US": id } })})`;
}

test("a transaction's content changes bump the versions at its commit, once however many rows it changed", () =>
  rolledBack(async (tx) => {
    // a content type the site already has: making one would bump (and lock) the versions first
    const [{ id: type }] = await tx<{ id: string }[]>`select id from public.content_models order by id limit 1`;
    const probe = `${type}.versions-${crypto.randomUUID().slice(0, 8)}`;
    await entry(tx, type, `${probe}-a`, "published");
    // nothing is locked or bumped before the commit's events fire
    const [{ locked }] = await tx<{ locked: boolean }[]>`
      select exists (select 1 from pg_locks l join pg_class c on c.oid = l.relation
                     where c.relname = 'answer_versions' and l.mode = 'RowExclusiveLock' and l.pid = pg_backend_pid())
        as locked`;
    assert.equal(locked, false, "the version rows are not written at the statement");
    await fire(tx);
    const published = await version(tx, "content:published");
    const preview = await version(tx, "content:preview");
    // the rows are this transaction's now: nobody else can move them until it ends
    await entry(tx, type, `${probe}-b`, "published");
    await tx`update public.content_entries set fields = fields where id like ${probe + "%"}`;
    await fire(tx);
    assert.equal(await version(tx, "content:published"), published, "one bump of content:published");
    assert.equal(await version(tx, "content:preview"), preview, "one bump of content:preview");
  }));

test("a committed change is visible with its bump", async () => {
  const sql = await database();
  const type = await model(sql);
  const id = `${type}.committed`;
  const [{ before }] = await sql<{ before: number }[]>`
    select version as before from public.answer_versions where scope = 'content:published'`;
  await entry(sql, type, id, "published");
  try {
    const [{ after }] = await sql<{ after: number }[]>`
      select version as after from public.answer_versions where scope = 'content:published'`;
    assert.ok(Number(after) > Number(before));
  } finally {
    await sql`delete from public.content_entries where id = ${id}`;
    await sql`delete from public.content_models where id = ${type}`;
  }
});

const realServer = await onRealServer();

Deno.test({
  name: "a transaction holding one entry meets a one-statement publish of another without a deadlock",
  // the embedded PGlite runs one transaction at a time: there is nothing to interleave
  ignore: !realServer,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const sql = testSql();
    const type = await model(sql);
    const [x, y] = [`${type}.x`, `${type}.y`];
    for (const id of [x, y]) await entry(sql, type, id, "published");
    const a = connect(testDatabaseUrl(), { max: 1 }), b = connect(testDatabaseUrl(), { max: 1 });
    try {
      let aWrote!: () => void;
      const aWroteFirst = new Promise<void>((resolve) => aWrote = resolve);
      let bStarted!: () => void;
      const bSent = new Promise<void>((resolve) => bStarted = resolve);
      // A changes x, then y. B publishes y in one statement meanwhile. A version row taken at A's first
      // statement would make B's statement wait for A (holding y's row) while A waits for y: a deadlock
      const txA = a.begin(async (tx) => {
        await tx`update public.content_entries set revision = revision + 1 where stage = 'published' and id = ${x}`;
        aWrote();
        await bSent;
        await new Promise((resolve) => setTimeout(resolve, 200));
        await tx`update public.content_entries set revision = revision + 1 where stage = 'published' and id = ${y}`;
      });
      await aWroteFirst;
      const publishY = b`update public.content_entries set revision = revision + 1 where stage = 'published' and id = ${y}`;
      bStarted();
      await Promise.all([txA, publishY]);
      const rows = await sql<{ id: string; revision: number }[]>`
        select id, revision from public.content_entries where id in (${x}, ${y}) order by id`;
      assert.deepEqual(rows.map((r) => [r.id, Number(r.revision)]), [[x, 2], [y, 3]]);
    } finally {
      await Promise.all([a.end(), b.end()]);
      await sql`delete from public.content_entries where id in (${x}, ${y})`;
      await sql`delete from public.content_models where id = ${type}`;
    }
  },
});
