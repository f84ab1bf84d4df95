// The answer cache on its own (shared/answer-cache.ts) and the answer versions it trusts
// (migrations/20261126001550_answer_versions.sql): which kept answer a request may take, the size bound,
// the notification that drops older answers, and which changes bump which scope.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import { testSql } from "../helpers/db.ts";
import { answerCache } from "../../shared/answer-cache.ts";
import { as, refused, rolledBack } from "../sql/support.ts";
import type { Tx } from "../../shared/db.ts";

const answer = (body: string) => ({ body, etag: `"${body}"`, contentType: "application/json" });

test("a kept answer serves requests that saw its version or an earlier one, never a later one", () => {
  const cache = answerCache(undefined, 1 << 20);
  cache.put("s", 5, "/a", answer("five"));
  assert.equal(cache.get("s", 5, "/a")?.body, "five");
  assert.equal(
    cache.get("s", 4, "/a")?.body,
    "five",
    "a request that began before the change may have the newer answer",
  );
  assert.equal(cache.get("s", 6, "/a"), undefined, "a request that saw a later version builds its own");
  assert.equal(cache.get("s", 5, "/a"), undefined, "and the stale answer is gone");
  assert.equal(cache.get("other", 5, "/a"), undefined, "scopes are apart");
  cache.put("s", 7, "/a", answer("seven"));
  cache.put("s", 6, "/a", answer("six")); // a slower request of the older version comes back later
  assert.equal(cache.get("s", 7, "/a")?.body, "seven", "it does not replace the newer answer");
});

test("the cache keeps to its size, dropping the least recently used first; size 0 keeps nothing", () => {
  const body = "x".repeat(500);
  const cache = answerCache(undefined, 18_000); // eight answers of about 2 kB (body and ETag, UTF-16)
  for (let i = 0; i < 8; i++) cache.put("s", 1, `/${i}`, answer(body + i));
  assert.ok(cache.get("s", 1, "/0")); // used: now the most recent
  for (let i = 8; i < 12; i++) cache.put("s", 1, `/${i}`, answer(body + i));
  assert.ok(cache.get("s", 1, "/0"), "the recently used answer stays");
  assert.equal(cache.get("s", 1, "/1"), undefined, "the least recently used went");
  assert.ok(cache.size < 12);
  cache.put("s", 1, "/huge", answer("y".repeat(20_000)));
  assert.equal(
    cache.get("s", 1, "/huge"),
    undefined,
    "an answer larger than an eighth of the budget is not kept",
  );
  const off = answerCache(undefined, 0);
  off.put("s", 1, "/a", answer("a"));
  assert.equal(off.size, 0);
});

test("a bump's notification drops the older answers of its scope on a listening instance", async () => {
  const sql = testSql();
  const scope = `test:${crypto.randomUUID()}`;
  await sql`insert into public.answer_versions (scope, version) values (${scope}, 1)`;
  try {
    const cache = answerCache(sql, 1 << 20);
    cache.put(scope, 1, "/a", answer("a"));
    cache.put("content:elsewhere", 1, "/a", answer("a"));
    // the first kept answer starts listening, which takes a round trip of its own: a bump made before
    // LISTEN ran is not heard, so bump until one is (nothing else drops answers here)
    for (let i = 0; i < 100 && cache.size > 1; i++) {
      await sql`select public.bump_answer_versions(array[${scope}])`;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(cache.size, 1, "only the other scope's answer is left");
  } finally {
    await sql`delete from public.answer_versions where scope = ${scope}`;
  }
});

/**
 * The scopes a change bumps when its transaction commits (content's and the site's versions are bumped
 * then, once each: migrations/20261126008700_content_answer_versions_at_commit.sql): the change runs in a
 * transaction of its own whose commit events are fired and which is then rolled back. Read from what the
 * transaction itself bumped, so other tests' commits meanwhile do not count.
 */
async function bumpedBy(change: (tx: Tx) => Promise<unknown>): Promise<string[]> {
  let scopes: string[] = [];
  await rolledBack(async (tx) => {
    await change(tx);
    await tx`set constraints all immediate`;
    const rows = await tx<{ scope: string }[]>`
      select scope from public.answer_versions
      where current_setting('sitewire.answer_bumped_' || md5(scope), true) = 'on' order by scope`;
    scopes = rows.map((r) => r.scope);
  });
  return scopes;
}

test("which changes bump which versions: drafts Preview only, published rows both, assets, types and the site", async () => {
  const [draft] = await testSql()<{ id: string }[]>`select id from public.content_entries where stage = 'preview' limit 1`;
  assert.deepEqual(
    await bumpedBy((tx) => tx`update public.content_entries set revision = revision + 1 where stage = 'preview' and id = ${draft.id}`),
    ["content:preview"],
  );
  assert.deepEqual(
    await bumpedBy((tx) => tx`update public.content_entries set revision = revision + 1 where stage = 'published' and id = ${draft.id}`),
    ["content:preview", "content:published"],
  );
  assert.deepEqual(
    await bumpedBy((tx) => tx`update public.content_entries set revision = revision where false`),
    [],
    "a statement that changed no row bumps nothing",
  );
  assert.deepEqual(
    await bumpedBy((tx) => tx`delete from public.content_entries where stage = 'published' and id = ${draft.id}`),
    ["content:preview", "content:published"],
  );
  assert.deepEqual(
    await bumpedBy((tx) =>
      tx`update public.content_assets set revision = revision + 1 where id = (select id from public.content_assets limit 1)`
    ),
    ["content:preview", "content:published"],
  );
  assert.deepEqual(
    await bumpedBy((tx) =>
      tx`update public.content_models set revision = revision + 1 where id = (select id from public.content_models limit 1)`
    ),
    ["content:preview", "content:published"],
  );
  assert.deepEqual(
    await bumpedBy((tx) => tx`update public.site_settings set updated_at = updated_at`),
    ["content:preview", "content:published", "site"],
  );
});

test("only the service role reads or bumps answer versions", () =>
  rolledBack(async (tx) => {
    for (const who of ["anon", { sub: crypto.randomUUID() }] as const) {
      await as(tx, who, async (q) => {
        await refused(q, (s) => s`select * from public.answer_versions`);
        await refused(q, (s) => s`select public.bump_answer_versions(array['site'])`);
      });
    }
  }));
