// The protocol server's switches through the real client: network.apps off refuses every method an app
// uses with 403 Forbidden (describeServer still answers); the network module off answers
// MethodNotImplemented to everything. They change the one settings row, so they run alone.
import assert from "node:assert/strict";
import { AtpAgent } from "@atproto/api";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { withSettings } from "../../helpers/site-settings.ts";
import { newMember, signedIn } from "../../helpers/network.ts";
import { xrpc } from "../../helpers/lexicon.ts";
import { mintPersonJwt } from "../../../shared/people.ts";

const host = await testHost();

test("network.apps off: sign-in and every app read answer 403 Forbidden; describeServer still answers", async () => {
  const m = await newMember(host.ctx.sql, "apps");
  const agent = await signedIn(host.baseUrl, m);
  const token = agent.session!.accessJwt;
  await withSettings((config) => {
    config.network = { ...(config.network ?? {}), apps: false };
  }, async () => {
    await assert.rejects(
      new AtpAgent({ service: host.baseUrl }).login({ identifier: m.handle, password: m.password }),
      (e: any) => e.status === 403 && e.error === "Forbidden" && /other apps/.test(e.message),
    );
    for (const [nsid, params] of [
      ["app.bsky.feed.getTimeline", {}],
      ["app.bsky.actor.getProfile", { actor: m.did }],
      ["app.bsky.notification.listNotifications", {}],
      ["app.bsky.feed.getFeedGenerators", { feeds: "at://did:web:x/app.bsky.feed.generator/y" }],
      ["app.bsky.labeler.getServices", { dids: "did:web:x" }],
    ] as const) {
      const res = await xrpc(host.baseUrl, nsid, { token, params });
      assert.deepEqual([res.status, res.body.error], [403, "Forbidden"], nsid);
    }
    await assert.rejects(agent.getTimeline(), (e: any) => e.status === 403);
    const described = await new AtpAgent({ service: host.baseUrl }).com.atproto.server.describeServer();
    assert.ok(described.data.availableUserDomains.length > 0);
  });
  assert.ok((await agent.getTimeline()).data.feed, "back on, the same session reads again");
});

test("network module off: every method, describeServer included, answers 501 MethodNotImplemented", async () => {
  const m = await newMember(host.ctx.sql, "off");
  const agent = await signedIn(host.baseUrl, m);
  await withSettings((_config, modules) => {
    modules.network = false;
  }, async () => {
    for (const nsid of ["com.atproto.server.describeServer", "app.bsky.feed.getTimeline", "com.atproto.server.createSession"]) {
      const res = await xrpc(host.baseUrl, nsid, { token: agent.session!.accessJwt, method: nsid.endsWith("createSession") ? "POST" : "GET" });
      assert.deepEqual([res.status, res.body.error], [501, "MethodNotImplemented"], nsid);
    }
    await assert.rejects(agent.getProfile({ actor: m.did }), (e: any) => e.status === 501);
  });
});

test("network.apps off: refresh, app passwords, record writes and uploads are 403 too; the account page still lists", async () => {
  const member = await newMember(host.ctx.sql, "ao");
  const session = await xrpc(host.baseUrl, "com.atproto.server.createSession", {
    input: { identifier: member.handle, password: member.password },
  });
  assert.equal(session.status, 200);
  const site = await mintPersonJwt(await host.ctx.secrets.get("jwt"), {
    id: member.id,
    email: `${member.username}@example.test`,
    role: "member",
  });
  await withSettings((config) => (config.network = { ...config.network, apps: false }), async () => {
    const calls: [string, { input?: unknown; token?: string; method?: "GET" | "POST" }][] = [
      ["com.atproto.server.refreshSession", { token: session.body.refreshJwt, method: "POST" }],
      ["com.atproto.server.createAppPassword", { token: site, input: { name: "phone" } }],
      ["com.atproto.repo.createRecord", {
        token: session.body.accessJwt,
        input: { repo: member.did, collection: "app.bsky.feed.post", record: { text: "x", createdAt: new Date().toISOString() } },
      }],
      ["com.atproto.repo.uploadBlob", { token: session.body.accessJwt, method: "POST" }],
    ];
    for (const [nsid, options] of calls) {
      const res = await xrpc(host.baseUrl, nsid, options);
      assert.equal(res.status, 403, nsid);
      assert.deepEqual(res.body, { error: "Forbidden", message: "This site does not let other apps sign in." }, nsid);
    }
    // the member still sees and revokes their app passwords on the account page
    const listed = await xrpc(host.baseUrl, "com.atproto.server.listAppPasswords", { token: site });
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.passwords.map((p: { name: string }) => p.name), ["tests"]);
  });
});

test("the network module off: the well-known paths and the account page answer 501 too", async () => {
  await withSettings((_config, modules) => (modules.network = false), async () => {
    for (const path of ["/.well-known/did.json", "/.well-known/atproto-did", "/account/network"]) {
      const res = await fetch(`${host.baseUrl}${path}`);
      assert.equal(res.status, 501, path);
      assert.equal((await res.json()).error, "MethodNotImplemented", path);
    }
  });
});
