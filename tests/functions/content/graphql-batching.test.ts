// Links are read a level at a time: the queries the database receives for a page of articles with links
// two levels deep are counted (the driver's debug hook sees every statement sent), and their number does
// not grow with the page.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { testDatabaseUrl } from "../../helpers/db.ts";
import { connect } from "../../../shared/db.ts";
import { createContext } from "../../../shared/context.ts";
import { readConfig } from "../../../shared/config.ts";
import { createKey } from "../../../shared/keys.ts";
import { createContentApp } from "../../../functions/content/app.ts";

const sql = connect(testDatabaseUrl(), { max: 4 });
const sent: string[] = [];
// postgres.js calls options.debug for every statement it sends, on every connection of this pool
(sql.options as unknown as { debug: (connection: number, query: string) => void }).debug = (_c, query) =>
  sent.push(query);
const publicUrl = "http://localhost:8000";
const app = createContentApp(
  createContext({
    ...readConfig(new Map()),
    databaseUrl: testDatabaseUrl(),
    publicUrl,
    functionsUrl: publicUrl,
  }, { sql }),
);
const { key } = await createKey(sql, { name: "graphql batching", kind: "delivery" });
const [{ slug, config }] = await sql<
  { slug: string; config: { api?: { space?: string } } }[]
>`select slug, config from public.site_settings`;
const address = `http://localhost/content/v1/spaces/${config?.api?.space ?? slug}/environments/master`;

const QUERY = `query($limit: Int) { articleCollection(limit: $limit, order: [sys_id_ASC]) { items {
  sys { id }
  cover { url }
  body { links { assets { block { fileName } } entries { block { sys { id } } } } }
  linkedFrom { entryCollection(limit: 5) { items { sys { id } } } }
  relatedCollection(limit: 5) { items {
    ... on Entry { sys { id } }
    ... on Article { cover { url } relatedCollection(limit: 5) { items { ... on Entry { sys { id } } } } }
    ... on Wiki { relatedCollection(limit: 5) { items { ... on Entry { sys { id } } } } } } } } } }`;

async function run(limit: number) {
  sent.length = 0;
  const res = await app.request(address, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ query: QUERY, variables: { limit } }),
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return { statements: [...sent], items: body.data.articleCollection.items as any[] };
}

test("a page of 100 articles with links two levels deep costs the same few queries as a page of 3", async () => {
  await run(1); // models and schema are read once per site stamp: not part of what is measured
  const small = await run(3);
  const large = await run(100);
  const resolved = large.items.flatMap((a) => a.relatedCollection.items.filter(Boolean));
  const deeper = resolved.flatMap((r) => r.relatedCollection?.items.filter(Boolean) ?? []);
  assert.ok(
    large.items.length === 100 && resolved.length >= 20 && deeper.length >= 5,
    `${resolved.length} / ${deeper.length} links`,
  );
  assert.ok(large.items.filter((a) => a.cover).length >= 10);
  // admission, the page, then per level one read of entries, one of assets; linkedFrom one for the page
  const list = large.statements.map((s) => s.replace(/\s+/g, " ").slice(0, 120)).join("\n");
  assert.ok(large.statements.length <= 8, `${large.statements.length} statements:\n${list}`);
  assert.ok(
    large.statements.length <= small.statements.length + 2,
    `3 articles: ${small.statements.length}, 100: ${large.statements.length}`,
  );
  const entryReads = large.statements.filter((s) =>
    /from public\.content_entries e\s+where e\.stage = \$1 and e\.id = any/.test(s)
  );
  assert.ok(entryReads.length >= 2 && entryReads.length <= 3, `entries read in ${entryReads.length} batches`);
});

test("the same entry linked from many places is read once", async () => {
  sent.length = 0;
  const res = await app.request(address, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({
      query: `{ a: article(id: "article.hello") { title } b: article(id: "article.hello") { title }
        c: articleCollection(where: { sys: { id: "article.hello" } }) { items { relatedCollection { items { ... on Entry { sys { id } } } } } } }`,
    }),
  });
  assert.equal(res.status, 200);
  await res.body?.cancel();
  const byId = sent.filter((s) => /e\.id = any/.test(s));
  assert.equal(byId.length, 2, "the two single reads share one query; the links another");
});
