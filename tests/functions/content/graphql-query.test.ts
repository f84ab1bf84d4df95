// GraphQL answers over the demo site, compared with what REST delivery answers for the same data: fields
// and sys, locales and fallback, gated bodies, links two levels deep, unresolvable links, preview,
// linkedFrom, rich-text links, assets and url(transform).
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { testSql } from "../../helpers/db.ts";
import { addresses, codes, data, keyPool, post, restGet } from "./graphql-support.ts";

const host = await testHost();
const sql = testSql();
const { graphql, rest } = addresses(host);
const key = await keyPool(host, "delivery");
const previewKey = await host.key("preview");
const scheme = new URL(host.baseUrl).protocol;

const SCALARS = [
  "title",
  "slug",
  "date",
  "summary",
  "author",
  "tags",
  "category",
  "featured",
  "readingTime",
  "rating",
  "seo",
  "bodyMarkdown",
];
const isProbe = (id: string) => id.startsWith("article.probe");

test("an article collection answers the entries, sys and fields REST answers, in the same order", async () => {
  const restItems =
    (await restGet(`${rest}/entries?content_type=article&order=sys.id&limit=1000&include=0`, key)).items
      .filter((e: any) => !isProbe(e.sys.id));
  const answer = await data(
    graphql,
    key,
    `{ articleCollection(limit: 1000, order: [sys_id_ASC]) { total items {
        sys { id spaceId environmentId publishedAt firstPublishedAt publishedVersion locale }
        metadata { tags { id } concepts { id } } contentfulMetadata { tags { id } }
        ${SCALARS.join(" ")} body { json } } } }`,
  );
  const items = answer.articleCollection.items.filter((e: any) => !isProbe(e.sys.id));
  assert.equal(items.length, restItems.length);
  assert.ok(items.length >= 100);
  for (const [i, r] of restItems.entries()) {
    const g = items[i];
    assert.deepEqual(g.sys, {
      id: r.sys.id,
      spaceId: r.sys.space.sys.id,
      environmentId: r.sys.environment.sys.id,
      publishedAt: r.sys.updatedAt,
      firstPublishedAt: r.sys.createdAt,
      publishedVersion: r.sys.publishedVersion,
      locale: r.sys.locale,
    });
    assert.deepEqual(g.metadata, { tags: [], concepts: [] });
    for (const field of SCALARS) assert.deepEqual(g[field], r.fields[field] ?? null, `${r.sys.id}.${field}`);
    assert.deepEqual(g.body?.json ?? null, r.fields.body ?? null, `${r.sys.id}.body`);
  }
});

test("locale: de-DE answers German where there is German and falls back to English as REST does", async () => {
  const restItems = (await restGet(
    `${rest}/entries?content_type=article&order=sys.id&limit=1000&include=0&locale=de-DE`,
    key,
  ))
    .items.filter((e: any) => !isProbe(e.sys.id));
  const answer = await data(
    graphql,
    key,
    `{ articleCollection(limit: 1000, order: [sys_id_ASC], locale: "de-DE") {
    items { sys { id locale } title summary english: title(locale: "en-US") } } }`,
  );
  const items = answer.articleCollection.items.filter((e: any) => !isProbe(e.sys.id));
  assert.deepEqual(
    items.map((e: any) => [e.sys.id, e.title, e.summary ?? undefined]),
    restItems.map((e: any) => [e.sys.id, e.fields.title, e.fields.summary]),
  );
  assert.ok(items.every((e: any) => e.sys.locale === "de-DE"));
  const hello = items.find((e: any) => e.sys.id === "article.hello");
  assert.equal(hello.title, "Hallo, Welt");
  assert.equal(hello.english, "Hello, world", "a field's own locale argument overrides the collection's");
  assert.ok(items.some((e: any) => e.title === e.english), "untranslated titles fall back to English");
});

test("gated bodies are withheld as REST withholds them, and shown to a gated key", async () => {
  const gated = await keyPool(host, "delivery", { gated: true });
  const query = `{ article(id: "article.members-only") { title body { json } bodyMarkdown } }`;
  const plain = (await data(graphql, key, query)).article;
  const restPlain = (await restGet(`${rest}/entries/article.members-only`, key)).fields;
  assert.equal(plain.title, restPlain.title);
  assert.equal(plain.body, null);
  assert.equal(plain.bodyMarkdown, null);
  assert.equal(restPlain.body, undefined);
  const open = (await data(graphql, gated, query)).article;
  const restOpen = (await restGet(`${rest}/entries/article.members-only`, gated)).fields;
  assert.deepEqual(open.body.json, restOpen.body);
  assert.equal(open.bodyMarkdown, restOpen.bodyMarkdown);
});

test("links two levels deep resolve to the entries and assets REST includes at include=2", async () => {
  const restPage = await restGet(
    `${rest}/entries?content_type=article&order=sys.id&limit=100&include=2`,
    key,
  );
  const included = new Map<string, any>();
  for (
    const e of [...restPage.items, ...(restPage.includes?.Entry ?? []), ...(restPage.includes?.Asset ?? [])]
  ) {
    included.set(`${e.sys.type}!${e.sys.id}`, e);
  }
  const answer = await post(
    graphql,
    key,
    `{ articleCollection(limit: 100, order: [sys_id_ASC]) { items {
        sys { id } cover { sys { id } fileName url }
        relatedCollection(limit: 5) { total items {
          __typename ... on Entry { sys { id } }
          ... on Article { cover { sys { id } } relatedCollection(limit: 5) { items { ... on Entry { sys { id } } } } }
          ... on Wiki { relatedCollection(limit: 5) { items { ... on Entry { sys { id } } } } } } } } } }`,
  );
  assert.equal(answer.status, 200);
  assert.ok(codes(answer).every((c) => c === "UNRESOLVABLE_LINK"), JSON.stringify(answer.body.errors));
  let links = 0;
  const linkIds = (value: any) => (Array.isArray(value) ? value : []).map((l: any) => l.sys.id);
  const expectItems = (ids: string[], items: any[], where: string) => {
    assert.deepEqual(
      items.map((i) => i?.sys.id ?? null),
      ids.map((id) => (included.has(`Entry!${id}`) ? id : null)),
      where,
    );
  };
  for (const g of answer.body.data.articleCollection.items) {
    const r = included.get(`Entry!${g.sys.id}`);
    if (!r) continue; // a probe made by another test between the two reads
    const cover = r.fields.cover?.sys.id;
    assert.equal(
      g.cover?.sys.id ?? null,
      cover && included.has(`Asset!${cover}`) ? cover : null,
      `${g.sys.id}.cover`,
    );
    if (g.cover) {
      const asset = included.get(`Asset!${cover}`);
      assert.equal(g.cover.fileName, asset.fields.file.fileName);
      assert.equal(
        g.cover.url,
        asset.fields.file.url.startsWith("//") ? `${scheme}${asset.fields.file.url}` : asset.fields.file.url,
      );
    }
    const related = linkIds(r.fields.related);
    assert.equal(g.relatedCollection.total, related.length);
    expectItems(related.slice(0, 5), g.relatedCollection.items, `${g.sys.id}.related`);
    for (const item of g.relatedCollection.items) {
      if (!item) continue;
      links++;
      const second = included.get(`Entry!${item.sys.id}`);
      assert.equal(
        item.__typename,
        {
          article: "Article",
          wiki: "Wiki",
          doc: "Doc",
          page: "Page",
          book: "Book",
        }[second.sys.contentType.sys.id as string],
      );
      if (item.relatedCollection) {
        expectItems(
          linkIds(second.fields.related).slice(0, 5),
          item.relatedCollection.items,
          `${item.sys.id}.related`,
        );
      }
    }
  }
  assert.ok(links >= 20, `the demo links enough articles (${links})`);
});

test("an unresolvable link is a null item with UNRESOLVABLE_LINK at its path; total counts every link", async () => {
  const query =
    `{ article(id: "article.broken-links") { relatedCollection { total items { ... on Entry { sys { id } } } } } }`;
  const answer = await post(graphql, key, query);
  assert.equal(answer.status, 200);
  const collection = answer.body.data.article.relatedCollection;
  assert.equal(collection.total, 3);
  assert.deepEqual(collection.items.map((i: any) => i?.sys.id ?? null), [null, null, "article.hello"]);
  assert.deepEqual(codes(answer), ["UNRESOLVABLE_LINK", "UNRESOLVABLE_LINK"]);
  assert.deepEqual(answer.body.errors.map((e: any) => e.path), [
    ["article", "relatedCollection", "items", 0],
    ["article", "relatedCollection", "items", 1],
  ]);
  assert.deepEqual(answer.body.errors[1].extensions.contentful.details, {
    type: "Link",
    linkType: "Entry",
    id: "article.does-not-exist",
  });
  // the same query in preview: the draft resolves, and preview cascades to the links
  const drafts = await post(
    graphql,
    previewKey,
    query.replace(`"article.broken-links")`, `"article.broken-links", preview: true)`),
  );
  assert.deepEqual(drafts.body.data.article.relatedCollection.items.map((i: any) => i?.sys.id ?? null), [
    "article.draft-notes",
    null,
    "article.hello",
  ]);
  assert.deepEqual(codes(drafts), ["UNRESOLVABLE_LINK"]);
  // REST says the same of these links
  const restBody = await restGet(`${rest}/entries?sys.id=article.broken-links&include=1`, key);
  const restMissing = restBody.errors.filter((e: any) => e.details.linkType === "Entry").map((e: any) =>
    e.details.id
  );
  assert.deepEqual(restMissing.sort(), ["article.does-not-exist", "article.draft-notes"]);
});

test("linkedFrom lists the entries linking to an entry, as links_to_entry does", async () => {
  for (const [type, id] of [["article", "article.hello"], ["wiki", "wiki.index"]]) {
    const restLinking =
      (await restGet(`${rest}/entries?links_to_entry=${id}&order=sys.id&limit=1000&include=0`, key)).items;
    const answer = await data(
      graphql,
      key,
      `{ ${type}(id: "${id}") {
      linkedFrom { entryCollection { total items { sys { id } } } articleCollection(order: [sys_id_ASC]) { total items { sys { id } title } } } } }`,
    );
    const linkedFrom = answer[type].linkedFrom;
    assert.deepEqual(
      linkedFrom.entryCollection.items.map((e: any) => e.sys.id).sort(),
      restLinking.map((e: any) => e.sys.id),
      id,
    );
    assert.equal(linkedFrom.entryCollection.total, restLinking.length);
    const articles = restLinking.filter((e: any) => e.sys.contentType.sys.id === "article");
    assert.deepEqual(
      linkedFrom.articleCollection.items.map((e: any) => [e.sys.id, e.title]),
      articles.map((e: any) => [e.sys.id, e.fields.title]),
    );
    assert.ok(restLinking.length > 0, `${id} is linked in the demo`);
  }
  // paging: skip and limit page within each target's list; the total stays
  const paged = await data(
    graphql,
    key,
    `{ article(id: "article.hello") { linkedFrom { entryCollection(skip: 1, limit: 1) { total skip limit items { sys { id } } } } } }`,
  );
  assert.equal(paged.article.linkedFrom.entryCollection.items.length, 1);
  assert.ok(paged.article.linkedFrom.entryCollection.total >= 2);
  const past = await data(
    graphql,
    key,
    `{ article(id: "article.hello") { linkedFrom { entryCollection(skip: 50) { total items { sys { id } } } } } }`,
  );
  assert.equal(past.article.linkedFrom.entryCollection.items.length, 0);
  assert.equal(past.article.linkedFrom.entryCollection.total, paged.article.linkedFrom.entryCollection.total);
});

test("linkedFrom counts a link only in the allowed locales (the default locale unless told)", async () => {
  const id = `article.probe-graphql-linked-${crypto.randomUUID().slice(0, 8)}`;
  const link = { sys: { type: "Link", linkType: "Entry", id: "wiki.index" } };
  await sql`insert into public.content_entries (stage, id, model_id, path, fields, links)
    values ('published', ${id}, 'article', ${`records/articles/${id}.md`},
      ${sql.json({ title: { "en-US": "probe" }, related: { "de-DE": [link] } })}, array['wiki.index'])`;
  try {
    const query = (locales: string) =>
      `{ wiki(id: "wiki.index") { linkedFrom${locales} { articleCollection(limit: 1000) { items { sys { id } } } } } }`;
    const ids = async (locales: string) =>
      (await data(graphql, key, query(locales))).wiki.linkedFrom.articleCollection.items.map((e: any) =>
        e.sys.id
      );
    assert.ok(!(await ids("")).includes(id), "a German link is not an English one");
    assert.ok((await ids(`(allowedLocales: ["de-DE"])`)).includes(id));
    assert.ok((await ids(`(allowedLocales: ["en-US", "de-DE"])`)).includes(id));
    const unknown = await post(graphql, key, query(`(allowedLocales: ["xx"])`));
    assert.deepEqual(codes(unknown), ["UNKNOWN_LOCALE"]);
  } finally {
    await sql`delete from public.content_entries where id = ${id}`;
  }
});

test("linkedFrom of an asset lists the entries using it, as links_to_asset does", async () => {
  const assets = (await restGet(`${rest}/assets?limit=1000`, key)).items;
  let checked = 0;
  for (const asset of assets) {
    const restLinking =
      (await restGet(`${rest}/entries?links_to_asset=${asset.sys.id}&limit=1000&include=0`, key)).items;
    const answer = await data(
      graphql,
      key,
      `{ asset(id: "${asset.sys.id}") { linkedFrom { entryCollection(limit: 1000) { total items { sys { id } } } } } }`,
    );
    const found = answer.asset.linkedFrom.entryCollection;
    assert.deepEqual(
      found.items.map((e: any) => e.sys.id).sort(),
      restLinking.map((e: any) => e.sys.id).sort(),
      asset.sys.id,
    );
    if (found.total > 0) checked++;
  }
  assert.ok(checked >= 3, "several assets are used in the demo");
});

test("rich text links resolve block, inline and hyperlink entries and block and hyperlink assets", async () => {
  const [asset] = (await restGet(`${rest}/assets?limit=1&order=sys.id`, key)).items;
  const id = `article.probe-graphql-rich-${crypto.randomUUID().slice(0, 8)}`;
  const target = (linkType: string, to: string) => ({ target: { sys: { type: "Link", linkType, id: to } } });
  const text = (value: string) => ({ nodeType: "text", value, marks: [], data: {} });
  const doc = {
    nodeType: "document",
    data: {},
    content: [
      { nodeType: "embedded-entry-block", data: target("Entry", "article.hello"), content: [] },
      {
        nodeType: "paragraph",
        data: {},
        content: [
          text("see "),
          { nodeType: "embedded-entry-inline", data: target("Entry", "wiki.index"), content: [] },
          {
            nodeType: "entry-hyperlink",
            data: target("Entry", "article.rich-text-tour"),
            content: [text("the tour")],
          },
          { nodeType: "entry-hyperlink", data: target("Entry", "article.nowhere"), content: [text("gone")] },
          { nodeType: "asset-hyperlink", data: target("Asset", asset.sys.id), content: [text("a file")] },
        ],
      },
      { nodeType: "embedded-asset-block", data: target("Asset", asset.sys.id), content: [] },
    ],
  };
  await sql`insert into public.content_entries (stage, id, model_id, path, fields, links, asset_links)
    values ('published', ${id}, 'article', ${`records/articles/${id}.md`},
      ${sql.json({ title: { "en-US": "probe" }, body: { "en-US": doc } })},
      array['article.hello', 'wiki.index', 'article.rich-text-tour', 'article.nowhere'], array[${asset.sys.id}])`;
  try {
    const answer = await data(
      graphql,
      key,
      `{ article(id: "${id}") { body { json links {
      entries { block { sys { id } ... on Article { title } } inline { sys { id } } hyperlink { sys { id } } }
      assets { block { sys { id } fileName } hyperlink { sys { id } } } } } } }`,
    );
    const body = answer.article.body;
    assert.deepEqual(body.json, doc);
    assert.deepEqual(body.links.entries.block, [{ sys: { id: "article.hello" }, title: "Hello, world" }]);
    assert.deepEqual(body.links.entries.inline, [{ sys: { id: "wiki.index" } }]);
    assert.deepEqual(
      body.links.entries.hyperlink,
      [{ sys: { id: "article.rich-text-tour" } }],
      "a link to nothing is left out",
    );
    assert.deepEqual(body.links.assets.block, [{
      sys: { id: asset.sys.id },
      fileName: asset.fields.file.fileName,
    }]);
    assert.deepEqual(body.links.assets.hyperlink, [{ sys: { id: asset.sys.id } }]);
    // linkedFrom sees rich-text links too
    const from = await data(
      graphql,
      key,
      `{ wiki(id: "wiki.index") { linkedFrom { articleCollection(limit: 1000) { items { sys { id } } } } } }`,
    );
    assert.ok(from.wiki.linkedFrom.articleCollection.items.some((e: any) => e.sys.id === id));
  } finally {
    await sql`delete from public.content_entries where id = ${id}`;
  }
});

test("assets answer what REST answers; url(transform) is the images door's address with its parameters", async () => {
  const restAssets = (await restGet(`${rest}/assets?order=sys.id&limit=1000`, key)).items;
  const answer = await data(
    graphql,
    key,
    `{ assetCollection(limit: 1000, order: [sys_id_ASC]) { total items {
    sys { id publishedVersion } title description contentType fileName size url width height } } }`,
  );
  assert.equal(answer.assetCollection.total, restAssets.length);
  for (const [i, r] of restAssets.entries()) {
    const g = answer.assetCollection.items[i];
    const file = r.fields.file;
    assert.deepEqual(g, {
      sys: { id: r.sys.id, publishedVersion: r.sys.publishedVersion },
      title: r.fields.title,
      description: r.fields.description,
      contentType: file.contentType,
      fileName: file.fileName,
      size: file.details.size,
      url: file.url.startsWith("//") ? `${scheme}${file.url}` : file.url,
      width: file.details.image?.width ?? null,
      height: file.details.image?.height ?? null,
    });
  }
  const image = restAssets.find((a: any) =>
    a.fields.file.url.startsWith("//") && a.fields.file.contentType === "image/jpeg"
  );
  const transformed = await data(
    graphql,
    key,
    `{ asset(id: "${image.sys.id}") {
    url(transform: { width: 120, height: 80, quality: 70, cornerRadius: -1, resizeStrategy: FILL, resizeFocus: TOP_LEFT,
      backgroundColor: "rgb:112233", format: JPG_PROGRESSIVE })
    plain: url(transform: { width: 50, resizeStrategy: FIT, format: WEBP }) } }`,
  );
  const url = new URL(transformed.asset.url);
  assert.equal(`//${url.host}${url.pathname}`, image.fields.file.url);
  assert.deepEqual(Object.fromEntries(url.searchParams), {
    w: "120",
    h: "80",
    q: "70",
    r: "max",
    fit: "fill",
    f: "top_left",
    bg: "rgb:112233",
    fm: "jpg",
    fl: "progressive",
  });
  assert.deepEqual(Object.fromEntries(new URL(transformed.asset.plain).searchParams), {
    w: "50",
    fm: "webp",
  });
  // the door answers that address
  const res = await fetch(transformed.asset.plain);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "image/webp");
  await res.body?.cancel();
});

test("entryCollection spans every type, like REST entries without content_type", async () => {
  const restAll = (await restGet(`${rest}/entries?order=-sys.id&limit=40&include=0`, key)).items;
  const answer = await data(
    graphql,
    key,
    `{ entryCollection(limit: 40, order: [sys_id_DESC]) { items { __typename sys { id } } } }`,
  );
  assert.deepEqual(answer.entryCollection.items.map((e: any) => e.sys.id), restAll.map((e: any) => e.sys.id));
  assert.ok(new Set(answer.entryCollection.items.map((e: any) => e.__typename)).size > 1);
  const types = await data(
    graphql,
    key,
    `{ entryCollection(where: { sys: { id_in: ["article.hello", "wiki.index", "nope"] } }) {
    total items { __typename ... on Wiki { title } ... on Article { title } } } }`,
  );
  assert.equal(types.entryCollection.total, 2);
  assert.deepEqual(types.entryCollection.items.map((e: any) => e.__typename).sort(), ["Article", "Wiki"]);
});

test("a single entry by id: another type's id or an unknown one is null; preview reads drafts", async () => {
  const answer = await data(
    graphql,
    key,
    `{ a: article(id: "article.hello") { title } b: wiki(id: "article.hello") { title }
    c: article(id: "article.nope") { title } d: article(id: "article.draft-notes") { title } }`,
  );
  assert.deepEqual(answer, { a: { title: "Hello, world" }, b: null, c: null, d: null });
  const draft = await data(
    graphql,
    previewKey,
    `{ article(id: "article.draft-notes", preview: true) { title sys { id } } }`,
  );
  assert.equal(draft.article.sys.id, "article.draft-notes");
});

test("without gated access a gated body is neither filtered nor link-matched in GraphQL; a gated key is", async () => {
  const plainKey = await host.key("delivery");
  const gatedKey = await host.key("delivery", { gated: true });
  const cover = (await restGet(`${rest}/entries/article.hello`, gatedKey)).fields.cover.sys.id;
  const probe = `article.probe-gql-gated-${Date.now()}`;
  const word = `kingfisher${Date.now()}`;
  const document = {
    nodeType: "document",
    data: {},
    content: [
      {
        nodeType: "paragraph",
        data: {},
        content: [{ nodeType: "text", value: `Members: ${word}.`, marks: [], data: {} }],
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
      title: { "en-US": "GraphQL gated probe" },
      body: { "en-US": document },
      bodyMarkdown: { "en-US": `aaaa ${word}\n` },
    })
  },
      array['article.series.part-03'], array[${cover}]::text[], ${`GraphQL gated probe\nMembers: ${word}.`})`;
  try {
    const ids = async (k: string, where: string) =>
      (await data(
        graphql,
        k,
        `{ articleCollection(limit: 1000, where: ${where}) { items { sys { id } } } }`,
      ))
        .articleCollection.items.map((e: any) => e.sys.id) as string[];
    const throughBody = [
      `{ body_contains: "${word}" }`,
      `{ bodyMarkdown_contains: "${word}" }`,
      `{ bodyMarkdown_exists: true, sys: { id: "${probe}" } }`,
      `{ OR: [{ bodyMarkdown_contains: "${word}" }, { title: "no such title" }] }`,
    ];
    for (const where of throughBody) {
      assert.ok(!(await ids(plainKey, where)).includes(probe), `a plain key must not find it by ${where}`);
      assert.ok((await ids(gatedKey, where)).includes(probe), `a gated key finds it by ${where}`);
    }
    // the body reads as absent to them (Text fields order nothing in GraphQL)
    assert.deepEqual(await ids(plainKey, `{ bodyMarkdown_exists: false, sys: { id: "${probe}" } }`), [probe]);

    // linkedFrom: a link that sits only in a withheld body does not count
    const linking = async (k: string) => {
      const answer = await data(
        graphql,
        k,
        `{ article(id: "article.series.part-03") { linkedFrom { articleCollection(limit: 1000) { items { sys { id } } } } }
           asset(id: "${cover}") { linkedFrom { entryCollection(limit: 1000) { items { sys { id } } } } } }`,
      );
      return {
        entry: answer.article.linkedFrom.articleCollection.items.map((e: any) => e.sys.id) as string[],
        asset: answer.asset.linkedFrom.entryCollection.items.map((e: any) => e.sys.id) as string[],
      };
    };
    const plain = await linking(plainKey);
    assert.ok(!plain.entry.includes(probe) && !plain.asset.includes(probe));
    const open = await linking(gatedKey);
    assert.ok(open.entry.includes(probe) && open.asset.includes(probe));
  } finally {
    await sql`delete from public.content_entries where id = ${probe}`;
  }
});
