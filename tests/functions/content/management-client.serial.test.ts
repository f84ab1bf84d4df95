// The real contentful-management client (plain API) against the host in cloud mode: the whole entry
// lifecycle and the whole asset lifecycle, as a user's script would run them.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import {
  host,
  inCloudMode,
  makerKey,
  managementClient,
  pngBytes,
  sql,
  unique,
} from "./management-support.ts";
import { createClient as deliveryClient } from "contentful";
import { createClient as createManagementClient } from "contentful-management";

const { key, maker } = await makerKey();
const client = managementClient(key);
const delivery = deliveryClient({
  space: host.space,
  accessToken: await host.key("delivery"),
  host: host.host,
  insecure: true,
  basePath: "/api/content",
  retryOnError: false,
});

test("entry lifecycle: create, update with the version, publish, unpublish, delete", () =>
  inCloudMode(async () => {
    const title = unique("Client lifecycle");
    const created: any = await client.entry.create({ contentTypeId: "article" }, {
      fields: { title: { "en-US": title }, bodyMarkdown: { "en-US": "Made by **the client**." } },
    });
    const id = created.sys.id;
    assert.equal(id, `article.${title.toLowerCase().replace(/ /g, "-")}`);
    assert.equal(created.sys.version, 1);
    assert.equal(created.sys.publishedVersion, undefined);
    assert.deepEqual(created.sys.createdBy, { sys: { type: "Link", linkType: "User", id: maker } });
    assert.equal(created.fields.body["en-US"].nodeType, "document");
    await assert.rejects(delivery.getEntry(id)); // a draft is not delivered

    created.fields.summary = { "en-US": "Now with a summary." };
    const updated: any = await client.entry.update({ entryId: id }, created);
    assert.ok(updated.sys.version > created.sys.version);
    assert.equal(updated.fields.summary["en-US"], "Now with a summary.");
    // the version just used is stale now
    await assert.rejects(
      client.entry.update({ entryId: id }, created),
      (e: Error) => e.name === "VersionMismatch",
    );

    const published = await client.entry.publish({ entryId: id }, updated);
    assert.equal(published.sys.version % 2, 0);
    assert.equal(published.sys.publishedVersion, published.sys.version);
    assert.equal(published.sys.publishedCounter, 1);
    assert.equal(typeof published.sys.publishedAt, "string");
    assert.equal(published.sys.firstPublishedAt, published.sys.publishedAt);
    assert.equal((await delivery.getEntry(id)).fields.summary, "Now with a summary.");

    const unpublished = await client.entry.unpublish({ entryId: id });
    assert.ok(unpublished.sys.version > published.sys.version);
    assert.equal(unpublished.sys.publishedVersion, undefined);
    await assert.rejects(delivery.getEntry(id));
    assert.equal((await client.entry.get({ entryId: id })).sys.id, id); // the draft stays

    await client.entry.delete({ entryId: id });
    await assert.rejects(client.entry.get({ entryId: id }), (e: Error) => e.name === "NotFound");
  }));

test("createWithId makes the entry at its id (no version header); getMany lists it", () =>
  inCloudMode(async () => {
    const id = `article.${unique("with-id")}`;
    const made = await client.entry.createWithId({ contentTypeId: "article", entryId: id }, {
      fields: { title: { "en-US": "With id" } },
    });
    assert.equal(made.sys.id, id);
    const page = await client.entry.getMany({ query: { content_type: "article", "sys.id": id } });
    assert.deepEqual(page.items.map((e) => e.sys.id), [id]);
    await assert.rejects(
      client.entry.createWithId({ contentTypeId: "article", entryId: id }, {
        fields: { title: { "en-US": "Again" } },
      }),
      (e: Error) => e.name === "VersionMismatch",
    );
    await client.entry.delete({ entryId: id });
  }));

test("asset lifecycle: upload, createFromFiles, processForAllLocales, publish, delete", () =>
  inCloudMode(async () => {
    const upload = await client.upload.create({}, { file: pngBytes(40, 30).buffer as ArrayBuffer });
    assert.equal(upload.sys.type, "Upload");
    assert.equal(
      new Date(upload.sys.expiresAt).getTime() - new Date(upload.sys.createdAt).getTime(),
      24 * 3600 * 1000,
    );
    assert.equal((await client.upload.get({ uploadId: upload.sys.id })).sys.id, upload.sys.id);

    const fileName = `${unique("pixel")}.png`;
    const asset = await client.asset.createFromFiles({}, {
      fields: {
        title: { "en-US": "A pixel" },
        description: { "en-US": "Forty by thirty" },
        file: {
          "en-US": { contentType: "image/png", fileName, file: pngBytes(40, 30).buffer as ArrayBuffer },
        },
      },
    });
    assert.equal(asset.fields.file["en-US"].url, undefined); // not processed yet
    assert.ok(asset.fields.file["en-US"].uploadFrom);

    const processed = await client.asset.processForAllLocales({}, asset, {
      processingCheckWait: 50,
      processingCheckRetries: 5,
    });
    const file = processed.fields.file["en-US"];
    assert.match(
      file.url!,
      new RegExp(`^//${host.host}/api/media/${host.space}/${asset.sys.id}/[0-9a-f]+/${fileName}$`),
    );
    assert.deepEqual(file.details, { size: 33, image: { width: 40, height: 30 } });
    const [stored] = await sql<{ key: string; size: number }[]>`
    select key, size from public.storage_objects where bucket = 'media' and key = ${`content/uploads/api/${asset.sys.id}/${fileName}`}`;
    assert.equal(stored.size, 33);
    const served = await fetch(`http:${file.url}`);
    assert.equal(served.status, 200);
    assert.deepEqual(new Uint8Array(await served.arrayBuffer()), pngBytes(40, 30));

    const published = await client.asset.publish({ assetId: asset.sys.id }, processed);
    assert.equal(published.sys.id, asset.sys.id);
    assert.equal((await delivery.getAsset(asset.sys.id)).fields.title, "A pixel");

    await client.asset.delete({ assetId: asset.sys.id });
    await assert.rejects(client.asset.get({ assetId: asset.sys.id }), (e: Error) => e.name === "NotFound");
    await assert.rejects(delivery.getAsset(asset.sys.id));
    await client.upload.delete({ uploadId: upload.sys.id });
    await assert.rejects(client.upload.get({ uploadId: upload.sys.id }), (e: Error) => e.name === "NotFound");
  }));

test("webhook definitions through the client: create, read, update with the version, delete", () =>
  inCloudMode(async () => {
    const made = await client.webhook.create({}, {
      name: "client hook",
      url: "https://hooks.example/content",
      topics: ["Entry.publish", "Asset.*"],
      headers: [{ key: "X-Plain", value: "shown" }, { key: "X-Secret", value: "hidden", secret: true }],
    } as any);
    assert.deepEqual(made.headers, [{ key: "X-Plain", value: "shown" }, { key: "X-Secret", secret: true }]);
    const read = await client.webhook.get({ webhookDefinitionId: made.sys.id });
    assert.equal(read.name, "client hook");
    const updated = await client.webhook.update({ webhookDefinitionId: made.sys.id }, {
      ...read,
      name: "renamed hook",
    });
    assert.equal(updated.sys.version, read.sys.version + 1);
    assert.equal(updated.name, "renamed hook");
    // the secret sent back without its value kept the stored one
    const [row] = await sql<{ secret_headers: { key: string; value: string }[] }[]>`
    select secret_headers from public.content_webhook_definitions where id = ${made.sys.id}`;
    assert.deepEqual(row.secret_headers, [{ key: "X-Secret", value: "hidden" }]);
    const all = await client.webhook.getMany({});
    assert.ok(all.items.some((w) => w.sys.id === made.sys.id));
    await client.webhook.delete({ webhookDefinitionId: made.sys.id });
    await assert.rejects(
      client.webhook.get({ webhookDefinitionId: made.sys.id }),
      (e: Error) => e.name === "NotFound",
    );
  }));

test("getMany takes the list arguments scripts use (match, order, select) and pages with skip to total", () =>
  inCloudMode(async () => {
    const prefix = unique("Paged");
    const ids: string[] = [];
    for (const letter of ["c", "a", "b"]) {
      const made = await client.entry.create({ contentTypeId: "article" }, {
        fields: { title: { "en-US": `${prefix} ${letter}` } },
      });
      ids.push(made.sys.id);
    }
    const seen: { id: string; title: string; fields: string[] }[] = [];
    let total = Infinity;
    for (let skip = 0; skip < total; skip += 2) {
      const page = await client.entry.getMany({
        query: {
          content_type: "article",
          "fields.title[match]": prefix,
          order: "fields.title",
          select: "sys.id,fields.title",
          limit: 2,
          skip,
        },
      });
      total = page.total;
      assert.ok(page.items.length <= 2);
      for (const item of page.items) {
        seen.push({ id: item.sys.id, title: item.fields.title["en-US"], fields: Object.keys(item.fields) });
      }
    }
    assert.equal(total, 3);
    assert.deepEqual(seen.map((s) => s.title), ["a", "b", "c"].map((l) => `${prefix} ${l}`));
    assert.ok(seen.every((s) => s.fields.length === 1), "select keeps only the title");
    for (const id of ids) await client.entry.delete({ entryId: id });
  }));

test("archive and unarchive are refused with the reason (BadRequest 405, not retried), for entries and assets", () =>
  inCloudMode(async () => {
    const made = await client.entry.create({ contentTypeId: "article" }, {
      fields: { title: { "en-US": unique("Archive me") } },
    });
    const refused = (e: Error) =>
      e.name === "BadRequest" && /"status": 405/.test(e.message) &&
      /Archiving is not offered/.test(e.message);
    await assert.rejects(client.entry.archive({ entryId: made.sys.id }), refused);
    await assert.rejects(client.entry.unarchive({ entryId: made.sys.id }), refused);
    await assert.rejects(client.asset.archive({ assetId: "some-asset" }), refused);
    await assert.rejects(client.asset.unarchive({ assetId: "some-asset" }), refused);
    // the entry is untouched and still deletable
    assert.equal((await client.entry.get({ entryId: made.sys.id })).sys.version, made.sys.version);
    await client.entry.delete({ entryId: made.sys.id });
  }));

test("asset.update renames with the version (a stale one is VersionMismatch); asset.unpublish is refused; getMany finds it by title", () =>
  inCloudMode(async () => {
    const asset = await client.asset.createFromFiles({}, {
      fields: {
        title: { "en-US": "Before" },
        description: { "en-US": "" },
        file: {
          "en-US": {
            contentType: "image/png",
            fileName: `${unique("rename")}.png`,
            file: pngBytes(6, 4).buffer as ArrayBuffer,
          },
        },
      },
    });
    const processed = await client.asset.processForAllLocales({}, asset, {
      processingCheckWait: 50,
      processingCheckRetries: 5,
    });
    const title = unique("After");
    const renamed = await client.asset.update({ assetId: asset.sys.id }, {
      ...processed,
      fields: { ...processed.fields, title: { "en-US": title } },
    });
    assert.ok(renamed.sys.version > processed.sys.version);
    assert.equal(renamed.fields.title["en-US"], title);
    assert.equal(renamed.fields.file["en-US"].url, processed.fields.file["en-US"].url, "the file is kept");
    await assert.rejects(
      client.asset.update({ assetId: asset.sys.id }, processed),
      (e: Error) => e.name === "VersionMismatch",
    );
    await assert.rejects(
      client.asset.unpublish({ assetId: asset.sys.id }),
      (e: Error) =>
        e.name === "BadQuery" && /"status": 400/.test(e.message) && /delete the asset/.test(e.message),
    );
    const found = await client.asset.getMany({ query: { "fields.title": title } });
    assert.deepEqual(found.items.map((a) => a.sys.id), [asset.sys.id]);
    await client.asset.delete({ assetId: asset.sys.id });
  }));

test("the client's nested (legacy) API: space, environment, entry and asset lifecycle, types, locales, webhooks", () =>
  inCloudMode(async () => {
    const legacy = createManagementClient({
      accessToken: key,
      host: host.host,
      hostUpload: host.host,
      insecure: true,
      basePath: "/api/content",
      retryOnError: false,
    }, { type: "legacy" });
    const space = await legacy.getSpace(host.space);
    const environment = await space.getEnvironment("master");
    assert.equal(
      environment.sys.space.sys.id,
      host.space,
      "the environment names its space, as the client needs",
    );

    const title = unique("Nested lifecycle");
    const entry = await environment.createEntry("article", { fields: { title: { "en-US": title } } });
    entry.fields.summary = { "en-US": "Written through the nested API." };
    const updated = await entry.update();
    assert.equal(updated.fields.summary["en-US"], "Written through the nested API.");
    const published = await updated.publish();
    assert.ok(published.isPublished());
    const delivered = await delivery.getEntry(published.sys.id);
    assert.equal(delivered.fields.title, title);
    const unpublished = await published.unpublish();
    assert.ok(!unpublished.isPublished());
    const listed = await environment.getEntries({ content_type: "article", "sys.id": unpublished.sys.id });
    assert.deepEqual(listed.items.map((e) => e.sys.id), [unpublished.sys.id]);
    await unpublished.delete();
    await assert.rejects(environment.getEntry(unpublished.sys.id));

    const asset = await environment.createAssetFromFiles({
      fields: {
        title: { "en-US": "Nested asset" },
        description: { "en-US": "" },
        file: {
          "en-US": {
            contentType: "image/png",
            fileName: "nested.png",
            file: pngBytes(3, 2).buffer as ArrayBuffer,
          },
        },
      },
    });
    const processed = await asset.processForAllLocales({ processingCheckWait: 50 });
    const file = processed.fields.file["en-US"] as { url?: string; details?: { image?: unknown } };
    assert.match(file.url ?? "", /nested\.png$/);
    assert.deepEqual(file.details?.image, { width: 3, height: 2 });
    const publishedAsset = await processed.publish();
    await publishedAsset.delete();

    assert.ok((await environment.getContentTypes()).items.some((t) => t.sys.id === "article"));
    assert.equal((await environment.getContentType("article")).sys.id, "article");
    assert.deepEqual((await environment.getLocales()).items.map((l) => l.code), ["en-US", "de-DE"]);
    const hook = await space.createWebhook(
      { name: unique("nested"), url: "https://hooks.example/x", topics: ["Entry.*"] } as any,
    );
    assert.ok((await space.getWebhooks()).items.some((w) => w.sys.id === hook.sys.id));
    await hook.delete();
  }));

const USER = (id: string) => ({ sys: { type: "Link", linkType: "User", id } });

test("every management read names its makers: records from the repository name the site's repository user", async () => {
  // git mode reads too: the demo site's records came from its repository
  const entries: any = await client.entry.getMany({ query: { limit: 5 } });
  assert.ok(entries.items.length > 0);
  for (const entry of entries.items) {
    assert.deepEqual(entry.sys.createdBy, USER("site-repository"), entry.sys.id);
    assert.deepEqual(entry.sys.updatedBy, USER("site-repository"), entry.sys.id);
    if (entry.sys.publishedVersion) assert.deepEqual(entry.sys.publishedBy, USER("site-repository"));
  }
  const assets: any = await client.asset.getMany({ query: { limit: 3 } });
  for (const asset of assets.items) {
    assert.deepEqual(asset.sys.createdBy, USER("site-repository"), asset.sys.id);
    assert.deepEqual(asset.sys.updatedBy, USER("site-repository"), asset.sys.id);
  }
});

test("an entry made with a key no person made names the key; edited later by a person's key, updatedBy names them", () =>
  inCloudMode(async () => {
    const bare = await host.key("management");
    const [{ id: keyId }] = await sql<{ id: string }[]>`
      select id::text from public.api_keys where created_by is null order by created_at desc limit 1`;
    const made: any = await managementClient(bare).entry.create({ contentTypeId: "article" }, {
      fields: { title: { "en-US": unique("Made by a bare key") } },
    });
    try {
      assert.deepEqual(made.sys.createdBy, USER(keyId));
      assert.deepEqual(made.sys.updatedBy, USER(keyId));
      made.fields.summary = { "en-US": "edited" };
      const edited: any = await client.entry.update({ entryId: made.sys.id }, made);
      assert.deepEqual(edited.sys.createdBy, USER(keyId));
      assert.deepEqual(edited.sys.updatedBy, USER(maker));
    } finally {
      await client.entry.delete({ entryId: made.sys.id });
    }
  }));
