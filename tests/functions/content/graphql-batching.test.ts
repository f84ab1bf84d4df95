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
/** the ids each read of entries or assets by id was given, in the order sent */
const idsRead: { kind: "entries" | "assets"; ids: string[] }[] = [];
// postgres.js calls options.debug for every statement it sends, on every connection of this pool
(sql.options as unknown as { debug: (connection: number, query: string, parameters: unknown[]) => void })
  .debug = (_c, query, parameters) => {
    sent.push(query);
    const kind = /from public\.content_entries e\s+where e\.stage = \$1 and e\.id = any/.test(query)
      ? "entries"
      : /from public\.content_assets a\s+where a\.published and a\.id = any/.test(query)
      ? "assets"
      : undefined;
    const ids = parameters.find(Array.isArray) as string[] | undefined;
    if (kind && ids) idsRead.push({ kind, ids: [...ids] });
  };
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

test("links read ahead of the query are the rows its link fields read: same ids, same answer", async () => {
  // `preview: false` changes nothing in what a field answers, but a link field given arguments other
  // than skip and limit is left to its resolver (reach.ts): the second query reads every link through
  // the fields, the first reads them ahead, level by level
  const ahead = QUERY;
  const byFields = QUERY.replaceAll("relatedCollection(limit: 5)", "relatedCollection(limit: 5, preview: false)")
    .replace("cover { url }", "cover(preview: false) { url }")
    .replace("body {", "body(locale: null) {");
  const read = async (query: string, limit: number) => {
    sent.length = 0;
    idsRead.length = 0;
    const res = await app.request(address, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ query, variables: { limit } }),
    });
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    const ids = (kind: string) => idsRead.filter((r) => r.kind === kind).flatMap((r) => r.ids).sort();
    // errors as they read, less where the query text puts them (the two texts differ) and the request
    const errors = (body.errors ?? []).map((e: any) => [e.message, e.path, e.extensions.contentful.code]);
    return { data: body.data, errors, entries: ids("entries"), assets: ids("assets") };
  };
  // each document is validated and compiled at its first use, and each answer is kept (limits no other
  // request of this file asks)
  await read(ahead, 97);
  await read(byFields, 97);
  const [a, b] = [await read(ahead, 98), await read(byFields, 98)];
  // the page itself is read already: what is left are links beyond it
  assert.ok(a.entries.length >= 3 && a.assets.length >= 3, `${a.entries.length} entries, ${a.assets.length} assets`);
  assert.deepEqual(a.entries, b.entries);
  assert.deepEqual(a.assets, b.assets);
  assert.deepEqual(a.data, b.data);
  assert.ok(a.errors.length > 0, "the demo's page links to a draft and to nothing");
  assert.deepEqual(a.errors, b.errors);
});
