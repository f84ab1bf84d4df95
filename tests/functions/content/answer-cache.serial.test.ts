// Kept delivery answers, REST and GraphQL (shared/answer-cache.ts), across instances: two hosts over one
// database, each with its own pool and its own memory, the way two deployed instances are. A publish
// through one is read at once through the other, round after round, with the old answer kept on both
// just before; a kept answer is really what is served while its version stands; every hit still counts
// against the key's limits.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { testDatabaseUrl } from "../../helpers/db.ts";
import { serveTestHost } from "../../helpers/host.ts";
import { connect } from "../../../shared/db.ts";
import { revokeKey } from "../../../shared/keys.ts";
import { createKey } from "../../../shared/keys.ts";
import { call, host, inCloudMode, makerKey, sql, unique } from "./management-support.ts";

const ARTICLE = { "x-contentful-content-type": "article" };
const version = (v: number) => ({ "x-contentful-version": String(v) });

/** A second instance: its own pool and its own kept answers, over the same database. */
function secondHost() {
  const pool = connect(testDatabaseUrl(), { max: 4 });
  const served = serveTestHost(pool, {
    host: "127.0.0.1",
    overrides: { ...host.ctx.config, publicUrl: host.baseUrl },
  });
  return {
    env: `${served.baseUrl}/api/content/spaces/${host.space}/environments/master`,
    graphql: `${served.baseUrl}/api/content/content/v1/spaces/${host.space}/environments/master`,
    async close() {
      await served.close();
      await pool.end();
    },
  };
}

const envA = `${host.baseUrl}/api/content/spaces/${host.space}/environments/master`;
const graphqlA = `${host.baseUrl}/api/content/content/v1/spaces/${host.space}/environments/master`;

/** An article's title through GraphQL. */
async function titleByGraphql(url: string, key: string, id: string): Promise<string | undefined> {
  const res = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ query: `{ article(id: ${JSON.stringify(id)}) { title } }` }),
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.data?.article?.title ?? undefined;
}

async function read(url: string, key: string) {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

test("a publish through one instance is read at once through another, round after round", async () => {
  const b = secondHost();
  const { key: management } = await makerKey();
  // fresh delivery keys every few rounds: one key's reads would pass its 78-a-second limit
  const readers = await Promise.all(Array.from({ length: 4 }, () => host.key("delivery")));
  try {
    await inCloudMode(async () => {
      const made = await call("POST", `${envA}/entries`, management, {
        fields: { title: { "en-US": unique("Kept") } },
      }, ARTICLE);
      assert.equal(made.status, 201, JSON.stringify(made.body));
      const id = made.body.sys.id as string;
      let current = made.body;
      let published = await call(
        "PUT",
        `${envA}/entries/${id}/published`,
        management,
        undefined,
        version(current.sys.version),
      );
      assert.equal(published.status, 200, JSON.stringify(published.body));
      current = published.body;
      const list = (env: string) => `${env}/entries?content_type=article&sys.id=${id}&include=1`;
      for (let round = 0; round < 12; round++) {
        const reader = readers[round % readers.length];
        const title = (current.fields.title as Record<string, string>)["en-US"];
        // both instances keep the answer of the version before the change
        for (const env of [envA, b.env]) {
          for (let i = 0; i < 2; i++) {
            const one = await read(`${env}/entries/${id}`, reader);
            assert.equal(one.status, 200);
            assert.equal(one.body.fields.title, title);
            assert.equal((await read(list(env), reader)).body.items[0].fields.title, title);
          }
        }
        for (const graphql of [graphqlA, b.graphql]) {
          for (let i = 0; i < 2; i++) assert.equal(await titleByGraphql(graphql, reader, id), title);
        }
        // the change, published through A
        const next = unique(`Round ${round}`);
        const saved = await call("PUT", `${envA}/entries/${id}`, management, {
          fields: { ...current.fields, title: { "en-US": next } },
        }, version(current.sys.version));
        assert.equal(saved.status, 200, JSON.stringify(saved.body));
        published = await call(
          "PUT",
          `${envA}/entries/${id}/published`,
          management,
          undefined,
          version(saved.body.sys.version),
        );
        assert.equal(published.status, 200, JSON.stringify(published.body));
        current = published.body;
        // and read at once, without waiting for anything, through B first, then A
        for (const env of [b.env, envA]) {
          assert.equal(
            (await read(`${env}/entries/${id}`, reader)).body.fields.title,
            next,
            `round ${round}: one entry`,
          );
          assert.equal(
            (await read(list(env), reader)).body.items[0].fields.title,
            next,
            `round ${round}: the list`,
          );
        }
        for (const graphql of [b.graphql, graphqlA]) {
          assert.equal(await titleByGraphql(graphql, reader, id), next, `round ${round}: GraphQL`);
        }
      }
      // unpublished through A: gone from Delivery on B at once
      assert.equal((await call("DELETE", `${envA}/entries/${id}/published`, management)).status, 200);
      assert.equal((await read(`${b.env}/entries/${id}`, readers[0])).status, 404);
      assert.equal((await read(list(b.env), readers[0])).body.items.length, 0);
      assert.equal(await titleByGraphql(b.graphql, readers[0], id), undefined);
      assert.equal((await call("DELETE", `${envA}/entries/${id}`, management)).status, 204);
    });
  } finally {
    await b.close();
  }
});

test("a kept answer is what is served while its version stands, and every hit still counts and checks the key", async () => {
  const { key, id: keyId } = await createKey(sql, { name: "kept answers", kind: "delivery" });
  const [entry] = await sql<{ id: string; fields: Record<string, Record<string, unknown>> }[]>`
    select id, fields from public.content_entries where stage = 'published' and model_id = 'article' order by id limit 1`;
  const url = `${envA}/entries/${entry.id}?locale=en-US`;
  const graphqlFirst = await titleByGraphql(graphqlA, key, entry.id); // GraphQL keeps its answer too
  const first = await read(url, key);
  assert.equal(first.status, 200);
  const title = first.body.fields.title;
  assert.equal(graphqlFirst, title);
  const marked = `${title} (changed behind the versions' back)`;
  // a change that bumps no version (triggers off for this one statement) is not seen while the
  // answer is kept: the answer comes from memory, not from the database
  await sql.begin(async (tx) => {
    await tx`set local session_replication_role = replica`;
    await tx`update public.content_entries
      set fields = jsonb_set(fields, '{title,en-US}', to_jsonb(${marked}::text))
      where stage = 'published' and id = ${entry.id}`;
  });
  try {
    const second = await read(url, key);
    assert.equal(second.body.fields.title, title, "the kept answer");
    assert.equal(second.headers.get("etag"), first.headers.get("etag"));
    // the rate windows counted both reads
    const hour = (r: { headers: Headers }) => Number(r.headers.get("x-contentful-ratelimit-hour-remaining"));
    assert.equal(hour(first) - hour(second), 1);
    assert.equal(await titleByGraphql(graphqlA, key, entry.id), title, "GraphQL's kept answer");
    // and the second's window counted this read (78 a second): at most 77 left whatever second it fell in,
    // since the reads before it may have been in the second before
    assert.equal(Number(second.headers.get("x-contentful-ratelimit-second-remaining")) <= 77, true);
    // once the version moves, the next read builds the answer again
    await sql`select public.bump_answer_versions(array['content:published'])`;
    assert.equal((await read(url, key)).body.fields.title, marked);
    assert.equal(await titleByGraphql(graphqlA, key, entry.id), marked);
    // a conditional read of the kept answer is a 304
    const etag = (await fetch(url, { headers: { authorization: `Bearer ${key}` } })).headers.get("etag")!;
    const conditional = await fetch(url, {
      headers: { authorization: `Bearer ${key}`, "if-none-match": etag },
    });
    assert.equal(conditional.status, 304);
    await conditional.body?.cancel();
    // a revoked key is refused even though the answer is kept
    await revokeKey(sql, keyId);
    const refused = await read(url, key);
    assert.equal(refused.status, 401);
    assert.equal(refused.body.sys.id, "AccessTokenInvalid");
  } finally {
    await sql.begin(async (tx) => {
      await tx`update public.content_entries set fields = ${
        sql.json(entry.fields as never)
      } where stage = 'published' and id = ${entry.id}`;
    });
  }
});

test("answers are kept apart by what the key may read: gated bodies never reach an open key", async () => {
  const [entry] = await sql<{ id: string }[]>`
    select id from public.content_entries where stage = 'published' and access <> 'guest' order by id limit 1`;
  if (!entry) return; // the demo site gates no entry
  const gated = await host.key("delivery", { gated: true });
  const open = await host.key("delivery");
  const url = `${envA}/entries/${entry.id}`;
  const full = await read(url, gated);
  const held = await read(url, open);
  assert.equal(full.status, 200);
  assert.equal(held.status, 200);
  assert.notDeepEqual(held.body.fields, full.body.fields, "the open key's answer withholds the body");
  assert.deepEqual((await read(url, gated)).body.fields, full.body.fields);
  assert.deepEqual((await read(url, open)).body.fields, held.body.fields);
});

test("a kept GraphQL answer with errors names the request that takes it, not the one that built it", async () => {
  const { key: management } = await makerKey();
  const key = await host.key("delivery");
  await inCloudMode(async () => {
    // a published article whose related list links to an entry that is not published: a link that
    // does not resolve, which GraphQL answers with the data it has and an error
    const draft = await call("POST", `${envA}/entries`, management, {
      fields: { title: { "en-US": unique("Draft") } },
    }, ARTICLE);
    assert.equal(draft.status, 201, JSON.stringify(draft.body));
    const linking = await call("POST", `${envA}/entries`, management, {
      fields: {
        title: { "en-US": unique("Linking") },
        related: { "en-US": [{ sys: { type: "Link", linkType: "Entry", id: draft.body.sys.id } }] },
      },
    }, ARTICLE);
    assert.equal(linking.status, 201, JSON.stringify(linking.body));
    try {
      const published = await call(
        "PUT",
        `${envA}/entries/${linking.body.sys.id}/published`,
        management,
        undefined,
        version(linking.body.sys.version),
      );
      assert.equal(published.status, 200, JSON.stringify(published.body));
      const ask = async () => {
        const res = await fetch(graphqlA, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({
            query: `{ article(id: ${
              JSON.stringify(linking.body.sys.id)
            }) { title relatedCollection { items { __typename } } } }`,
          }),
        });
        return { id: res.headers.get("x-contentful-request-id"), body: await res.json() };
      };
      const first = await ask();
      const second = await ask();
      assert.ok(first.body.errors?.length, JSON.stringify(first.body));
      assert.notEqual(first.id, second.id);
      for (const { id, body } of [first, second]) {
        for (const error of body.errors) assert.equal(error.extensions.contentful.requestId, id);
      }
      const withoutIds = (body: unknown) => JSON.stringify(body).replaceAll(/"requestId":"[^"]*"/g, "");
      assert.equal(withoutIds(second.body), withoutIds(first.body));
    } finally {
      // what this test made goes: other tests read the space's first entries as the repository's
      await call("DELETE", `${envA}/entries/${linking.body.sys.id}/published`, management);
      for (const made of [linking, draft]) {
        await call("DELETE", `${envA}/entries/${made.body.sys.id}`, management);
      }
    }
  });
});
