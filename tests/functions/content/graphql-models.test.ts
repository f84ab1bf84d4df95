// Link fields the demo's models lack (a list of links to one type, with its where and order; a single link
// with a where; a link to any type; a link to a type the field does not allow), on a probe content type
// made inside a transaction that is rolled back, so no other test ever sees it.
import assert from "node:assert/strict";
import { GraphQLBoolean, GraphQLInt, type GraphQLScalarType, GraphQLString } from "graphql";
import { test } from "../../helpers/test.ts";
import { field } from "./graphql-support.ts";
import { testSql } from "../../helpers/db.ts";
import type { Tx } from "../../../shared/db.ts";
import { readSiteSettings } from "../../../shared/site.ts";
import { modelsFor } from "../../../functions/content/models.ts";
import { runGraphql } from "../../../functions/content/graphql/execute.ts";
import type { Access } from "../../../functions/content/access.ts";

const sql = testSql();
class Rollback extends Error {}

const link = (id: string) => ({ sys: { type: "Link", linkType: "Entry", id } });

/** Runs `body` with a probe type `probeShelf` and three shelves over the demo's books and articles. */
async function withShelves(
  body: (run: (query: string, access?: Partial<Access>) => Promise<any>, books: any[]) => Promise<void>,
) {
  try {
    await sql.begin(async (tx: Tx) => {
      const books = await tx<{ id: string; title: string }[]>`
        select id, fields -> 'title' ->> 'en-US' as title from public.content_entries
        where stage = 'published' and model_id = 'book' order by id`;
      assert.ok(books.length >= 2, "the demo has books");
      await tx`insert into public.content_models (id, folder, name, fields, stock, position) values ('probeShelf', 'probe-shelves', 'Probe shelf',
        ${
        tx.json([
          field("title", "Symbol"),
          field("books", "Array", {
            items: { type: "Link", linkType: "Entry", validations: [{ linkContentType: ["book"] }] },
            validations: [{ size: { max: 3 } }],
          }),
          field("lead", "Link", { linkType: "Entry", validations: [{ linkContentType: ["book"] }] }),
          field("anything", "Link", { linkType: "Entry" }),
          field("count", "Integer"),
          field("open", "Boolean"),
          field("labels", "Array", { items: { type: "Symbol", validations: [] } }),
        ] as any)
      }, false, 999)`;
      const shelf = (id: string, fields: Record<string, any>) =>
        tx`insert into public.content_entries (stage, id, model_id, path, fields, links)
          values ('published', ${id}, 'probeShelf', ${`records/probe/${id}.md`},
            ${
          tx.json(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, { "en-US": v }])) as any)
        },
            ${JSON.stringify(fields).match(/"id":"[^"]+"/g)?.map((m) => m.slice(6, -1)) ?? []}::text[])`;
      await shelf("probeShelf.all", {
        title: "All",
        books: [...books.map((b) => link(b.id)), link("book.nowhere")],
        lead: link(books[1].id),
        anything: link("wiki.index"),
      });
      await shelf("probeShelf.wrong", { title: "Wrong", lead: link("article.hello") });
      // values a file in git mode can hold whatever the type says
      await shelf("probeShelf.odd", { title: 42, count: "many", open: { x: 1 }, labels: ["a", { b: 1 }, 7] });
      // a library file whose name needs escaping in its address
      await tx`insert into public.content_assets (id, path, file_name, content_type, size, content_hash, storage_key)
        values ('probeGrusse', 'media/probe/Grüße & co (1).png', 'Grüße & co (1).png', 'image/png', 1, 'c0ffee', 'media/probe/x')`;
      const site = await readSiteSettings(tx);
      // a stamp of its own: the models (with the probe type) are loaded and the schema built for it alone
      const probeSite = { ...site!, updated_at: `probe-${crypto.randomUUID()}` };
      const shape = {
        site: probeSite,
        space: "demo",
        mediaHost: "localhost",
        models: await modelsFor(tx, probeSite),
        locale: "en-US",
        gated: false,
      };
      const run = async (query: string, access: Partial<Access> = {}) => {
        const result = await runGraphql({
          db: tx,
          site: probeSite,
          access: { stage: "published", gated: false, keyKind: "delivery", management: false, ...access },
          shape,
          publicUrl: "http://localhost:8000",
        }, { query });
        return JSON.parse(JSON.stringify(result));
      };
      await body(run, books);
      throw new Rollback();
    });
  } catch (error) {
    if (!(error instanceof Rollback)) throw error;
  }
}

test("a list of links to one type takes where and order; total counts what matches", async () => {
  await withShelves(async (run, books) => {
    const sortedTitles = books.map((b) => b.title).sort();
    const plain = await run(
      `{ probeShelf(id: "probeShelf.all") { booksCollection { total items { sys { id } } } } }`,
    );
    const items = plain.data.probeShelf.booksCollection.items;
    assert.equal(plain.data.probeShelf.booksCollection.total, books.length + 1);
    assert.deepEqual(
      items.map((i: any) => i?.sys.id ?? null),
      [...books.map((b) => b.id), null],
      "stored order; the missing link is null",
    );
    assert.equal(plain.errors[0].extensions.contentful.code, "UNRESOLVABLE_LINK");
    const ordered = await run(
      `{ probeShelf(id: "probeShelf.all") { booksCollection(order: [title_DESC]) { total items { title } } } }`,
    );
    assert.deepEqual(
      ordered.data.probeShelf.booksCollection.items.map((i: any) => i.title),
      [...sortedTitles].reverse(),
    );
    assert.equal(
      ordered.data.probeShelf.booksCollection.total,
      books.length,
      "a where or an order reads only what resolves",
    );
    const filtered = await run(
      `{ probeShelf(id: "probeShelf.all") { booksCollection(where: { title: "${
        books[0].title
      }" }) { total items { title } } } }`,
    );
    assert.deepEqual(filtered.data.probeShelf.booksCollection, {
      total: 1,
      items: [{ title: books[0].title }],
    });
    const paged = await run(
      `{ probeShelf(id: "probeShelf.all") { booksCollection(order: [title_ASC], skip: 1, limit: 1) { total skip limit items { title } } } }`,
    );
    assert.deepEqual(paged.data.probeShelf.booksCollection, {
      total: books.length,
      skip: 1,
      limit: 1,
      items: [{ title: sortedTitles[1] }],
    });
  });
});

test("a single link with a where is the entry when it matches, else null", async () => {
  await withShelves(async (run, books) => {
    const hit = await run(
      `{ probeShelf(id: "probeShelf.all") { lead(where: { title: "${books[1].title}" }) { sys { id } } } }`,
    );
    assert.deepEqual(hit.data.probeShelf.lead, { sys: { id: books[1].id } });
    const miss = await run(
      `{ probeShelf(id: "probeShelf.all") { lead(where: { title: "nothing like it" }) { sys { id } } } }`,
    );
    assert.equal(miss.data.probeShelf.lead, null);
    assert.equal(miss.errors, undefined);
  });
});

test("a link to any type is an Entry; a link to a type the field does not allow is UNEXPECTED_LINKED_CONTENT_TYPE", async () => {
  await withShelves(async (run) => {
    const any = await run(
      `{ probeShelf(id: "probeShelf.all") { anything { __typename sys { id } ... on Wiki { title } } } }`,
    );
    assert.equal(any.data.probeShelf.anything.__typename, "Wiki");
    assert.equal(any.data.probeShelf.anything.sys.id, "wiki.index");
    const wrong = await run(`{ probeShelf(id: "probeShelf.wrong") { lead { title } } }`);
    assert.equal(wrong.data.probeShelf.lead, null);
    assert.equal(wrong.errors[0].extensions.contentful.code, "UNEXPECTED_LINKED_CONTENT_TYPE");
  });
});

test("linkedFrom of a book lists the probe type; nested filters reach through single-type lists", async () => {
  await withShelves(async (run, books) => {
    const from = await run(
      `{ book(id: "${books[0].id}") { linkedFrom { probeShelfCollection { total items { title } } } } }`,
    );
    assert.deepEqual(from.data.book.linkedFrom.probeShelfCollection, { total: 1, items: [{ title: "All" }] });
    const nested = await run(
      `{ probeShelfCollection(where: { books: { title: "${books[0].title}" } }) { items { title } } }`,
    );
    assert.deepEqual(nested.data.probeShelfCollection.items, [{ title: "All" }]);
    const lead = await run(
      `{ probeShelfCollection(where: { lead: { sys: { id: "${books[1].id}" } } }) { items { title } } }`,
    );
    assert.deepEqual(lead.data.probeShelfCollection.items, [{ title: "All" }]);
  });
});

test("stored values serialize as their GraphQL types, one that cannot is an error at its path, with or without a leaf's argument", async () => {
  await withShelves(async (run) => {
    const why = (scalar: GraphQLScalarType, value: unknown) => {
      try {
        scalar.serialize(value);
      } catch (error) {
        return (error as Error).message;
      }
      throw new Error(`${scalar.name} serializes ${JSON.stringify(value)}`);
    };
    const expected = {
      data: { probeShelf: { title: "42", count: null, open: null, labels: ["a", null, "7"] } },
      errors: [
        { message: why(GraphQLInt, "many"), path: ["probeShelf", "count"] },
        { message: why(GraphQLString, { b: 1 }), path: ["probeShelf", "labels", 1] },
        { message: why(GraphQLBoolean, { x: 1 }), path: ["probeShelf", "open"] },
      ],
    };
    const byPath = (a: any, b: any) => a.path.join(".").localeCompare(b.path.join("."));
    const answer = (result: any) => ({
      data: result.data,
      errors: result.errors.map((e: any) => ({ message: e.message, path: e.path })).sort(byPath),
    });
    // the nodes' properties, serialized when each node is made
    assert.deepEqual(answer(await run(`{ probeShelf(id: "probeShelf.odd") { title count open labels } }`)), expected);
    // the leaves' own resolvers (a leaf given an argument)
    assert.deepEqual(
      answer(
        await run(`{ probeShelf(id: "probeShelf.odd") {
          title(locale: "en-US") count(locale: "en-US") open(locale: "en-US") labels(locale: "en-US") } }`),
      ),
      expected,
    );
  });
});

test("a link list's size validation caps its count in the complexity", async () => {
  await withShelves(async (run) => {
    // 1000 + 1000 × 3: allowed, where 1000 + 1000 × 100 would not be
    const capped = await run(
      `{ probeShelfCollection(limit: 1000) { items { booksCollection { items { title } } } } }`,
    );
    assert.ok(capped.data.probeShelfCollection.items.length >= 2, "it ran");
    assert.ok(capped.errors.every((e: any) => e.extensions.contentful.code === "UNRESOLVABLE_LINK"));
    // four of them: 1000 + 4 × 1000 × 3, over the limit by exactly that count
    const lists = ["a", "b", "c", "d"].map((alias) =>
      `${alias}: booksCollection(limit: 20) { items { title } }`
    ).join(" ");
    await assert.rejects(
      run(`{ probeShelfCollection(limit: 1000) { items { ${lists} } } }`),
      (e: any) => e.code === "TOO_COMPLEX_QUERY" && e.details.cost === 1000 + 4 * 1000 * 3,
    );
  });
});

test("an asset url filter matches the address as answered, file name escaped as encodeURIComponent escapes it", async () => {
  await withShelves(async (run) => {
    const { url } = (await run(`{ asset(id: "probeGrusse") { url } }`)).data.asset;
    assert.ok(url.endsWith(`/probeGrusse/c0ffee/${encodeURIComponent("Grüße & co (1).png")}`), url);
    const found = await run(`{ assetCollection(where: { url: ${JSON.stringify(url)} }) { items { sys { id } } } }`);
    assert.deepEqual(found.data.assetCollection.items, [{ sys: { id: "probeGrusse" } }]);
    const near = await run(`{ assetCollection(where: { url: ${JSON.stringify(url.replace("%20", " "))} }) { items { sys { id } } } }`);
    assert.deepEqual(near.data.assetCollection.items, [], "the unescaped name is another address");
  });
});
