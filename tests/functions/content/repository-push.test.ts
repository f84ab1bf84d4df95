// The repository push end to end: a cloud-mode site imported from a real git repository in a temporary
// directory, the real contentful-management client writing through a real host, the push run by
// POST /api/content/repository/push (and the worker's own pass where time must move), then git, the
// files and a re-import looked at. A private database (so this file may import its own site).
import assert from "node:assert/strict";
import { createClient } from "contentful-management";
import { test } from "../../helpers/test.ts";
import { privateDatabase } from "../../helpers/db.ts";
import { git, makeSite, MINIMAL_SITE_YAML } from "../../shared/site/temp-site.ts";
import { readConfig } from "../../../shared/config.ts";
import { createContext } from "../../../shared/context.ts";
import { freePort } from "../../../shared/embedded.ts";
import { createKey } from "../../../shared/keys.ts";
import { ensurePerson } from "../../../shared/people.ts";
import { serviceKey } from "../../../shared/service-key.ts";
import { importSite } from "../../../shared/site/import.ts";
import { readSiteDir } from "../../../shared/site/content-dir.ts";
import { pushDue } from "../../../shared/site/push.ts";
import { claimPush } from "../../../shared/site/push-store.ts";
import { serveHost } from "../../../web/host.ts";
import { Image } from "imagescript";

const PNG = await new Image(2, 3).encode(); // a real picture, as a client would upload one

const sql = await privateDatabase();
const dir = await makeSite({
  "site.yaml": MINIMAL_SITE_YAML.replace("mode: git", "mode: cloud"),
  "records/articles/hello.md": "---\ntitle: Hello\nsummary: From the directory.\n---\nThe first article.\n",
  "records/wiki/index.md": "---\ntitle: Index\n---\nThe wiki.\n",
  "media/photos/harbor.png": PNG,
});
await git(dir, ["init", "-q"]);
await git(dir, ["add", "."]);
await git(dir, ["commit", "-qm", "The site"]);
await importSite(sql, { dir });

const port = freePort();
const baseUrl = `http://localhost:${port}`;
const ctx = createContext(
  {
    ...readConfig(new Map<string, string>()),
    databaseUrl: "postgres://unused",
    port,
    publicUrl: baseUrl,
    functionsUrl: baseUrl,
    allowPrivateWebhookTargets: true,
  },
  { sql },
);
const server = serveHost(ctx, {
  port,
  hostname: "127.0.0.1",
  signal: new AbortController().signal,
  onListen: () => {},
});
void server;

const ada = await ensurePerson(sql, "ada@people.test", "admin");
await sql`update public.profiles set display_name = 'Ada Example' where id = ${ada.id}`;
const { key, id: keyId } = await createKey(sql, {
  name: "push test key",
  kind: "management",
  createdBy: ada.id,
});
const client = createClient(
  {
    accessToken: key,
    host: `localhost:${port}`,
    hostUpload: `localhost:${port}`,
    insecure: true,
    basePath: "/api/content",
    retryOnError: false,
  },
  { type: "plain", defaults: { spaceId: "tiny", environmentId: "master" } },
);

/** POST /api/content/repository/push with the service key, as a scheduler calls it. */
async function push(): Promise<{ claimed: number; pushed: number; retrying: number; failed: number }> {
  const res = await fetch(`${baseUrl}/api/content/repository/push`, {
    method: "POST",
    headers: { authorization: `Bearer ${await serviceKey(ctx)}` },
  });
  assert.equal(res.status, 200);
  return await res.json();
}

const head = (format: string) => git(dir, ["log", "-1", `--format=${format}`]).then((s) => s.trim());
const changed = (rev = "HEAD") => git(dir, ["show", "--name-status", "--format=", rev]).then((s) => s.trim());
const read = (path: string) => Deno.readTextFile(`${dir}/${path}`);
const exists = (path: string) => Deno.stat(`${dir}/${path}`).then(() => true, () => false);
const sources = async (id: string) =>
  (await sql<
    { stage: string; source: string }[]
  >`select stage, source from public.content_entries where id = ${id} order by stage`)
    .map((r) => `${r.stage}:${r.source}`);

test("publish: a commit with the record's files, authored by the key's maker; they read back as the entry; a re-import changes nothing", async () => {
  const [harbor] = await sql<
    { id: string }[]
  >`select id from public.content_assets where path = 'media/photos/harbor.png'`;
  const created: any = await client.entry.create({ contentTypeId: "article" }, {
    fields: {
      title: { "en-US": "Pushed through the API", "de-DE": "Über die API" },
      summary: { "en-US": "Two lines:\nthe second." },
      tags: { "en-US": ["api", "push"] },
      cover: { "en-US": { sys: { type: "Link", linkType: "Asset", id: harbor.id } } },
      related: { "en-US": [{ sys: { type: "Link", linkType: "Entry", id: "article.hello" } }] },
      bodyMarkdown: {
        "en-US": "Made by **the client**.\n\n![harbor](media/photos/harbor.png)",
        "de-DE": "Vom *Client*.",
      },
    },
  });
  const id = created.sys.id;
  assert.equal(id, "article.pushed-through-the-api");
  assert.equal((await push()).claimed, 0, "a draft is not pushed");
  const published: any = await client.entry.publish({ entryId: id }, created);

  const [queued] =
    await sql`select action, status, actor, key_id from public.content_pushes where entity_id = ${id}`;
  assert.deepEqual(
    { ...queued },
    { action: "publish", status: "pending", actor: ada.id, key_id: keyId },
    "queued with the change",
  );
  assert.ok(
    !(await exists("records/articles/pushed-through-the-api.md")),
    "the API call did not wait for the push",
  );

  assert.deepEqual(await push(), { claimed: 1, pushed: 1, retrying: 0, failed: 0 });
  assert.equal(await head("%s"), `Publish ${id}`);
  assert.equal(
    await head("%an <%ae>|%cn <%ce>"),
    "Ada Example <ada@people.test>|Sitewire <sitewire@tiny.test>",
  );
  assert.match(
    await head("%b"),
    new RegExp(`By Ada Example <ada@people.test> with the management key "push test key" \\(${keyId}\\)`),
  );
  assert.equal(
    await changed(),
    "A\trecords/articles/pushed-through-the-api.de-DE.md\nA\trecords/articles/pushed-through-the-api.md",
  );
  assert.equal(await git(dir, ["status", "--porcelain"]), "", "work tree and index agree with the commit");
  const [row] = await sql<
    { status: string; commit: string }[]
  >`select status, commit from public.content_pushes where entity_id = ${id}`;
  assert.deepEqual({ ...row }, { status: "pushed", commit: await head("%H") });

  const own = await read("records/articles/pushed-through-the-api.md");
  assert.match(own, /^---\ntitle: Pushed through the API\n/);
  assert.match(own, /\ncover: media\/photos\/harbor\.png\n/);
  assert.match(own, /\nrelated:\n {2}- article\.hello\n/);
  assert.match(own, /\n---\nMade by \*\*the client\*\*\.\n\n!\[harbor\]\(media\/photos\/harbor\.png\)\n$/);
  assert.equal(
    await read("records/articles/pushed-through-the-api.de-DE.md"),
    "---\ntitle: Über die API\n---\nVom *Client*.\n",
  );

  // what the import reads from the directory is the entry the database holds
  const snapshot = await readSiteDir(dir);
  const fromFile = snapshot.entries.find((e) => e.id === id)!;
  const [stored] = await sql<{ fields: unknown; links: string[]; asset_links: string[] }[]>`
    select fields, links, asset_links from public.content_entries where stage = 'published' and id = ${id}`;
  assert.deepStrictEqual(fromFile.fields, stored.fields);
  assert.deepEqual([fromFile.published, fromFile.links, fromFile.assetLinks], [
    true,
    stored.links,
    stored.asset_links,
  ]);
  assert.deepEqual(await sources(id), ["preview:file", "published:file"], "the rows are the directory's now");

  const again = await importSite(sql, { dir });
  assert.deepEqual(
    [again.entries.inserted, again.entries.updated, again.entries.deleted],
    [0, 0, 0],
    again.warnings.join("\n"),
  );
  assert.ok(!again.warnings.some((w) => w.includes("pushed-through-the-api")), again.warnings.join("\n"));
  const after: any = await client.entry.get({ entryId: id });
  assert.deepEqual(
    [after.sys.version, after.sys.publishedVersion, after.sys.updatedAt, after.sys.createdAt],
    [published.sys.version, published.sys.publishedVersion, published.sys.updatedAt, published.sys.createdAt],
    "the re-import left the API's entry as it was",
  );
});

test("unpublish: a commit where the file says published: false; delete: a commit removing the files; a re-import brings neither back", async () => {
  const id = "article.pushed-through-the-api";
  const entry: any = await client.entry.unpublish({ entryId: id });
  assert.deepEqual(await push(), { claimed: 1, pushed: 1, retrying: 0, failed: 0 });
  assert.equal(await head("%s"), `Unpublish ${id}`);
  assert.equal(await changed(), "M\trecords/articles/pushed-through-the-api.md");
  assert.match(
    await read("records/articles/pushed-through-the-api.md"),
    /\npublished: false\n(date: .*\n)?---\n/,
  );
  assert.deepEqual(await sources(id), ["preview:file"]);
  await importSite(sql, { dir });
  const unpublished: any = await client.entry.get({ entryId: id });
  assert.equal(unpublished.sys.publishedVersion, undefined, "still unpublished after a re-import");
  assert.equal(unpublished.sys.version, entry.sys.version);

  await client.entry.delete({ entryId: id });
  // before the push runs, the directory still has the record: an import must not bring it back
  const early = await importSite(sql, { dir });
  await assert.rejects(client.entry.get({ entryId: id }), (e: Error) => e.name === "NotFound");
  assert.ok(
    early.warnings.some((w) => w.startsWith("records/articles/pushed-through-the-api.md: ")),
    early.warnings.join("\n"),
  );
  assert.deepEqual(await push(), { claimed: 1, pushed: 1, retrying: 0, failed: 0 });
  assert.equal(await head("%s"), `Delete ${id}`);
  assert.equal(
    await changed(),
    "D\trecords/articles/pushed-through-the-api.de-DE.md\nD\trecords/articles/pushed-through-the-api.md",
  );
  assert.ok(!(await exists("records/articles/pushed-through-the-api.md")));
  assert.equal(await git(dir, ["ls-files", "records/articles"]), "records/articles/hello.md\n");
  await importSite(sql, { dir });
  await assert.rejects(client.entry.get({ entryId: id }), (e: Error) => e.name === "NotFound");
});

test("an asset processed through the API is committed at its library path; an entry naming it reads back; deletes remove both", async () => {
  const fileName = "pixel one.png";
  const asset = await client.asset.createFromFiles({}, {
    fields: {
      title: { "en-US": "A pixel" },
      description: { "en-US": "Two by three" },
      file: { "en-US": { contentType: "image/png", fileName, file: PNG.slice().buffer as ArrayBuffer } },
    },
  });
  const processed = await client.asset.processForAllLocales({}, asset, {
    processingCheckWait: 50,
    processingCheckRetries: 5,
  });
  const path = `content/uploads/api/${asset.sys.id}/${fileName}`;
  assert.equal((await push()).pushed, 1);
  assert.equal(await head("%s"), `Publish asset ${asset.sys.id} (${path})`);
  assert.deepEqual(await Deno.readFile(`${dir}/${path}`), PNG);

  assert.match(processed.fields.file["en-US"].url!, new RegExp(`/${asset.sys.id}/`));
  const article: any = await client.entry.create({ contentTypeId: "article" }, {
    fields: {
      title: { "en-US": "With an API cover" },
      cover: { "en-US": { sys: { type: "Link", linkType: "Asset", id: asset.sys.id } } },
    },
  });
  await client.entry.publish({ entryId: article.sys.id }, article);
  assert.equal((await push()).pushed, 1);
  assert.match(await read("records/articles/with-an-api-cover.md"), new RegExp(`\\ncover: ${path}\\n`));
  const snapshot = await readSiteDir(dir);
  assert.deepEqual(snapshot.entries.find((e) => e.id === article.sys.id)!.fields.cover, {
    "en-US": { sys: { type: "Link", linkType: "Asset", id: asset.sys.id } },
  });
  assert.deepEqual(await sources(article.sys.id), ["preview:file", "published:file"]);

  await client.entry.delete({ entryId: article.sys.id });
  await client.asset.delete({ assetId: asset.sys.id });
  assert.equal((await push()).pushed, 2);
  assert.equal(await head("%s"), `Delete asset ${asset.sys.id} (${path})`);
  assert.ok(!(await exists(`content/uploads/api/${asset.sys.id}`)), "its folder went with it");
});

test("an administrator's change made directly in SQL is pushed too, the administrator its author", async () => {
  await sql.begin(async (tx) => {
    await tx`select set_config('request.jwt.claims', ${
      JSON.stringify({ sub: ada.id, role: "authenticated" })
    }, true)`;
    await tx.unsafe("set local role authenticated");
    await tx`update public.content_entries set fields = jsonb_set(fields, '{summary,en-US}', '"Changed in SQL."')
             where id = 'article.hello'`;
  });
  assert.deepEqual(await push(), { claimed: 1, pushed: 1, retrying: 0, failed: 0 });
  assert.equal(
    await head("%s|%an|%b"),
    "Publish article.hello|Ada Example|By Ada Example <ada@people.test>, in the database.",
  );
  assert.equal(
    await read("records/articles/hello.md"),
    "---\ntitle: Hello\nsummary: Changed in SQL.\n---\nThe first article.\n",
  );
  // the update left the search text as it was, so the file (whose reading finds the new summary) is not
  // these rows exactly: the database keeps owning them, and a re-import keeps its copy
  assert.deepEqual(await sources("article.hello"), ["preview:hand", "published:hand"]);
});

test("a push that fails is recorded and retried after a backoff; one whose worker died comes back after its lease", async () => {
  const entry: any = await client.entry.create({ contentTypeId: "wiki" }, {
    fields: { title: { "en-US": "Retried" } },
  });
  await client.entry.publish({ entryId: entry.sys.id }, entry);
  const away = `${dir}-away`;
  await Deno.rename(dir, away); // the directory is gone for a while (moved, a volume not mounted)
  try {
    assert.deepEqual(await push(), { claimed: 1, pushed: 0, retrying: 1, failed: 0 });
    const [row] = await sql<{ status: string; attempts: number; last_error: string; due: boolean }[]>`
      select status, attempts, last_error, next_attempt_at > now() + interval '5 seconds' as due
      from public.content_pushes where entity_id = ${entry.sys.id}`;
    assert.deepEqual([row.status, row.attempts, row.due], ["pending", 1, true]);
    assert.match(row.last_error, /the content directory .* is not there/);
    assert.ok(
      !(await Deno.stat(dir).then(() => true, () => false)),
      "the push never made the directory itself",
    );
    assert.equal((await push()).claimed, 0, "not again before its backoff");
  } finally {
    await Deno.rename(away, dir);
  }
  const later = { ...ctx, clock: { now: () => new Date(Date.now() + 11_000) } };
  assert.deepEqual(await pushDue(later), { claimed: 1, pushed: 1, retrying: 0, failed: 0 });
  assert.equal(await head("%s"), `Publish ${entry.sys.id}`);
  const [done] = await sql<{ status: string; attempts: number; last_error: string | null }[]>`
    select status, attempts, last_error from public.content_pushes where entity_id = ${entry.sys.id}`;
  assert.deepEqual({ ...done }, { status: "pushed", attempts: 2, last_error: null });

  // a worker claims a push and dies: nobody else takes it (one push at a time) until the lease runs out
  await client.entry.delete({ entryId: entry.sys.id });
  assert.ok(await claimPush(sql, { now: new Date(), leaseSeconds: 120 }));
  assert.equal((await push()).claimed, 0);
  const afterLease = { ...ctx, clock: { now: () => new Date(Date.now() + 121_000) } };
  assert.deepEqual(await pushDue(afterLease), { claimed: 1, pushed: 1, retrying: 0, failed: 0 });
  assert.equal(await head("%s"), `Delete ${entry.sys.id}`);
});

test("pushes that can never succeed fail for good with their reason; the route takes the service key only", async () => {
  // a path an administrator wrote that leads out of the records; a push for a directory the site has left
  await sql`insert into public.content_pushes (kind, entity_id, action, paths, dir)
            select 'Entry', 'article.escape', 'delete', array['records/articles/../../../etc/x.md'], source_dir
            from public.site_settings`;
  await sql`insert into public.content_pushes (kind, entity_id, action, paths, dir)
            values ('Entry', 'article.elsewhere', 'delete', array['records/articles/elsewhere.md'], '/srv/another-site')`;
  assert.deepEqual(await push(), { claimed: 2, pushed: 0, retrying: 0, failed: 2 });
  const failed = await sql<{ entity_id: string; status: string; last_error: string }[]>`
    select entity_id, status, last_error from public.content_pushes where entity_id like 'article.e%' order by entity_id`;
  assert.deepEqual(failed.map((r) => [r.entity_id, r.status]), [["article.elsewhere", "failed"], [
    "article.escape",
    "failed",
  ]]);
  assert.match(failed[0].last_error, /^the site is imported from .* now, not from \/srv\/another-site$/);
  assert.match(failed[1].last_error, /is not a record path inside the content directory/);
  assert.equal(await git(dir, ["status", "--porcelain"]), "", "nothing was written");

  for (const authorization of [undefined, `Bearer ${key}`]) {
    const res = await fetch(`${baseUrl}/api/content/repository/push`, {
      method: "POST",
      headers: authorization ? { authorization } : {},
    });
    assert.equal(res.status, 401);
    assert.equal((await res.json()).sys.id, "AccessTokenInvalid");
  }
});
