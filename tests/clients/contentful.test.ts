// The real `contentful` npm client against the running host: links, locales, sync, assets, errors.
import assert from "node:assert/strict";
import { createClient } from "contentful";
import { test } from "../helpers/test.ts";
import { testHost } from "../helpers/host.ts";
import { testSql } from "../helpers/db.ts";

const host = await testHost();
const sql = testSql();

function client(accessToken: string, options: Partial<Parameters<typeof createClient>[0]> = {}) {
  return createClient({
    space: host.space,
    accessToken,
    host: host.host,
    insecure: true,
    basePath: "/api/content",
    retryOnError: false,
    ...options,
  });
}

const delivery = client(await host.key("delivery"));

test("getSpace reads the space through its trailing-slash address", async () => {
  const space = await delivery.getSpace();
  assert.equal(space.sys.id, host.space);
  assert.ok(space.locales.length >= 2);
});

test("getEntries resolves links to entries and assets from includes", async () => {
  const [withLinks] = await sql<{ id: string; model_id: string }[]>`
    select id, model_id from public.content_entries e where stage = 'published' and cardinality(links) > 0
      and exists (select 1 from public.content_entries t where t.stage = 'published' and t.id = any(e.links))
    order by id limit 1`;
  const entries = await delivery.getEntries({ "sys.id": withLinks.id, include: 2 });
  assert.equal(entries.items.length, 1);
  // a resolved link is the linked entry itself (sys.type Entry, with fields), not a bare Link
  const values = Object.values(entries.items[0].fields).flatMap((v) => (Array.isArray(v) ? v : [v]));
  const resolved = values.filter((v: any) => v?.sys?.type === "Entry" && v.fields);
  assert.ok(resolved.length > 0, "expected a resolved entry inside the fields");
});

test("a Link Asset field and a rich-text embedded asset resolve to the asset itself, with its file", async () => {
  const entries = await delivery.getEntries({ "sys.id": "article.rich-text-tour", include: 1 });
  const fields = entries.items[0].fields as any;
  assert.equal(fields.cover.sys.type, "Asset", "the cover link is replaced by the asset");
  assert.match(fields.cover.fields.file.url, /\/api\/media\//);
  const embedded = fields.body.content.filter((node: any) => node.nodeType === "embedded-asset-block");
  assert.ok(embedded.length > 0, "the tour embeds an asset in its body");
  for (const node of embedded) {
    assert.equal(node.data.target.sys.type, "Asset");
    assert.equal(typeof node.data.target.fields.file.contentType, "string");
  }
  // without link resolution the same places hold bare links
  const raw = await delivery.withoutLinkResolution.getEntries({
    "sys.id": "article.rich-text-tour",
    include: 1,
  });
  assert.equal((raw.items[0].fields as any).cover.sys.type, "Link");
});

test("getContentType reads one content type; an unknown content type or asset reaches the client as NotFound", async () => {
  const article = await delivery.getContentType("article");
  assert.equal(article.sys.id, "article");
  assert.ok(article.fields.some((f) => f.id === "body" && f.type === "RichText"));
  await assert.rejects(delivery.getContentType("nosuchtype"), (e: Error) => e.name === "NotFound");
  await assert.rejects(delivery.getAsset("nosuchasset"), (e: Error) => e.name === "NotFound");
});

test("getEntry (which the client asks for as ?sys.id=) finds one entry and throws NotFound for none", async () => {
  const [{ id }] = await sql<
    { id: string }[]
  >`select id from public.content_entries where stage = 'published' order by id limit 1`;
  const entry = await delivery.getEntry(id);
  assert.equal(entry.sys.id, id);
  await assert.rejects(delivery.getEntry("article.does-not-exist"));
});

test("getEntries with a content type, filters, order and paging", async () => {
  const page = await delivery.getEntries(
    { content_type: "article", order: ["sys.id"], limit: 5, skip: 2 } as any,
  );
  assert.equal(page.limit, 5);
  assert.equal(page.skip, 2);
  assert.ok(page.total > 7);
  const ids = page.items.map((i) => i.sys.id);
  assert.deepEqual(ids, [...ids].sort());
});

test("locale: a second locale answers its own values, withAllLocales answers locale maps", async () => {
  const locales = await delivery.getLocales();
  const other = locales.items.find((l) => !l.default)!;
  const [{ id }] = await sql<{ id: string }[]>`select id from public.content_entries
    where stage = 'published' and fields -> 'title' ? ${other.code} order by id limit 1`;
  const localized = await delivery.getEntries({ "sys.id": id, locale: other.code });
  assert.equal(localized.items[0].sys.locale, other.code);
  const all = await delivery.withAllLocales.getEntries({ "sys.id": id });
  const title = all.items[0].fields.title as Record<string, string>;
  assert.ok(title[other.code]);
  assert.equal(localized.items[0].fields.title, title[other.code]);
});

test("getAssets and getAsset read the media library", async () => {
  const assets = await delivery.getAssets({ limit: 3 });
  assert.ok(assets.total >= 4);
  const asset = await delivery.getAsset(assets.items[0].sys.id);
  assert.equal(asset.sys.type, "Asset");
  assert.match(asset.fields.file!.url as string, new RegExp(`^//${host.host}/api/media/`));
  const res = await fetch(`http:${asset.fields.file!.url}`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), asset.fields.file!.contentType);
  await res.body?.cancel();
});

test("getContentTypes lists the models", async () => {
  const types = await delivery.getContentTypes();
  assert.ok(types.items.some((t) => t.sys.id === "article"));
  assert.ok(types.items.some((t) => t.sys.id === "modelEvent"));
});

/**
 * Deltas from `token` on, gathered, until `done` holds for them: a delta covers only transactions that
 * have finished, and other tests write in parallel, so a change may come one delta later.
 */
async function deltasUntil(token: string, done: (d: { entries: any[]; deletedEntries: any[] }) => boolean) {
  const gathered = { entries: [] as any[], deletedEntries: [] as any[], nextSyncToken: token };
  const deadline = Date.now() + 15_000;
  for (;;) {
    const delta = await delivery.sync({ nextSyncToken: gathered.nextSyncToken });
    gathered.entries.push(...delta.entries);
    gathered.deletedEntries.push(...delta.deletedEntries);
    gathered.nextSyncToken = delta.nextSyncToken!;
    if (done(gathered) || Date.now() > deadline) return gathered;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test("sync: initial (all pages), then a delta that shows a change and a deletion", async () => {
  // other tests write entries of their own in parallel (through the API or in SQL), so the initial
  // sync is judged on the demo site's rows (source 'file', which no test touches) and the deltas on
  // the two entries this test makes
  const initial = await delivery.sync({ initial: true });
  const fromSite = new Set(
    (await sql<
      { id: string }[]
    >`select id from public.content_entries where stage = 'published' and source = 'file'`)
      .map((r) => r.id),
  );
  const drafts = new Set(
    (await sql<
      { id: string }[]
    >`select p.id from public.content_entries p where p.stage = 'preview' and p.source = 'file'
      and not exists (select 1 from public.content_entries d where d.stage = 'published' and d.id = p.id)`)
      .map((r) => r.id),
  );
  assert.ok(drafts.size > 0, "the demo site has an unpublished record");
  const synced = initial.entries.map((e) => e.sys.id);
  assert.deepEqual(synced.filter((id) => fromSite.has(id)).sort(), [...fromSite].sort());
  assert.equal(synced.filter((id) => drafts.has(id)).length, 0, "no draft is synced by a delivery key");
  assert.ok(initial.assets.length >= 4);
  assert.ok(initial.nextSyncToken);

  // a change and a deletion made behind the API's back (as the admin or an import would), on two
  // entries of this test's own so no other test's reads are disturbed
  const probe = `probe${Date.now()}`;
  const [changed, victim] = [`article.${probe}-a`, `article.${probe}-b`];
  const mine = (items: { sys: { id: string } }[]) =>
    items.map((e) => e.sys.id).filter((id) => id.includes(probe));
  for (const id of [changed, victim]) {
    await sql`insert into public.content_entries (stage, id, model_id, path, fields)
      values ('published', ${id}, 'article', ${`records/articles/${id}.md`}, ${
      sql.json({ title: { "en-US": id } })
    })`;
  }
  try {
    const before = await deltasUntil(initial.nextSyncToken!, (d) => mine(d.entries).length === 2);
    assert.deepEqual(mine(before.entries).sort(), [changed, victim].sort());
    await sql`update public.content_entries set revision = revision + 1 where stage = 'published' and id = ${changed}`;
    await sql`delete from public.content_entries where stage = 'published' and id = ${victim}`;
    const delta = await deltasUntil(
      before.nextSyncToken,
      (d) => mine(d.entries).length + mine(d.deletedEntries).length === 2,
    );
    assert.deepEqual(mine(delta.entries), [changed]);
    assert.deepEqual(mine(delta.deletedEntries), [victim]);
    assert.ok(delta.nextSyncToken);
    const quiet = await delivery.sync({ nextSyncToken: delta.nextSyncToken });
    assert.equal(mine(quiet.entries).length + mine(quiet.deletedEntries).length, 0);
  } finally {
    await sql`delete from public.content_entries where id in (${changed}, ${victim})`;
  }
});

test("sync without paginate answers page by page: nextPageToken until the last page's nextSyncToken", async () => {
  const seen: string[] = [];
  let page = await delivery.sync({ initial: true, type: "Entry" } as any, { paginate: false });
  let pages = 1;
  while (page.nextPageToken) {
    assert.equal(page.entries.length, 100, "a page that is not the last is full");
    assert.equal(page.nextSyncToken, undefined);
    seen.push(...page.entries.map((e) => e.sys.id));
    page = await delivery.sync({ nextPageToken: page.nextPageToken }, { paginate: false });
    pages++;
  }
  seen.push(...page.entries.map((e) => e.sys.id));
  assert.ok(page.nextSyncToken, "the last page hands out the sync token");
  assert.ok(pages >= 2, "the demo's entries take more than one page");
  assert.equal(new Set(seen).size, seen.length, "no entry comes twice");
  assert.equal(page.assets.length, 0, "type Entry is kept by the page tokens");
});

test("the client waits out a 429 for X-Contentful-RateLimit-Reset seconds and retries, so every call succeeds", async () => {
  const waits: number[] = [];
  const resets: number[] = [];
  const limited = client(await host.key("delivery"), {
    retryOnError: true,
    // the client's own log line says how long it waits before retrying
    logHandler: (level: string, data: unknown) => {
      const wait = String(data).match(/^Rate limit error occurred\. Waiting for (\d+) ms/)?.[1];
      if (level === "warning" && wait) waits.push(Number(wait));
    },
    responseLogger: (answer: any) => {
      const reset = answer?.response?.status === 429 &&
        answer.response.headers["x-contentful-ratelimit-reset"];
      if (reset) resets.push(Number(reset));
    },
  } as any);
  for (let burst = 0; burst < 3 && waits.length === 0; burst++) {
    const answers = await Promise.allSettled(Array.from({ length: 100 }, () => limited.getLocales()));
    assert.deepEqual(answers.filter((a) => a.status === "rejected"), [], "no call fails");
  }
  assert.ok(waits.length > 0, "the host answered 429 to a burst over 78 a second");
  assert.equal(resets.length, waits.length);
  // the client waits the header's seconds plus 0.5 to 0.7 s (its own retry would wait √2 s and more)
  for (const [i, wait] of waits.entries()) {
    assert.ok(
      resets[i] >= 1 && wait >= resets[i] * 1000 + 500 && wait < resets[i] * 1000 + 700,
      `${wait} ms for ${resets[i]} s`,
    );
  }
});

test("sync narrowed to one content type and to assets", async () => {
  const articles = await delivery.sync({ initial: true, content_type: "article" } as any);
  assert.ok(articles.entries.length > 0);
  assert.ok(articles.entries.every((e) => e.sys.contentType.sys.id === "article"));
  assert.equal(articles.assets.length, 0);
  const assets = await delivery.sync({ initial: true, type: "Asset" } as any);
  assert.equal(assets.entries.length, 0);
  assert.ok(assets.assets.length >= 4);
});

test("a preview key reads unpublished entries that delivery does not", async () => {
  const [draft] = await sql<{ id: string }[]>`select p.id from public.content_entries p
    where p.stage = 'preview' and not exists (select 1 from public.content_entries d where d.stage = 'published' and d.id = p.id)
    limit 1`;
  assert.ok(draft, "the demo site has an unpublished record");
  const preview = client(await host.key("preview"));
  assert.equal((await preview.getEntries({ "sys.id": draft.id })).items.length, 1);
  assert.equal((await delivery.getEntries({ "sys.id": draft.id })).items.length, 0);
});

test("an error from the API reaches the client as its own error name", async () => {
  await assert.rejects(
    delivery.getEntries({ content_type: "nosuchtype" }),
    (e: Error) => e.name === "InvalidQuery",
  );
  const revoked = client(await host.revokedKey("delivery"));
  await assert.rejects(revoked.getEntries(), (e: Error) => e.name === "AccessTokenInvalid");
});
