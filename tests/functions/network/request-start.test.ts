// What every XRPC request reads first: the site's settings (sent again only when their version moved)
// with the caller's protocol session, in one statement (store/sessions.ts siteAndSession), and the
// token's signature, checked once per process (tokens.ts checkedTokenHash) while its session row still
// decides every request.
import assert from "node:assert/strict";
import * as jose from "jose";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { xrpc } from "../../helpers/lexicon.ts";
import { newMember, signedIn } from "../../helpers/network.ts";
import { withSettings } from "../../helpers/site-settings.ts";
import { siteAndSession } from "../../../functions/network/store/sessions.ts";
import { checkedTokenHash, tokenHash } from "../../../functions/network/tokens.ts";

const host = await testHost();
const sql = host.ctx.sql;

test("siteAndSession: the settings only when their version moved, and the session by its token's hash", async () => {
  const member = await newMember(sql, "start");
  const agent = await signedIn(host.baseUrl, member);
  const hash = await tokenHash(agent.session!.accessJwt);

  const first = await siteAndSession(sql, null, { kind: "access", hash });
  assert.ok(first.version !== null && first.settings, "unknown: the settings come");
  assert.equal(first.session?.member.id, member.id);
  assert.ok(first.session!.expires_at instanceof Date && first.session!.expires_at.getTime() > Date.now());
  assert.equal(first.session!.member.suspended_at, null);
  const again = await siteAndSession(sql, first.version, { kind: "access", hash });
  assert.equal(again.version, first.version);
  assert.equal(again.settings, null, "known at this version: not sent again");
  assert.equal(again.session?.id, first.session!.id);
  assert.equal((await siteAndSession(sql, first.version, { kind: "refresh", hash })).session, undefined, "an access hash is no refresh hash");
  assert.equal((await siteAndSession(sql, first.version)).session, undefined, "no session asked for");

  await withSettings((config) => {
    config.network = { ...(config.network ?? {}), description: "changed" };
  }, async () => {
    const moved = await siteAndSession(sql, first.version);
    assert.notEqual(moved.version, first.version, "a change of the settings moves the version");
    assert.equal(moved.settings?.config.network.description, "changed");
  });
});

test("a token's signature is checked once, but a request after its session ended is refused", async () => {
  const member = await newMember(sql, "tok");
  const agent = await signedIn(host.baseUrl, member);
  const token = agent.session!.accessJwt;
  const secret = await host.ctx.secrets.get("network_jwt");
  assert.equal(await checkedTokenHash(secret, token), await tokenHash(token));
  assert.equal(await checkedTokenHash(secret, token), await tokenHash(token), "and again, from memory");
  assert.equal(await checkedTokenHash(`${secret}-another`, token), undefined, "not under another secret");
  const forged = await new jose.SignJWT({ scope: "com.atproto.appPass" }).setProtectedHeader({ typ: "at+jwt", alg: "HS256" })
    .setSubject(member.did).sign(new TextEncoder().encode("not the site's secret"));
  assert.equal(await checkedTokenHash(secret, forged), undefined);

  assert.equal((await xrpc(host.baseUrl, "com.atproto.server.getSession", { token })).status, 200);
  await sql`delete from public.network_sessions where person_id = ${member.id}`;
  const after = await xrpc(host.baseUrl, "com.atproto.server.getSession", { token });
  assert.equal(after.status, 401, "the session's row decides, however often the token was checked");
  const forgedCall = await xrpc(host.baseUrl, "com.atproto.server.getSession", { token: forged });
  assert.deepEqual([forgedCall.status, forgedCall.body.error], [400, "InvalidToken"]);
});
