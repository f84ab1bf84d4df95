// Row-level security and column grants, table by table: who reads and writes what.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import type { Tx } from "../../shared/db.ts";
import { as, ids, makePeople, refused, rolledBack } from "./support.ts";

const STAFF_ONLY_TABLES = ["site_secrets", "storage_objects", "rate_limit_buckets", "answer_versions"];

async function insertKey(tx: Tx, createdBy: string): Promise<string> {
  const [{ id }] = await tx<{ id: string }[]>`
    insert into public.api_keys (name, kind, prefix, hash, created_by)
    values ('rls test key', 'delivery', 'pk_delivery_', ${"hash-" + crypto.randomUUID()}, ${createdBy})
    returning id`;
  return id;
}

async function insertOutboxRow(tx: Tx): Promise<number> {
  const [{ id }] = await tx<{ id: number }[]>`
    insert into public.webhook_outbox (api, subscription_id, event, url, headers, body)
    values (${"rls-" + crypto.randomUUID().slice(0, 8)}, '1', 'Entry.publish', 'https://hooks.example/in',
            ${tx.json({ "X-Secret-Header": "s3cret" })}, '{}')
    returning id`;
  return id;
}

/** A model and three entries: published for guests, published for members, and a preview draft. */
async function insertEntries(tx: Tx) {
  const tag = crypto.randomUUID().slice(0, 8);
  const model = `rlsModel${tag}`;
  await tx`insert into public.content_models (id, folder, name) values (${model}, ${
    "rls-" + tag
  }, 'RLS test')`;
  const entry = async (stage: string, id: string, access: string) => {
    await tx`insert into public.content_entries (stage, id, model_id, path, access, fields)
             values (${stage}, ${id}, ${model}, ${`rls/${id}.md`}, ${access}, ${
      tx.json({ title: { "en-US": id } })
    })`;
    return id;
  };
  return {
    model,
    guest: await entry("published", `guest${tag}`, "guest"),
    members: await entry("published", `members${tag}`, "member"),
    draft: await entry("preview", `draft${tag}`, "guest"),
  };
}

async function ensureSiteSettings(tx: Tx): Promise<void> {
  await tx`insert into public.site_settings (id, name, slug, domain, mode, config)
           values (true, 'RLS site', 'rls-site', 'localhost', 'git', ${
    tx.json({ webhooks: [{ url: "https://x.example", secret: "s" }] })
  })
           on conflict (id) do nothing`;
}

// --- api_keys ----------------------------------------------------------------------------------

test("anon never reads a key hash", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    await insertKey(tx, people.admin.sub);
    await as(tx, "anon", async (q) => {
      await refused(q, (s) => s`select hash from public.api_keys`);
      await refused(q, (s) => s`select id from public.api_keys`);
    });
  }));

test("an administrator never reads a key hash, not even by filtering on it", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const id = await insertKey(tx, people.admin.sub);
    const [{ hash }] = await tx<{ hash: string }[]>`select hash from public.api_keys where id = ${id}`;
    await as(tx, people.admin, async (q) => {
      await refused(q, (s) => s`select hash from public.api_keys`);
      await refused(q, (s) => s`select * from public.api_keys`);
      await refused(q, (s) => s`select id from public.api_keys where hash = ${hash}`);
      await refused(q, (s) => s`update public.api_keys set name = 'x' where id = ${id} returning hash`);
    });
  }));

test("administrators read keys without their hash", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const id = await insertKey(tx, people.admin.sub);
    const rows = await as(tx, people.admin, (q) =>
      q<{ id: string; name: string; prefix: string }[]>`
      select id, name, kind, gated, prefix, created_by, created_at, last_used_at, revoked_at
      from public.api_keys where id = ${id}`);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].prefix, "pk_delivery_");
  }));

test("members and support people see no key rows", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const id = await insertKey(tx, people.admin.sub);
    for (const who of [people.member, people.support, people.newcomer]) {
      const rows = await as(tx, who, (q) => q`select id, name from public.api_keys where id = ${id}`);
      assert.equal(rows.length, 0);
    }
  }));

test("only administrators create and revoke keys", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const id = await insertKey(tx, people.admin.sub);
    for (const who of [people.member, people.support]) {
      await as(tx, who, async (q) => {
        await refused(
          q,
          (s) =>
            s`insert into public.api_keys (name, kind, prefix, hash) values ('mine', 'management', 'pk_', 'h-x')`,
          /row-level security/,
        );
        const revoked = await q`update public.api_keys set revoked_at = now() where id = ${id} returning id`;
        assert.equal(revoked.length, 0);
      });
    }
    await as(tx, people.admin, async (q) => {
      const revoked = await q`update public.api_keys set revoked_at = now() where id = ${id} returning id`;
      assert.equal(revoked.length, 1);
      await q`insert into public.api_keys (name, kind, prefix, hash, created_by)
            values ('made by an admin', 'preview', 'pk_preview_', ${
        "h-" + crypto.randomUUID()
      }, ${people.admin.sub})`;
      await refused(q, (s) => s`update public.api_keys set hash = 'swapped' where id = ${id}`);
      await refused(q, (s) => s`delete from public.api_keys where id = ${id}`);
    });
  }));

// --- secrets, stored files, rate-limit counters --------------------------------------------------

test("anon and signed-in people never read site secrets, stored files or rate-limit counters", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    await tx`insert into public.site_secrets (name, value) values (${"rls-" + crypto.randomUUID()}, 'shh')`;
    for (const who of ["anon" as const, people.member, people.support, people.admin]) {
      await as(tx, who, async (q) => {
        for (const table of STAFF_ONLY_TABLES) {
          await refused(q, (s) => s`select * from ${s("public." + table)}`);
          await refused(q, (s) => s`select count(*) from ${s("public." + table)}`);
        }
        await refused(q, (s) => s`insert into public.site_secrets (name, value) values ('planted', 'x')`);
        await refused(q, (s) => s`delete from public.rate_limit_buckets`);
        await refused(q, (s) => s`select public.rate_limit_sweep_due(now())`);
      });
    }
  }));

test("the service role reads site secrets", () =>
  rolledBack(async (tx) => {
    const name = "rls-" + crypto.randomUUID();
    await tx`insert into public.site_secrets (name, value) values (${name}, 'shh')`;
    const rows = await as(tx, "service_role", (q) =>
      q`select value from public.site_secrets where name = ${name}`);
    assert.deepEqual(
      rows.map((r) =>
        r.value
      ),
      ["shh"],
    );
  }));

test("no one signed in may truncate a table, which row-level security would not stop", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    for (const who of ["anon" as const, people.admin]) {
      await as(tx, who, async (q) => {
        for (
          const table of [
            "api_keys",
            "profiles",
            "content_entries",
            "webhook_outbox",
            "site_secrets",
            "site_settings",
          ]
        ) {
          await refused(q, (s) => s`truncate ${s("public." + table)}`);
        }
      });
    }
  }));

// --- webhook_outbox ------------------------------------------------------------------------------

test("no one but the service role reads an outbox row's headers", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const id = await insertOutboxRow(tx);
    for (const who of ["anon" as const, people.member, people.support, people.admin]) {
      await as(tx, who, (q) =>
        refused(q, (s) =>
          s`select headers from public.webhook_outbox where id = ${id}`));
    }
    const rows = await as(tx, "service_role", (q) =>
      q`select headers from public.webhook_outbox where id = ${id}`);
    assert.deepEqual(rows[0].headers, { "X-Secret-Header": "s3cret" });
  }));

test("administrators read the delivery log", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const id = await insertOutboxRow(tx);
    const rows = await as(tx, people.admin, (q) =>
      q`select id, api, subscription_id, event, url, status, attempts, max_attempts, next_attempt_at,
             last_status, last_error, created_at, delivered_at
      from public.webhook_outbox where id = ${id}`);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].status, "pending");
  }));

test("members and support people see no outbox rows, and anon is refused", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const id = await insertOutboxRow(tx);
    for (const who of [people.member, people.support]) {
      const rows = await as(tx, who, (q) => q`select id, status from public.webhook_outbox where id = ${id}`);
      assert.equal(rows.length, 0);
    }
    await as(tx, "anon", (q) => refused(q, (s) => s`select id from public.webhook_outbox`));
  }));

test("no signed-in person writes to the outbox", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const id = await insertOutboxRow(tx);
    await as(tx, people.admin, async (q) => {
      await refused(q, (s) =>
        s`insert into public.webhook_outbox (api, subscription_id, event, url, body)
                               values ('x', '1', 'e', 'http://169.254.169.254/', '{}')`);
      await refused(q, (s) => s`update public.webhook_outbox set url = 'http://10.0.0.1/' where id = ${id}`);
      await refused(q, (s) => s`delete from public.webhook_outbox where id = ${id}`);
    });
  }));

// --- content -------------------------------------------------------------------------------------

test("anon reads published guest entries only: no preview rows, no member-gated rows", () =>
  rolledBack(async (tx) => {
    const e = await insertEntries(tx);
    const rows = await as(
      tx,
      "anon",
      (q) =>
        q<{
          id: string;
          stage: string;
        }[]>`select id, stage from public.content_entries where model_id = ${e.model}`,
    );
    assert.deepEqual(rows.map((r) => [r.stage, r.id]), [["published", e.guest]]);
  }));

test("signed-in members read published entries but not preview rows", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const e = await insertEntries(tx);
    for (const who of [people.member, people.newcomer]) {
      const rows = await as(tx, who, (q) =>
        q<{
          id: string;
          stage: string;
        }[]>`select id, stage from public.content_entries where model_id = ${e.model} order by id`);
      assert.deepEqual(
        rows.map((r) => r.stage),
        ["published", "published"],
      );
      assert.deepEqual(ids(rows), [e.guest, e.members].sort());
    }
  }));

test("staff read preview rows", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const e = await insertEntries(tx);
    for (const who of [people.admin, people.support]) {
      const rows = await as(tx, who, (q) =>
        q<{ id: string }[]>`select id from public.content_entries where model_id = ${e.model}`);
      assert.deepEqual(ids(rows), [e.draft, e.guest, e.members].sort());
    }
  }));

test("members and support people cannot write entries", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const e = await insertEntries(tx);
    for (const who of [people.member, people.support]) {
      await as(tx, who, async (q) => {
        await refused(
          q,
          (s) =>
            s`insert into public.content_entries (stage, id, model_id, path) values ('preview', 'planted', ${e.model}, 'x.md')`,
          /row-level security/,
        );
        assert.equal(
          (await q`update public.content_entries set access = 'guest' where id = ${e.members} returning id`)
            .length,
          0,
        );
        assert.equal(
          (await q`delete from public.content_entries where id = ${e.guest} returning id`).length,
          0,
        );
      });
    }
    await as(
      tx,
      "anon",
      (q) => refused(q, (s) => s`delete from public.content_entries where id = ${e.guest}`),
    );
  }));

test("administrators write, publish and delete entries, leaving a tombstone", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const e = await insertEntries(tx);
    await as(tx, people.admin, async (q) => {
      await q`insert into public.content_entries (stage, id, model_id, path) values ('preview', ${
        e.guest + "new"
      }, ${e.model}, 'new.md')`;
      assert.equal(
        (await q`update public.content_entries set fields = '{}' where id = ${e.draft} returning id`).length,
        1,
      );
      assert.equal(
        (await q`delete from public.content_entries where stage = 'published' and id = ${e.guest} returning id`)
          .length,
        1,
      );
      const tombstones =
        await q`select id from public.content_tombstones where stage = 'published' and id = ${e.guest}`;
      assert.equal(tombstones.length, 1);
      // publishing it again removes the tombstone
      await q`insert into public.content_entries (stage, id, model_id, path) values ('published', ${e.guest}, ${e.model}, 'again.md')`;
      assert.equal(
        (await q`select id from public.content_tombstones where stage = 'published' and id = ${e.guest}`)
          .length,
        0,
      );
    });
  }));

test("tombstones are visible only for the published stage", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const id = "gone" + crypto.randomUUID().slice(0, 8);
    for (const stage of ["published", "preview"]) {
      await tx`insert into public.content_tombstones (id, kind, stage, created_at, updated_at)
             values (${id}, 'DeletedEntry', ${stage}, now(), now())`;
    }
    for (const who of ["anon" as const, people.member, people.support, people.admin]) {
      const rows = await as(tx, who, (q) =>
        q<{ stage: string }[]>`select stage from public.content_tombstones where id = ${id}`);
      assert.deepEqual(
        rows.map((r) =>
          r.stage
        ),
        ["published"],
      );
    }
  }));

test("anyone reads published assets and only staff read unpublished ones", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const tag = crypto.randomUUID().slice(0, 8);
    for (const published of [true, false]) {
      await tx`insert into public.content_assets (id, path, file_name, content_type, size, content_hash, storage_key, published)
             values (${`${
        published ? "pub" : "draft"
      }${tag}`}, ${`media/${published}-${tag}.png`}, 'a.png', 'image/png', 1,
                     'h', 'k', ${published})`;
    }
    const visible = (who: Parameters<typeof as>[1]) =>
      as(tx, who, (q) => q<{ id: string }[]>`select id from public.content_assets where id like ${"%" + tag}`)
        .then(ids);
    assert.deepEqual(await visible("anon"), [`pub${tag}`]);
    assert.deepEqual(await visible(people.member), [`pub${tag}`]);
    assert.deepEqual(await visible(people.support), [`draft${tag}`, `pub${tag}`]);
    assert.deepEqual(await visible(people.admin), [`draft${tag}`, `pub${tag}`]);
  }));

test("administrators unpublish and delete assets, leaving a tombstone", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const id = "asset" + crypto.randomUUID().slice(0, 8);
    await tx`insert into public.content_assets (id, path, file_name, content_type, size, content_hash, storage_key)
           values (${id}, ${`media/${id}.png`}, 'a.png', 'image/png', 1, 'h', 'k')`;
    await as(tx, people.admin, async (q) => {
      assert.equal(
        (await q`update public.content_assets set published = false where id = ${id} returning id`).length,
        1,
      );
      assert.equal(
        (await q`select id from public.content_tombstones where kind = 'DeletedAsset' and id = ${id}`).length,
        1,
      );
      assert.equal((await q`delete from public.content_assets where id = ${id} returning id`).length, 1);
    });
  }));

// --- profiles ------------------------------------------------------------------------------------

test("people read their own profile and no one else's", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const everyone = [people.admin.sub, people.support.sub, people.member.sub];
    const rows = await as(tx, people.member, (q) =>
      q<{ id: string }[]>`select id from public.profiles where id in ${q(everyone)}`);
    assert.deepEqual(ids(rows), [people.member.sub]);
    const none = await as(tx, people.newcomer, (q) =>
      q`select id from public.profiles where id in ${q(everyone)}`);
    assert.equal(none.length, 0);
  }));

test("staff read every profile", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const everyone = [people.admin.sub, people.support.sub, people.member.sub];
    for (const who of [people.admin, people.support]) {
      const rows = await as(tx, who, (q) =>
        q<{ id: string }[]>`select id from public.profiles where id in ${q(everyone)}`);
      assert.deepEqual(ids(rows), [...everyone].sort());
    }
  }));

test("anon reads no profile", () =>
  rolledBack(async (tx) => {
    await as(tx, "anon", (q) => refused(q, (s) => s`select id, email from public.profiles`));
  }));

test("a member cannot change their own role", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    await as(tx, people.member, async (q) => {
      const changed =
        await q`update public.profiles set role = 'admin' where id = ${people.member.sub} returning id`;
      assert.equal(changed.length, 0);
      const [{ role }] = await q<
        { role: string }[]
      >`select role from public.profiles where id = ${people.member.sub}`;
      assert.equal(role, "member");
      assert.equal(await q`select public.is_admin() as a`.then((r) => r[0].a), false);
    });
  }));

test("a support person cannot promote themselves either", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    await as(tx, people.support, async (q) => {
      assert.equal(
        (await q`update public.profiles set role = 'admin' where id = ${people.support.sub} returning id`)
          .length,
        0,
      );
    });
  }));

test("a newcomer cannot give themselves an administrator profile", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    await as(tx, people.newcomer, (q) =>
      refused(
        q,
        (s) =>
          s`insert into public.profiles (id, email, role) values (${people.newcomer.sub}, 'me@x.test', 'admin')`,
        /row-level security/,
      ));
  }));

test("administrators change other people's roles", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    await as(tx, people.admin, async (q) => {
      const changed =
        await q`update public.profiles set role = 'support' where id = ${people.member.sub} returning role`;
      assert.deepEqual(changed.map((r) => r.role), ["support"]);
    });
  }));

// --- site_settings -------------------------------------------------------------------------------

test("only admins update site_settings", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    await ensureSiteSettings(tx);
    for (const who of [people.member, people.support, people.newcomer]) {
      assert.equal(
        await as(tx, who, (q) =>
          q`update public.site_settings set name = 'taken over' returning id`.then((r) =>
            r.length
          )),
        0,
      );
    }
    await as(tx, "anon", (q) => refused(q, (s) => s`update public.site_settings set name = 'taken over'`));
    assert.equal(
      await as(tx, people.admin, (q) =>
        q`update public.site_settings set name = 'renamed' returning id`.then((r) =>
          r.length
        )),
      1,
    );
  }));

test("administrators cannot change the site's slug, mode or source outside an import", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    await ensureSiteSettings(tx);
    await as(tx, people.admin, async (q) => {
      await refused(q, (s) => s`update public.site_settings set slug = 'other'`);
      await refused(q, (s) => s`update public.site_settings set mode = 'cloud'`);
      await refused(q, (s) => s`update public.site_settings set source_dir = '/etc'`);
    });
  }));

test("anyone reads the public site settings", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    await ensureSiteSettings(tx);
    for (const who of ["anon" as const, people.member]) {
      const rows = await as(tx, who, (q) =>
        q`select name, slug, domain, mode, modules, locales, updated_at from public.site_settings`);
      assert.equal(rows.length, 1);
    }
  }));

test("no reader sees the raw configuration file, which may declare webhook secrets", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    await ensureSiteSettings(tx);
    for (const who of ["anon" as const, people.member, people.admin]) {
      await as(tx, who, async (q) => {
        await refused(q, (s) => s`select config from public.site_settings`);
        await refused(q, (s) => s`select source_dir from public.site_settings`);
      });
    }
  }));
