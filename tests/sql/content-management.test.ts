// Row-level security, grants and triggers of the management tables (migration 030): who reads webhook
// definitions (never their secret headers), uploads and the management bookkeeping; the event triggers
// writing the outbox for an administrator's change; the topic check.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import type { Tx } from "../../shared/db.ts";
import { as, makePeople, refused, rolledBack } from "./support.ts";

async function insertDefinition(tx: Tx, topics = ["*.*"]): Promise<string> {
  const id = `sql-${crypto.randomUUID().slice(0, 8)}`;
  await tx`insert into public.content_webhook_definitions (id, name, url, topics, headers, secret_headers)
           values (${id}, 'sql test', 'https://hooks.example/in', ${topics}::text[],
                   ${tx.json([{ key: "X-Shown", value: "v" }])}, ${
    tx.json([{ key: "X-Secret", value: "s3cret" }])
  })`;
  return id;
}

async function insertDraft(tx: Tx): Promise<string> {
  const tag = crypto.randomUUID().slice(0, 8);
  const model = `sqlModel${tag}`;
  await tx`insert into public.content_models (id, folder, name) values (${model}, ${
    "sql-" + tag
  }, 'SQL test')`;
  const id = `${model}.draft`;
  await tx`insert into public.content_entries (stage, id, model_id, path, fields)
           values ('preview', ${id}, ${model}, ${`records/sql/${tag}.md`}, ${
    tx.json({ title: { "en-US": "draft" } })
  })`;
  return id;
}

test("webhook definitions: administrators read them but never a secret header value", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const id = await insertDefinition(tx);
    const rows = await as(
      tx,
      people.admin,
      (q) =>
        q<{
          id: string;
          headers: unknown;
        }[]>`select id, headers from public.content_webhook_definitions where id = ${id}`,
    );
    assert.deepEqual([...rows], [{ id, headers: [{ key: "X-Shown", value: "v" }] }]);
    await as(tx, people.admin, async (q) => {
      await refused(q, (s) => s`select secret_headers from public.content_webhook_definitions`);
      await refused(q, (s) => s`select * from public.content_webhook_definitions`);
      await refused(
        q,
        (s) =>
          s`select id from public.content_webhook_definitions where secret_headers::text like '%s3cret%'`,
      );
    });
  }));

test("webhook definitions: members, support people and anon see none and write none", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const id = await insertDefinition(tx);
    for (const who of [people.member, people.support, people.newcomer]) {
      const rows = await as(
        tx,
        who,
        (q) => q`select id from public.content_webhook_definitions where id = ${id}`,
      );
      assert.equal(rows.length, 0);
      await as(tx, who, async (q) => {
        await refused(
          q,
          (s) =>
            s`insert into public.content_webhook_definitions (id, name, url, topics)
                                values ('mine', 'x', 'https://x.example', array['*.*'])`,
          /row-level security/,
        );
        assert.equal(
          (await q`delete from public.content_webhook_definitions where id = ${id} returning id`).length,
          0,
        );
      });
    }
    await as(tx, "anon", (q) => refused(q, (s) => s`select id from public.content_webhook_definitions`));
  }));

test("webhook definitions: an administrator writes one, secret headers included, and topics are checked", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    await as(tx, people.admin, async (q) => {
      await q`insert into public.content_webhook_definitions (id, name, url, topics, secret_headers)
            values ('admin-made', 'made in the admin', 'https://x.example', array['Entry.publish'],
                    ${q.json([{ key: "X-Key", value: "k" }])})`;
      await refused(
        q,
        (s) =>
          s`insert into public.content_webhook_definitions (id, name, url, topics)
                              values ('bad-topic', 'x', 'https://x.example', array['Entry.archive'])`,
        /check constraint/,
      );
      await refused(q, (s) =>
        s`insert into public.content_webhook_definitions (id, name, url, topics)
                              values ('bad-url', 'x', 'ftp://x.example', array['*.*'])`, /check constraint/);
      await refused(
        q,
        (s) => s`update public.content_webhook_definitions set source = 'file' where id = 'admin-made'`,
      );
      // as() rolls its savepoint back: look at what was written before it ends, as the owner
      await q.unsafe("reset role");
      const [row] = await q<{ source: string; secret_headers: unknown }[]>`
      select source, secret_headers from public.content_webhook_definitions where id = 'admin-made'`;
      assert.deepEqual({ ...row }, { source: "hand", secret_headers: [{ key: "X-Key", value: "k" }] });
    });
  }));

test("uploads and the management bookkeeping: administrators and staff read, nobody else", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    await tx`insert into public.content_uploads (id, size, content_type, expires_at)
           values ('sql-upload', 3, 'text/plain', now() + interval '1 day')`;
    const entry = await insertDraft(tx);
    const uploads = (who: typeof people.admin) =>
      as(tx, who, (q) => q`select id from public.content_uploads where id = 'sql-upload'`);
    const meta = (who: typeof people.admin) =>
      as(tx, who, (q) => q`select id from public.content_meta where id = ${entry}`);
    assert.equal((await uploads(people.admin)).length, 1);
    assert.equal((await uploads(people.support)).length, 0);
    assert.equal((await uploads(people.member)).length, 0);
    assert.equal((await meta(people.admin)).length, 1);
    assert.equal((await meta(people.support)).length, 1);
    assert.equal((await meta(people.member)).length, 0);
    await as(tx, people.admin, async (q) => {
      await refused(q, (s) => s`delete from public.content_uploads`);
      await refused(q, (s) => s`update public.content_meta set created_by = 'me'`);
    });
    await as(tx, "anon", async (q) => {
      await refused(q, (s) => s`select id from public.content_uploads`);
      await refused(q, (s) => s`select id from public.content_meta`);
    });
  }));

test("an administrator's change fires the event trigger: meta names them, the outbox gets the row", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const entry = await insertDraft(tx);
    const hook = await insertDefinition(tx, ["Entry.save"]);
    const other = await insertDefinition(tx, ["Asset.*"]);
    await as(tx, people.admin, async (q) => {
      await q`update public.content_entries set fields = ${q.json({ title: { "en-US": "changed" } })}
            where stage = 'preview' and id = ${entry}`;
      // as() rolls its savepoint back: look at what the trigger wrote before it ends, as the owner
      await q.unsafe("reset role");
      await written(q);
    });
    async function written(tx: Tx) {
      const outbox = await tx<
        { subscription_id: string; event: string; headers: Record<string, string>; body: string }[]
      >`
    select subscription_id, event, headers, body from public.webhook_outbox where subscription_id in (${hook}, ${other})`;
      assert.equal(outbox.length, 1);
      assert.equal(outbox[0].subscription_id, hook);
      assert.equal(outbox[0].event, "ContentManagement.Entry.save");
      assert.equal(outbox[0].headers["X-Contentful-Topic"], "ContentManagement.Entry.save");
      assert.equal(outbox[0].headers["X-Shown"], "v");
      assert.equal(outbox[0].headers["X-Secret"], undefined); // added at send time only
      const body = JSON.parse(outbox[0].body);
      assert.equal(body.fields.title["en-US"], "changed");
      assert.deepEqual(body.sys.updatedBy.sys.id, people.admin.sub);
      const [meta] = await tx<
        { updated_by: string }[]
      >`select updated_by from public.content_meta where kind = 'Entry' and id = ${entry}`;
      assert.equal(meta.updated_by, people.admin.sub);
    }
    // a member may not change entries at all
    await as(tx, people.member, async (q) => {
      const changed =
        await q`update public.content_entries set fields = '{}' where id = ${entry} returning id`;
      assert.equal(changed.length, 0);
    });
  }));

test("readers cannot call the outbox writer or the trigger functions", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    for (const who of ["anon" as const, people.admin]) {
      await as(tx, who, (q) =>
        refused(q, (s) =>
          s`select public.content_enqueue_event('Entry', 'save', '{}'::jsonb)`));
    }
  }));
