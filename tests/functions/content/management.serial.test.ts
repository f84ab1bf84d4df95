// The Management API over HTTP in cloud mode: every error row of entries, assets, uploads, webhook
// definitions and the sweep, the write field rules, versions, and sync after a delete.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { createContentApp } from "../../../functions/content/app.ts";
import { serviceKey } from "../../../functions/content/routes/management-uploads.ts";
import { importSite } from "../../../shared/site/import.ts";
import { assertError, call, env, host, inCloudMode, makerKey, pngBytes, space, sql, unique } from "./management-support.ts";

// a fresh key per test: one file's requests would otherwise pass the 78-a-second limit of one key
let key = "";
const cloud = (body: () => Promise<void>) => async () => {
  key = (await makerKey()).key;
  await inCloudMode(body);
};
const deliveryKey = await host.key("delivery");
const ARTICLE = { "x-contentful-content-type": "article" };
const version = (v: number) => ({ "x-contentful-version": String(v) });

async function article(fields: Record<string, unknown> = {}) {
  const r = await call("POST", `${env}/entries`, key, { fields: { title: { "en-US": unique("Article") }, ...fields } }, ARTICLE);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body;
}

async function upload(bytes: Uint8Array = pngBytes(3, 2), path = `${space}/uploads`) {
  const r = await call("POST", path, key, bytes, { "content-type": "application/octet-stream" });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.sys.id as string;
}

const fileFrom = (uploadId: string, fileName = "pic.png") => ({
  "en-US": { fileName, contentType: "image/png", uploadFrom: { sys: { type: "Link", linkType: "Upload", id: uploadId } } },
});

test("creating an entry: the content type header, a slug or title, a free id, JSON", cloud(async () => {
  assertError(await call("POST", `${env}/entries`, key, { fields: {} }), 400, "BadQuery");
  const unknown = await call("POST", `${env}/entries`, key, { fields: {} }, { "x-contentful-content-type": "nope" });
  assertError(unknown, 400, "InvalidQuery");
  assert.equal(unknown.body.details.errors[0].name, "unknownContentType");
  const nameless = await call("POST", `${env}/entries`, key, { fields: { summary: { "en-US": "no name" } } }, ARTICLE);
  assertError(nameless, 400, "BadQuery");
  assert.match(nameless.body.message, /slug or a title/);
  assertError(await call("POST", `${env}/entries`, key, "{not json", ARTICLE), 400, "BadQuery");
  assertError(await call("POST", `${env}/entries`, key, "[1]", ARTICLE), 400, "BadQuery");
  const slug = unique("from-slug");
  const made = await call("POST", `${env}/entries`, key, { fields: { title: { "en-US": "T" }, slug: { "en-US": slug } } }, ARTICLE);
  assert.equal(made.status, 201);
  assert.equal(made.body.sys.id, `article.${slug}`);
  const [row] = await sql<{ path: string }[]>`select path from public.content_entries where id = ${made.body.sys.id}`;
  assert.equal(row.path, `records/articles/${slug}.md`);
  const taken = await call("POST", `${env}/entries`, key, { fields: { title: { "en-US": "T" }, slug: { "en-US": slug } } }, ARTICLE);
  assertError(taken, 409, "VersionMismatch");
  await call("DELETE", `${env}/entries/${made.body.sys.id}`, key);
}));

test("ValidationFailed lists every refused field with its name and path", cloud(async () => {
  const r = await call("POST", `${env}/entries`, key, {
    fields: {
      title: { "en-US": "Refused" },
      nope: { "en-US": 1 },
      readingTime: { "en-US": "long" },
      cover: { "en-US": { sys: { type: "Link", linkType: "Asset", id: "not-in-the-library" } } },
      summary: { "xx-XX": "?" },
    },
  }, ARTICLE);
  assertError(r, 422, "ValidationFailed");
  const errors = r.body.details.errors.map((e: any) => [e.name, e.path]);
  assert.deepEqual(errors, [
    ["unknown", ["fields", "nope"]],
    ["invalid", ["fields", "summary"]],
  ]);
  const values = await call("POST", `${env}/entries`, key, {
    fields: {
      title: { "en-US": "Refused" },
      readingTime: { "en-US": "long" },
      cover: { "en-US": { sys: { type: "Link", linkType: "Asset", id: "not-in-the-library" } } },
    },
  }, ARTICLE);
  assertError(values, 422, "ValidationFailed");
  assert.deepEqual(values.body.details.errors.map((e: any) => [e.name, e.path]), [
    ["invalid", ["fields", "readingTime"]],
    ["notResolvable", ["fields", "cover"]],
  ]);
}));

test("the write field rules: empty arrays omitted, the twin wins, library links kept, search text made", cloud(async () => {
  const [library] = await sql<{ id: string; path: string }[]>`
    select id, path from public.content_assets where published and path like 'media/%' order by path limit 1`;
  const entry = await article({
    tags: { "en-US": [] },
    cover: { "en-US": { sys: { type: "Link", linkType: "Asset", id: library.id } } },
    body: { "en-US": { nodeType: "document", data: {}, content: [] } },
    bodyMarkdown: { "en-US": `Findable **zebra** words ![pic](${library.path})` },
  });
  assert.equal(entry.fields.tags, undefined);
  assert.equal(entry.fields.bodyMarkdown["en-US"], `Findable **zebra** words ![pic](${library.path})\n`);
  assert.match(JSON.stringify(entry.fields.body["en-US"]), /embedded-asset-block/);
  const [row] = await sql<{ asset_links: string[]; search_text: string }[]>`
    select asset_links, search_text from public.content_entries where stage = 'preview' and id = ${entry.sys.id}`;
  assert.deepEqual(row.asset_links, [library.id]);
  assert.match(row.search_text, /zebra/);
  const missing = await call("PUT", `${env}/entries/${entry.sys.id}`, key, {
    fields: { title: { "en-US": "x" }, bodyMarkdown: { "en-US": "![gone](media/not/there.png)" } },
  }, version(entry.sys.version));
  assertError(missing, 422, "ValidationFailed");
  assert.deepEqual(missing.body.details.errors[0].path, ["fields", "bodyMarkdown"]);
  assert.equal(missing.body.details.errors[0].name, "notResolvable");
  await call("DELETE", `${env}/entries/${entry.sys.id}`, key);
}));

test("PUT replaces the typed fields whole with the current version; the admin's own fields stay", cloud(async () => {
  const entry = await article({ summary: { "en-US": "first" } });
  await sql`update public.content_entries set access = 'member' where id = ${entry.sys.id}`;
  assertError(await call("PUT", `${env}/entries/${entry.sys.id}`, key, { fields: {} }), 409, "VersionMismatch");
  assertError(await call("PUT", `${env}/entries/${entry.sys.id}`, key, { fields: {} }, version(entry.sys.version + 2)), 409, "VersionMismatch");
  assertError(await call("PUT", `${env}/entries/${entry.sys.id}`, key, { fields: {} }, { "x-contentful-version": "two" }), 400, "BadQuery");
  assertError(await call("PUT", `${env}/entries/${entry.sys.id}`, key, { fields: {} }, { ...version(entry.sys.version), "x-contentful-content-type": "wiki" }), 400, "BadQuery");
  const replaced = await call("PUT", `${env}/entries/${entry.sys.id}`, key, { fields: { title: entry.fields.title } }, version(entry.sys.version));
  assert.equal(replaced.status, 200);
  assert.ok(replaced.body.sys.version > entry.sys.version);
  assert.equal(replaced.body.fields.summary, undefined);
  const [row] = await sql<{ access: string }[]>`select access from public.content_entries where stage = 'preview' and id = ${entry.sys.id}`;
  assert.equal(row.access, "member");
  await call("DELETE", `${env}/entries/${entry.sys.id}`, key);
}));

test("PUT at a free id creates (201), its type from the header or the id; a foreign id is refused", cloud(async () => {
  const id = `article.${unique("put-made")}`;
  const made = await call("PUT", `${env}/entries/${id}`, key, { fields: { title: { "en-US": "Made" } } });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  assert.equal(made.body.sys.contentType.sys.id, "article");
  assertError(await call("PUT", `${env}/entries/${unique("no-type")}`, key, { fields: {} }), 400, "BadQuery");
  assertError(await call("PUT", `${env}/entries/wiki.${unique("x")}`, key, { fields: {} }, ARTICLE), 400, "BadQuery");
  await call("DELETE", `${env}/entries/${id}`, key);
}));

test("publish, unpublish and delete: unknown is 404, stale 409, unpublished 400; sync shows the deletion", cloud(async () => {
  assertError(await call("PUT", `${env}/entries/article.${unique("none")}/published`, key), 404, "NotFound");
  assertError(await call("DELETE", `${env}/entries/article.${unique("none")}/published`, key), 404, "NotFound");
  assertError(await call("DELETE", `${env}/entries/article.${unique("none")}`, key), 404, "NotFound");
  const entry = await article();
  assertError(await call("DELETE", `${env}/entries/${entry.sys.id}/published`, key), 400, "BadQuery");
  assertError(await call("PUT", `${env}/entries/${entry.sys.id}/published`, key, undefined, version(entry.sys.version + 1)), 409, "VersionMismatch");
  const published = await call("PUT", `${env}/entries/${entry.sys.id}/published`, key, undefined, version(entry.sys.version));
  assert.equal(published.status, 200);
  const sync = await fetch(`${env}/sync?initial=true`, { headers: { authorization: `Bearer ${deliveryKey}` } });
  let page = await sync.json();
  while (page.nextPageUrl) page = await (await fetch(page.nextPageUrl, { headers: { authorization: `Bearer ${deliveryKey}` } })).json();
  assert.equal((await call("DELETE", `${env}/entries/${entry.sys.id}`, key)).status, 204);
  const delta = await (await fetch(page.nextSyncUrl, { headers: { authorization: `Bearer ${deliveryKey}` } })).json();
  const deleted = delta.items.find((i: any) => i.sys.id === entry.sys.id);
  assert.equal(deleted?.sys.type, "DeletedEntry");
  assertError(await call("GET", `${env}/entries/${entry.sys.id}`, key), 404, "NotFound");
}));

test("uploads: raw bytes at both addresses, read, removed, expired after a day", cloud(async () => {
  assertError(await call("POST", `${space}/uploads`, key, new Uint8Array(), { "content-type": "application/octet-stream" }), 400, "BadQuery");
  const first = await upload();
  const second = await upload(pngBytes(1, 1), `${env}/uploads`);
  const read = await call("GET", `${env}/uploads/${first}`, key);
  assert.equal(read.status, 200);
  assert.equal(read.body.sys.type, "Upload");
  assert.deepEqual(read.body.sys.space.sys, { type: "Link", linkType: "Space", id: host.space });
  assert.equal((await call("DELETE", `${space}/uploads/${first}`, key)).status, 204);
  assertError(await call("GET", `${space}/uploads/${first}`, key), 404, "NotFound");
  assertError(await call("DELETE", `${space}/uploads/${first}`, key), 404, "NotFound");
  assert.equal((await sql`select 1 from public.storage_objects where bucket = 'uploads' and key = ${first}`).length, 0);
  await sql`update public.content_uploads set expires_at = now() - interval '1 second' where id = ${second}`;
  assertError(await call("GET", `${space}/uploads/${second}`, key), 404, "NotFound");
  const late = await call("POST", `${env}/assets`, key, { fields: { file: fileFrom(second) } });
  assertError(late, 422, "ValidationFailed");
  assert.equal(late.body.details.errors[0].name, "notResolvable");
}));

test("assets: a file is required and checked; process, publish, DELETE published and delete in use", cloud(async () => {
  assertError(await call("POST", `${env}/assets`, key, { fields: { title: { "en-US": "no file" } } }), 422, "ValidationFailed");
  const bad = await call("POST", `${env}/assets`, key, { fields: { file: { "en-US": { fileName: "a/b.png", upload: "ftp://x.example/f" } }, colour: { "en-US": "red" } } });
  assertError(bad, 422, "ValidationFailed");
  assert.deepEqual(bad.body.details.errors.map((e: any) => e.name).sort(), ["invalid", "unknown"]);
  const created = await call("POST", `${env}/assets`, key, { fields: { title: { "en-US": "Pic" }, file: fileFrom(await upload(), "pic.png") } });
  assert.equal(created.status, 201);
  const id = created.body.sys.id;
  assertError(await call("PUT", `${env}/assets/${id}/published`, key), 422, "ValidationFailed"); // not processed yet
  assertError(await call("PUT", `${env}/assets/${id}/files/xx-XX/process`, key), 404, "NotFound");
  assertError(await call("PUT", `${env}/assets/nope/files/en-US/process`, key), 404, "NotFound");
  assertError(await call("PUT", `${env}/assets/${id}/files/en-US/process`, key, undefined, version(99)), 409, "VersionMismatch");
  assert.equal((await call("PUT", `${env}/assets/${id}/files/en-US/process`, key)).status, 204);
  const processed = await call("GET", `${env}/assets/${id}`, key);
  assert.deepEqual(processed.body.fields.file["en-US"].details, { size: 33, image: { width: 3, height: 2 } });
  const published = await call("PUT", `${env}/assets/${id}/published`, key, undefined, version(processed.body.sys.version));
  assert.equal(published.status, 200);
  assert.equal(published.body.sys.id, id);
  const unpublish = await call("DELETE", `${env}/assets/${id}/published`, key);
  assertError(unpublish, 400, "BadQuery");
  assert.match(unpublish.body.message, /delete the asset/);
  // a title change needs the current version
  assertError(await call("PUT", `${env}/assets/${id}`, key, { fields: { title: { "en-US": "x" } } }), 409, "VersionMismatch");
  const renamed = await call("PUT", `${env}/assets/${id}`, key, { fields: { title: { "en-US": "Renamed" }, file: processed.body.fields.file } }, version(processed.body.sys.version));
  assert.equal(renamed.status, 200);
  assert.equal(renamed.body.fields.title["en-US"], "Renamed");
  assert.ok(renamed.body.fields.file["en-US"].url);

  const user = await article({ cover: { "en-US": { sys: { type: "Link", linkType: "Asset", id } } } });
  const inUse = await call("DELETE", `${env}/assets/${id}`, key);
  assertError(inUse, 409, "VersionMismatch");
  assert.deepEqual(inUse.body.details.used, [{ sys: { type: "Link", linkType: "Entry", id: user.sys.id } }]);
  await call("DELETE", `${env}/entries/${user.sys.id}`, key);
  assert.equal((await call("DELETE", `${env}/assets/${id}`, key)).status, 204);
  assertError(await call("DELETE", `${env}/assets/${id}`, key), 404, "NotFound");
  assert.equal((await sql`select 1 from public.storage_objects where bucket = 'media' and key like ${`content/uploads/api/${id}/%`}`).length, 0);
}));

test("an asset from an address is fetched at processing, through the outbound URL guard", cloud(async () => {
  const served = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) =>
    new URL(req.url).pathname === "/moved" ? Response.redirect("http://127.0.0.1:1/elsewhere", 302) : new Response(pngBytes(5, 4) as BodyInit));
  try {
    const origin = `http://127.0.0.1:${served.addr.port}`;
    const made = await call("POST", `${env}/assets`, key, { fields: { file: { "en-US": { fileName: "far.png", upload: `${origin}/far.png` } } } });
    assert.equal(made.status, 201);
    // a host that refuses private addresses (as deployed) will not fetch from loopback
    const guarded = createContentApp({ ...host.ctx, config: { ...host.ctx.config, allowPrivateWebhookTargets: false } });
    const refused = await guarded.request(`/spaces/${host.space}/environments/master/assets/${made.body.sys.id}/files/en-US/process`, {
      method: "PUT",
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(refused.status, 422);
    assert.match((await refused.json()).details.errors[0].details, /loopback/);
    assert.equal((await call("PUT", `${env}/assets/${made.body.sys.id}/files/en-US/process`, key)).status, 204);
    const asset = await call("GET", `${env}/assets/${made.body.sys.id}`, key);
    assert.deepEqual(asset.body.fields.file["en-US"].details.image, { width: 5, height: 4 });
    const redirected = await call("POST", `${env}/assets`, key, { fields: { file: { "en-US": { fileName: "moved.png", upload: `${origin}/moved` } } } });
    const notFollowed = await call("PUT", `${env}/assets/${redirected.body.sys.id}/files/en-US/process`, key);
    assertError(notFollowed, 422, "ValidationFailed");
    for (const id of [made.body.sys.id, redirected.body.sys.id]) await call("DELETE", `${env}/assets/${id}`, key);
  } finally {
    await served.shutdown();
  }
}));

test("the sweep removes expired uploads and never-processed assets, with their bytes", cloud(async () => {
  const stale = await upload();
  const pending = await call("POST", `${env}/assets`, key, { fields: { file: fileFrom(await upload()) } });
  const service = await serviceKey(host.ctx);
  const sweep = `${host.baseUrl}/api/content/sweep-uploads`;
  // the daily run leaves what is younger than a day
  await call("POST", sweep, service);
  assert.equal((await call("GET", `${space}/uploads/${stale}`, key)).status, 200);
  const run = await call("POST", `${sweep}?older_than_ms=0`, service);
  assert.equal(run.status, 200);
  assert.ok(run.body.uploads >= 2 && run.body.assets >= 1, JSON.stringify(run.body));
  assertError(await call("GET", `${space}/uploads/${stale}`, key), 404, "NotFound");
  assertError(await call("GET", `${env}/assets/${pending.body.sys.id}`, key), 404, "NotFound");
  assert.equal((await sql`select 1 from public.storage_objects where bucket = 'uploads' and key = ${stale}`).length, 0);
}));

test("webhook definitions: 422 for a bad url, topic, name or header; 404, 409 and 204 as for entries", cloud(async () => {
  const good = { name: "h", url: "https://hooks.example/x", topics: ["Entry.publish"] };
  for (const [change, path] of [
    [{ url: "not a url" }, ["url"]],
    [{ url: "ftp://hooks.example/x" }, ["url"]],
    [{ topics: ["Entry.archive"] }, ["topics"]],
    [{ topics: [] }, ["topics"]],
    [{ name: "" }, ["name"]],
    [{ headers: [{ key: "Content-Type", value: "text/plain" }] }, ["headers", 0]],
    [{ headers: [{ key: "X-Ok", value: "two\nlines" }] }, ["headers", 0]],
  ] as [Record<string, unknown>, unknown[]][]) {
    const r = await call("POST", `${space}/webhook_definitions`, key, { ...good, ...change });
    assertError(r, 422, "ValidationFailed");
    assert.deepEqual(r.body.details.errors[0].path, path, JSON.stringify(change));
  }
  assertError(await call("POST", `${space}/webhook_definitions`, key, "nope"), 400, "BadQuery");
  assertError(await call("GET", `${space}/webhook_definitions/nope`, key), 404, "NotFound");
  const made = await call("POST", `${space}/webhook_definitions`, key, { ...good, topics: ["*.*", "Asset.delete"] });
  assert.equal(made.status, 201);
  const id = made.body.sys.id;
  assertError(await call("PUT", `${space}/webhook_definitions/${id}`, key, good), 409, "VersionMismatch");
  assertError(await call("PUT", `${space}/webhook_definitions/${id}`, key, good, version(7)), 409, "VersionMismatch");
  const secretWithout = await call("PUT", `${space}/webhook_definitions/${id}`, key, { ...good, headers: [{ key: "X-New", secret: true }] }, version(1));
  assertError(secretWithout, 422, "ValidationFailed"); // a secret with no stored value needs one
  const replaced = await call("PUT", `${space}/webhook_definitions/${id}`, key, { ...good, active: false }, version(1));
  assert.equal(replaced.status, 200);
  assert.equal(replaced.body.active, false);
  assert.deepEqual(replaced.body.topics, ["Entry.publish"]);
  assert.equal((await call("DELETE", `${space}/webhook_definitions/${id}`, key)).status, 204);
  assertError(await call("DELETE", `${space}/webhook_definitions/${id}`, key), 404, "NotFound");
  assertError(await call("PUT", `${space}/webhook_definitions/${id}`, key, good, version(2)), 404, "NotFound");
}));

test("PUT at a free asset id creates it (201); a new file makes it pending until processed, replacing the old bytes", cloud(async () => {
  const id = unique("put-asset");
  const made = await call("PUT", `${env}/assets/${id}`, key, { fields: { file: fileFrom(await upload(pngBytes(3, 3)), "one.png") } });
  assert.equal(made.status, 201, JSON.stringify(made.body));
  assertError(await call("PUT", `${env}/assets/bad id!`, key, { fields: {} }), 400, "BadQuery");
  assertError(await call("PUT", `${env}/assets/${id}`, key, { fields: { file: fileFrom(await upload()) } }), 409, "VersionMismatch");
  assert.equal((await call("PUT", `${env}/assets/${id}/files/en-US/process`, key)).status, 204);
  const first = await call("GET", `${env}/assets/${id}`, key);
  const replaced = await call("PUT", `${env}/assets/${id}`, key, { fields: { file: fileFrom(await upload(pngBytes(6, 6)), "two.png") } }, version(first.body.sys.version));
  assert.equal(replaced.status, 200);
  assert.equal(replaced.body.sys.version % 2, 1); // a file waits
  assert.equal(replaced.body.fields.file["en-US"].url, undefined);
  // the library still serves the first file until the second is processed
  const delivered = await fetch(`${env}/assets/${id}`, { headers: { authorization: `Bearer ${deliveryKey}` } });
  assert.equal((await delivered.json()).fields.file.fileName, "one.png");
  assert.equal((await call("PUT", `${env}/assets/${id}/files/en-US/process`, key)).status, 204);
  const second = await call("GET", `${env}/assets/${id}`, key);
  assert.equal(second.body.sys.version % 2, 0);
  assert.deepEqual(second.body.fields.file["en-US"].details.image, { width: 6, height: 6 });
  const keys = await sql<{ key: string }[]>`select key from public.storage_objects where bucket = 'media' and key like ${`content/uploads/api/${id}/%`}`;
  assert.deepEqual(keys.map((k) => k.key), [`content/uploads/api/${id}/two.png`]);
  assert.equal((await call("DELETE", `${env}/assets/${id}`, key)).status, 204);
}));

test("a management draft is served by the Preview API and not by Delivery until published", cloud(async () => {
  const previewKey = await host.key("preview");
  const entry = await article();
  const read = (k: string) => fetch(`${env}/entries/${entry.sys.id}`, { headers: { authorization: `Bearer ${k}` } });
  const preview = await read(previewKey);
  assert.equal(preview.status, 200);
  assert.equal((await preview.json()).fields.title, entry.fields.title["en-US"]);
  const delivery = await read(deliveryKey);
  assert.equal(delivery.status, 404);
  await delivery.body?.cancel();
  await call("DELETE", `${env}/entries/${entry.sys.id}`, key);
}));

test("sys.createdAt is the record's date, else the first publish", cloud(async () => {
  const dated = await article({ date: { "en-US": "2024-03-01" } });
  assert.equal(dated.sys.createdAt, "2024-03-01T00:00:00.000Z");
  const undated = await article();
  const published = await call("PUT", `${env}/entries/${undated.sys.id}/published`, key, undefined, version(undated.sys.version));
  assert.equal(published.body.sys.createdAt, published.body.sys.publishedAt);
  assert.ok(published.body.sys.createdAt >= undated.sys.createdAt);
  // a later publish keeps it
  const again = await call("PUT", `${env}/entries/${undated.sys.id}/published`, key, undefined, version(published.body.sys.version));
  assert.equal(again.body.sys.createdAt, published.body.sys.createdAt);
  for (const e of [dated, undated]) await call("DELETE", `${env}/entries/${e.sys.id}`, key);
}));

test("publish refuses a draft missing a required field: ValidationFailed, name required, path ['fields', f]", cloud(async () => {
  // the demo's own model: title and startsAt are required; a draft may lack them, publishing may not
  const event = { "x-contentful-content-type": "modelEvent" };
  const draft = await call("POST", `${env}/entries`, key, { fields: { title: { "en-US": unique("Meetup") } } }, event);
  assert.equal(draft.status, 201, JSON.stringify(draft.body));
  const refused = await call("PUT", `${env}/entries/${draft.body.sys.id}/published`, key, undefined, version(draft.body.sys.version));
  assertError(refused, 422, "ValidationFailed");
  assert.deepEqual(refused.body.details.errors.map((e: any) => [e.name, e.path]), [["required", ["fields", "startsAt"]]]);
  const delivered = await fetch(`${env}/entries/${draft.body.sys.id}`, { headers: { authorization: `Bearer ${deliveryKey}` } });
  assert.equal(delivered.status, 404, "nothing was published");
  await delivered.body?.cancel();
  const unchanged = await call("GET", `${env}/entries/${draft.body.sys.id}`, key);
  assert.equal(unchanged.body.sys.version, draft.body.sys.version, "a refused publish changes nothing");
  const filled = await call("PUT", `${env}/entries/${draft.body.sys.id}`, key, {
    fields: { ...draft.body.fields, startsAt: { "en-US": "2026-05-01T18:00:00Z" } },
  }, version(draft.body.sys.version));
  assert.equal(filled.status, 200, JSON.stringify(filled.body));
  const published = await call("PUT", `${env}/entries/${draft.body.sys.id}/published`, key, undefined, version(filled.body.sys.version));
  assert.equal(published.status, 200, JSON.stringify(published.body));
  await call("DELETE", `${env}/entries/${draft.body.sys.id}`, key);
}));

test("the management asset list sees pending assets too, through the delivery list's arguments", cloud(async () => {
  const title = unique("Unprocessed");
  const pending = await call("POST", `${env}/assets`, key, { fields: { title: { "en-US": title }, file: fileFrom(await upload(), "waiting.png") } });
  assert.equal(pending.status, 201);
  const id = pending.body.sys.id;
  for (const query of [`sys.id[in]=${id}`, `query=${title}`, `fields.title=${title}`, `fields.file.fileName=waiting.png&sys.id=${id}`, `mimetype_group=image&sys.id=${id}`]) {
    const listed = await call("GET", `${env}/assets?${query}`, key);
    assert.equal(listed.status, 200, query);
    assert.deepEqual(listed.body.items.map((a: any) => a.sys.id), [id], query);
    assert.equal(listed.body.items[0].sys.version % 2, 1, "a file waits");
    assert.equal(listed.body.items[0].fields.file["en-US"].url, undefined);
  }
  const delivered = await fetch(`${env}/assets?sys.id[in]=${id}`, { headers: { authorization: `Bearer ${deliveryKey}` } });
  assert.deepEqual((await delivered.json()).items, [], "not in the library until processed");
  assert.equal((await call("DELETE", `${env}/assets/${id}`, key)).status, 204);
}));

test("in cloud mode Delivery answers sys.revision 1, however often an entry is published", cloud(async () => {
  const entry = await article();
  const first = await call("PUT", `${env}/entries/${entry.sys.id}/published`, key, undefined, version(entry.sys.version));
  const again = await call("PUT", `${env}/entries/${entry.sys.id}/published`, key, undefined, version(first.body.sys.version));
  assert.equal(again.body.sys.publishedCounter, 2);
  const delivered = await fetch(`${env}/entries/${entry.sys.id}`, { headers: { authorization: `Bearer ${deliveryKey}` } });
  assert.equal((await delivered.json()).sys.revision, 1);
  await call("DELETE", `${env}/entries/${entry.sys.id}`, key);
}));

test("a cloud-mode re-import keeps what the API made and changed; a git-mode import takes the directory back", cloud(async () => {
  const dir = Deno.env.get("DEMO_SITE_DIR")!;
  const made = await article({ summary: { "en-US": "Made through the API" } });
  assert.equal((await call("PUT", `${env}/entries/${made.sys.id}/published`, key, undefined, version(made.sys.version))).status, 200);
  const asset = await call("POST", `${env}/assets`, key, { fields: { title: { "en-US": "Kept" }, file: fileFrom(await upload(pngBytes(4, 4)), "kept.png") } });
  assert.equal((await call("PUT", `${env}/assets/${asset.body.sys.id}/files/en-US/process`, key)).status, 204);
  const hello = await call("GET", `${env}/entries/article.hello`, key);
  const changed = await call("PUT", `${env}/entries/article.hello`, key, {
    fields: { ...hello.body.fields, summary: { "en-US": "Changed through the API" } },
  }, version(hello.body.sys.version));
  assert.equal(changed.status, 200, JSON.stringify(changed.body));
  const summary = async (id: string) => (await call("GET", `${env}/entries/${id}`, key)).body?.fields?.summary?.["en-US"];

  const cloudImport = await importSite(sql, { dir, modeOverride: "cloud" });
  assert.ok(cloudImport.warnings.some((w) => w.startsWith("records/articles/hello.md: changed through the API")), cloudImport.warnings.join("\n"));
  assert.equal(await summary(made.sys.id), "Made through the API");
  assert.equal(await summary("article.hello"), "Changed through the API");
  const delivered = await fetch(`${env}/entries/${made.sys.id}`, { headers: { authorization: `Bearer ${deliveryKey}` } });
  assert.equal(delivered.status, 200, "still published");
  await delivered.body?.cancel();
  const kept = await call("GET", `${env}/assets/${asset.body.sys.id}`, key);
  assert.equal(kept.status, 200);
  const bytes = await fetch(`http:${kept.body.fields.file["en-US"].url}`);
  assert.equal(bytes.status, 200, "the library file's bytes stay too");
  assert.deepEqual(new Uint8Array(await bytes.arrayBuffer()), pngBytes(4, 4));

  // git mode: the directory owns every row again
  await importSite(sql, { dir, modeOverride: "git" });
  assertError(await call("GET", `${env}/entries/${made.sys.id}`, key), 404, "NotFound");
  assertError(await call("GET", `${env}/assets/${asset.body.sys.id}`, key), 404, "NotFound");
  assert.match(await summary("article.hello"), /^The first article of the demo site/);
}));

test("client mistakes in an entry body are 4xx, never a 5xx: documents, NUL, nesting, size, dates, links", cloud(async () => {
  const create = (fields: Record<string, unknown>, type = ARTICLE) =>
    call("POST", `${env}/entries`, key, { fields: { title: { "en-US": unique("Refused") }, ...fields } }, type);
  const refusedAt = async (answer: Promise<{ status: number; body: any }>, path: unknown[], details?: RegExp) => {
    const r = await answer;
    assertError(r, 422, "ValidationFailed");
    assert.deepEqual(r.body.details.errors.map((e: any) => [e.name, e.path]), [["invalid", path]], JSON.stringify(r.body));
    if (details) assert.match(r.body.details.errors[0].details, details);
  };
  // rich-text documents a renderer could not walk
  for (const body of [
    { nodeType: "document", data: {}, content: [{ nodeType: "paragraph", data: {}, content: "x" }] },
    { nodeType: "document", data: {}, content: [null] },
    { nodeType: "document", data: {}, content: [{ nodeType: "marquee", data: {}, content: [] }] },
    { nodeType: "document", data: {}, content: [{ nodeType: "paragraph", data: {}, content: [{ nodeType: "text", value: "x" }] }] },
    { nodeType: "document", data: {}, content: [{ nodeType: "embedded-asset-block", data: { target: "x" }, content: [] }] },
  ]) {
    await refusedAt(create({ body: { "en-US": body } }), ["fields", "body"], /content\[0\]/);
  }
  // text Postgres cannot hold: the field is named, the details say where exactly
  await refusedAt(create({ summary: { "en-US": "a\u0000b" } }), ["fields", "summary"], /^fields\.summary\.en-US may not contain/);
  await refusedAt(create({ tags: { "en-US": ["ok", "\ud800"] } }), ["fields", "tags"], /fields\.tags\.en-US\[1\]/);
  await refusedAt(create({ ["ti\u0000tle"]: { "en-US": "x" } }), ["fields"], /member name/);
  let deep: unknown = "leaf";
  for (let i = 0; i < 100; i++) deep = { deep };
  assertError(await create({ seo: { "en-US": deep } }), 400, "BadQuery");
  const huge = await create({ summary: { "en-US": "x".repeat(1024 * 1024) } });
  assertError(huge, 413, "PayloadTooLarge");
  assert.match(huge.body.message, /larger than 1 MB/);
  // dates: only real ones, in years 0001 to 9999
  for (const date of ["0000-01-01", "9999-12-31T23:59:59-14:00", "2024-02-30", "99999-01-01"]) {
    await refusedAt(create({ date: { "en-US": date } }), ["fields", "date"], /ISO 8601/);
  }
  // links to an entry of a type the field does not take
  const wiki = { "x-contentful-content-type": "wiki" };
  await refusedAt(
    create({ parent: { "en-US": { sys: { type: "Link", linkType: "Entry", id: "article.hello" } } } }, wiki),
    ["fields", "parent"],
    /not an entry of a type this field links to \(wiki\)/,
  );
  // a long title makes an id of the longest length; a long slug is refused with the reason
  const long = await call("POST", `${env}/entries`, key, { fields: { title: { "en-US": `${unique("Long")} ${"word ".repeat(48)}` } } }, ARTICLE);
  assert.equal(long.status, 201, JSON.stringify(long.body).slice(0, 300));
  assert.equal(long.body.sys.id.length, "article.".length + 191);
  await refusedAt(create({ title: { "en-US": "word ".repeat(60_000) } }), ["fields", "title"], /at most 256 characters/);
  await refusedAt(
    call("POST", `${env}/entries`, key, { fields: { title: { "en-US": "T" }, slug: { "en-US": "s".repeat(200) } } }, ARTICLE),
    ["fields", "slug"],
    /at most 191 characters/,
  );
  // short texts are indexed (handles, SKUs): Contentful's 256 characters at most
  await refusedAt(create({ slug: { "en-US": "s".repeat(3000) } }), ["fields", "slug"], /at most 256 characters/);
  await refusedAt(create({ tags: { "en-US": ["ok", "t".repeat(257)] } }), ["fields", "tags"], /at most 256 characters/);
  // links are indexed too: an entry link names an entry id
  await refusedAt(
    create({ related: { "en-US": [{ sys: { type: "Link", linkType: "Entry", id: `article.${"x".repeat(3000)}` } }] } }),
    ["fields", "related"],
    /a link is/,
  );
  const inline = { nodeType: "embedded-entry-inline", data: { target: { sys: { type: "Link", linkType: "Entry", id: "no id" } } }, content: [] };
  await refusedAt(
    create({ body: { "en-US": { nodeType: "document", data: {}, content: [{ nodeType: "paragraph", data: {}, content: [inline] }] } } }),
    ["fields", "body"],
    /names an entry id/,
  );
  // a chosen id may not end in a dot (its file would be x..md)
  assertError(await call("PUT", `${env}/entries/article.${unique("dot")}.`, key, { fields: { title: { "en-US": "x" } } }), 400, "BadQuery");
  await call("DELETE", `${env}/entries/${long.body.sys.id}`, key);
}));

test("client mistakes in asset and webhook definition bodies are 4xx: NUL, a file outside the default locale, control characters", cloud(async () => {
  const file = fileFrom(await upload());
  const nul = await call("POST", `${env}/assets`, key, { fields: { title: { "en-US": "a\u0000b" }, file } });
  assertError(nul, 422, "ValidationFailed");
  assert.deepEqual(nul.body.details.errors[0].path, ["fields", "title"]);
  const longType = await call("POST", `${env}/assets`, key, { fields: { file: { "en-US": { ...file["en-US"], contentType: `image/${"x".repeat(3000)}` } } } });
  assertError(longType, 422, "ValidationFailed");
  assert.match(longType.body.details.errors[0].details, /contentType must be a media type/);
  const elsewhere = await call("POST", `${env}/assets`, key, { fields: { file: { "de-DE": file["en-US"] } } });
  assertError(elsewhere, 422, "ValidationFailed");
  assert.deepEqual(elsewhere.body.details.errors.map((e: any) => e.path), [["fields", "file"]]);
  assert.match(elsewhere.body.details.errors[0].details, /default locale: fields\.file\['en-US'\]/);

  const good = { name: "h", url: "https://hooks.example/x", topics: ["Entry.publish"] };
  for (const [change, path] of [
    [{ name: "a\u0000b" }, ["name"]],
    [{ url: "https://hooks.example/\u0000" }, ["url"]],
    [{ url: "https://hooks.example/a\tb" }, ["url"]],
    [{ url: "https://hooks.example/a\nb" }, ["url"]],
    [{ headers: [{ key: "X-A", value: "\ud800" }] }, ["headers", 0]],
  ] as [Record<string, unknown>, unknown[]][]) {
    const r = await call("POST", `${space}/webhook_definitions`, key, { ...good, ...change });
    assertError(r, 422, "ValidationFailed");
    assert.deepEqual(r.body.details.errors[0].path, path, JSON.stringify(change));
  }
}));

test("a webhook definition naming a loopback or private address is refused at once unless the site allows them", cloud(async () => {
  const guarded = createContentApp({ ...host.ctx, config: { ...host.ctx.config, allowPrivateWebhookTargets: false } });
  const define = (url: string) =>
    guarded.request(`/spaces/${host.space}/webhook_definitions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "private", url, topics: ["*.*"] }),
    });
  for (const [url, reason] of [
    ["http://127.0.0.1:9/hook", /loopback/],
    ["http://localhost/hook", /loopback host localhost/],
    ["http://10.1.2.3/hook", /private/],
    ["http://[::1]/hook", /loopback/],
    ["http://169.254.169.254/latest", /link-local/],
  ] as [string, RegExp][]) {
    const r = await define(url);
    assert.equal(r.status, 422, url);
    const body = await r.json();
    assert.deepEqual(body.details.errors[0].path, ["url"]);
    assert.match(body.details.errors[0].details, reason);
  }
  // a name is judged when a delivery resolves it; and where the site allows private targets they are taken
  const named = await define("https://hooks.example/x");
  assert.equal(named.status, 201);
  const allowed = await call("POST", `${space}/webhook_definitions`, key, { name: "loopback", url: "http://127.0.0.1:9/hook", topics: ["*.*"] });
  assert.equal(allowed.status, 201);
  for (const id of [(await named.json()).sys.id, allowed.body.sys.id]) await call("DELETE", `${space}/webhook_definitions/${id}`, key);
}));
