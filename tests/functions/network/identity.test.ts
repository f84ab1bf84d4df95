// Identity (spec: Protocol server: identity, where it answers): handles under the handle domain (the
// username, else m + twelve hex digits of the id), did:web, the well-known answers by the host asked,
// resolveHandle, describeServer, and the refusals that say where to go instead.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { xrpc } from "../../helpers/lexicon.ts";
import { newMember } from "../../helpers/network.ts";
import { ensurePerson } from "../../../shared/people.ts";
import { createNetworkApp } from "../../../functions/network/app.ts";
import { didOf, didWebOf, handleOf } from "../../../functions/network/identity.ts";

const host = await testHost();
const sql = host.ctx.sql;
const app = createNetworkApp(host.ctx);
const DOMAIN = "demo.sitewire.dev";

test("a handle is the username under the handle domain, else m and the last twelve hex digits of the id", () => {
  const id = "0f8e7d6c-5b4a-4392-8170-a1b2c3d4e5f6";
  assert.equal(handleOf({ id, username: "mira" }, DOMAIN), "mira.demo.sitewire.dev");
  assert.equal(handleOf({ id, username: null }, DOMAIN), "ma1b2c3d4e5f6.demo.sitewire.dev");
  assert.equal(didOf({ id, username: "mira" }, DOMAIN), "did:web:mira.demo.sitewire.dev");
  assert.equal(didOf({ id, username: "mira", network_did: "did:plc:abc" }, DOMAIN), "did:plc:abc");
  assert.equal(didWebOf("localhost:8000"), "did:web:localhost%3A8000");
});

test("resolveHandle: a member's handle to their DID, by username or by the id's name; unknown is HandleNotFound", async () => {
  const member = await newMember(sql, "rh");
  const byName = await xrpc(host.baseUrl, "com.atproto.identity.resolveHandle", { params: { handle: member.handle } });
  assert.equal(byName.status, 200);
  assert.equal(byName.body.did, member.did);
  const nameless = await ensurePerson(sql, `nameless-${crypto.randomUUID()}@example.test`);
  const idHandle = `m${nameless.id.split("-")[4]}.${DOMAIN}`;
  const byId = await xrpc(host.baseUrl, "com.atproto.identity.resolveHandle", { params: { handle: idHandle } });
  assert.equal(byId.body.did, `did:web:${idHandle}`);
  const unknown = await xrpc(host.baseUrl, "com.atproto.identity.resolveHandle", { params: { handle: `nobody.${DOMAIN}` } });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.error, "HandleNotFound");
  const elsewhere = await xrpc(host.baseUrl, "com.atproto.identity.resolveHandle", { params: { handle: "alice.bsky.social" } });
  assert.equal(elsewhere.body.error, "HandleNotFound");
  const missing = await xrpc(host.baseUrl, "com.atproto.identity.resolveHandle");
  assert.equal(missing.body.error, "InvalidRequest");
});

test("a username wins: once taken, the id's name no longer resolves", async () => {
  const person = await ensurePerson(sql, `renamed-${crypto.randomUUID()}@example.test`);
  const idName = `m${person.id.split("-")[4]}`;
  await sql`update public.profiles set username = ${`rn${person.id.slice(0, 8)}`} where id = ${person.id}`;
  const old = await xrpc(host.baseUrl, "com.atproto.identity.resolveHandle", { params: { handle: `${idName}.${DOMAIN}` } });
  assert.equal(old.body.error, "HandleNotFound");
});

test("/.well-known/atproto-did answers the DID of the member whose handle is the host asked", async () => {
  const member = await newMember(sql, "wk");
  const res = await app.request("/.well-known/atproto-did", { headers: { host: member.handle } });
  assert.equal(res.status, 200);
  assert.equal(await res.text(), member.did);
  const nobody = await app.request("/.well-known/atproto-did", { headers: { host: `nobody.${DOMAIN}` } });
  assert.equal(nobody.status, 404);
  await nobody.body?.cancel();
});

test("/.well-known/did.json: a member's did:web document on their host, the site's own (feed generator) on the site's", async () => {
  const member = await newMember(sql, "dj");
  const doc = await (await app.request("/.well-known/did.json", { headers: { host: member.handle } })).json();
  assert.equal(doc.id, member.did);
  assert.deepEqual(doc.alsoKnownAs, [`at://${member.handle}`]);
  assert.deepEqual(doc.service, [{ id: "#atproto_pds", type: "AtprotoPersonalDataServer", serviceEndpoint: host.baseUrl }]);
  const site = await (await app.request("/.well-known/did.json", { headers: { host: host.host } })).json();
  assert.equal(site.id, didWebOf(host.host));
  assert.deepEqual(site.service, [{ id: "#bsky_fg", type: "BskyFeedGenerator", serviceEndpoint: host.baseUrl }]);
});

test("the host's rewrites carry the well-known paths and /xrpc to the function", async () => {
  const res = await fetch(`${host.baseUrl}/.well-known/did.json`);
  assert.equal(res.status, 200);
  assert.equal((await res.json()).id, didWebOf(host.host));
  const own = await fetch(`${host.baseUrl}/functions/v1/network/xrpc/com.atproto.server.describeServer`);
  assert.equal(own.status, 200);
  await own.body?.cancel();
});

test("describeServer: the site's DID and handle domain; an invite code is required", async () => {
  const res = await xrpc(host.baseUrl, "com.atproto.server.describeServer");
  assert.equal(res.status, 200);
  assert.equal(res.body.did, didWebOf(host.host));
  assert.deepEqual(res.body.availableUserDomains, [`.${DOMAIN}`]);
  assert.equal(res.body.inviteCodeRequired, true);
});

test("createAccount and updateHandle are refused, saying where to go instead", async () => {
  const created = await xrpc(host.baseUrl, "com.atproto.server.createAccount", {
    input: { handle: `new.${DOMAIN}`, email: "n@example.test", password: "x" },
  });
  assert.equal(created.status, 400);
  assert.match(created.body.message, /account\/network/);
  const member = await newMember(sql, "uh");
  const session = await xrpc(host.baseUrl, "com.atproto.server.createSession", {
    input: { identifier: member.handle, password: member.password },
  });
  const handle = await xrpc(host.baseUrl, "com.atproto.identity.updateHandle", {
    token: session.body.accessJwt,
    input: { handle: `other.${DOMAIN}` },
  });
  assert.equal(handle.status, 400);
  assert.match(handle.body.message, /username/);
});

test("chat.bsky.* and unknown methods answer 501 MethodNotImplemented; a wrong HTTP method is InvalidRequest", async () => {
  for (const nsid of ["chat.bsky.convo.listConvos", "com.example.nothing", "app.bsky.unknown.method"]) {
    const res = await fetch(`${host.baseUrl}/xrpc/${nsid}`);
    assert.equal(res.status, 501, nsid);
    assert.deepEqual(Object.keys(await res.json()).sort(), ["error", "message"]);
  }
  const wrong = await fetch(`${host.baseUrl}/xrpc/com.atproto.server.createSession`);
  assert.equal(wrong.status, 400);
  assert.equal((await wrong.json()).error, "InvalidRequest");
});

test("the protocol's own headers are accepted, and CORS is open", async () => {
  const res = await fetch(`${host.baseUrl}/xrpc/com.atproto.server.describeServer`, {
    headers: { "atproto-accept-labelers": "did:plc:ar7c4by46qjdydhdevvrndac;redact", "atproto-proxy": "did:web:api.bsky.app#bsky_appview" },
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  await res.body?.cancel();
  const preflight = await fetch(`${host.baseUrl}/xrpc/com.atproto.server.createSession`, {
    method: "OPTIONS",
    headers: { origin: "https://bsky.app", "access-control-request-method": "POST", "access-control-request-headers": "authorization,content-type,atproto-accept-labelers" },
  });
  assert.ok(preflight.status < 300);
  assert.match(preflight.headers.get("access-control-allow-headers") ?? "", /atproto-accept-labelers/i);
  await preflight.body?.cancel();
});
