// The import against a private in-memory PGlite (so it may replace the site's content freely).
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { fixedClock } from "../../../shared/clock.ts";
import { privateDatabase } from "../../helpers/db.ts";
import { importSite, SiteImportError } from "../../../shared/site/import.ts";
import { assetIdForPath } from "../../../shared/site/media.ts";
import { DEMO_SITE, git, makeSite, MINIMAL_SITE_YAML, writeFiles } from "./temp-site.ts";

const sql = await privateDatabase();

const clock = fixedClock("2026-01-01T00:00:00Z");

async function rows(stage: string) {
  return await sql<{ id: string; access: string; revision: number; change_seq: number }[]>`
    select id, access, revision, change_seq from public.content_entries where stage = ${stage} order by id`;
}

async function tombstones() {
  return await sql<{ id: string; kind: string; stage: string }[]>`
    select id, kind, stage from public.content_tombstones order by kind, stage, id`;
}

test("imports the demo site: settings, models, both stages, assets and their bytes", async () => {
  const result = await importSite(sql, { dir: DEMO_SITE, clock });
  assert.equal(result.slug, "demo");
  assert.equal(result.space, "demo");
  assert.deepEqual(result.locales, ["en-US", "de-DE"]);
  assert.ok(result.entries.total >= 150);
  assert.ok(result.ms < 10_000, `${result.ms} ms`);

  const [settings] = await sql`select * from public.site_settings`;
  assert.equal(settings.name, "Sitewire Demo");
  assert.equal(settings.domain, "demo.sitewire.dev");
  assert.equal(settings.mode, "git");
  assert.equal(settings.modules.network, true);
  assert.deepEqual(settings.locales[1], {
    code: "de-DE",
    name: "German",
    default: false,
    fallbackCode: "en-US",
    optional: false,
  });
  assert.deepEqual(settings.config.api, { public: true, space: "demo" });
  assert.deepEqual(settings.config.webhooks, []);
  assert.equal(settings.imported_at.toISOString(), "2026-01-01T00:00:00.000Z");

  const models =
    await sql`select id, folder, stock, position, display_field, fields from public.content_models order by position`;
  assert.equal(models.length, 14);
  assert.deepEqual(models.at(-1)!.id, "modelEvent");
  assert.equal(models.at(-1)!.stock, false);
  assert.equal(models[0].display_field, "title");
  assert.equal(models[0].fields[0].id, "title");

  const preview = await rows("preview");
  const published = await rows("published");
  assert.equal(preview.length, result.entries.total);
  assert.equal(published.length, result.entries.published);
  assert.equal(result.entries.inserted, preview.length + published.length);
  const publishedIds = new Set(published.map((r) => r.id));
  for (
    const id of [
      "article.draft-notes",
      "book.unreleased",
      "product.retired-cap",
      "modelEvent.cancelled-meetup",
    ]
  ) {
    assert.ok(preview.some((r) => r.id === id), `${id} has a preview row`);
    assert.ok(!publishedIds.has(id), `${id} has no published row`);
  }
  assert.equal(preview.find((r) => r.id === "article.members-only")!.access, "member");

  const [hello] =
    await sql`select * from public.content_entries where stage = 'published' and id = 'article.hello'`;
  assert.deepEqual(hello.fields.title, { "en-US": "Hello, world", "de-DE": "Hallo, Welt" });
  assert.deepEqual(hello.links, ["article.rich-text-tour", "wiki.index"]);
  assert.deepEqual(hello.asset_links, [assetIdForPath("media/photos/harbor.jpg")]);
  assert.equal(hello.model_id, "article");
  assert.equal(hello.path, "records/articles/hello.md");
  assert.equal(hello.created_at.toISOString(), "2025-01-15T00:00:00.000Z");
  const [previewHello] =
    await sql`select * from public.content_entries where stage = 'preview' and id = 'article.hello'`;
  assert.deepEqual({ ...previewHello, stage: "", change_seq: 0 }, { ...hello, stage: "", change_seq: 0 });

  const linking = await sql`select id from public.content_entries
    where stage = 'published' and links @> array['article.hello'] order by id`;
  assert.deepEqual(linking.map((r) => r.id), [
    "article.broken-links",
    "article.rich-text-tour",
    "modelEvent.launch-party",
  ]);
  const found =
    await sql`select id from public.content_entries where stage = 'published' and search_text ilike '%hallo, welt%'`;
  assert.deepEqual(found.map((r) => r.id), ["article.hello"]);

  const [harbor] = await sql`select * from public.content_assets where path = 'media/photos/harbor.jpg'`;
  assert.deepEqual(
    [
      harbor.id,
      harbor.file_name,
      harbor.content_type,
      harbor.width,
      harbor.height,
      harbor.storage_key,
      harbor.published,
    ],
    [
      assetIdForPath("media/photos/harbor.jpg"),
      "harbor.jpg",
      "image/jpeg",
      640,
      480,
      "media/photos/harbor.jpg",
      true,
    ],
  );
  assert.deepEqual(harbor.title, { "en-US": "harbor" });
  const [object] =
    await sql`select size, content_type, bytes from public.storage_objects where bucket = 'media' and key = 'media/photos/harbor.jpg'`;
  assert.equal(object.size, harbor.size);
  assert.deepEqual(new Uint8Array(object.bytes), await Deno.readFile(`${DEMO_SITE}/media/photos/harbor.jpg`));
  const [{ count: objects }] =
    await sql`select count(*)::int as count from public.storage_objects where bucket = 'media'`;
  assert.equal(
    objects,
    result.assets.total - 1,
    "every library file has its bytes; the external picture has none",
  );
});

test("a second import of the same directory rewrites nothing", async () => {
  await importSite(sql, { dir: DEMO_SITE, clock });
  const before = await rows("preview");
  const [{ max: seqBefore }] = await sql`select max(change_seq) as max from public.content_entries`;
  const result = await importSite(sql, { dir: DEMO_SITE, clock });
  assert.equal(result.entries.inserted + result.entries.updated + result.entries.deleted, 0);
  assert.equal(
    result.assets.inserted + result.assets.updated + result.assets.deleted + result.assets.bytesWritten,
    0,
  );
  assert.equal(result.models.inserted + result.models.updated + result.models.deleted, 0);
  assert.deepEqual(await rows("preview"), before);
  const [{ max: seqAfter }] = await sql`select max(change_seq) as max from public.content_entries`;
  assert.equal(seqAfter, seqBefore);
});

test("removed records and files are deleted and leave tombstones; changed ones are rewritten", async () => {
  const dir = await makeSite({
    "records/articles/keep.md": "---\ntitle: Keep\n---\nBody\n",
    "records/articles/gone.md": "---\ntitle: Gone\n---\n",
    "records/articles/later.md": "---\ntitle: Later\n---\n",
    "media/a.txt": "a",
    "media/b.txt": "b",
  });
  try {
    const first = await importSite(sql, { dir, clock });
    assert.deepEqual([first.entries.total, first.entries.inserted, first.assets.total], [3, 6, 2]);
    assert.deepEqual(
      (await tombstones()).filter((t) =>
        t.kind === "DeletedEntry" && t.id.startsWith("article.") &&
        ["article.keep", "article.gone", "article.later"].includes(t.id)
      ),
      [],
    );
    const [{ change_seq: keepSeq }] =
      await sql`select change_seq from public.content_entries where stage = 'published' and id = 'article.keep'`;

    const laterMtime = (await Deno.stat(`${dir}/records/articles/later.md`)).mtime!;
    await Deno.remove(`${dir}/records/articles/gone.md`);
    await Deno.remove(`${dir}/media/b.txt`);
    await writeFiles(dir, {
      "records/articles/keep.md": "---\ntitle: Keep (changed)\n---\nBody\n",
      "records/articles/later.md": "---\ntitle: Later\npublished: false\n---\n",
    });
    // outside git a record's updatedAt is its file's mtime: pin it so only the content decides what changed
    // (else a rewrite that crosses a second boundary also rewrites later's preview row)
    await Deno.utime(`${dir}/records/articles/later.md`, laterMtime, laterMtime);
    const second = await importSite(sql, { dir, clock });
    assert.equal(second.entries.deleted, 3, "gone in both stages, later's published row");
    assert.equal(second.entries.updated, 2, "keep in both stages");
    assert.equal(second.assets.deleted, 1);

    const stones = await tombstones();
    const has = (id: string, kind: string, stage: string) =>
      stones.some((t) => t.id === id && t.kind === kind && t.stage === stage);
    assert.ok(has("article.gone", "DeletedEntry", "published"));
    assert.ok(has("article.gone", "DeletedEntry", "preview"));
    assert.ok(has("article.later", "DeletedEntry", "published"));
    assert.ok(!has("article.later", "DeletedEntry", "preview"));
    assert.ok(has(assetIdForPath("media/b.txt"), "DeletedAsset", "published"));
    assert.deepEqual(
      (await sql`select key from public.storage_objects where bucket = 'media'`).map((r) => r.key),
      ["media/a.txt"],
    );

    const [keep] =
      await sql`select fields, change_seq from public.content_entries where stage = 'published' and id = 'article.keep'`;
    assert.deepEqual(keep.fields.title, { "en-US": "Keep (changed)" });
    assert.ok(keep.change_seq > keepSeq, "a changed row takes a new sequence number");
    // the demo's entries are gone too: the directory replaces the site's content
    assert.equal((await rows("preview")).length, 2);
    assert.ok(stones.some((t) => t.id === "article.hello" && t.stage === "published"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

test("git mode: revision counts the commits touching a record, times come from the first and last", async () => {
  const dir = await makeSite({
    "records/articles/a.md": "---\ntitle: A\n---\none\n",
    "records/pages/p.md": "---\ntitle: P\n---\n",
  });
  try {
    await git(dir, ["init", "-q"]);
    await git(dir, ["add", "."], "2024-05-01T10:00:00Z");
    await git(dir, ["commit", "-qm", "first"], "2024-05-01T10:00:00Z");
    await writeFiles(dir, { "records/articles/a.md": "---\ntitle: A\n---\ntwo\n" });
    await git(dir, ["commit", "-qam", "second"], "2024-06-02T12:00:00Z");
    await writeFiles(dir, {
      "records/articles/a.de-DE.md": "---\ntitle: A (de)\n---\n",
      "records/articles/new.md": "---\ntitle: New\ndate: 2023-01-01\n---\n",
    });
    await git(dir, ["add", "records/articles/a.de-DE.md"], "2024-07-03T08:00:00Z");
    await git(dir, ["commit", "-qm", "third"], "2024-07-03T08:00:00Z");

    const result = await importSite(sql, { dir, clock });
    assert.equal(result.mode, "git");
    const entries = await sql`select id, revision, created_at, updated_at from public.content_entries
      where stage = 'preview' order by id`;
    const byId = Object.fromEntries(entries.map((e) => [e.id, e]));
    assert.equal(byId["article.a"].revision, 3, "two commits of a.md and one of its de-DE sibling");
    assert.equal(byId["article.a"].created_at.toISOString(), "2024-05-01T10:00:00.000Z");
    assert.equal(byId["article.a"].updated_at.toISOString(), "2024-07-03T08:00:00.000Z");
    assert.equal(byId["page.p"].revision, 1);
    assert.equal(byId["article.new"].revision, 1, "an uncommitted file");
    assert.equal(
      byId["article.new"].created_at.toISOString(),
      "2023-01-01T00:00:00.000Z",
      "the front matter date wins",
    );

    const cloud = await importSite(sql, { dir, clock, modeOverride: "cloud" });
    assert.equal(cloud.mode, "cloud");
    const [a] =
      await sql`select revision from public.content_entries where stage = 'preview' and id = 'article.a'`;
    assert.equal(a.revision, 1);
    const [settings] = await sql`select mode from public.site_settings`;
    assert.equal(settings.mode, "cloud");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

test("git mode two commits touching a file give revision 2", async () => {
  const dir = await makeSite({ "records/wiki/w.md": "---\ntitle: W\n---\nv1\n" });
  try {
    await git(dir, ["init", "-q"]);
    await git(dir, ["add", "."]);
    await git(dir, ["commit", "-qm", "one"], "2024-01-01T00:00:00Z");
    await writeFiles(dir, { "records/wiki/w.md": "---\ntitle: W\n---\nv2\n" });
    await git(dir, ["commit", "-qam", "two"], "2024-02-01T00:00:00Z");
    await importSite(sql, { dir, clock });
    const [w] =
      await sql`select revision, updated_at from public.content_entries where stage = 'published' and id = 'wiki.w'`;
    assert.equal(w.revision, 2);
    assert.equal(w.updated_at.toISOString(), "2024-02-01T00:00:00.000Z");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

test("a cloud-mode re-import removes and rewrites only its own rows: what was made by hand stays", async () => {
  const dir = await makeSite({
    "site.yaml": MINIMAL_SITE_YAML.replace("mode: git", "mode: cloud"),
    "records/articles/keep.md": "---\ntitle: Keep\n---\n",
    "records/articles/gone.md": "---\ntitle: Gone\n---\n",
    "records/articles/edited.md": "---\ntitle: Edited in the file\n---\n",
    "media/a.txt": "a",
  });
  const source = async (table: "content_entries" | "content_assets", id: string) =>
    (await sql<{ source: string }[]>`select distinct source from ${sql(`public.${table}`)} where id = ${id}`).map((r) => r.source);
  const title = async (id: string) =>
    (await sql<{ fields: any }[]>`select fields from public.content_entries where stage = 'preview' and id = ${id}`)[0]?.fields.title["en-US"];
  try {
    assert.equal((await importSite(sql, { dir, clock })).mode, "cloud");
    // by hand, as the management API writes (any writer but the import): a new entry in both stages,
    // an imported entry changed, an asset processed into the library with its bytes
    await sql.begin(async (tx) => {
      for (const stage of ["preview", "published"]) {
        await tx`insert into public.content_entries (stage, id, model_id, path, fields)
                 values (${stage}, 'article.api-made', 'article', 'records/articles/api-made.md', ${tx.json({ title: { "en-US": "API" } })})`;
      }
      await tx`update public.content_entries set fields = ${tx.json({ title: { "en-US": "Edited by hand" } })}
               where stage = 'preview' and id = 'article.edited'`;
      await tx`insert into public.content_assets (id, path, file_name, content_type, size, content_hash, storage_key)
               values ('api-asset', 'content/uploads/api/api-asset/b.txt', 'b.txt', 'text/plain', 1, 'h', 'content/uploads/api/api-asset/b.txt')`;
      await tx`insert into public.storage_objects (bucket, key, content_type, size, bytes)
               values ('media', 'content/uploads/api/api-asset/b.txt', 'text/plain', 1, ${new Uint8Array([98])})`;
    });
    assert.deepEqual(await source("content_entries", "article.api-made"), ["hand"]);
    assert.deepEqual(await source("content_entries", "article.edited"), ["file", "hand"]); // the draft changed
    assert.deepEqual(await source("content_entries", "article.keep"), ["file"]);
    assert.deepEqual(await source("content_assets", "api-asset"), ["hand"]);

    await Deno.remove(`${dir}/records/articles/gone.md`);
    await Deno.remove(`${dir}/media/a.txt`);
    await writeFiles(dir, { "records/articles/edited.md": "---\ntitle: Edited in the file again\n---\n" });
    const second = await importSite(sql, { dir, clock });
    assert.equal(second.entries.deleted, 2, "gone in both stages");
    assert.equal(second.assets.deleted, 1, "media/a.txt");
    assert.deepEqual(
      (await rows("preview")).map((r) => r.id),
      ["article.api-made", "article.edited", "article.keep"],
    );
    assert.deepEqual((await rows("published")).map((r) => r.id), ["article.api-made", "article.edited", "article.keep"]);
    assert.equal(await title("article.edited"), "Edited by hand", "the database's copy wins in cloud mode");
    assert.ok(second.warnings.some((w) => /^records\/articles\/edited\.md: changed through the API/.test(w)), second.warnings.join("\n"));
    assert.deepEqual(
      (await sql`select key from public.storage_objects where bucket = 'media' order by key`).map((r) => r.key),
      ["content/uploads/api/api-asset/b.txt"],
    );
    assert.deepEqual(await source("content_entries", "article.keep"), ["file"]);

    // in git mode the directory owns every row: hand-made ones go, shadowed records are applied
    const owned = await importSite(sql, { dir, clock, modeOverride: "git" });
    assert.equal(owned.warnings.length, 0);
    assert.deepEqual((await rows("preview")).map((r) => r.id), ["article.edited", "article.keep"]);
    assert.equal(await title("article.edited"), "Edited in the file again");
    assert.deepEqual(await source("content_entries", "article.edited"), ["file"]);
    assert.deepEqual(await source("content_assets", "api-asset"), []);
    assert.equal((await sql`select 1 from public.storage_objects where bucket = 'media'`).length, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

test("a cloud-mode re-import refuses to drop a model that entries made by hand still use", async () => {
  const model = "name: Event\nfields:\n  - { id: title, type: Symbol }\n";
  const dir = await makeSite({
    "site.yaml": MINIMAL_SITE_YAML.replace("mode: git", "mode: cloud"),
    "models/events.yaml": model,
    "records/events/launch.md": "---\ntitle: Launch\n---\n",
  });
  try {
    await importSite(sql, { dir, clock });
    await sql`insert into public.content_entries (stage, id, model_id, path, fields)
              values ('preview', 'modelEvent.by-hand', 'modelEvent', 'records/events/by-hand.md', '{}')`;
    await Deno.remove(`${dir}/models/events.yaml`);
    await Deno.remove(`${dir}/records/events`, { recursive: true });
    const before = await rows("preview");
    await assert.rejects(
      importSite(sql, { dir, clock }),
      (e: unknown) =>
        e instanceof SiteImportError && e.file === "models/events" &&
        /modelEvent is gone from the directory, but entries made through the API still use it \(modelEvent\.by-hand\)/.test(e.message),
    );
    assert.deepEqual(await rows("preview"), before, "nothing changed");
    await sql`delete from public.content_entries where id = 'modelEvent.by-hand'`;
    await importSite(sql, { dir, clock });
    assert.equal((await sql`select 1 from public.content_models where id = 'modelEvent'`).length, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

test("an import that fails changes nothing, and the error names the file", async () => {
  await importSite(sql, { dir: DEMO_SITE, clock });
  const before = await rows("preview");
  const dir = await makeSite({ "records/articles/broken.md": "---\ntitle: [oops\n---\n" });
  try {
    await assert.rejects(
      importSite(sql, { dir, clock }),
      (e: unknown) =>
        e instanceof SiteImportError &&
        /^records\/articles\/broken\.md: front matter is not valid YAML/.test(e.message),
    );
    assert.deepEqual(await rows("preview"), before);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

test("progress is reported while importing", async () => {
  const messages: string[] = [];
  await importSite(sql, { dir: DEMO_SITE, clock, onProgress: (m) => messages.push(m) });
  assert.ok(messages.some((m) => m.startsWith("site demo")));
  assert.ok(messages.some((m) => m.startsWith("entry rows")));
});
