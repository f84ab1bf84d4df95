// The real contentful-management client (plain API) against the host while the demo site is in git
// mode: management reads, and writes refused as the client reports them. The cloud-mode lifecycles are
// in tests/functions/content/management-client.serial.test.ts (the site's mode is switched only in that batch).
import assert from "node:assert/strict";
import { createClient } from "contentful-management";
import { test } from "../helpers/test.ts";
import { testHost } from "../helpers/host.ts";

const host = await testHost();

function client(accessToken: string) {
  return createClient(
    { accessToken, host: host.host, hostUpload: host.host, insecure: true, basePath: "/api/content", retryOnError: false },
    { type: "plain", defaults: { spaceId: host.space, environmentId: "master" } },
  );
}

const management = client(await host.key("management"));

test("entry.get and entry.getMany read the management shape", async () => {
  const entry = await management.entry.get({ entryId: "article.hello" });
  assert.equal(entry.sys.type, "Entry");
  assert.equal(typeof entry.sys.version, "number");
  assert.equal(entry.sys.publishedVersion, entry.sys.version);
  assert.equal((entry.fields.title as Record<string, string>)["en-US"], "Hello, world");
  const page = await management.entry.getMany({ query: { content_type: "wiki", limit: 2, skip: 1 } });
  assert.equal(page.items.length, 2);
  assert.equal(page.skip, 1);
  assert.ok(page.items.every((e) => e.sys.contentType.sys.id === "wiki"));
});

test("asset.get and asset.getMany read files keyed by locale; webhook.getMany lists definitions", async () => {
  const assets = await management.asset.getMany({ query: { limit: 3 } });
  assert.equal(assets.items.length, 3);
  const asset = await management.asset.get({ assetId: assets.items[0].sys.id });
  assert.ok(asset.fields.file["en-US"].url);
  const hooks = await management.webhook.getMany({});
  assert.equal(hooks.sys.type, "Array");
});

test("writes in git mode reject with BadRequest; a delivery key is AccessDenied, a revoked one AccessTokenInvalid", async () => {
  await assert.rejects(
    management.entry.create({ contentTypeId: "article" }, { fields: { title: { "en-US": "Refused" } } }),
    (e: Error) => e.name === "BadRequest" && /git mode/.test(e.message),
  );
  await assert.rejects(
    management.upload.create({}, { file: new TextEncoder().encode("bytes").buffer as ArrayBuffer }),
    (e: Error) => e.name === "BadRequest",
  );
  await assert.rejects(client(await host.key("delivery")).entry.get({ entryId: "article.hello" }), (e: Error) => e.name === "AccessDenied");
  await assert.rejects(client(await host.revokedKey("management")).entry.getMany({}), (e: Error) => e.name === "AccessTokenInvalid");
  await assert.rejects(management.entry.get({ entryId: "article.none" }), (e: Error) => e.name === "NotFound");
});
