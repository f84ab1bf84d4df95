// Collection semantics of GET entries over the demo site. Each filter's answer is compared with the
// same predicate applied in plain JS to every published article, so both sides must agree exactly.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";

const host = await testHost();
const key = await host.key("delivery");
const env = `${host.baseUrl}/api/content/spaces/${host.space}/environments/master`;

const getWith = (path: string, k: string) => get(path, k);

async function get(path: string, k = key) {
  const res = await fetch(`${env}${path}`, { headers: { authorization: `Bearer ${k}` } });
  const body = await res.json();
  assert.equal(res.status, 200, `${path}: ${JSON.stringify(body)}`);
  return body;
}

// the demo's own articles only (other tests may add probe entries whose ids start with article.probe)
const allArticles: any[] = (await get("/entries?content_type=article&limit=1000&include=0")).items
  .filter((e: any) => !e.sys.id.startsWith("article.probe"));
const ids = (items: any[]) =>
  items.map((i) => i.sys.id).filter((id: string) => !id.startsWith("article.probe")).sort();
const expect = (predicate: (f: any, e: any) => boolean) =>
  allArticles.filter((e) => predicate(e.fields, e)).map((e) => e.sys.id).sort();

async function same(query: string, predicate: (f: any, e: any) => boolean) {
  const answer = await get(`/entries?content_type=article&limit=1000&include=0&${query}`);
  const expected = expect(predicate);
  assert.deepEqual(ids(answer.items), expected, query);
  assert.ok(expected.length > 0 || query.includes("nomatch"), `${query} should match something in the demo`);
  return answer;
}

test("the demo has enough articles to page, and total counts them all", async () => {
  const body = await get("/entries?content_type=article&limit=1");
  assert.ok(body.total >= 100);
  assert.equal(body.items.length, 1);
  const all = await get("/entries?limit=1");
  assert.ok(all.total >= 150);
});

test("limit and skip page through the same order without gaps or repeats", async () => {
  const seen: string[] = [];
  for (let skip = 0; skip < 60; skip += 20) {
    const page = await get(`/entries?content_type=article&order=sys.id&limit=20&skip=${skip}`);
    assert.equal(page.skip, skip);
    assert.equal(page.limit, 20);
    seen.push(...page.items.map((i: any) => i.sys.id));
  }
  const whole = await get("/entries?content_type=article&order=sys.id&limit=60");
  assert.deepEqual(seen, whole.items.map((i: any) => i.sys.id));
  assert.equal(new Set(seen).size, 60);
  const past = await get("/entries?content_type=article&skip=5000");
  assert.equal(past.items.length, 0);
  assert.ok(past.total >= 100, "total is still told past the end");
});

test("default order is newest sys.createdAt first; - reverses; several keys order in turn", async () => {
  const byDefault = (await get("/entries?content_type=article&limit=50")).items.map((i: any) =>
    i.sys.createdAt
  );
  assert.deepEqual(byDefault, [...byDefault].sort().reverse());
  const asc = (await get("/entries?content_type=article&order=sys.createdAt&limit=50")).items.map((i: any) =>
    i.sys.createdAt
  );
  assert.deepEqual(asc, [...asc].sort());
  const multi =
    (await get("/entries?content_type=article&order=fields.category,-fields.readingTime&limit=1000")).items
      .filter((i: any) => i.fields.category && i.fields.readingTime !== undefined);
  for (let i = 1; i < multi.length; i++) {
    const [a, b] = [multi[i - 1].fields, multi[i].fields];
    assert.ok(
      a.category < b.category || (a.category === b.category && a.readingTime >= b.readingTime),
      `${i}`,
    );
  }
  const byRating = (await get("/entries?content_type=article&order=-fields.rating&limit=1000")).items
    .map((i: any) => i.fields.rating).filter((r: any) => r !== undefined);
  assert.deepEqual(byRating, [...byRating].sort((a, b) => b - a));
  const byId = (await get("/entries?order=-sys.id&limit=30")).items.map((i: any) => i.sys.id);
  assert.deepEqual(byId, [...byId].sort().reverse());
});

test("equality and [ne] on a Symbol", async () => {
  await same("fields.category=news", (f) => f.category === "news");
  await same("fields.category[ne]=news", (f) => f.category !== "news");
});

test("[in] and [nin] on a Symbol", async () => {
  await same("fields.category[in]=news,guide", (f) => ["news", "guide"].includes(f.category));
  await same("fields.category[nin]=news,guide", (f) => !["news", "guide"].includes(f.category));
});

test("an Array of Symbol: equality contains, [in] any, [nin] none, [all] every", async () => {
  await same("fields.tags=news", (f) => (f.tags ?? []).includes("news"));
  await same(
    "fields.tags[in]=news,series",
    (f) => (f.tags ?? []).some((t: string) => ["news", "series"].includes(t)),
  );
  await same(
    "fields.tags[nin]=news,series",
    (f) => !(f.tags ?? []).some((t: string) => ["news", "series"].includes(t)),
  );
  await same(
    "fields.tags[all]=welcome,news",
    (f) => ["welcome", "news"].every((t) => (f.tags ?? []).includes(t)),
  );
});

test("ranges on Integer, Number and Date compare as numbers and dates", async () => {
  await same("fields.readingTime[gte]=10", (f) => f.readingTime !== undefined && f.readingTime >= 10);
  await same("fields.readingTime[lt]=5", (f) => f.readingTime !== undefined && f.readingTime < 5);
  await same("fields.rating[gt]=4", (f) => f.rating !== undefined && f.rating > 4);
  await same("fields.rating[lte]=2.5", (f) => f.rating !== undefined && f.rating <= 2.5);
  await same(
    "fields.date[gte]=2024-06-01",
    (f) => f.date !== undefined && new Date(f.date) >= new Date("2024-06-01"),
  );
  await same(
    "fields.date[lt]=2023-06-01&fields.readingTime[gt]=3",
    (f) => f.date !== undefined && new Date(f.date) < new Date("2023-06-01") && f.readingTime > 3,
  );
});

test("Boolean equality and [exists]", async () => {
  await same("fields.featured=true", (f) => f.featured === true);
  await same("fields.featured=false", (f) => f.featured === false);
  await same("fields.rating[exists]=true", (f) => f.rating !== undefined);
  await same("fields.rating[exists]=false", (f) => f.rating === undefined);
});

test("[match] searches one field; query searches every field and the body", async () => {
  await same("fields.title[match]=series", (f) => /series/i.test(f.title ?? ""));
  const q = await get("/entries?query=tour&limit=1000");
  assert.ok(q.items.length > 0);
  for (const item of q.items) assert.match(JSON.stringify(item.fields).toLowerCase(), /tour/);
  const none = await get("/entries?query=zzzqqq-nothing-like-this");
  assert.equal(none.total, 0);
});

test("sys filters: sys.id, sys.id[in], sys.createdAt ranges, sys.contentType.sys.id", async () => {
  assert.deepEqual(ids((await get("/entries?sys.id=article.hello")).items), ["article.hello"]);
  assert.deepEqual(ids((await get("/entries?sys.id[in]=article.hello,book.field-guide")).items), [
    "article.hello",
    "book.field-guide",
  ]);
  assert.ok(
    !ids((await get("/entries?sys.id[nin]=article.hello&content_type=article&limit=1000")).items).includes(
      "article.hello",
    ),
  );
  const after = await get("/entries?sys.createdAt[gte]=2025-01-01&limit=1000");
  for (const item of after.items) assert.ok(item.sys.createdAt >= "2025-01-01");
  const books = await get("/entries?sys.contentType.sys.id=book&limit=1000");
  assert.ok(books.items.length > 0 && books.items.every((i: any) => i.sys.contentType.sys.id === "book"));
});

test("link filters: fields.<link>.sys.id on a link list, links_to_entry, links_to_asset", async () => {
  await same(
    "fields.related.sys.id=article.series.part-02",
    (f) => (f.related ?? []).some((l: any) => l.sys.id === "article.series.part-02"),
  );
  const linking = await get("/entries?links_to_entry=article.series.part-03&limit=1000");
  assert.deepEqual(ids(linking.items), ["article.series.part-02"]);
  const hello = (await get("/entries?sys.id=article.hello")).items[0];
  const cover = hello.fields.cover.sys.id;
  const toAsset = await get(`/entries?links_to_asset=${cover}&limit=1000`);
  assert.ok(ids(toAsset.items).includes("article.hello"));
});

test("select returns sys whole and only the named fields", async () => {
  const body = await get("/entries?content_type=article&select=sys.id,fields.title&limit=5");
  for (const item of body.items) {
    assert.deepEqual(Object.keys(item.fields), ["title"]);
    assert.equal(item.sys.type, "Entry");
    assert.ok(item.sys.createdAt && item.sys.contentType);
  }
});

test("include: links resolve to the given depth, page items never repeat in includes", async () => {
  const depth = async (n: number) => await get(`/entries?sys.id=article.series.part-01&include=${n}`);
  assert.equal((await depth(0)).includes, undefined);
  const one = await depth(1);
  assert.deepEqual(one.includes.Entry.map((e: any) => e.sys.id), ["article.series.part-02"]);
  const five = await depth(5);
  assert.deepEqual(
    five.includes.Entry.map((e: any) => e.sys.id).sort(),
    [2, 3, 4, 5, 6].map((n) => `article.series.part-0${n}`),
  );
  const ten = await depth(10);
  assert.equal(ten.includes.Entry.length, 10);
  const both = await get("/entries?sys.id[in]=article.series.part-01,article.series.part-02&include=1");
  assert.ok(
    !both.includes.Entry.some((e: any) => e.sys.id === "article.series.part-02"),
    "a page item is not repeated",
  );
  assert.ok(both.includes.Entry.some((e: any) => e.sys.id === "article.series.part-03"));
});

test("a link to nothing published is listed in errors as notResolvable", async () => {
  const body = await get("/entries?sys.id=article.broken-links&include=1");
  const unresolved = body.errors.map((e: any) => `${e.details.linkType}:${e.details.id}`);
  assert.ok(unresolved.includes("Entry:article.draft-notes"), "an unpublished entry");
  assert.ok(unresolved.includes("Entry:article.does-not-exist"), "a missing entry");
  for (const error of body.errors) {
    assert.deepEqual(error.sys, { id: "notResolvable", type: "error" });
    assert.equal(error.details.type, "Link");
  }
  assert.ok(
    body.includes.Entry.some((e: any) => e.sys.id === "article.hello"),
    "the resolvable link is included",
  );
});

test("includes carry linked assets", async () => {
  const body = await get("/entries?sys.id=article.hello&include=1");
  const cover = body.items[0].fields.cover.sys.id;
  const asset = body.includes.Asset.find((a: any) => a.sys.id === cover);
  assert.equal(asset.sys.type, "Asset");
  assert.match(asset.fields.file.url, /^\/\/localhost:\d+\/api\/media\//);
});

test("locale: another locale answers its values with fallback; * answers locale maps", async () => {
  const en = (await get("/entries?sys.id=article.hello")).items[0];
  const de = (await get("/entries?sys.id=article.hello&locale=de-DE")).items[0];
  assert.equal(de.sys.locale, "de-DE");
  assert.notEqual(de.fields.title, en.fields.title);
  assert.equal(
    de.fields.readingTime,
    en.fields.readingTime,
    "a non-localized field falls back to the default locale",
  );
  const all = (await get("/entries?sys.id=article.hello&locale=*")).items[0];
  assert.equal(all.sys.locale, undefined);
  assert.deepEqual(all.fields.title, { "en-US": en.fields.title, "de-DE": de.fields.title });
  assert.deepEqual(all.fields.readingTime, { "en-US": en.fields.readingTime });
  const fallback = (await get("/entries?sys.id=article.series.part-01&locale=de-DE")).items[0];
  const original = (await get("/entries?sys.id=article.series.part-01")).items[0];
  assert.equal(
    fallback.fields.title,
    original.fields.title,
    "a record without a German twin falls back to English",
  );
});

test("a rich-text body comes with its markdown twin, fields in the content type's order", async () => {
  const [type] = (await get("/content_types?limit=100")).items.filter((t: any) => t.sys.id === "article");
  const entry = (await get("/entries?sys.id=article.rich-text-tour")).items[0];
  assert.equal(entry.fields.body.nodeType, "document");
  assert.equal(typeof entry.fields.bodyMarkdown, "string");
  const order = type.fields.map((f: any) => f.id);
  const keys = Object.keys(entry.fields);
  assert.deepEqual(keys, order.filter((id: string) => keys.includes(id)));
  const kinds = new Set<string>();
  const walk = (n: any) => {
    kinds.add(n.nodeType);
    for (const m of n.marks ?? []) kinds.add(`mark:${m.type}`);
    for (const c of n.content ?? []) walk(c);
  };
  walk(entry.fields.body);
  for (
    const kind of [
      "heading-1",
      "heading-2",
      "heading-3",
      "heading-4",
      "heading-5",
      "heading-6",
      "paragraph",
      "unordered-list",
      "ordered-list",
      "list-item",
      "blockquote",
      "hr",
      "table",
      "table-row",
      "table-header-cell",
      "table-cell",
      "hyperlink",
      "embedded-asset-block",
      "text",
      "mark:bold",
      "mark:italic",
      "mark:code",
    ]
  ) {
    assert.ok(kinds.has(kind), `the rich text tour shows ${kind}`);
  }
});

test("a gated entry omits its body unless the key is allowed gated content", async () => {
  const open = (await get("/entries?sys.id=article.members-only")).items[0];
  assert.equal(open.fields.body, undefined);
  assert.equal(open.fields.bodyMarkdown, undefined);
  assert.ok(open.fields.title);
  const gatedKey = await host.key("delivery", { gated: true });
  const full = (await get("/entries?sys.id=article.members-only", gatedKey)).items[0];
  assert.equal(full.fields.body.nodeType, "document");
  assert.equal(typeof full.fields.bodyMarkdown, "string");
  const single = await get("/entries/article.members-only");
  assert.equal(single.fields.body, undefined);
});

test("the Preview API serves unpublished records; delivery does not", async () => {
  const preview = await host.key("preview");
  assert.equal((await get("/entries?sys.id=article.draft-notes")).items.length, 0);
  assert.equal((await get("/entries?sys.id=article.draft-notes", preview)).items.length, 1);
  const res = await fetch(`${env}/entries/article.draft-notes`, {
    headers: { authorization: `Bearer ${key}` },
  });
  assert.equal(res.status, 404);
  await res.body?.cancel();
  const p = await get("/entries?limit=1", preview);
  const d = await get("/entries?limit=1");
  assert.ok(p.total > d.total);
});

test("entries/<id> answers one entry with select honoured", async () => {
  const entry = await get("/entries/article.hello?select=fields.title");
  assert.equal(entry.sys.id, "article.hello");
  assert.deepEqual(Object.keys(entry.fields), ["title"]);
});

test("content types derive from the models; a site model is namespaced", async () => {
  const types = await get("/content_types");
  const event = types.items.find((t: any) => t.sys.id === "modelEvent");
  assert.equal(event.name, "Event");
  assert.equal(event.displayField, "title");
  const kind = event.fields.find((f: any) => f.id === "kind");
  assert.deepEqual(kind.validations, [{ in: ["talk", "workshop", "meetup"] }]);
  const article = await get("/content_types/article");
  const types_ = new Set(article.fields.map((f: any) => f.type));
  for (
    const t of [
      "Symbol",
      "Text",
      "RichText",
      "Integer",
      "Number",
      "Date",
      "Boolean",
      "Object",
      "Link",
      "Array",
    ]
  ) {
    assert.ok(types_.has(t), `article has a ${t} field`);
  }
  const events = await get("/entries?content_type=modelEvent&fields.kind=workshop");
  assert.ok(events.items.length > 0);
});

test("locales list both with their fallback", async () => {
  const body = await get("/locales");
  const de = body.items.find((l: any) => l.code === "de-DE");
  assert.equal(de.fallbackCode, "en-US");
  assert.equal(de.default, false);
  assert.equal(body.items.find((l: any) => l.code === "en-US").default, true);
});

test("assets: arguments, mimetype_group, file filters, order by title", async () => {
  const images = await get("/assets?mimetype_group=image&limit=1000");
  assert.ok(images.items.length >= 4);
  assert.ok(images.items.every((a: any) => a.fields.file.contentType.startsWith("image/")));
  const all = await get("/assets?limit=1000");
  assert.ok(all.total > images.total, "the library has a file that is not an image");
  const png = await get("/assets?fields.file.contentType=image/png");
  assert.ok(png.items.length > 0 && png.items.every((a: any) => a.fields.file.contentType === "image/png"));
  const titled = await get("/assets?order=fields.title&limit=1000");
  const titles = titled.items.map((a: any) => a.fields.title);
  assert.deepEqual(titles, [...titles].sort());
  const one = titled.items[0];
  assert.deepEqual(ids((await get(`/assets?sys.id[in]=${one.sys.id}`)).items), [one.sys.id]);
  assert.equal(
    (await get(`/assets?fields.file.fileName=${one.fields.file.fileName}`)).items[0].sys.id,
    one.sys.id,
  );
  const page = await get("/assets?limit=2&skip=1&select=fields.title");
  assert.equal(page.items.length, 2);
  assert.deepEqual(Object.keys(page.items[0].fields), ["title"]);
  const pdf = await get("/assets?mimetype_group=pdfdocument");
  assert.ok(pdf.items.every((a: any) => a.fields.file.contentType === "application/pdf"));
});

test("without gated access a gated body is not searched, filtered, ordered or link-matched; a gated key finds it", async () => {
  const sql = host.ctx.sql;
  // keys of this test's own: the file's key has its per-second budget spent by the tests above
  const key = await host.key("delivery");
  const gatedKey = await host.key("delivery", { gated: true });
  const hello = (await get("/entries?sys.id=article.hello", key)).items[0];
  const cover = hello.fields.cover.sys.id;
  const probe = `article.probe-gated-${Date.now()}`;
  const word = `zebrafinch${Date.now()}`;
  const document = {
    nodeType: "document",
    data: {},
    content: [
      {
        nodeType: "paragraph",
        data: {},
        content: [{ nodeType: "text", value: `Only for members: ${word}.`, marks: [], data: {} }],
      },
      {
        nodeType: "embedded-entry-block",
        data: { target: { sys: { type: "Link", linkType: "Entry", id: "article.series.part-03" } } },
        content: [],
      },
      {
        nodeType: "embedded-asset-block",
        data: { target: { sys: { type: "Link", linkType: "Asset", id: cover } } },
        content: [],
      },
    ],
  };
  await sql`insert into public.content_entries
      (stage, id, model_id, path, access, fields, links, asset_links, search_text)
    values ('published', ${probe}, 'article', ${`records/articles/${probe}.md`}, 'member',
      ${
    sql.json({
      title: { "en-US": "Gated probe" },
      body: { "en-US": document },
      bodyMarkdown: { "en-US": `zzzz ${word}\n` },
    })
  },
      array['article.series.part-03'], array[${cover}]::text[], ${`Gated probe\nOnly for members: ${word}.`})`;
  try {
    const found = async (query: string, key: string | null) => {
      const res = await fetch(`${env}/entries?${query}&limit=1000`, {
        headers: key ? { authorization: `Bearer ${key}` } : {},
      });
      const body = await res.json();
      assert.equal(res.status, 200, `${query}: ${JSON.stringify(body)}`);
      return body.items.map((i: any) => i.sys.id) as string[];
    };
    const throughBody = [
      `query=${word}`,
      `content_type=article&fields.body[match]=${word}`,
      `content_type=article&fields.bodyMarkdown[match]=${word}`,
      `content_type=article&fields.bodyMarkdown=${encodeURIComponent(`zzzz ${word}\n`)}`,
      `content_type=article&fields.body[exists]=true&sys.id=${probe}`,
      `content_type=article&fields.bodyMarkdown[exists]=true&sys.id=${probe}`,
      "links_to_entry=article.series.part-03",
      `links_to_asset=${cover}`,
    ];
    for (const query of throughBody) {
      for (const [who, k] of [["a plain delivery key", key], ["no key", null]] as const) {
        assert.ok(
          !(await found(query, k)).includes(probe),
          `${who} must not find the gated entry by ${query}`,
        );
      }
      assert.ok((await found(query, gatedKey)).includes(probe), `a gated key finds it by ${query}`);
    }
    // what everyone may read still finds it
    assert.ok((await found("query=Gated probe", key)).includes(probe));
    assert.ok(
      (await found(`content_type=article&fields.body[exists]=false&sys.id=${probe}`, key)).includes(probe),
    );
    // the body orders nothing for them: it reads as absent (last), but first for a gated key
    const order = `content_type=article&sys.id[in]=${probe},article.hello&order=-fields.bodyMarkdown`;
    assert.deepEqual(await found(order, key), ["article.hello", probe]);
    assert.deepEqual(await found(order, gatedKey), [probe, "article.hello"]);
    // the demo's own gated article: a word of its body only
    assert.ok(!(await found("query=served", key)).includes("article.members-only"));
    assert.ok((await found("query=served", gatedKey)).includes("article.members-only"));
  } finally {
    await sql`delete from public.content_entries where id = ${probe}`;
  }
});

test("sys.updatedAt and sys.revision filter and order over HTTP", async () => {
  const own = await host.key("delivery");
  const get = (path: string) => getWith(path, own);
  const sql = host.ctx.sql;
  // the demo's records share one check-in: rows of this test's own, each revised and updated differently
  const stamp = Date.now();
  const probes = [1, 2, 3].map((n) => ({
    id: `article.probe-sys-${stamp}-${n}`,
    revision: n + 1,
    updatedAt: `200${n}-06-01T00:00:00.000Z`,
  }));
  for (const p of probes) {
    await sql`insert into public.content_entries (stage, id, model_id, path, fields, revision, created_at, updated_at)
      values ('published', ${p.id}, 'article', ${`records/articles/${p.id}.md`}, ${
      sql.json({ title: { "en-US": p.id } })
    },
              ${p.revision}, '2000-01-01', ${p.updatedAt})`;
  }
  try {
    const among = `sys.id[in]=${probes.map((p) => p.id).join(",")}`;
    const idsOf = async (query: string) =>
      (await get(`/entries?${among}&${query}`)).items.map((e: any) => e.sys.id);
    assert.deepEqual(await idsOf("sys.updatedAt[lt]=2002-01-01&order=sys.id"), [probes[0].id]);
    assert.deepEqual(await idsOf("sys.updatedAt[gte]=2002-06-01T00:00:00Z&order=sys.id"), [
      probes[1].id,
      probes[2].id,
    ]);
    assert.deepEqual(await idsOf("sys.updatedAt=2003-06-01T02:00:00%2B02:00"), [probes[2].id]);
    assert.deepEqual(await idsOf("sys.revision[gt]=2&order=sys.id"), [probes[1].id, probes[2].id]);
    assert.deepEqual(await idsOf("sys.revision=2"), [probes[0].id]);
    assert.deepEqual(await idsOf("sys.revision[in]=2,4&order=sys.id"), [probes[0].id, probes[2].id]);
    assert.deepEqual(await idsOf("order=-sys.updatedAt"), [probes[2].id, probes[1].id, probes[0].id]);
    assert.deepEqual(await idsOf("order=sys.revision"), probes.map((p) => p.id));
    const shown = (await get(`/entries?${among}&order=-sys.revision`)).items;
    assert.deepEqual(
      shown.map((e: any) => [e.sys.revision, e.sys.updatedAt]),
      [...probes].reverse().map((p) => [p.revision, p.updatedAt]),
    );
  } finally {
    await sql`delete from public.content_entries where id = any(${probes.map((p) => p.id)}::text[])`;
  }
});

test("assets: query, title equality, order by sys.createdAt and -fields.title, every locale; size does not order", async () => {
  const key = await host.key("delivery");
  const get = (path: string) => getWith(path, key);
  const all: any[] = (await get("/assets?limit=1000")).items;
  const titled = all.find((a) => a.fields.title && /\s/.test(a.fields.title)) ??
    all.find((a) => a.fields.title);
  const word = titled.fields.title.split(/\s+/)[0];
  const searched = await get(`/assets?limit=1000&query=${encodeURIComponent(word)}`);
  assert.ok(searched.items.some((a: any) => a.sys.id === titled.sys.id));
  for (const a of searched.items) {
    assert.match(
      `${a.fields.file.fileName} ${a.fields.title} ${a.fields.description}`.toLowerCase(),
      new RegExp(word.toLowerCase()),
    );
  }
  const exact = await get(`/assets?fields.title=${encodeURIComponent(titled.fields.title)}`);
  assert.deepEqual(
    ids(exact.items),
    all.filter((a) => a.fields.title === titled.fields.title).map((a) => a.sys.id).sort(),
  );
  const created = (await get("/assets?limit=1000&order=sys.createdAt")).items.map((a: any) =>
    a.sys.createdAt
  );
  assert.deepEqual(created, [...created].sort());
  const down = (await get("/assets?limit=1000&order=-fields.title")).items.map((a: any) => a.fields.title);
  assert.deepEqual(down, [...down].sort().reverse());
  const every = (await get(`/assets?sys.id=${titled.sys.id}&locale=*`)).items[0];
  assert.equal(every.sys.locale, undefined);
  assert.equal(typeof every.fields.title, "object");
  assert.equal(every.fields.title["en-US"], titled.fields.title);
  assert.equal(typeof every.fields.file["en-US"].url, "string");
  const res = await fetch(`${env}/assets?order=fields.file.size`, {
    headers: { authorization: `Bearer ${key}` },
  });
  assert.equal(res.status, 400);
  assert.equal((await res.json()).sys.id, "BadQuery");
});

test("content_types and locales take limit and skip", async () => {
  const key = await host.key("delivery");
  const get = (path: string) => getWith(path, key);
  const types = await get("/content_types");
  assert.ok(types.total >= 3);
  const page = await get("/content_types?limit=2&skip=1");
  assert.deepEqual([page.total, page.skip, page.limit, page.items.length], [types.total, 1, 2, 2]);
  assert.deepEqual(page.items.map((t: any) => t.sys.id), types.items.slice(1, 3).map((t: any) => t.sys.id));
  const locales = await get("/locales?skip=1&limit=1");
  assert.deepEqual(locales.items.map((l: any) => l.code), ["de-DE"]);
  assert.equal(locales.total, 2);
  for (const query of ["content_types?limit=0", "content_types?limit=1001", "locales?skip=-1"]) {
    const res = await fetch(`${env}/${query}`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(res.status, 400, query);
    assert.equal((await res.json()).sys.id, "BadQuery", query);
  }
});

test("metadata tag and concept filters: items carry none, so asking for some finds nothing and asking for none restricts nothing", async () => {
  const own = await host.key("delivery");
  const count = async (path: string) => (await getWith(path, own)).total as number;
  for (const collection of ["entries", "assets"]) {
    const all = await count(`/${collection}?limit=1`);
    for (const list of ["tags", "concepts"]) {
      const field = `metadata.${list}.sys.id`;
      for (
        const none of [
          `${field}[in]=news`,
          `${field}[all]=news,tech`,
          `${field}=news`,
          `${field}[exists]=true`,
        ]
      ) {
        assert.equal(await count(`/${collection}?${none}`), 0, `${collection}: ${none}`);
      }
      for (const every of [`${field}[nin]=news`, `${field}[ne]=news`, `${field}[exists]=false`]) {
        assert.equal(await count(`/${collection}?${every}&limit=1`), all, `${collection}: ${every}`);
      }
    }
    for (
      const [query, id] of [
        ["metadata.tags.sys.id[lt]=a", "InvalidQuery"],
        ["metadata.labels.sys.id[in]=a", "InvalidQuery"],
        ["metadata.tags.sys.id[exists]=maybe", "BadQuery"],
      ]
    ) {
      const res = await fetch(`${env}/${collection}?${query}`, {
        headers: { authorization: `Bearer ${own}` },
      });
      assert.equal(res.status, 400, query);
      assert.equal((await res.json()).sys.id, id, query);
    }
  }
});
