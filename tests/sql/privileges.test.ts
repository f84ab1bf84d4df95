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
           public.site_settings, public.profiles, public.content_entries to anon, authenticated`;
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

// What anon and signed-in people may do to each table (at least one column, for SELECT, INSERT and
// UPDATE), and the commands their policies cover. Every public table is listed, so a table added without
// deciding who reads it fails here; the tests of each area prove row by row what those policies let through.
type Access = { anon: string; authenticated: string };
const NONE: Access = { anon: "-", authenticated: "-" };
const ACCESS_BY_TABLE: Record<string, Access> = {
  // the foundation
  schema_migrations: NONE,
  site_settings: { anon: "SELECT / SELECT", authenticated: "SELECT,UPDATE / SELECT,UPDATE" },
  site_secrets: NONE,
  storage_objects: NONE,
  api_keys: { anon: "-", authenticated: "INSERT,SELECT,UPDATE / INSERT,SELECT,UPDATE" },
  profiles: { anon: "-", authenticated: "DELETE,INSERT,SELECT,UPDATE / ALL,SELECT" },
  rate_limit_buckets: NONE,
  answer_versions: NONE,
  webhook_outbox: { anon: "-", authenticated: "SELECT / SELECT" },
  // content
  content_models: { anon: "SELECT / SELECT", authenticated: "SELECT / SELECT" },
  content_entries: { anon: "SELECT / SELECT", authenticated: "DELETE,INSERT,SELECT,UPDATE / ALL,SELECT" },
  content_assets: { anon: "SELECT / SELECT", authenticated: "DELETE,INSERT,SELECT,UPDATE / ALL,SELECT" },
  content_tombstones: { anon: "SELECT / SELECT", authenticated: "SELECT / SELECT" },
  content_image_variants: NONE,
  content_meta: { anon: "-", authenticated: "SELECT / SELECT" },
  content_uploads: { anon: "-", authenticated: "SELECT / SELECT" },
  content_webhook_definitions: { anon: "-", authenticated: "DELETE,INSERT,SELECT,UPDATE / ALL" },
  content_pushes: { anon: "-", authenticated: "SELECT / SELECT" },
  analytics_events: { anon: "-", authenticated: "DELETE,SELECT / DELETE,SELECT" },
  // forms, scheduling, store
  form_responses: { anon: "-", authenticated: "DELETE,SELECT / DELETE,SELECT" },
  form_webhooks: { anon: "-", authenticated: "SELECT / SELECT" },
  form_response_counts: NONE,
  form_search_counts: NONE,
  person_tiers: { anon: "-", authenticated: "DELETE,INSERT,SELECT,UPDATE / ALL,SELECT" },
  scheduling_bookings: { anon: "-", authenticated: "SELECT / SELECT" },
  scheduling_live_booking_months: NONE,
  scheduling_chat_grants: { anon: "-", authenticated: "SELECT / SELECT" },
  scheduling_holds: { anon: "-", authenticated: "SELECT / SELECT" },
  scheduling_meeting_joins: { anon: "-", authenticated: "SELECT / SELECT" },
  scheduling_payments: NONE,
  scheduling_webhooks: { anon: "-", authenticated: "SELECT / SELECT" },
  payment_sessions: { anon: "-", authenticated: "SELECT / SELECT" },
  storefront_carts: { anon: "-", authenticated: "SELECT / SELECT" },
  storefront_orders: { anon: "-", authenticated: "SELECT / SELECT" },
  storefront_products: { anon: "SELECT / SELECT", authenticated: "SELECT / SELECT" },
  // the support desk: agents, contacts and their threads are read through policies; writes go through the API
  support_agents: { anon: "-", authenticated: "SELECT / SELECT" },
  support_attachments: { anon: "-", authenticated: "SELECT / SELECT" },
  support_contacts: { anon: "-", authenticated: "SELECT / SELECT" },
  support_conversations: { anon: "-", authenticated: "SELECT / SELECT" },
  support_messages: { anon: "-", authenticated: "SELECT / SELECT" },
  support_webhooks: { anon: "-", authenticated: "SELECT / SELECT" },
  // the community: public records (posts, follows, likes, reposts, blocks) as the protocol makes them public;
  // private ones (channels, messages, spaces, notifications) to signed-in people their policies name
  community_blocks: { anon: "SELECT / SELECT", authenticated: "SELECT / SELECT" },
  community_channels: { anon: "-", authenticated: "SELECT / SELECT" },
  community_follows: { anon: "SELECT / SELECT", authenticated: "SELECT / SELECT" },
  community_likes: { anon: "SELECT / SELECT", authenticated: "SELECT / SELECT" },
  community_messages: { anon: "-", authenticated: "SELECT / SELECT" },
  community_mutes: { anon: "-", authenticated: "DELETE,INSERT,SELECT / DELETE,INSERT,SELECT" },
  community_notifications: { anon: "-", authenticated: "SELECT / SELECT" },
  community_posts: { anon: "SELECT / SELECT", authenticated: "SELECT / SELECT" },
  community_reactions: { anon: "-", authenticated: "SELECT / SELECT" },
  community_reposts: { anon: "SELECT / SELECT", authenticated: "SELECT / SELECT" },
  community_space_members: { anon: "-", authenticated: "SELECT / SELECT" },
  community_spaces: { anon: "-", authenticated: "SELECT / SELECT" },
  community_thread_mutes: { anon: "-", authenticated: "DELETE,INSERT,SELECT / DELETE,INSERT,SELECT" },
  // the protocol server: repositories, sessions and the firehose are the service role's alone; a member
  // reads their app passwords and keeps their preferences; the find index is public like the posts it lists
  network_accounts: NONE,
  network_app_passwords: { anon: "-", authenticated: "SELECT / SELECT" },
  network_blobs: NONE,
  network_crawls: NONE,
  network_find: { anon: "SELECT / SELECT", authenticated: "SELECT / SELECT" },
  network_key_rotations: NONE,
  network_prefs: { anon: "-", authenticated: "INSERT,SELECT,UPDATE / INSERT,SELECT,UPDATE" },
  network_project_queue: NONE,
  network_repo_blocks: NONE,
  network_repo_records: NONE,
  network_repos: NONE,
  network_seq: NONE,
  network_sessions: NONE,
  network_subscribers: NONE,
};

test("every public table states what anon and signed-in people may do to it, each privilege backed by a policy", () =>
  rolledBack(async (tx) => {
    const rows = await tx<
      { relname: string; role: string; privileges: string | null; policies: string | null }[]
    >`
    select c.relname, r.role,
      string_agg(p.privilege, ',' order by p.privilege) filter (where
        case when p.privilege = 'DELETE' then has_table_privilege(r.role, c.oid, 'DELETE')
             else has_any_column_privilege(r.role, c.oid, p.privilege) end) as privileges,
      (select string_agg(distinct pol.cmd, ',' order by pol.cmd) from pg_policies pol
        where pol.schemaname = 'public' and pol.tablename = c.relname
          and (r.role = any(pol.roles) or 'public' = any(pol.roles))) as policies
    from pg_class c
    cross join (values ('anon'), ('authenticated')) as r(role)
    cross join (values ('SELECT'), ('INSERT'), ('UPDATE'), ('DELETE')) as p(privilege)
    where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p')
    group by c.relname, r.role`;
    const actual: Record<string, Access> = {};
    for (const row of rows) {
      const stated = row.privileges || row.policies
        ? `${row.privileges ?? "-"} / ${row.policies ?? "-"}`
        : "-";
      (actual[row.relname] ??= { ...NONE })[row.role as keyof Access] = stated;
    }
    assert.deepEqual(
      Object.keys(actual).sort(),
      Object.keys(ACCESS_BY_TABLE).sort(),
      "every table in public is listed here (a new one: decide who may touch it, then list it)",
    );
    assert.deepEqual(actual, ACCESS_BY_TABLE);
    // a privilege with no policy for its command lets nothing through under RLS, a sign of a forgotten policy
    for (const [table, access] of Object.entries(actual)) {
      for (const stated of Object.values(access)) {
        if (stated === "-") continue;
        const [privileges, policies] = stated.split(" / ").map((list) => list.split(","));
        for (const privilege of privileges) {
          if (privilege === "-") continue;
          assert.ok(
            policies.includes(privilege) || policies.includes("ALL"),
            `${table}: ${privilege} has a policy`,
          );
        }
      }
    }
  }));

test("no reader reads or changes the migrations ledger", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    for (const who of ["anon" as const, people.member, people.admin]) {
      await as(tx, who, async (q) => {
        await refused(q, (s) => s`select version from public.schema_migrations`);
        await refused(q, (s) =>
          s`insert into public.schema_migrations (version, name) values ('99999999999999', 'x')`);
        await refused(q, (s) =>
          s`delete from public.schema_migrations`);
      });
    }
    // the migrator (the database owner) keeps it
    const [{ count }] = await tx<
      { count: number }[]
    >`select count(*)::int as count from public.schema_migrations`;
    assert.ok(count > 0);
  }));
