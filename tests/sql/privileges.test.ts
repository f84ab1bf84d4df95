// Catalog-wide rules, and the hardening migration checked on a database whose platform grants every
// public table to anon and authenticated (Supabase's default privileges).
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import { readMigrations } from "../../shared/migrate.ts";
import { as, makePeople, refused, rolledBack } from "./support.ts";

test("every table in public has row-level security switched on", () =>
  rolledBack(async (tx) => {
    const rows = await tx<{ relname: string }[]>`
    select relname from pg_class
    where relnamespace = 'public'::regnamespace and relkind in ('r', 'p') and not relrowsecurity
    order by relname`;
    assert.deepEqual(rows.map((r) => r.relname), []);
  }));

test("no reader holds TRUNCATE, REFERENCES or TRIGGER on any public table", () =>
  rolledBack(async (tx) => {
    const rows = await tx<{ relname: string; role: string; privilege: string }[]>`
    select c.relname, r.role, p.privilege
    from pg_class c
    cross join (values ('anon'), ('authenticated')) as r(role)
    cross join (values ('TRUNCATE'), ('REFERENCES'), ('TRIGGER')) as p(privilege)
    where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p')
      and has_table_privilege(r.role, c.oid, p.privilege)
    order by 1, 2, 3`;
    assert.deepEqual([...rows], []);
  }));

test("the hardening holds where the platform grants every table to anon and authenticated", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const [{ id: keyId }] = await tx<{ id: string }[]>`
    insert into public.api_keys (name, kind, prefix, hash) values ('k', 'delivery', 'pk_delivery_', ${
      "h-" + crypto.randomUUID()
    })
    returning id`;
    await tx`insert into public.site_settings (id, name, slug, domain, mode) values (true, 'S', 's', 'localhost', 'git')
           on conflict (id) do nothing`;

    // what Supabase's default privileges do to every table created in public
    await tx`grant all on public.api_keys, public.webhook_outbox, public.site_secrets, public.storage_objects,
           public.rate_limit_counters, public.site_settings, public.profiles, public.content_entries to anon, authenticated`;
    // the hole this would open without the hardening
    const leaked = await as(tx, people.admin, (q) => q`select hash from public.api_keys where id = ${keyId}`);
    assert.equal(leaked.length, 1, "the simulated platform grants do open the hash column");

    const hardening = (await readMigrations()).find((m) => m.name === "rls_hardening");
    assert.ok(hardening, "migration rls_hardening exists");
    await tx.unsafe(hardening.sql);

    await as(tx, people.admin, async (q) => {
      await refused(q, (s) => s`select hash from public.api_keys`);
      await refused(q, (s) => s`select headers from public.webhook_outbox`);
      await refused(q, (s) => s`select config from public.site_settings`);
      await refused(q, (s) => s`truncate public.profiles`);
      await refused(q, (s) => s`truncate public.content_entries`);
      assert.equal((await q`select id, name from public.api_keys where id = ${keyId}`).length, 1);
    });
    await as(tx, "anon", async (q) => {
      await refused(q, (s) => s`select * from public.site_secrets`);
      await refused(q, (s) => s`select * from public.api_keys`);
      await refused(q, (s) => s`select config from public.site_settings`);
      await refused(q, (s) => s`truncate public.site_secrets`);
      assert.equal((await q`select name, slug from public.site_settings`).length, 1);
    });
  }));
