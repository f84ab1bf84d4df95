// Signing apps in (spec: Protocol sessions, Authentication, Limits): app passwords by handle, DID or
// address, JWT-shaped tokens whose hashes count, refresh after expiry through the real client, the end of
// sessions on revocation, ban and sign-out everywhere, and ten wrong passwords per address per hour.
import assert from "node:assert/strict";
import { AtpAgent } from "@atproto/api";
import * as jose from "jose";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { xrpc } from "../../helpers/lexicon.ts";
import { fromAddress, newMember, signedIn } from "../../helpers/network.ts";
import { mintPersonJwt } from "../../../shared/people.ts";

const host = await testHost();
const sql = host.ctx.sql;
let addresses = 0;
/** a caller address of this file's own, so the per-address limit of one test touches no other */
const address = () => `198.51.100.${(addresses++ % 250) + 1}`;

test("an app signs in with the handle and an app password, and the session names the member", async () => {
  const member = await newMember(sql, "si");
  const agent = new AtpAgent({ service: host.baseUrl, fetch: fromAddress(address()) });
  const login = await agent.login({ identifier: member.handle, password: member.password });
  assert.equal(login.data.did, member.did);
  assert.equal(login.data.handle, member.handle);
  const session = await agent.com.atproto.server.getSession();
  assert.equal(session.data.did, member.did);
  assert.equal(session.data.active, true);
});

test("the access token is JWT-shaped: at+jwt with scope, sub, aud and a two-hour exp; refresh+jwt lives ninety days", async () => {
  const member = await newMember(sql, "jw");
  const res = await xrpc(host.baseUrl, "com.atproto.server.createSession", {
    input: { identifier: member.handle, password: member.password },
  });
  assert.equal(res.status, 200);
  assert.equal(jose.decodeProtectedHeader(res.body.accessJwt).typ, "at+jwt");
  assert.equal(jose.decodeProtectedHeader(res.body.refreshJwt).typ, "refresh+jwt");
  const access = jose.decodeJwt(res.body.accessJwt);
  assert.equal(access.sub, member.did);
  assert.equal(access.scope, "com.atproto.appPass");
  assert.match(String(access.aud), /^did:web:/);
  assert.equal(access.exp! - access.iat!, 2 * 3600);
  const refresh = jose.decodeJwt(res.body.refreshJwt);
  assert.equal(refresh.exp! - refresh.iat!, 90 * 24 * 3600);
  const [row] = await sql`select count(*)::int as n from public.network_sessions where person_id = ${member.id}`;
  assert.equal(row.n, 1);
});

test("the identifier may be the DID or the member's address", async () => {
  const member = await newMember(sql, "id");
  for (const identifier of [member.did, `${member.username}@example.test`]) {
    const res = await xrpc(host.baseUrl, "com.atproto.server.createSession", {
      input: { identifier, password: member.password },
    });
    assert.equal(res.status, 200, identifier);
    assert.equal(res.body.did, member.did);
  }
});

test("a wrong password, an unknown member and a missing field are refused in XRPC error bodies", async () => {
  const member = await newMember(sql, "wr");
  const wrong = await xrpc(host.baseUrl, "com.atproto.server.createSession", {
    input: { identifier: member.handle, password: "aaaa-bbbb-cccc-dddd" },
  });
  assert.equal(wrong.status, 401);
  assert.deepEqual(wrong.body, { error: "AuthenticationRequired", message: "Invalid identifier or password" });
  const nobody = await xrpc(host.baseUrl, "com.atproto.server.createSession", {
    input: { identifier: "nobody.demo.sitewire.dev", password: member.password },
  });
  assert.equal(nobody.status, 401);
  const missing = await xrpc(host.baseUrl, "com.atproto.server.createSession", { input: { identifier: member.handle } });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.error, "InvalidRequest");
  const notJson = await fetch(`${host.baseUrl}/xrpc/com.atproto.server.createSession`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{nope",
  });
  assert.equal(notJson.status, 400);
  assert.equal((await notJson.json()).error, "InvalidRequest");
});

test("ten wrong passwords from one address in an hour: the eleventh try answers 429 RateLimitExceeded, even with the right one", async () => {
  const member = await newMember(sql, "rl");
  const from = "203.0.113.77";
  const attempt = (password: string) =>
    fetch(`${host.baseUrl}/xrpc/com.atproto.server.createSession`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": from },
      body: JSON.stringify({ identifier: member.handle, password }),
    });
  for (let i = 0; i < 10; i++) {
    const res = await attempt("wrong-wrong-wrong-wrong");
    assert.equal(res.status, 401, `attempt ${i + 1}`);
    await res.body?.cancel();
  }
  const limited = await attempt(member.password);
  assert.equal(limited.status, 429);
  assert.equal((await limited.json()).error, "RateLimitExceeded");
  // another address is not held back
  const elsewhere = await fetch(`${host.baseUrl}/xrpc/com.atproto.server.createSession`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.78" },
    body: JSON.stringify({ identifier: member.handle, password: member.password }),
  });
  assert.equal(elsewhere.status, 200);
  await elsewhere.body?.cancel();
});

test("an expired access token answers 400 ExpiredToken, and the real client refreshes and goes on", async () => {
  const member = await newMember(sql, "ex");
  const agent = await signedIn(host.baseUrl, member, address());
  const before = agent.session!.accessJwt;
  await sql`update public.network_sessions set access_expires_at = now() - interval '1 second'
    where person_id = ${member.id}`;
  const raw = await xrpc(host.baseUrl, "com.atproto.server.getSession", { token: before });
  assert.equal(raw.status, 400);
  assert.equal(raw.body.error, "ExpiredToken");
  assert.match(raw.headers.get("content-type") ?? "", /^application\/json/);
  const session = await agent.com.atproto.server.getSession();
  assert.equal(session.data.did, member.did);
  assert.notEqual(agent.session!.accessJwt, before);
  // the spent refresh token is no longer good
  const again = await xrpc(host.baseUrl, "com.atproto.server.getSession", { token: before });
  assert.equal(again.status, 401);
});

test("resumeSession: an app started again refreshes its stored session", async () => {
  const member = await newMember(sql, "rs");
  const first = await signedIn(host.baseUrl, member, address());
  const stored = first.session!;
  const later = new AtpAgent({ service: host.baseUrl });
  await later.resumeSession(stored);
  assert.equal(later.session?.did, member.did);
  const profile = await later.com.atproto.server.getSession();
  assert.equal(profile.data.handle, member.handle);
});

test("a token whose hash is not kept counts for nothing, whatever its claims say", async () => {
  const member = await newMember(sql, "fk");
  const forged = await new jose.SignJWT({ scope: "com.atproto.appPass" })
    .setProtectedHeader({ typ: "at+jwt", alg: "HS256" })
    .setSubject(member.did).setIssuedAt().setExpirationTime("2h")
    .sign(new TextEncoder().encode(await host.ctx.secrets.get("network_jwt")));
  const res = await xrpc(host.baseUrl, "com.atproto.server.getSession", { token: forged });
  assert.equal(res.status, 401);
  const garbage = await xrpc(host.baseUrl, "com.atproto.server.getSession", { token: "not-a-token" });
  assert.equal(garbage.status, 401);
  const none = await xrpc(host.baseUrl, "com.atproto.server.getSession");
  assert.equal(none.status, 401);
  assert.equal(none.body.error, "AuthenticationRequired");
});

test("a refresh token is no access token, and an access token does not refresh", async () => {
  const member = await newMember(sql, "kd");
  const res = await xrpc(host.baseUrl, "com.atproto.server.createSession", {
    input: { identifier: member.handle, password: member.password },
  });
  const asAccess = await xrpc(host.baseUrl, "com.atproto.server.getSession", { token: res.body.refreshJwt });
  assert.equal(asAccess.status, 400);
  assert.equal(asAccess.body.error, "InvalidToken");
  const asRefresh = await xrpc(host.baseUrl, "com.atproto.server.refreshSession", {
    token: res.body.accessJwt,
    method: "POST",
  });
  assert.equal(asRefresh.status, 400);
  assert.equal(asRefresh.body.error, "InvalidToken");
});

test("revoking the app password ends every session made with it at once", async () => {
  const member = await newMember(sql, "rv");
  const agent = await signedIn(host.baseUrl, member, address());
  const jwt = await mintPersonJwt(await host.ctx.secrets.get("jwt"), { id: member.id, email: `${member.username}@example.test`, role: "member" });
  const revoked = await xrpc(host.baseUrl, "com.atproto.server.revokeAppPassword", { token: jwt, input: { name: "tests" } });
  assert.equal(revoked.status, 200);
  const res = await xrpc(host.baseUrl, "com.atproto.server.getSession", { token: agent.session!.accessJwt });
  assert.equal(res.status, 401);
  const refresh = await xrpc(host.baseUrl, "com.atproto.server.refreshSession", {
    token: agent.session!.refreshJwt,
    method: "POST",
  });
  assert.equal(refresh.status, 401);
  const again = await xrpc(host.baseUrl, "com.atproto.server.createSession", {
    input: { identifier: member.handle, password: member.password },
  });
  assert.equal(again.status, 401);
});

test("a ban ends the member's sessions, and a banned member cannot sign in", async () => {
  const member = await newMember(sql, "bn");
  const agent = await signedIn(host.baseUrl, member, address());
  await sql`update public.profiles set suspended_at = now() where id = ${member.id}`;
  const res = await xrpc(host.baseUrl, "com.atproto.server.getSession", { token: agent.session!.accessJwt });
  assert.equal(res.status, 401);
  const signIn = await xrpc(host.baseUrl, "com.atproto.server.createSession", {
    input: { identifier: member.handle, password: member.password },
  });
  assert.equal(signIn.status, 401);
  assert.equal(signIn.body.error, "AccountTakedown");
});

test("a password change on the site ends the member's app sessions", async () => {
  const member = await newMember(sql, "pw");
  const agent = await signedIn(host.baseUrl, member, address());
  // Supabase Auth keeps the password hash on auth.users; the local stand-in gains the column here
  await sql`alter table auth.users add column if not exists encrypted_password text`;
  await sql`update auth.users set encrypted_password = ${crypto.randomUUID()} where id = ${member.id}`;
  const res = await xrpc(host.baseUrl, "com.atproto.server.getSession", { token: agent.session!.accessJwt });
  assert.equal(res.status, 401);
});

test("signing out (deleteSession with the refresh token) ends that session only", async () => {
  const member = await newMember(sql, "so");
  const one = await signedIn(host.baseUrl, member, address());
  const two = await signedIn(host.baseUrl, member, address());
  const out = await xrpc(host.baseUrl, "com.atproto.server.deleteSession", {
    token: one.session!.refreshJwt,
    method: "POST",
  });
  assert.equal(out.status, 200);
  assert.equal((await xrpc(host.baseUrl, "com.atproto.server.getSession", { token: one.session!.accessJwt })).status, 401);
  assert.equal((await xrpc(host.baseUrl, "com.atproto.server.getSession", { token: two.session!.accessJwt })).status, 200);
});

test("sign-out everywhere on the account page ends every app session of the member", async () => {
  const member = await newMember(sql, "ev");
  const one = await signedIn(host.baseUrl, member, address());
  const two = await signedIn(host.baseUrl, member, address());
  const jwt = await mintPersonJwt(await host.ctx.secrets.get("jwt"), { id: member.id, email: `${member.username}@example.test`, role: "member" });
  const appTried = await fetch(`${host.baseUrl}/account/network/sign-out-everywhere`, {
    method: "POST",
    headers: { authorization: `Bearer ${one.session!.accessJwt}` },
  });
  assert.equal(appTried.status, 401);
  await appTried.body?.cancel();
  const res = await fetch(`${host.baseUrl}/account/network/sign-out-everywhere`, {
    method: "POST",
    headers: { authorization: `Bearer ${jwt}` },
  });
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { ended: 2 });
  for (const agent of [one, two]) {
    assert.equal((await xrpc(host.baseUrl, "com.atproto.server.getSession", { token: agent.session!.accessJwt })).status, 401);
  }
});

test("signing in clears the member's sessions whose refresh token expired", async () => {
  const member = await newMember(sql, "sx");
  await signedIn(host.baseUrl, member, address());
  await sql`update public.network_sessions set refresh_expires_at = now() - interval '1 day' where person_id = ${member.id}`;
  await signedIn(host.baseUrl, member, address());
  const [row] = await sql`select count(*)::int as n from public.network_sessions where person_id = ${member.id}`;
  assert.equal(row.n, 1);
});
