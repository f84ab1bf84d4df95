// The repository push queue (migration 080): which changes its triggers queue (cloud mode, an entry
// published, unpublished or deleted, a library file written or removed; by the API or an administrator's
// SQL, never by the import), who reads the queue, and that an owner-only update reports nothing.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import type { Tx } from "../../shared/db.ts";
import { as, makePeople, refused, rolledBack } from "./support.ts";

const DIR = "/srv/sites/pushed";

/** Cloud mode with a directory to push to, for this transaction only. */
async function cloudSite(tx: Tx, push = true): Promise<void> {
  await tx`update public.site_settings set mode = 'cloud', source_dir = ${DIR},
             config = config || jsonb_build_object('repository', jsonb_build_object('push', ${push}::boolean))`;
}

async function pushes(tx: Tx, entity: string) {
  return await tx<
    {
      kind: string;
      action: string;
      paths: string[];
      dir: string;
      actor: string | null;
      key_id: string | null;
    }[]
  >`
    select kind, action, paths, dir, actor, key_id from public.content_pushes where entity_id = ${entity} order by id`;
}

function draft(tx: Tx, id: string) {
  return tx`insert into public.content_entries (stage, id, model_id, path, fields)
            values ('preview', ${id}, 'article', ${`records/articles/${id.slice("article.".length)}.md`},
                    ${tx.json({ title: { "en-US": id } })})`;
}

/** Publish as the API does: the draft's copy becomes the published row. */
function publish(tx: Tx, id: string) {
  return tx`insert into public.content_entries (stage, id, model_id, path, fields)
            select 'published', id, model_id, path, fields from public.content_entries
            where stage = 'preview' and id = ${id}
            on conflict (stage, id) do update set fields = excluded.fields`;
}

const unique = () => `article.sql-push-${crypto.randomUUID().slice(0, 8)}`;

test("an administrator's publish, unpublish and delete in SQL are queued with the person who made them", () =>
  rolledBack(async (tx) => {
    await cloudSite(tx);
    const people = await makePeople(tx);
    const id = unique();
    const path = `records/articles/${id.slice("article.".length)}.md`;
    await as(tx, people.admin, async (q) => {
      await draft(q, id);
      await q`update public.content_entries set fields = ${
        q.json({ title: { "en-US": "a draft's change" } })
      } where id = ${id}`;
      await publish(q, id);
      await q`update public.content_entries set fields = ${q.json({ title: { "en-US": "live change" } })}
              where stage = 'published' and id = ${id}`;
      await q`delete from public.content_entries where stage = 'published' and id = ${id}`;
      await q`delete from public.content_entries where id = ${id}`;
      await q.unsafe("reset role"); // as() rolls its savepoint back: read what the triggers wrote first
      assert.deepEqual((await pushes(q, id)).map((p) => ({ ...p })), [
        { kind: "Entry", action: "publish", paths: [path], dir: DIR, actor: people.admin.sub, key_id: null },
        { kind: "Entry", action: "publish", paths: [path], dir: DIR, actor: people.admin.sub, key_id: null },
        {
          kind: "Entry",
          action: "unpublish",
          paths: [path],
          dir: DIR,
          actor: people.admin.sub,
          key_id: null,
        },
        { kind: "Entry", action: "delete", paths: [path], dir: DIR, actor: people.admin.sub, key_id: null },
      ], "a draft's own changes are not pushed");
    });
  }));

test("deleting both rows in one statement is one delete; the management key is recorded", () =>
  rolledBack(async (tx) => {
    await cloudSite(tx);
    const id = unique();
    await draft(tx, id);
    await tx`select set_config('sitewire.key', 'a-key-id', true), set_config('sitewire.actor', 'a-person', true)`;
    await publish(tx, id);
    await tx`delete from public.content_entries where id = ${id}`;
    assert.deepEqual((await pushes(tx, id)).map((p) => [p.action, p.actor, p.key_id]), [
      ["publish", "a-person", "a-key-id"],
      ["delete", "a-person", "a-key-id"],
    ]);
  }));

test("nothing is queued in git mode, with repository.push false, or for the import's own writes", () =>
  rolledBack(async (tx) => {
    const id = unique();
    await tx`update public.site_settings set mode = 'git', source_dir = ${DIR}`;
    await draft(tx, id);
    await publish(tx, id);
    await cloudSite(tx, false);
    await tx`delete from public.content_entries where stage = 'published' and id = ${id}`;
    await cloudSite(tx, true);
    await tx`select set_config('sitewire.writer', 'import', true)`;
    await publish(tx, id);
    await tx`delete from public.content_entries where id = ${id}`;
    assert.deepEqual([...await pushes(tx, id)], []);
    await tx`select set_config('sitewire.writer', '', true)`;
    await tx`update public.site_settings set source_dir = null`;
    await draft(tx, id);
    await publish(tx, id);
    assert.deepEqual([...await pushes(tx, id)], [], "no directory, nothing to push to");
  }));

test("library files: a processed file is a publish (old and new path), a deleted one a delete, an address nothing", () =>
  rolledBack(async (tx) => {
    await cloudSite(tx);
    const id = `sql-asset-${crypto.randomUUID().slice(0, 8)}`;
    const path = (name: string) => `content/uploads/api/${id}/${name}`;
    await tx`insert into public.content_assets (id, path, file_name, content_type, size, content_hash, storage_key, published, pending_file)
             values (${id}, ${path("a.png")}, 'a.png', 'image/png', 0, '', ${
      path("a.png")
    }, false, '{"fileName": "a.png"}')`;
    await tx`update public.content_assets set title = '{"en-US": "still pending"}' where id = ${id}`;
    await tx`update public.content_assets set published = true, pending_file = null, size = 3, content_hash = 'h1' where id = ${id}`;
    await tx`update public.content_assets set title = '{"en-US": "a new title"}' where id = ${id}`;
    await tx`update public.content_assets set path = ${path("b.png")}, storage_key = ${
      path("b.png")
    }, content_hash = 'h2' where id = ${id}`;
    await tx`delete from public.content_assets where id = ${id}`;
    await tx`insert into public.content_assets (id, path, file_name, content_type, size, content_hash, storage_key)
             values (${
      id + "x"
    }, 'https://pictures.example/p.jpg', 'p.jpg', 'image/jpeg', 0, 'h', 'https://pictures.example/p.jpg')`;
    assert.deepEqual((await pushes(tx, id)).map((p) => [p.kind, p.action, p.paths]), [
      ["Asset", "publish", [path("a.png")]],
      ["Asset", "publish", [path("a.png"), path("b.png")]],
      ["Asset", "delete", [path("b.png")]],
    ]);
    assert.deepEqual([...await pushes(tx, id + "x")], []);
  }));

test("marking rows the directory's (an owner-only update) moves no sync sequence, sends no event, queues no push", () =>
  rolledBack(async (tx) => {
    await cloudSite(tx);
    const id = unique();
    await draft(tx, id);
    await publish(tx, id);
    await tx`insert into public.content_webhook_definitions (id, name, url, topics)
             values ('sql-push-hook', 'all', 'https://hooks.example/all', array['*.*'])`;
    const state = () =>
      tx<{ stage: string; source: string; change_seq: string }[]>`
      select stage, source, change_seq::text from public.content_entries where id = ${id} order by stage`;
    const before = await state();
    const queued = (await pushes(tx, id)).length;
    await tx`select set_config('sitewire.writer', 'import', true)`;
    await tx`update public.content_entries set source = 'file' where id = ${id}`;
    const after = await state();
    assert.deepEqual(after.map((r) => r.source), ["file", "file"]);
    assert.deepEqual(after.map((r) => r.change_seq), before.map((r) => r.change_seq));
    assert.equal(
      (await tx`select 1 from public.webhook_outbox where subscription_id = 'sql-push-hook'`).length,
      0,
    );
    assert.equal((await pushes(tx, id)).length, queued);
    // a change of content still counts, whoever makes it
    await tx`select set_config('sitewire.writer', '', true)`;
    await tx`update public.content_entries set fields = ${
      tx.json({ title: { "en-US": "new" } })
    } where stage = 'published' and id = ${id}`;
    assert.notEqual(
      (await state()).find((r) => r.stage === "published")!.change_seq,
      before.find((r) => r.stage === "published")!.change_seq,
    );
    assert.deepEqual(
      (await tx<
        { event: string }[]
      >`select event from public.webhook_outbox where subscription_id = 'sql-push-hook'`).map((r) => r.event),
      [
        "ContentManagement.Entry.publish",
      ],
    );
    assert.equal((await pushes(tx, id)).length, queued + 1);
  }));

test("the push queue: administrators read it; support, members and anon see nothing; nobody writes it", () =>
  rolledBack(async (tx) => {
    await cloudSite(tx);
    const people = await makePeople(tx);
    const id = unique();
    await draft(tx, id);
    await publish(tx, id);
    const seen = (who: typeof people.admin) =>
      as(tx, who, (q) => q`select id from public.content_pushes where entity_id = ${id}`);
    assert.equal((await seen(people.admin)).length, 1);
    for (const who of [people.support, people.member, people.newcomer]) {
      assert.equal((await seen(who)).length, 0);
    }
    await as(tx, "anon", (q) => refused(q, (s) => s`select id from public.content_pushes`));
    for (const who of ["anon" as const, people.admin]) {
      await as(tx, who, async (q) => {
        await refused(
          q,
          (s) =>
            s`insert into public.content_pushes (kind, entity_id, action, paths, dir) values ('Entry', 'x', 'delete', '{}', '/')`,
        );
        await refused(q, (s) => s`update public.content_pushes set status = 'pushed'`);
        await refused(
          q,
          (s) => s`select public.content_enqueue_push('Entry', 'x', 'delete', array['records/x/y.md'])`,
        );
      });
    }
  }));
