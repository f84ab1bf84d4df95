// Content webhooks through the outbox: definitions' topics decide what is written, the triggers write it
// in the writing transaction (API writes and direct SQL alike), the dispatcher delivers with the
// definition's headers (secret ones added at send time), records last_at / last_error, and retries.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { createDispatcher } from "../../../shared/webhooks/dispatcher.ts";
import { startReceiver, type Receiver } from "../../shared/webhooks/support.ts";
import { contentWebhookAdapter } from "../../../functions/content/webhook-adapter.ts";
import { serviceKey } from "../../../functions/content/routes/management-uploads.ts";
import { enqueueWebhook } from "../../../shared/webhooks/outbox.ts";
import { assertError, call, env, host, inCloudMode, makerKey, MANAGEMENT, pngBytes, space, sql, unique } from "./management-support.ts";

const { key } = await makerKey();

/** The dispatcher as the dev host runs it, with a movable clock so retries come due without waiting. */
function dispatcher() {
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  const d = createDispatcher({ sql, clock, adapters: { content: contentWebhookAdapter(sql, clock) }, allowPrivate: true, listen: false });
  return { ...d, later(ms: number) { offsetMs += ms; } };
}

async function deliver(d: ReturnType<typeof dispatcher>, receiver: Receiver, count: number) {
  for (let i = 0; i < 50 && receiver.receipts.length < count; i++) {
    await d.runOnce();
    if (receiver.receipts.length < count) await new Promise((r) => setTimeout(r, 20));
  }
  assert.equal(receiver.receipts.length, count, receiver.receipts.map((r) => r.headers.get("x-contentful-topic")).join(", "));
}

async function define(receiver: Receiver, topics: string[], extra: Record<string, unknown> = {}) {
  const r = await call("POST", `${space}/webhook_definitions`, key, {
    name: unique("hook"),
    url: `${receiver.url}/hook`,
    topics,
    headers: [{ key: "X-Shown", value: "plain" }, { key: "X-Token", value: "s3cret", secret: true }],
    ...extra,
  });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body;
}

async function withReceiver(body: (receiver: Receiver, hooks: string[]) => Promise<void>) {
  const receiver = startReceiver();
  const hooks: string[] = [];
  try {
    await body(receiver, hooks);
  } finally {
    await sql`delete from public.content_webhook_definitions where id = any(${hooks}::text[])`;
    await receiver.close();
  }
}

const topics = (receiver: Receiver) => receiver.receipts.map((r) => r.headers.get("x-contentful-topic"));

test("an entry's lifecycle delivers create, save, publish, unpublish and delete with headers and bodies", () =>
  inCloudMode(() => withReceiver(async (receiver, hooks) => {
    const hook = await define(receiver, ["Entry.*"]);
    hooks.push(hook.sys.id);
    const d = dispatcher();
    const created = await call("POST", `${env}/entries`, key, { fields: { title: { "en-US": unique("Hooked") } } }, { "x-contentful-content-type": "article" });
    const id = created.body.sys.id;
    const saved = await call("PUT", `${env}/entries/${id}`, key, { fields: { title: { "en-US": "Hooked again" } } }, { "x-contentful-version": String(created.body.sys.version) });
    const published = await call("PUT", `${env}/entries/${id}/published`, key, undefined, { "x-contentful-version": String(saved.body.sys.version) });
    await call("DELETE", `${env}/entries/${id}/published`, key);
    assert.equal((await call("DELETE", `${env}/entries/${id}`, key)).status, 204);
    await deliver(d, receiver, 5);
    // one pass sends a batch at once, so receipts may arrive in any order: put them in event order
    const order = ["create", "save", "publish", "unpublish", "delete"].map((e) => `ContentManagement.Entry.${e}`);
    receiver.receipts.sort((a, b) => order.indexOf(a.headers.get("x-contentful-topic")!) - order.indexOf(b.headers.get("x-contentful-topic")!));
    assert.deepEqual(topics(receiver), order);
    for (const receipt of receiver.receipts) {
      assert.equal(receipt.path, "/hook");
      assert.equal(receipt.headers.get("x-contentful-webhook-name"), hook.name);
      assert.equal(receipt.headers.get("content-type"), MANAGEMENT);
      assert.equal(receipt.headers.get("x-shown"), "plain");
      assert.equal(receipt.headers.get("x-token"), "s3cret"); // delivered, never read back
    }
    const bodies = receiver.receipts.map((r) => JSON.parse(r.body));
    assert.equal(bodies[0].sys.id, id);
    assert.equal(bodies[0].sys.version, created.body.sys.version);
    assert.equal(bodies[1].fields.title["en-US"], "Hooked again");
    assert.deepEqual(bodies[2], published.body); // the publish body is the entry as the API answered it
    assert.equal(bodies[3].sys.publishedVersion, undefined);
    assert.equal(bodies[4].sys.type, "DeletedEntry");
    assert.equal(bodies[4].sys.id, id);
    assert.equal(typeof bodies[4].sys.deletedAt, "string");
    const [row] = await sql<{ last_at: Date | null; last_error: string | null; last_status: number }[]>`
      select last_at, last_error, last_status from public.content_webhook_definitions where id = ${hook.sys.id}`;
    assert.ok(row.last_at);
    assert.equal(row.last_error, null);
    assert.equal(row.last_status, 200);
    // the outbox keeps no secret header: the adapter adds it at send time
    const stored = await sql<{ headers: Record<string, string> }[]>`
      select headers from public.webhook_outbox where api = 'content' and subscription_id = ${hook.sys.id}`;
    assert.equal(stored.length, 5);
    assert.ok(stored.every((r) => !("X-Token" in r.headers) && r.headers["X-Shown"] === "plain"));
  })));

test("an asset's lifecycle delivers create, publish (processing), save and delete with a DeletedAsset body", () =>
  inCloudMode(() => withReceiver(async (receiver, hooks) => {
    const hook = await define(receiver, ["Asset.*"]);
    hooks.push(hook.sys.id);
    const d = dispatcher();
    const upload = await call("POST", `${space}/uploads`, key, pngBytes(4, 2), { "content-type": "application/octet-stream" });
    const file = { "en-US": { fileName: "life.png", contentType: "image/png", uploadFrom: { sys: { type: "Link", linkType: "Upload", id: upload.body.sys.id } } } };
    const created = await call("POST", `${env}/assets`, key, { fields: { title: { "en-US": "Alive" }, file } });
    const id = created.body.sys.id;
    assert.equal((await call("PUT", `${env}/assets/${id}/files/en-US/process`, key)).status, 204);
    const processed = await call("GET", `${env}/assets/${id}`, key);
    const renamed = await call("PUT", `${env}/assets/${id}`, key, {
      fields: { title: { "en-US": "Renamed" }, file: processed.body.fields.file },
    }, { "x-contentful-version": String(processed.body.sys.version) });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.equal((await call("DELETE", `${env}/assets/${id}`, key)).status, 204);
    await deliver(d, receiver, 4);
    const order = ["create", "publish", "save", "delete"].map((e) => `ContentManagement.Asset.${e}`);
    receiver.receipts.sort((a, b) => order.indexOf(a.headers.get("x-contentful-topic")!) - order.indexOf(b.headers.get("x-contentful-topic")!));
    assert.deepEqual(topics(receiver), order);
    for (const receipt of receiver.receipts) {
      assert.equal(receipt.headers.get("x-contentful-webhook-name"), hook.name);
      assert.equal(receipt.headers.get("content-type"), MANAGEMENT);
      assert.equal(receipt.headers.get("x-token"), "s3cret");
    }
    const [create, publish, save, gone] = receiver.receipts.map((r) => JSON.parse(r.body));
    assert.equal(create.sys.id, id);
    assert.equal(create.fields.title["en-US"], "Alive");
    assert.equal(create.fields.file["en-US"].url, undefined, "pending until processed");
    assert.equal(publish.fields.file["en-US"].details.image.width, 4);
    assert.deepEqual(save, renamed.body); // the save body is the asset as the API answered it
    assert.equal(save.fields.title["en-US"], "Renamed");
    assert.equal(gone.sys.type, "DeletedAsset");
    assert.equal(gone.sys.id, id);
    assert.deepEqual(gone.sys.space, { sys: { type: "Link", linkType: "Space", id: host.space } });
    assert.equal(gone.sys.environment.sys.id, "master");
    assert.equal(typeof gone.sys.deletedAt, "string");
    assert.equal(typeof gone.sys.createdAt, "string");
    assert.equal(gone.fields, undefined);
  })));

test("topics match Type.event, Type.*, *.event and *.*; nothing is written where none matches", () =>
  inCloudMode(() => withReceiver(async (receiver, hooks) => {
    const exact = await define(receiver, ["Asset.create"]);
    const anyPublish = await define(receiver, ["*.publish"]);
    const everything = await define(receiver, ["*.*"]);
    hooks.push(exact.sys.id, anyPublish.sys.id, everything.sys.id);
    const d = dispatcher();
    const upload = await call("POST", `${space}/uploads`, key, pngBytes(2, 2), { "content-type": "application/octet-stream" });
    const asset = await call("POST", `${env}/assets`, key, {
      fields: { file: { "en-US": { fileName: "dot.png", contentType: "image/png", uploadFrom: { sys: { type: "Link", linkType: "Upload", id: upload.body.sys.id } } } } },
    });
    assert.equal(asset.status, 201, JSON.stringify(asset.body));
    assert.equal((await call("PUT", `${env}/assets/${asset.body.sys.id}/files/en-US/process`, key)).status, 204);
    await deliver(d, receiver, 4);
    const byHook = (h: any) => receiver.receipts.filter((r) => r.headers.get("x-contentful-webhook-name") === h.name).map((r) => r.headers.get("x-contentful-topic"));
    assert.deepEqual(byHook(exact), ["ContentManagement.Asset.create"]);
    assert.deepEqual(byHook(anyPublish), ["ContentManagement.Asset.publish"]); // processing publishes
    assert.deepEqual(byHook(everything).sort(), ["ContentManagement.Asset.create", "ContentManagement.Asset.publish"]);
    const publishBody = JSON.parse(receiver.receipts.find((r) => r.headers.get("x-contentful-topic")?.endsWith("publish"))!.body);
    assert.equal(publishBody.fields.file["en-US"].details.image.width, 2);
    // no definition wants Entry.save: an entry change writes no outbox row for these
    const before = await sql<{ n: number }[]>`select count(*)::int as n from public.webhook_outbox where api = 'content'`;
    await sql`delete from public.content_webhook_definitions where id = any(${hooks}::text[])`;
    await sql`update public.content_assets set title = ${sql.json({ "en-US": "renamed" })} where id = ${asset.body.sys.id}`;
    const after = await sql<{ n: number }[]>`select count(*)::int as n from public.webhook_outbox where api = 'content'`;
    assert.equal(after[0].n, before[0].n);
    assert.equal((await call("DELETE", `${env}/assets/${asset.body.sys.id}`, key)).status, 204);
  })));

test("publishing a processed asset delivers Asset.publish again; a refused publish writes nothing", () =>
  inCloudMode(() => withReceiver(async (receiver, hooks) => {
    const upload = await call("POST", `${space}/uploads`, key, pngBytes(2, 3), { "content-type": "application/octet-stream" });
    const asset = await call("POST", `${env}/assets`, key, {
      fields: { file: { "en-US": { fileName: "again.png", contentType: "image/png", uploadFrom: { sys: { type: "Link", linkType: "Upload", id: upload.body.sys.id } } } } },
    });
    const id = asset.body.sys.id;
    const hook = await define(receiver, ["Asset.publish"]);
    hooks.push(hook.sys.id);
    const d = dispatcher();
    assert.equal((await call("PUT", `${env}/assets/${id}/published`, key)).status, 422); // not processed yet
    assert.equal((await sql`select 1 from public.webhook_outbox where subscription_id = ${hook.sys.id}`).length, 0);
    assert.equal((await call("PUT", `${env}/assets/${id}/files/en-US/process`, key)).status, 204);
    const processed = await call("GET", `${env}/assets/${id}`, key);
    const published = await call("PUT", `${env}/assets/${id}/published`, key, undefined, { "x-contentful-version": String(processed.body.sys.version) });
    assert.equal(published.status, 200);
    await deliver(d, receiver, 2);
    assert.deepEqual(topics(receiver), ["ContentManagement.Asset.publish", "ContentManagement.Asset.publish"]);
    for (const receipt of receiver.receipts) assert.deepEqual(JSON.parse(receipt.body), published.body);
    assert.equal((await call("DELETE", `${env}/assets/${id}`, key)).status, 204);
  })));

test("a change made in SQL (an administrator's UPDATE) delivers too, naming the person", () =>
  withReceiver(async (receiver, hooks) => {
    const [admin] = await sql<{ id: string }[]>`
      insert into auth.users (email) values (${`${unique("admin")}@people.test`}) returning id`;
    await sql`insert into public.profiles (id, email, role) values (${admin.id}, ${`${admin.id}@people.test`}, 'admin')`;
    const [{ id: hookId }] = await sql<{ id: string }[]>`
      insert into public.content_webhook_definitions (id, name, url, topics)
      values (${unique("sql-hook")}, 'sql hook', ${`${receiver.url}/sql`}, array['Entry.save', 'Entry.publish']) returning id`;
    hooks.push(hookId);
    const d = dispatcher();
    const [before] = await sql<{ fields: any }[]>`select fields from public.content_entries where stage = 'preview' and id = 'article.hello'`;
    try {
      await sql.begin(async (tx) => {
        await tx`select set_config('request.jwt.claims', ${JSON.stringify({ sub: admin.id, role: "authenticated" })}, true)`;
        await tx.unsafe("set local role authenticated");
        await tx`update public.content_entries set fields = jsonb_set(fields, '{summary,en-US}', '"Changed in the admin"')
                 where stage = 'preview' and id = 'article.hello'`;
      });
      await deliver(d, receiver, 1);
      assert.equal(receiver.receipts[0].headers.get("x-contentful-topic"), "ContentManagement.Entry.save");
      const body = JSON.parse(receiver.receipts[0].body);
      assert.equal(body.fields.summary["en-US"], "Changed in the admin");
      assert.deepEqual(body.sys.updatedBy, { sys: { type: "Link", linkType: "User", id: admin.id } });
      assert.equal(body.sys.version % 2, 1); // the draft now differs from what is published
    } finally {
      await sql`update public.content_entries set fields = ${sql.json(before.fields)} where stage = 'preview' and id = 'article.hello'`;
      await deliver(d, receiver, 2); // putting it back is a save too
    }
  }));

test("a failed delivery records last_error and is retried with backoff until it lands", () =>
  inCloudMode(() => withReceiver(async (receiver, hooks) => {
    const hook = await define(receiver, ["Entry.create"]);
    hooks.push(hook.sys.id);
    receiver.reply = (n) => (n === 0 ? "500" : "ok");
    const d = dispatcher();
    const created = await call("POST", `${env}/entries`, key, { fields: { title: { "en-US": unique("Retried") } } }, { "x-contentful-content-type": "article" });
    await deliver(d, receiver, 1);
    const [failed] = await sql<{ last_error: string; last_status: number }[]>`
      select last_error, last_status from public.content_webhook_definitions where id = ${hook.sys.id}`;
    assert.equal(failed.last_error, "HTTP 500");
    assert.equal(failed.last_status, 500);
    assert.equal((await d.runOnce()).claimed, 0); // not due yet: backoff
    d.later(11_000);
    await deliver(d, receiver, 2);
    assert.equal(receiver.receipts[1].body, receiver.receipts[0].body); // the same bytes again
    const [landed] = await sql<{ last_error: string | null }[]>`
      select last_error from public.content_webhook_definitions where id = ${hook.sys.id}`;
    assert.equal(landed.last_error, null);
    await call("DELETE", `${env}/entries/${created.body.sys.id}`, key);
  })));

test("an inactive or deleted definition gets nothing; the dispatcher gives its rows up", () =>
  inCloudMode(() => withReceiver(async (receiver, hooks) => {
    const hook = await define(receiver, ["Entry.create", "Entry.delete"]);
    hooks.push(hook.sys.id);
    const d = dispatcher();
    const created = await call("POST", `${env}/entries`, key, { fields: { title: { "en-US": unique("Switched off") } } }, { "x-contentful-content-type": "article" });
    await sql`update public.content_webhook_definitions set active = false where id = ${hook.sys.id}`;
    await d.runOnce();
    assert.equal(receiver.receipts.length, 0);
    const [row] = await sql<{ status: string }[]>`
      select status from public.webhook_outbox where subscription_id = ${hook.sys.id} order by id desc limit 1`;
    assert.equal(row.status, "failed");
    await call("DELETE", `${env}/entries/${created.body.sys.id}`, key);
    const [{ n }] = await sql<{ n: number }[]>`select count(*)::int as n from public.webhook_outbox where subscription_id = ${hook.sys.id}`;
    assert.equal(n, 1); // inactive: the delete wrote nothing
  })));

test("definitions declared in the site's configuration are source file, kept in step with it", async () => {
  const [before] = await sql<{ config: any }[]>`select config from public.site_settings`;
  const declared = { api: "content", id: "declared-hook", name: "declared", url: "https://hooks.example/declared", topics: ["Entry.publish"], headers: [{ key: "X-Key", value: "k", secret: true }] };
  try {
    await sql`update public.site_settings set config = ${sql.json({ ...before.config, webhooks: [declared, { api: "forms", url: "https://x.example" }] })}`;
    const [row] = await sql<any[]>`select source, topics, headers, secret_headers from public.content_webhook_definitions where id = 'declared-hook'`;
    assert.equal(row.source, "file");
    assert.deepEqual(row.topics, ["Entry.publish"]);
    assert.deepEqual(row.secret_headers, [{ key: "X-Key", value: "k" }]);
    assert.equal((await sql`select 1 from public.content_webhook_definitions where source = 'file'`).length, 1); // forms' is not ours
    await inCloudMode(async () => {
      const change = await call("PUT", `${space}/webhook_definitions/declared-hook`, key, { name: "x", url: "https://x.example", topics: ["*.*"] }, { "x-contentful-version": "1" });
      assert.equal(change.status, 405);
      assert.match(change.body.message, /configuration/);
      const read = await call("GET", `${space}/webhook_definitions/declared-hook`, key);
      assert.deepEqual(read.body.headers, [{ key: "X-Key", secret: true }]);
    });
    await assert.rejects(
      sql`update public.site_settings set config = ${sql.json({ ...before.config, webhooks: [{ ...declared, topics: ["Entry.archive"] }] })}`,
      /webhooks\[0\]: topics/,
    );
  } finally {
    await sql`update public.site_settings set config = ${sql.json(before.config)}`;
  }
  assert.equal((await sql`select 1 from public.content_webhook_definitions where id = 'declared-hook'`).length, 0);
});

test("the delivery route pg_net and pg_cron call: service key only, content's own due rows, same delivery", () =>
  inCloudMode(() => withReceiver(async (receiver, hooks) => {
    const deliver = `${host.baseUrl}/api/content/webhooks/deliver`;
    for (const wrong of [undefined, key, await host.key("delivery"), "not-a-key"]) {
      assertError(await call("POST", deliver, wrong, {}), 401, "AccessTokenInvalid");
    }
    assertError(await call("GET", deliver, await serviceKey(host.ctx)), 404, "NotFound");
    const hook = await define(receiver, ["Entry.create"]);
    hooks.push(hook.sys.id);
    const created = await call("POST", `${env}/entries`, key, { fields: { title: { "en-US": unique("Routed") } } }, { "x-contentful-content-type": "article" });
    // a row of another API (the scheduling function delivers it, at its own route) and one of no API
    const scheduling = await enqueueWebhook(sql, { api: "scheduling", subscriptionId: 2147483000, event: "BOOKING_CREATED", url: `${receiver.url}/cal`, body: "{}" });
    const stranger = await enqueueWebhook(sql, { api: unique("nobody"), subscriptionId: 1, event: "e", url: `${receiver.url}/x`, body: "{}" });
    // pg_net posts a JSON body; whatever it holds, the route only delivers
    const run = await call("POST", deliver, await serviceKey(host.ctx), "not json at all");
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.ok(run.body.delivered >= 1, JSON.stringify(run.body));
    assert.deepEqual(receiver.receipts.map((r) => r.path), ["/hook"]);
    const [receipt] = receiver.receipts;
    assert.equal(receipt.headers.get("x-contentful-topic"), "ContentManagement.Entry.create");
    assert.equal(receipt.headers.get("x-token"), "s3cret"); // the content adapter's secret header, as the dev dispatcher sends it
    assert.equal(JSON.parse(receipt.body).sys.id, created.body.sys.id);
    const status = async (id: number) =>
      (await sql<{ status: string; last_error: string | null }[]>`select status, last_error from public.webhook_outbox where id = ${id}`)[0];
    assert.deepEqual(await status(scheduling), { status: "pending", last_error: null }, "not content's to send");
    assert.deepEqual(await status(stranger), { status: "pending", last_error: null });
    // the scheduling function's own route takes its row (the subscription is gone: given up, no request)
    const own = await call("POST", `${host.baseUrl}/functions/v1/scheduling-api/webhooks/deliver`, await serviceKey(host.ctx), {});
    assert.equal(own.status, 200, JSON.stringify(own.body));
    assert.deepEqual(await status(scheduling), { status: "failed", last_error: "subscription no longer active" });
    assert.deepEqual(receiver.receipts.map((r) => r.path), ["/hook"]);
    await sql`delete from public.webhook_outbox where id = ${stranger}`;
    const [row] = await sql<{ last_status: number }[]>`select last_status from public.content_webhook_definitions where id = ${hook.sys.id}`;
    assert.equal(row.last_status, 200);
    await call("DELETE", `${env}/entries/${created.body.sys.id}`, key);
  })));

test("filters (equals, in, regexp, not on sys.id, the content type, the environment, the maker): a definition whose filters do not match gets no delivery", () =>
  inCloudMode(() => withReceiver(async (receiver, hooks) => {
    const { key: makerKeyToo, maker } = await makerKey();
    const doc = (path: string) => ({ doc: path });
    const filtered: [string, unknown[]][] = [
      ["articles", [{ equals: [doc("sys.contentType.sys.id"), "article"] }]],
      ["books", [{ equals: [doc("sys.contentType.sys.id"), "book"] }]],
      ["in-types", [{ in: [doc("sys.contentType.sys.id"), ["page", "article"]] }]],
      ["id-pattern", [{ regexp: [doc("sys.id"), { pattern: "^article\\.filtered-" }] }]],
      ["id-other", [{ regexp: [doc("sys.id"), { pattern: "^article\\.elsewhere-" }] }]],
      ["not-master", [{ not: { equals: [doc("sys.environment.sys.id"), "master"] } }]],
      ["master-by-maker", [{ equals: [doc("sys.environment.sys.id"), "master"] }, { equals: [doc("sys.createdBy.sys.id"), maker] }]],
      ["by-someone-else", [{ equals: [doc("sys.createdBy.sys.id"), "someone-else"] }]],
    ];
    const byName: Record<string, string> = {};
    for (const [name, filters] of filtered) {
      const made = await define(receiver, ["Entry.create"], { name: `${name}-${unique("f")}`, filters });
      assert.deepEqual(made.filters, filters, "filters are kept and answered back");
      hooks.push(made.sys.id);
      byName[made.sys.id] = name;
    }
    const d = dispatcher();
    const title = unique("Filtered");
    const created = await call("POST", `${env}/entries`, makerKeyToo, { fields: { title: { "en-US": title } } }, { "x-contentful-content-type": "article" });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.match(created.body.sys.id, /^article\.filtered-/);
    await deliver(d, receiver, 4);
    const written = await sql<{ subscription_id: string }[]>`
      select subscription_id from public.webhook_outbox where api = 'content' and subscription_id = any(${hooks}::text[])`;
    assert.deepEqual(written.map((r) => byName[r.subscription_id]).sort(), ["articles", "id-pattern", "in-types", "master-by-maker"]);
    await call("DELETE", `${env}/entries/${created.body.sys.id}`, makerKeyToo);
  })));

test("filters of an unknown shape, path or pattern are refused with the filter named", () =>
  inCloudMode(async () => {
    for (
      const [filters, why] of [
        [[{ equals: [{ doc: "fields.title" }, "x"] }], /doc is one of/],
        [[{ contains: [{ doc: "sys.id" }, "x"] }], /a filter is/],
        [[{ in: [{ doc: "sys.id" }, "not-a-list"] }], /list of 1 to 100 strings/],
        [[{ regexp: [{ doc: "sys.id" }, { pattern: "(" }] }], /not a regular expression/],
        [[{ not: { not: { equals: [{ doc: "sys.id" }, "x"] } } }], /not filter holds one of/],
        ["all", /list of at most 20/],
      ] as [unknown, RegExp][]
    ) {
      const r = await call("POST", `${space}/webhook_definitions`, key, { name: unique("bad"), url: "https://hooks.example/x", topics: ["*.*"], filters });
      assertError(r, 422, "ValidationFailed");
      assert.match(JSON.stringify(r.body.details.errors), why, JSON.stringify(filters));
      assert.equal(r.body.details.errors[0].path[0], "filters");
    }
  }));
