// GET .../sync over HTTP: pages of 100 with nextPageUrl, the narrowing carried in the token, deltas with
// DeletedEntry and DeletedAsset, and the token rules the client relies on.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { onRealServer, testSql } from "../../helpers/db.ts";

const host = await testHost();
const sql = testSql();
const onServer = await onRealServer();
const key = await host.key("delivery");
const env = `${host.baseUrl}/api/content/spaces/${host.space}/environments/master`;

async function get(url: string) {
  const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body;
}

async function follow(first: string) {
  const pages: any[] = [];
  let body = await get(first);
  pages.push(body);
  while (body.nextPageUrl) {
    body = await get(body.nextPageUrl);
    pages.push(body);
  }
  return { pages, items: pages.flatMap((p) => p.items), nextSyncUrl: body.nextSyncUrl as string };
}

/**
 * Deltas from `first` on until `done` holds for the items they sent. A delta covers only transactions
 * that have finished, and other tests write in parallel, so a change may come one delta later.
 */
async function deltasUntil(first: string, done: (items: any[]) => boolean, seconds = 15) {
  const items: any[] = [];
  let next = first;
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const delta = await follow(next);
    items.push(...delta.items);
    next = delta.nextSyncUrl;
    if (done(items) || Date.now() > deadline) return { items, nextSyncUrl: next };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

test("an initial sync comes in pages of 100, each next address carrying only sync_token", async () => {
  const { pages, items, nextSyncUrl } = await follow(`${env}/sync?initial=true`);
  assert.ok(pages.length >= 2);
  for (const page of pages.slice(0, -1)) {
    assert.equal(page.items.length, 100);
    assert.equal(page.nextSyncUrl, undefined);
    assert.match(new URL(page.nextPageUrl).search, /^\?sync_token=[A-Za-z0-9._~-]+$/);
  }
  assert.ok(pages[pages.length - 1].items.length <= 100);
  assert.match(new URL(nextSyncUrl).search, /^\?sync_token=[A-Za-z0-9._~-]+$/);
  const entries = items.filter((i) => i.sys.type === "Entry");
  // other tests write entries of their own meanwhile: every published row of the demo site is there
  const fromSite = (await sql<{ id: string }[]>`select id from public.content_entries
    where stage = 'published' and source = 'file'`).map((r) => r.id);
  const synced = new Set(entries.map((e) => e.sys.id));
  assert.deepEqual(fromSite.filter((id) => !synced.has(id)), [], "every published entry is synced");
  assert.equal(new Set(items.map((i) => `${i.sys.type}!${i.sys.id}`)).size, items.length, "no item twice");
  const sample = entries.find((e) => e.sys.id === "article.hello");
  assert.equal(typeof sample.fields.title, "object", "sync items carry every locale");
  assert.ok(sample.fields.title["de-DE"]);
  assert.ok(items.some((i) => i.sys.type === "Asset"));
  assert.ok(!items.some((i) => i.sys.type.startsWith("Deleted")), "an initial sync lists no deletions");
});

test("type and content_type narrow the initial sync and stay narrowed in later pages and deltas", async () => {
  const { items, nextSyncUrl } = await follow(`${env}/sync?initial=true&type=Entry&content_type=article`);
  assert.ok(items.length > 100);
  assert.ok(items.every((i) => i.sys.type === "Entry" && i.sys.contentType.sys.id === "article"));
  const assets = await follow(`${env}/sync?initial=true&type=Asset`);
  assert.ok(assets.items.length > 0 && assets.items.every((i) => i.sys.type === "Asset"));
  // a book changes: the article-only delta does not show it
  const [book] = await sql<
    { id: string }[]
  >`select id from public.content_entries where stage = 'published' and model_id = 'book' limit 1`;
  await sql`update public.content_entries set updated_at = updated_at + interval '1 second' where stage = 'published' and id = ${book.id}`;
  const delta = await get(nextSyncUrl);
  assert.ok(!delta.items.some((i: any) => i.sys.id === book.id));
});

test("a delta shows DeletedEntry and DeletedAsset with deletedAt", async () => {
  const { nextSyncUrl } = await follow(`${env}/sync?initial=true`);
  const probe = `article.probe-sync-${Date.now()}`;
  const assetId = `probeasset${Date.now()}`;
  await sql`insert into public.content_entries (stage, id, model_id, path, fields)
    values ('published', ${probe}, 'article', ${`records/articles/${probe}.md`}, ${
    sql.json({ title: { "en-US": "probe" } })
  })`;
  await sql`insert into public.content_assets (id, path, file_name, content_type, size, content_hash, storage_key)
    values (${assetId}, ${`media/${assetId}.txt`}, ${`${assetId}.txt`}, 'text/plain', 1, 'x', ${`media/${assetId}.txt`})`;
  // the deltas are judged on this test's two rows: other tests change rows of their own in parallel
  const mine = (items: any[]) => items.filter((i) => i.sys.id === probe || i.sys.id === assetId);
  const added = await deltasUntil(nextSyncUrl, (items) => mine(items).length >= 2);
  assert.deepEqual(
    mine(added.items).map((i: any) => `${i.sys.type}!${i.sys.id}`).sort(),
    [`Asset!${assetId}`, `Entry!${probe}`].sort(),
  );
  await sql`delete from public.content_entries where id = ${probe}`;
  await sql`delete from public.content_assets where id = ${assetId}`;
  const removed = await deltasUntil(added.nextSyncUrl, (items) => mine(items).length >= 2);
  const deleted = mine(removed.items).map((i: any) => `${i.sys.type}!${i.sys.id}`).sort();
  assert.deepEqual(deleted, [`DeletedAsset!${assetId}`, `DeletedEntry!${probe}`].sort());
  for (const item of mine(removed.items)) {
    assert.ok(item.sys.deletedAt);
    assert.equal(item.fields, undefined);
    assert.equal(item.sys.space.sys.id, host.space);
  }
  const deletionsOnly = await follow(`${env}/sync?initial=true&type=Deletion`);
  assert.ok(deletionsOnly.items.some((i) => i.sys.id === probe && i.sys.type === "DeletedEntry"));
});

test("sync refuses a token mixed with other arguments, an unknown type, and a foreign token", async () => {
  const first = await get(`${env}/sync?initial=true&type=Asset`);
  const token = new URL(first.nextSyncUrl).searchParams.get("sync_token");
  for (
    const url of [
      `${env}/sync?sync_token=${token}&type=Entry`,
      `${env}/sync?initial=true&type=Everything`,
      `${env}/sync?initial=true&type=Asset&content_type=article`,
      `${env}/sync?sync_token=${token}x`,
    ]
  ) {
    const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    const body = await res.json();
    assert.equal(res.status, 400, url);
    assert.equal(body.sys.id, "BadQuery", url);
  }
  // a delivery token is not a preview token
  const preview = await fetch(`${env}/sync?sync_token=${token}`, {
    headers: { authorization: `Bearer ${await host.key("preview")}` },
  });
  assert.equal(preview.status, 400);
  await preview.body?.cancel();
});

test("an unknown content_type is InvalidQuery naming unknownContentType, as for entries", async () => {
  const res = await fetch(`${env}/sync?initial=true&content_type=nosuchtype`, {
    headers: { authorization: `Bearer ${key}` },
  });
  const body = await res.json();
  assert.equal(res.status, 400);
  assert.equal(body.sys.id, "InvalidQuery");
  assert.equal(body.details.errors[0].name, "unknownContentType");
  assert.equal(body.details.errors[0].value, "nosuchtype");
});

test("a change whose transaction commits after a later one's is still sent: no delta passes a transaction in flight", async () => {
  const probe = `article.probe-race-${Date.now()}`;
  const [x, y] = [`${probe}-x`, `${probe}-y`];
  for (const id of [x, y]) {
    await sql`insert into public.content_entries (stage, id, model_id, path, fields)
      values ('published', ${id}, 'article', ${`records/articles/${id}.md`}, ${
      sql.json({ title: { "en-US": id } })
    })`;
  }
  const title = (id: string) => sql.json({ title: { "en-US": `${id} changed` } });
  try {
    const start = await deltasUntil(
      (await follow(`${env}/sync?initial=true&type=Entry&content_type=article`)).nextSyncUrl,
      () => true,
      0,
    );
    // transaction A changes x (taking its sequence number first) and stays open while y changes and commits
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let changed!: () => void;
    const xChanged = new Promise<void>((resolve) => (changed = resolve));
    const a = sql.begin(async (tx) => {
      await tx`update public.content_entries set fields = ${
        title(x)
      } where stage = 'published' and id = ${x}`;
      changed();
      await released;
    });
    await xChanged;
    const yChanged = sql`update public.content_entries set fields = ${
      title(y)
    } where stage = 'published' and id = ${y}`
      .then(() => true);
    // PGlite runs one transaction at a time: there y's update waits for A, so A is let go after a moment
    const yCommittedFirst = await Promise.race([
      yChanged,
      new Promise<false>((r) => setTimeout(() => r(false), 500)),
    ]);
    let next = start.nextSyncUrl;
    const sent: any[] = [];
    if (yCommittedFirst) {
      // a client syncs while A is still open
      const during = await follow(next);
      sent.push(...during.items);
      next = during.nextSyncUrl;
    }
    release();
    await a;
    await yChanged;
    const mine = (items: any[]) => items.filter((i) => i.sys.id === x || i.sys.id === y);
    const after = await deltasUntil(
      next,
      (items) => new Set(mine([...sent, ...items]).map((i) => i.sys.id)).size === 2,
    );
    sent.push(...after.items);
    const latest = new Map(mine(sent).map((i) => [i.sys.id, i.fields.title["en-US"]]));
    assert.equal(latest.get(x), `${x} changed`, "the change of the transaction that was open is sent");
    assert.equal(latest.get(y), `${y} changed`);
    // PGlite runs one transaction at a time, so there y's write waits for A. On a server nothing makes it
    // wait (content's answer versions are bumped at commit, migration content_answer_versions_at_commit):
    // y commits first, a client syncs while A is open, and the sequence numbers keep that delta from
    // passing A's change, which the assertions above show was sent
    assert.equal(yCommittedFirst, onServer, onServer ? "y commits while A is open" : "y's write waits for A");
  } finally {
    await sql`delete from public.content_entries where id in (${x}, ${y})`;
  }
});
