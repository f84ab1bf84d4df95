// Row-level security and grants of the forms tables (form_responses, form_webhooks, the form_statistics
// view), and the trigger that turns webhooks declared in the site's configuration into subscriptions.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import type { Tx } from "../../shared/db.ts";
import { as, database, makePeople, refused, rolledBack } from "./support.ts";

async function insertResponse(tx: Tx, form: string): Promise<string> {
  const token = `sqltest${crypto.randomUUID().replace(/-/g, "")}`;
  await tx`insert into public.form_responses (token, form, landed_at, at, answers, search_text, platform)
           values (${token}, ${form}, now(), now(), ${
    tx.json({ q: { type: "text", field_type: "short_text", value: "hi" } })
  }, 'hi', 'desktop')`;
  return token;
}

async function insertWebhook(tx: Tx, form: string): Promise<string> {
  const [{ id }] = await tx<{ id: string }[]>`
    insert into public.form_webhooks (form, tag, url, secret, enabled)
    values (${form}, 'sql', 'https://hooks.example/forms', 'the-secret', true) returning id`;
  return id;
}

test("form responses: staff read them, administrators delete them, nobody else reads or writes", async () => {
  await rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const form = `sql-${crypto.randomUUID().slice(0, 8)}`;
    const token = await insertResponse(tx, form);
    const visible = (who: Parameters<typeof as>[1]) =>
      as(
        tx,
        who,
        async (q) => (await q`select token from public.form_responses where form = ${form}`).length,
      );
    assert.equal(await visible(people.admin), 1, "administrators read responses");
    assert.equal(await visible(people.support), 1, "support staff read responses");
    assert.equal(await visible(people.member), 0, "members do not");
    assert.equal(await visible(people.newcomer), 0, "people without a profile do not");
    await as(tx, "anon", (q) => refused(q, (s) => s`select token from public.form_responses`));

    await as(
      tx,
      people.member,
      (q) =>
        refused(
          q,
          (s) =>
            s`insert into public.form_responses (token, form, landed_at, at) values ('x', 'y', now(), now())`,
        ),
    );
    await as(
      tx,
      people.admin,
      (q) => refused(q, (s) => s`update public.form_responses set form = 'other' where token = ${token}`),
    );
    await as(tx, people.support, async (q) => {
      const rows = await q`delete from public.form_responses where token = ${token} returning token`;
      assert.equal(rows.length, 0, "support staff cannot delete responses");
    });
    await as(tx, people.admin, async (q) => {
      const rows = await q`delete from public.form_responses where token = ${token} returning token`;
      assert.equal(rows.length, 1, "administrators delete responses");
    });
    await as(tx, people.admin, (q) => refused(q, (s) => s`truncate public.form_responses`));
  });
});

test("form webhooks: staff read subscriptions without their secret; only the service role writes", async () => {
  await rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const form = `sql-${crypto.randomUUID().slice(0, 8)}`;
    await insertWebhook(tx, form);
    await as(tx, people.support, async (q) => {
      const rows =
        await q`select id, form, tag, url, enabled, verify_ssl, source, last_at, last_error from public.form_webhooks where form = ${form}`;
      assert.equal(rows.length, 1, "staff read subscriptions");
    });
    await as(tx, people.admin, (q) => refused(q, (s) => s`select secret from public.form_webhooks`));
    await as(tx, people.admin, (q) => refused(q, (s) => s`select * from public.form_webhooks`));
    await as(tx, people.member, async (q) => {
      assert.equal(
        (await q`select id from public.form_webhooks where form = ${form}`).length,
        0,
        "members read none",
      );
    });
    await as(tx, "anon", (q) => refused(q, (s) => s`select id from public.form_webhooks`));
    await as(
      tx,
      people.admin,
      (q) =>
        refused(
          q,
          (s) => s`insert into public.form_webhooks (form, tag, url) values ('a', 'b', 'https://x.example')`,
        ),
    );
    await as(
      tx,
      people.admin,
      (q) =>
        refused(
          q,
          (s) => s`update public.form_webhooks set url = 'https://evil.example' where form = ${form}`,
        ),
    );
    await as(tx, "service_role", async (q) => {
      const [row] = await q`select secret from public.form_webhooks where form = ${form}`;
      assert.equal(row.secret, "the-secret", "the functions (service role) read the secret to sign");
    });
  });
});

test("form statistics: staff read them through the view (readers' row-level security applies), members see nothing", async () => {
  await rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const form = `sql-${crypto.randomUUID().slice(0, 8)}`;
    await insertResponse(tx, form);
    await insertResponse(tx, form);
    await as(tx, people.support, async (q) => {
      const [row] =
        await q`select total_visits::int, responses_count::int from public.form_statistics where form = ${form}`;
      assert.deepEqual({ ...row }, { total_visits: 2, responses_count: 0 });
    });
    await as(tx, people.member, async (q) => {
      assert.equal((await q`select 1 from public.form_statistics where form = ${form}`).length, 0);
    });
    await as(tx, "anon", (q) => refused(q, (s) => s`select 1 from public.form_statistics`));
  });
});

test("webhooks declared in the site's configuration become source-file subscriptions, replace hand ones, and go when undeclared", async () => {
  await rolledBack(async (tx) => {
    const form = `sql-${crypto.randomUUID().slice(0, 8)}`;
    const [hand] =
      await tx`insert into public.form_webhooks (form, tag, url, source) values (${form}, 'crm', 'https://hand.example', 'hand') returning id`;
    const declare = (webhooks: unknown[]) =>
      tx`update public.site_settings set config = jsonb_set(config, '{webhooks}', ${
        tx.json(webhooks as never)
      })`;
    await declare([
      { api: "forms", form, tag: "crm", url: "https://file.example/crm", secret: "s1" },
      { api: "forms", form, url: "https://file.example/site", enabled: false },
      { api: "content", url: "https://file.example/content" },
      { api: "forms", form, tag: "bad tag!", url: "https://file.example/ignored" },
    ]);
    const rows =
      await tx`select id, tag, url, secret, enabled, source from public.form_webhooks where form = ${form} order by tag`;
    assert.deepEqual(rows.map((r) => [r.tag, r.url, r.secret, r.enabled, r.source]), [
      ["crm", "https://file.example/crm", "s1", true, "file"],
      ["site", "https://file.example/site", null, false, "file"],
    ]);
    assert.equal(rows[0].id, hand.id, "the declaration replaced the hand subscription in place");
    await declare([{ api: "forms", form, tag: "crm", url: "https://file.example/crm2" }]);
    const after =
      await tx`select tag, url, source from public.form_webhooks where form = ${form} order by tag`;
    assert.deepEqual(after.map((r) => [r.tag, r.url, r.source]), [[
      "crm",
      "https://file.example/crm2",
      "file",
    ]]);
  });
});

test("form response counts follow every insert, submission, move and delete, bulk or one by one, and only the service role reads them", async () => {
  await rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const form = `sql-${crypto.randomUUID().slice(0, 8)}`;
    const other = `${form}-other`;
    const kept = async (f: string) => {
      const rows = await tx<{ submitted: boolean; n: number }[]>`
        select submitted, sum(responses)::int as n from public.form_response_counts where form = ${f} group by submitted`;
      // a group whose responses all went keeps its rows at 0
      return Object.fromEntries(rows.filter((r) => r.n > 0).map((r) => [r.submitted ? "submitted" : "open", r.n]));
    };
    const counted = async (f: string) => {
      const [row] = await tx<{ submitted: number; open: number }[]>`
        select count(*) filter (where submitted_at is not null)::int as submitted,
               count(*) filter (where submitted_at is null)::int as open
        from public.form_responses where form = ${f}`;
      return Object.fromEntries(Object.entries(row).filter(([, n]) => n > 0));
    };
    const agree = async (step: string) => {
      for (const f of [form, other]) assert.deepEqual(await kept(f), await counted(f), `${step}: ${f}`);
    };

    const one = await insertResponse(tx, form);
    await insertResponse(tx, form);
    await agree("two landings");
    // a bulk insert, as an import would make: one statement, many rows over every shard
    await tx`insert into public.form_responses (token, form, landed_at, at, submitted_at, platform)
             select ${form} || '-bulk-' || i, ${form}, now(), now(), case when i % 3 = 0 then now() end, 'other'
             from generate_series(1, 500) as i`;
    await agree("a bulk insert");
    assert.deepEqual(await kept(form), { open: 2 + 334, submitted: 166 });
    await tx`update public.form_responses set submitted_at = now() where token = ${one}`;
    await agree("a submission");
    await tx`update public.form_responses set search_text = 'saved progress' where token = ${one}`;
    await agree("progress saved (no group changes)");
    await tx`update public.form_responses set form = ${other} where token like ${form + "-bulk-1%"}`;
    await agree("responses moved to another form");
    await tx`update public.form_responses set token = token || 'x' where form = ${other}`;
    await agree("tokens changed (another shard)");
    await tx`delete from public.form_responses where token = ${one}`;
    await agree("one deleted");
    await tx`delete from public.form_responses where form in (${form}, ${other})`;
    assert.deepEqual(await kept(form), {});
    assert.deepEqual(await kept(other), {});

    for (const who of [people.admin, people.support, people.member, "anon" as const]) {
      await as(tx, who, (q) => refused(q, (s) => s`select * from public.form_response_counts`));
      await as(tx, who, (q) => refused(q, (s) => s`update public.form_response_counts set responses = 0`));
      await as(tx, who, (q) => refused(q, (s) => s`select public.form_response_counts_apply('[]')`));
    }
  });
});

test("an administrator's delete of responses (row-level security on, no rights on the counts) keeps the counts true", async () => {
  await rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const form = `sql-${crypto.randomUUID().slice(0, 8)}`;
    const token = await insertResponse(tx, form);
    await insertResponse(tx, form);
    await as(tx, people.admin, async (q) => {
      await q`delete from public.form_responses where token = ${token}`;
      // read back inside the administrator's savepoint, as the service role
      const [{ n }] = await q.unsafe(`set local role service_role`).then(() =>
        q<{ n: number }[]>`select sum(responses)::int as n from public.form_response_counts where form = ${form}`
      );
      assert.equal(n, 1);
    });
  });
});

test("a search's and an answered-fields filter's GIN indexes lead with the form, so they hold one form's matches together", async () => {
  await rolledBack(async (tx) => {
    const definitions = await tx<{ name: string; definition: string }[]>`
      select indexname as name, indexdef as definition from pg_indexes
      where schemaname = 'public' and tablename = 'form_responses' and indexdef like '%USING gin%'
      order by indexname`;
    assert.deepEqual(
      definitions.map((d) => [d.name, d.definition.replace(/^.*USING gin /, "")]),
      [["form_responses_answered", "(form, answered)"], ["form_responses_search", "(form, search)"]],
    );
  });
});

/** A response of `form` whose words are `words`, submitted or not (as saving progress writes them). */
async function insertWords(tx: Tx, form: string, words: string, submitted = false): Promise<string> {
  const token = `sqltest${crypto.randomUUID().replace(/-/g, "")}`;
  await tx`insert into public.form_responses (token, form, landed_at, at, submitted_at, search_text)
           values (${token}, ${form}, now(), now(), ${submitted ? new Date() : null}, ${words})`;
  return token;
}

const HARBOR = "'harbor':*";

test("a search's kept counts follow every insert, saved answer, submission, move and delete, bulk or one by one, and only the service role reads them", async () => {
  await rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const form = `sql-${crypto.randomUUID().slice(0, 8)}`;
    const other = `${form}-other`;
    const kept = (f: string, query = HARBOR) =>
      tx<{ submitted: number; open: number }[]>`
        select submitted::int, open::int from public.form_search_counts where form = ${f} and query = ${query}`
        .then(([row]) => row && { ...row });
    const counted = (f: string, query = HARBOR) =>
      tx<{ submitted: number; open: number }[]>`
        select count(*) filter (where submitted_at is not null)::int as submitted,
               count(*) filter (where submitted_at is null)::int as open
        from public.form_responses where form = ${f} and search @@ to_tsquery('simple', ${query})`
        .then(([row]) => ({ ...row }));
    const agree = async (step: string) => {
      for (const f of [form, other]) {
        for (const query of [HARBOR, "'harbor':* & 'tea':*"]) {
          assert.deepEqual(await kept(f, query), await counted(f, query), `${step}: ${f} ${query}`);
        }
      }
    };

    const one = await insertWords(tx, form, "harbor lights");
    await insertWords(tx, form, "harbors and tea", true);
    await insertWords(tx, form, "a quiet evening");
    assert.equal(await kept(form), undefined, "nothing is kept before a search is asked");
    for (const f of [form, other]) {
      for (const query of [HARBOR, "'harbor':* & 'tea':*"]) {
        const [asked] = await tx`select submitted::int, open::int from public.form_search_count(${f}, ${query})`;
        assert.deepEqual({ ...asked }, await counted(f, query), `the first answer counts: ${f} ${query}`);
      }
    }
    assert.deepEqual(await kept(form), { submitted: 1, open: 1 });
    await agree("kept when asked");

    await tx`insert into public.form_responses (token, form, landed_at, at, submitted_at, search_text)
             select ${form} || '-bulk-' || i, ${form}, now(), now(), case when i % 3 = 0 then now() end,
                    case when i % 2 = 0 then 'harbor tea ' || i else 'lake ' || i end
             from generate_series(1, 300) as i`;
    await agree("a bulk insert");
    await tx`update public.form_responses set search_text = 'a lake now' where token = ${one}`;
    await agree("progress saved: the words no longer match");
    await tx`update public.form_responses set search_text = 'harbor tea again' where token = ${one}`;
    await agree("progress saved: they match again");
    await tx`update public.form_responses set submitted_at = now() where token = ${one}`;
    await agree("a submission");
    await tx`update public.form_responses set form = ${other} where token like ${form + "-bulk-1%"}`;
    await agree("responses moved to another form");
    await tx`delete from public.form_responses where token = ${one}`;
    await agree("one deleted");
    await tx`delete from public.form_responses where form in (${form}, ${other})`;
    assert.deepEqual(await kept(form), { submitted: 0, open: 0 });

    for (const who of [people.admin, people.support, people.member, "anon" as const]) {
      await as(tx, who, (q) => refused(q, (s) => s`select * from public.form_search_counts`));
      await as(tx, who, (q) => refused(q, (s) => s`update public.form_search_counts set open = 0`));
      await as(tx, who, (q) => refused(q, (s) => s`select * from public.form_search_count('x', ${HARBOR})`));
    }
  });
});

test("a form keeps its 32 latest searches, emptied responses keep none, and a transaction of one snapshot counts without keeping", async () => {
  await rolledBack(async (tx) => {
    const form = `sql-${crypto.randomUUID().slice(0, 8)}`;
    await insertWords(tx, form, "harbor tea");
    for (let i = 0; i < 33; i++) {
      await tx`update public.form_search_counts set kept_at = kept_at - interval '1 minute' where form = ${form}`;
      await tx`select * from public.form_search_count(${form}, ${`'word${i}':*`})`;
    }
    const queries = await tx<{ query: string }[]>`select query from public.form_search_counts where form = ${form}`;
    assert.equal(queries.length, 32);
    assert.ok(!queries.some((q) => q.query === "'word0':*"), "the oldest went");
    await tx`truncate public.form_responses`;
    const left = await tx`select 1 from public.form_search_counts`;
    assert.equal(left.length, 0, "emptied responses keep no search");
  });
  const sql = await database();
  const form = `sql-${crypto.randomUUID().slice(0, 8)}`;
  try {
    await sql`insert into public.form_responses (token, form, landed_at, at, search_text)
              values (${form + "-1"}, ${form}, now(), now(), 'harbor')`;
    await sql.begin("isolation level repeatable read", async (tx) => {
      const [{ open }] = await tx`select open::int from public.form_search_count(${form}, ${HARBOR})`;
      assert.equal(open, 1);
    });
    const rows = await sql`select 1 from public.form_search_counts where form = ${form}`;
    assert.equal(rows.length, 0, "not kept");
  } finally {
    await sql`delete from public.form_responses where form = ${form}`;
  }
});

const shared = await database();
const [{ version }] = await shared<{ version: string }[]>`select version()`;

Deno.test({
  name: "a search counted while responses are written misses none: it waits for a writer in flight, and a writer waits for it",
  // PGlite serves one session at a time: nothing overlaps there
  ignore: version.includes("PGlite"),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const sql = await database();
    const form = `sql-${crypto.randomUUID().slice(0, 8)}`;
    const [writer, reader] = [await sql.reserve(), await sql.reserve()];
    const settled = async <T>(promise: Promise<T>, ms = 300) =>
      await Promise.race([promise.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);
    try {
      await sql`insert into public.form_responses (token, form, landed_at, at, search_text)
                values (${form + "-0"}, ${form}, now(), now(), 'harbor')`;
      // a writer in flight: the count waits for its commit, then sees its response
      await writer`begin`;
      await writer`insert into public.form_responses (token, form, landed_at, at, search_text)
                   values (${form + "-1"}, ${form}, now(), now(), 'harbor')`;
      const first = reader`select open::int from public.form_search_count(${form}, ${HARBOR})`;
      assert.equal(await settled(first), false, "the count waits for the writer");
      await writer`commit`;
      assert.equal((await first)[0].open, 2);

      // a count in flight: the writer waits for it, then adds to what it kept
      await reader`begin`;
      await reader`select * from public.form_search_count(${form}, ${"'harbor':* & 'lights':*"})`;
      await writer`begin`;
      const write = writer`insert into public.form_responses (token, form, landed_at, at, search_text)
                           values (${form + "-2"}, ${form}, now(), now(), 'harbor lights')`;
      assert.equal(await settled(write), false, "the writer waits for the count");
      await reader`commit`;
      await write;
      await writer`commit`;
      const [kept] = await sql`select open::int from public.form_search_counts where form = ${form} and query = ${"'harbor':* & 'lights':*"}`;
      assert.equal(kept.open, 1);
      const [harbor] = await sql`select open::int from public.form_search_counts where form = ${form} and query = ${HARBOR}`;
      assert.equal(harbor.open, 3);
    } finally {
      writer.release();
      reader.release();
      await sql`delete from public.form_responses where form = ${form}`;
      await sql`delete from public.form_search_counts where form = ${form}`;
    }
  },
});
