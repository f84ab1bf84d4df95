// A joined member's write inside its repository lock (writes.ts, migration network_projection_statements):
// the projection starts from one statement and keeps its commit in one, sent behind the write's own
// statements, so a post is a few statements; and a member whose session was read before they joined (an
// app's request that crossed the joining) is projected all the same, from the lock's answer. Statements
// are counted by the driver's own debug hook on a pool of the test database, under the real app.
import assert from "node:assert/strict";
import postgres from "postgres";
import { decode } from "@atproto/lex-cbor";
import { test } from "../../helpers/test.ts";
import { testDatabaseUrl, testSql } from "../../helpers/db.ts";
import { verifyCommitEvent } from "../../helpers/firehose.ts";
import { newMember, signedIn, startFederationHost } from "../../helpers/network.ts";
import { withSettings } from "../../helpers/site-settings.ts";
import { createContext } from "../../../shared/context.ts";
import type { Sql } from "../../../shared/db.ts";
import { createNetworkApp } from "../../../functions/network/app.ts";
import { applyWrites } from "../../../functions/network/writes.ts";
import { networkSite } from "../../../functions/network/xrpc/dispatch.ts";

const sql = testSql();

test("a joined member's post is a few statements; one whose session predates their joining is projected all the same", async () => {
  const federation = await startFederationHost(sql);
  let statements = 0;
  const counted = postgres(testDatabaseUrl(), {
    max: 2,
    onnotice: () => {},
    debug: () => {
      statements++;
    },
    types: { bigint: { to: 20, from: [20], serialize: (v: number) => String(v), parse: (v: string) => Number(v) } },
  }) as unknown as Sql;
  try {
    await withSettings((c) => {
      c.network = { ...(c.network ?? {}), federation: "open", apps: true };
    }, async () => {
      const mira = await newMember(sql, "stmts");
      const joined = await federation.post("/network/join", await federation.siteJwt(mira));
      assert.equal(joined.status, 200);
      const { did } = await joined.json();
      const didKey = (await (await fetch(`${federation.plcUrl}/${did}/data`)).json()).verificationMethods.atproto;

      // the site's settings with the session (one statement); begin, the head locked, the post, the
      // projection's inputs, the commit kept, commit (before: the projection's reads and its keeping were
      // nine statements, and the settings and the session two)
      const app = createNetworkApp(createContext(federation.ctx.config, { sql: counted }));
      const token = (await signedIn(federation.baseUrl, mira)).session!.accessJwt;
      const create = async (text: string, rkey?: string) => {
        const before = statements;
        const res = await app.request("/xrpc/com.atproto.repo.createRecord", {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ repo: did, collection: "app.bsky.feed.post", rkey, record: { text, createdAt: new Date().toISOString() } }),
        });
        assert.equal(res.status, 200, await res.clone().text());
        return { count: statements - before, body: await res.json() };
      };
      await create("warm-up");
      const { count, body } = await create("counted");
      assert.ok(count <= 7, `statements for a joined member's post (${count})`);
      await lastCommitIs(did, didKey, body.commit.cid, body.uri.split("/").slice(-2).join("/"));
      // a key the app chose is not read for first: the insert itself refuses a taken one
      const chosen = await create("its own key", "3kownkeyaaaaa");
      assert.ok(chosen.count <= 7, `statements for a post with the app's key (${chosen.count})`);
      await lastCommitIs(did, didKey, chosen.body.commit.cid, "app.bsky.feed.post/3kownkeyaaaaa");

      // the viewer as a request read it before the joining: a did:web, so no projection is sent ahead
      // of the lock, whose answer (joined) projects the write after it
      const site = (await networkSite(federation.ctx))!;
      const stale = { id: mira.id, did: `did:web:${mira.handle}`, handle: mira.handle, via: "app" as const };
      const outcome = await applyWrites(federation.ctx, site, stale, [{
        action: "create",
        collection: "app.bsky.feed.post",
        record: { $type: "app.bsky.feed.post", text: "crossed the joining", createdAt: new Date().toISOString() },
      }], { now: new Date() });
      const path = (outcome.results[0] as { uri: string }).uri.split("/").slice(-2).join("/");
      await lastCommitIs(did, didKey, outcome.commit.cid, path);
      const queued = await sql`select path from public.network_project_queue where person_id = ${mira.id}`;
      assert.equal(queued.length, 0, "nothing left queued for the projector");
    });
  } finally {
    await counted.end();
    await federation.close();
  }
});

/** The member's head is this commit, and the stream's last event for them is its #commit, verified, creating `path`. */
async function lastCommitIs(did: string, didKey: string, commitCid: string, path: string) {
  const [head] = await sql<{ commit_cid: string; data_cid: string | null }[]>`
    select r.commit_cid, r.data_cid from public.network_repos r
    join public.network_accounts a on a.person_id = r.person_id where a.did = ${did}`;
  assert.equal(head.commit_cid, commitCid, "the head is the commit the write answered");
  assert.ok(head.data_cid, "a signed repository's head has its tree");
  const [event] = await sql<{ kind: string; body: Uint8Array }[]>`
    select kind, body from public.network_seq where did = ${did} order by seq desc limit 1`;
  assert.equal(event.kind, "commit");
  const body = decode(new Uint8Array(event.body)) as Record<string, any>;
  assert.equal(String(body.commit), commitCid);
  assert.deepEqual(body.ops.map((op: { action: string; path: string }) => [op.action, op.path]), [["create", path]]);
  await verifyCommitEvent(body, didKey);
}
