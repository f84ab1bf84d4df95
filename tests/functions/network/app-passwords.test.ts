// App passwords (spec: Protocol sessions; Authentication): made with the site's own session, shown once,
// kept as a hash, listed and revoked; an app's session cannot make more; the auth matrix of the methods.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { xrpc } from "../../helpers/lexicon.ts";
import { newMember } from "../../helpers/network.ts";
import { mintPersonJwt } from "../../../shared/people.ts";
import { hashAppPassword } from "../../../functions/network/sessions.ts";

const host = await testHost();
const sql = host.ctx.sql;

async function siteSession(member: { id: string; username: string }) {
  return await mintPersonJwt(await host.ctx.secrets.get("jwt"), { id: member.id, email: `${member.username}@example.test`, role: "member" });
}

test("made with the site's session: shown once as xxxx-xxxx-xxxx-xxxx, kept only as a hash, and it signs an app in", async () => {
  const member = await newMember(sql, "ap");
  const token = await siteSession(member);
  const made = await xrpc(host.baseUrl, "com.atproto.server.createAppPassword", { token, input: { name: "My phone" } });
  assert.equal(made.status, 200);
  assert.match(made.body.password, /^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/);
  assert.equal(made.body.name, "My phone");
  const [row] = await sql`select hash from public.network_app_passwords where person_id = ${member.id} and name = 'My phone'`;
  assert.equal(row.hash, await hashAppPassword(made.body.password));
  assert.ok(!JSON.stringify(row).includes(made.body.password));
  const listed = await xrpc(host.baseUrl, "com.atproto.server.listAppPasswords", { token });
  assert.deepEqual(listed.body.passwords.map((p: { name: string }) => p.name).sort(), ["My phone", "tests"]);
  assert.ok(listed.body.passwords.every((p: Record<string, unknown>) => !("password" in p)));
  const signIn = await xrpc(host.baseUrl, "com.atproto.server.createSession", {
    input: { identifier: member.handle, password: made.body.password },
  });
  assert.equal(signIn.status, 200);
});

test("a second app password of the same name, or a name too long, is InvalidRequest", async () => {
  const member = await newMember(sql, "ad");
  const token = await siteSession(member);
  const again = await xrpc(host.baseUrl, "com.atproto.server.createAppPassword", { token, input: { name: "tests" } });
  assert.equal(again.status, 400);
  assert.equal(again.body.error, "InvalidRequest");
  const long = await xrpc(host.baseUrl, "com.atproto.server.createAppPassword", { token, input: { name: "x".repeat(65) } });
  assert.equal(long.body.error, "InvalidRequest");
});

test("an app's own session lists app passwords but cannot make one (403); nobody without a token does either (401)", async () => {
  const member = await newMember(sql, "aa");
  const session = await xrpc(host.baseUrl, "com.atproto.server.createSession", {
    input: { identifier: member.handle, password: member.password },
  });
  const app = session.body.accessJwt;
  const made = await xrpc(host.baseUrl, "com.atproto.server.createAppPassword", { token: app, input: { name: "more" } });
  assert.equal(made.status, 403);
  assert.equal(made.body.error, "Forbidden");
  assert.equal((await xrpc(host.baseUrl, "com.atproto.server.listAppPasswords", { token: app })).status, 200);
  for (const nsid of ["com.atproto.server.listAppPasswords", "com.atproto.server.createAppPassword", "com.atproto.server.revokeAppPassword"]) {
    const input = nsid.endsWith("listAppPasswords") ? undefined : { name: "x" };
    const res = await xrpc(host.baseUrl, nsid, { input });
    assert.equal(res.status, 401, nsid);
    assert.equal(res.body.error, "AuthenticationRequired");
  }
  const badSite = await xrpc(host.baseUrl, "com.atproto.server.listAppPasswords", {
    token: await mintPersonJwt("not-the-site-secret", { id: member.id, email: "x@example.test", role: "member" }),
  });
  assert.equal(badSite.status, 401);
});

test("revoking one app password leaves the others and their sessions", async () => {
  const member = await newMember(sql, "ar");
  const token = await siteSession(member);
  const second = await xrpc(host.baseUrl, "com.atproto.server.createAppPassword", { token, input: { name: "tablet" } });
  const tablet = await xrpc(host.baseUrl, "com.atproto.server.createSession", {
    input: { identifier: member.handle, password: second.body.password },
  });
  await xrpc(host.baseUrl, "com.atproto.server.revokeAppPassword", { token, input: { name: "tests" } });
  const listed = await xrpc(host.baseUrl, "com.atproto.server.listAppPasswords", { token });
  assert.deepEqual(listed.body.passwords.map((p: { name: string }) => p.name), ["tablet"]);
  assert.equal((await xrpc(host.baseUrl, "com.atproto.server.getSession", { token: tablet.body.accessJwt })).status, 200);
  // revoking a name that is not there is no error, as the vendor's server answers
  assert.equal((await xrpc(host.baseUrl, "com.atproto.server.revokeAppPassword", { token, input: { name: "nothing" } })).status, 200);
});

test("the account page is served at /account/network and says where handles live", async () => {
  const res = await fetch(`${host.baseUrl}/account/network`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /text\/html/);
  const html = await res.text();
  assert.match(html, /\.demo\.sitewire\.dev/);
  const me = await fetch(`${host.baseUrl}/account/network/me`);
  assert.equal(me.status, 401);
  await me.body?.cancel();
});
