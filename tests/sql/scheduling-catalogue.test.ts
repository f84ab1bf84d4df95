// The scheduling catalogue's stamp: writing a published session record moves site_settings.updated_at
// (the key of the function's per-process catalogue), whoever writes it; other records and drafts do not.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import type { Tx } from "../../shared/db.ts";
import { as, makePeople, rolledBack } from "./support.ts";

async function stamp(tx: Tx): Promise<string> {
  const [row] = await tx<{ at: string }[]>`select updated_at::text as at from public.site_settings`;
  return row.at;
}

async function ensureSite(tx: Tx) {
  // the SQL tests may run on a fresh migrated database with no import: give it a settings row
  await tx`insert into public.site_settings (name, slug, domain, mode) values ('T', 't', 't.test', 'cloud')
           on conflict (id) do nothing`;
  await tx`insert into public.content_models (id, folder, name) values ('session', 'sessions', 'Session')
           on conflict (id) do nothing`;
}

const entry = (tx: Tx, id: string, model: string, stage: string) =>
  tx`insert into public.content_entries (stage, id, model_id, path, fields)
     values (${stage}, ${id}, ${model}, ${`records/${id}.md`}, ${tx.json({ title: { "en-US": id } })})`;

test("a published session record written, changed or removed moves the catalogue stamp", () =>
  rolledBack(async (tx) => {
    await ensureSite(tx);
    const id = `session.stamp-${crypto.randomUUID().slice(0, 8)}`;
    let before = await stamp(tx);
    await entry(tx, id, "session", "published");
    let after = await stamp(tx);
    assert.ok(after > before, `insert: ${before} → ${after}`);
    before = after;
    await tx`update public.content_entries set fields = ${
      tx.json({ title: { "en-US": "changed" } })
    } where stage = 'published' and id = ${id}`;
    after = await stamp(tx);
    assert.ok(after > before, "update moves it again within the same transaction");
    before = after;
    await tx`delete from public.content_entries where stage = 'published' and id = ${id}`;
    assert.ok((await stamp(tx)) > before, "delete");
  }));

test("drafts and other models leave the stamp alone", () =>
  rolledBack(async (tx) => {
    await ensureSite(tx);
    const before = await stamp(tx);
    await entry(tx, `session.draft-${crypto.randomUUID().slice(0, 8)}`, "session", "preview");
    const [other] = await tx<
      { id: string }[]
    >`select id from public.content_models where id <> 'session' limit 1`;
    if (other) await entry(tx, `${other.id}.stamp-${crypto.randomUUID().slice(0, 8)}`, other.id, "published");
    assert.equal(await stamp(tx), before);
  }));

test("an administrator's write of a session record moves the stamp too (the trigger runs as its owner)", () =>
  rolledBack(async (tx) => {
    await ensureSite(tx);
    const people = await makePeople(tx);
    const before = await stamp(tx);
    const after = await as(tx, people.admin, async (q) => {
      await entry(q, `session.admin-${crypto.randomUUID().slice(0, 8)}`, "session", "published");
      return await stamp(q);
    });
    assert.ok(after > before, `${before} → ${after}`);
  }));
