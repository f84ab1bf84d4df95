// Federation against real protocol parts on loopback: a did:plc directory from npm (@did-plc/server in
// memory), the real client (AtpAgent) writing, @atproto/repo's own verifiers reading sync.*, and a
// firehose consumer that checks every commit it receives (signature against the key in the member's DID
// document, the diff inverted back to prevData from the event's blocks alone) and a second one that
// backfills from cursor 0 to the same state as getRepo.
import assert from "node:assert/strict";
import { AtpAgent } from "@atproto/api";
import { Database, PlcServer } from "@did-plc/server";
import { MemoryBlockstore, readCarWithRoot, Repo, verifyProofs, verifyRepoCar } from "@atproto/repo";
import { decode } from "@atproto/lex-cbor";
import { type Cid, parseCid } from "@atproto/lex-data";
import { jsonToLex } from "@atproto/lexicon";
import { Secp256k1Keypair, verifySignature } from "@atproto/crypto";
import { fromBase64url } from "../../../shared/ids.ts";
import { test } from "../../helpers/test.ts";
import { consumer, verifyCommitEvent } from "../../helpers/firehose.ts";
import { testSql } from "../../helpers/db.ts";
import { newMember, signedIn, type TestMember } from "../../helpers/network.ts";
import { withSettings } from "../../helpers/site-settings.ts";
import { createContext } from "../../../shared/context.ts";
import { readConfig } from "../../../shared/config.ts";
import { freePort } from "../../../shared/embedded.ts";
import { mintPersonJwt } from "../../../shared/people.ts";
import { serviceKey } from "../../../shared/service-key.ts";
import { serveHost } from "../../../web/host.ts";
import { tableRecords } from "../../../functions/network/store/repo.ts";

const sql = testSql();

test("federation: join with did:plc, signed commits from the tables, sync verified, a verifying firehose", async (t) => {
  const plcPort = freePort();
  const plc = PlcServer.create({ db: Database.mock(), port: plcPort });
  await plc.start();
  const plcUrl = `http://localhost:${plcPort}`;
  const port = freePort();
  const baseUrl = `http://localhost:${port}`;
  const config = {
    ...readConfig(new Map<string, string>()),
    databaseUrl: Deno.env.get("DATABASE_URL"),
    port,
    publicUrl: baseUrl,
    functionsUrl: baseUrl,
    allowPrivateWebhookTargets: true,
    trustedProxies: 1,
    networkPlcUrl: plcUrl,
    networkKeySecret: "a deployment secret for tests",
  };
  const ctx = createContext(config, { sql });
  const controller = new AbortController();
  const server = serveHost(ctx, { port, hostname: "127.0.0.1", signal: controller.signal, onListen: () => {} });
  const siteJwt = async (member: TestMember) =>
    await mintPersonJwt(await ctx.secrets.get("jwt"), {
      id: member.id,
      email: `${member.username}@example.test`,
      role: "member",
    });
  const post = (path: string, token?: string, body?: unknown) =>
    fetch(`${baseUrl}${path}`, {
      method: "POST",
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), "content-type": "application/json" },
      body: JSON.stringify(body ?? {}),
    });
  const get = (nsid: string, params: Record<string, string>) =>
    fetch(`${baseUrl}/xrpc/${nsid}?${new URLSearchParams(params)}`);

  // A relay that records the crawl requests it gets, and an app view that verifies each service token as
  // @atproto/xrpc-server's verifyJwt does (the issuer's key from its DID document at the directory, aud,
  // lxm, exp) and answers lexicon-valid bodies about somebody elsewhere.
  const crawls: { hostname: string }[] = [];
  const relayPort = freePort();
  const relay = Deno.serve({ port: relayPort, hostname: "127.0.0.1", onListen: () => {} }, async (request) => {
    crawls.push(await request.json());
    return Response.json({});
  });
  const appviewPort = freePort();
  const appviewDid = `did:web:localhost%3A${appviewPort}`;
  const asked: { iss: string; lxm: string; path: string }[] = [];
  const elsewhereDid = "did:plc:ewvi7nxzyoun6zhxrhs64oiz";
  const elsewherePost = {
    uri: `at://${elsewhereDid}/app.bsky.feed.post/3l6oveex3ii2l`,
    cid: "bafyreihq3gvh5tdp7ki3dsovqpq4xzbqcgcs3qjdktgh2upaxtqoyzj4xe",
    author: { did: elsewhereDid, handle: "alice.elsewhere.test" },
    record: { $type: "app.bsky.feed.post", text: "from elsewhere", createdAt: "2030-01-01T00:00:00.000Z" },
    indexedAt: "2030-01-01T00:00:00.000Z",
  };
  const appview = Deno.serve({ port: appviewPort, hostname: "127.0.0.1", onListen: () => {} }, async (request) => {
    const url = new URL(request.url);
    const nsid = url.pathname.replace("/xrpc/", "");
    const token = request.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
    const [h, p, sig] = token.split(".");
    const header = JSON.parse(new TextDecoder().decode(fromBase64url(h)));
    const claims = JSON.parse(new TextDecoder().decode(fromBase64url(p)));
    const doc = await (await fetch(`${plcUrl}/${claims.iss}/data`)).json();
    const good = header.alg === "ES256K" && claims.aud === appviewDid && claims.lxm === nsid &&
      claims.exp > Date.now() / 1000 &&
      await verifySignature(doc.verificationMethods.atproto, new TextEncoder().encode(`${h}.${p}`), fromBase64url(sig));
    if (!good) return Response.json({ error: "AuthenticationRequired", message: "bad service token" }, { status: 401 });
    asked.push({ iss: claims.iss, lxm: claims.lxm, path: url.pathname + url.search });
    if (nsid === "app.bsky.actor.getProfile") {
      return Response.json({ did: elsewhereDid, handle: "alice.elsewhere.test", displayName: "Alice" });
    }
    if (nsid === "app.bsky.feed.getTimeline") return Response.json({ feed: [{ post: elsewherePost }] });
    return Response.json({ error: "MethodNotImplemented" }, { status: 501 });
  });

  const mira = await newMember(sql, "fed");
  try {
    await t.step("a closed site refuses joining and sync", async () => {
      const res = await post("/network/join", await siteJwt(mira));
      assert.equal(res.status, 501);
      assert.equal((await res.json()).error, "MethodNotImplemented");
      const sync = await get("com.atproto.sync.listRepos", {});
      assert.equal(sync.status, 501);
      await sync.body?.cancel();
    });

    await withSettings((c) => {
      c.network = {
        ...(c.network ?? {}),
        federation: "open",
        apps: true,
        relay: `http://127.0.0.1:${relayPort}`,
        appview: { url: `http://127.0.0.1:${appviewPort}`, did: appviewDid },
      };
    }, async () => {
      const early = consumer(baseUrl, 0);
      let did = "";
      let didKey = "";

      await t.step("joining takes the site's session, not an app's, nor none", async () => {
        const none = await post("/network/join");
        assert.equal(none.status, 401);
        await none.body?.cancel();
        const agent = await signedIn(baseUrl, mira);
        const app = await post("/network/join", agent.session!.accessJwt);
        assert.equal(app.status, 401);
        await app.body?.cancel();
      });

      await t.step("joining registers a did:plc naming the site and the handle, with a K-256 key", async () => {
        const res = await post("/network/join", await siteJwt(mira));
        assert.equal(res.status, 200);
        const joined = await res.json();
        did = joined.did;
        assert.match(did, /^did:plc:[a-z2-7]{24}$/);
        assert.equal(joined.handle, mira.handle);
        const doc = await (await fetch(`${plcUrl}/${did}/data`)).json();
        assert.deepEqual(doc.alsoKnownAs, [`at://${mira.handle}`]);
        assert.equal(doc.services.atproto_pds.endpoint, baseUrl);
        didKey = doc.verificationMethods.atproto;
        assert.match(didKey, /^did:key:zQ3s/);
        // the key is kept sealed, not as the private key's bytes
        const [row] = await sql<{ signing_key: string }[]>`
          select signing_key from public.network_accounts where did = ${did}`;
        assert.ok(!row.signing_key.includes(didKey));
        // identity answers the did:plc from now on
        const resolved = await get("com.atproto.identity.resolveHandle", { handle: mira.handle });
        assert.equal((await resolved.json()).did, did);
      });

      await t.step("joining asks the relay to crawl the site; the operator sees its answer", async () => {
        assert.deepEqual(crawls, [{ hostname: `localhost:${port}` }]);
        const view = await (await fetch(`${baseUrl}/functions/v1/network/internal/firehose`, {
          headers: { authorization: `Bearer ${await serviceKey(ctx)}` },
        })).json();
        assert.equal(view.lastCrawl.status, 200);
        const daily = await post("/functions/v1/network/internal/crawl", await serviceKey(ctx));
        assert.equal(daily.status, 200);
        await daily.body?.cancel();
        assert.equal(crawls.length, 2);
      });

      await t.step("a read about somebody elsewhere is asked of the app view with the member's service token", async () => {
        const agent = await signedIn(baseUrl, mira);
        const profile = await agent.getProfile({ actor: "alice.elsewhere.test" });
        assert.equal(profile.data.did, elsewhereDid);
        assert.deepEqual(asked.map((a) => [a.iss, a.lxm]), [[did, "app.bsky.actor.getProfile"]]);
        // a member of the site is still answered by the site
        const own = await agent.getProfile({ actor: mira.handle });
        assert.equal(own.data.did, did);
        assert.equal(asked.length, 1);
        // getTimeline's first page merges the app view's items with the site's own
        const timeline = await agent.getTimeline({});
        assert.ok(timeline.data.feed.some((i) => i.post.uri === elsewherePost.uri));
        assert.equal(asked.at(-1)!.lxm, "app.bsky.feed.getTimeline");
      });

      await t.step("a member who has not joined is refused with the reason", async () => {
        const other = await newMember(sql, "stay");
        const agent = await signedIn(baseUrl, other);
        const res = await fetch(`${baseUrl}/xrpc/app.bsky.actor.getProfile?actor=alice.elsewhere.test`, {
          headers: { authorization: `Bearer ${agent.session!.accessJwt}` },
        });
        assert.equal(res.status, 403);
        assert.match((await res.json()).message, /Join the wider network/);
        const anonymous = await fetch(`${baseUrl}/xrpc/app.bsky.actor.getProfile?actor=alice.elsewhere.test`);
        assert.equal(anonymous.status, 401);
        await anonymous.body?.cancel();
      });

      await t.step("the stream announces the member: #identity, #account, then the genesis commit", async () => {
        const identity = await early.until((f) => f.header.t === "#identity" && f.body.did === did);
        assert.equal(identity.body.handle, mira.handle);
        const account = await early.until((f) => f.header.t === "#account" && f.body.did === did);
        assert.equal(account.body.active, true);
        const genesis = await early.until((f) => f.header.t === "#commit" && f.body.repo === did);
        assert.equal(genesis.body.since, null);
        await verifyCommitEvent(genesis.body, didKey);
      });

      const agent = new AtpAgent({ service: baseUrl });
      await agent.login({ identifier: mira.handle, password: mira.password });
      let postUri = "";
      let postCid = "";

      await t.step("an app's write is a signed commit whose head getLatestCommit gives", async () => {
        assert.equal(agent.session!.did, did);
        const created = await agent.com.atproto.repo.createRecord({
          repo: did,
          collection: "app.bsky.feed.post",
          record: { $type: "app.bsky.feed.post", text: "hello, wider network", createdAt: new Date().toISOString() },
        });
        postUri = created.data.uri;
        postCid = created.data.cid;
        const latest = await (await get("com.atproto.sync.getLatestCommit", { did })).json();
        assert.equal(latest.cid, created.data.commit!.cid);
        assert.equal(latest.rev, created.data.commit!.rev);
        const frame = await early.until((f) => f.header.t === "#commit" && f.body.commit.toString() === latest.cid);
        assert.deepEqual(frame.body.ops.map((o: any) => [o.action, o.path, o.cid.toString()]), [
          ["create", `app.bsky.feed.post/${postUri.split("/").pop()}`, postCid],
        ]);
        await verifyCommitEvent(frame.body, didKey);
        await agent.like(postUri, postCid);
      });

      await t.step("sync.getRecord is a proof verifyProofs accepts; an absent record is RecordNotFound", async () => {
        const rkey = postUri.split("/").pop()!;
        const res = await get("com.atproto.sync.getRecord", { did, collection: "app.bsky.feed.post", rkey });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("content-type"), "application/vnd.ipld.car");
        const car = new Uint8Array(await res.arrayBuffer());
        const verified = await verifyProofs(car, [{ collection: "app.bsky.feed.post", rkey, cid: parseCid(postCid) }], did, didKey);
        assert.equal(verified.verified.length, 1);
        const absent = await get("com.atproto.sync.getRecord", { did, collection: "app.bsky.feed.post", rkey: "3zzzzzzzzzzzz" });
        assert.equal(absent.status, 400);
        assert.equal((await absent.json()).error, "RecordNotFound");
      });

      await t.step("a change made outside the API (the admin, SQL) is projected into a commit", async () => {
        await sql`update public.profiles set display_name = 'Mira of the wider network' where id = ${mira.id}`;
        const projected = await post("/functions/v1/network/internal/project", await serviceKey(ctx));
        assert.equal(projected.status, 200);
        assert.ok((await projected.json()).projected >= 1);
        const frame = await early.until((f) =>
          f.header.t === "#commit" && f.body.repo === did &&
          f.body.ops.some((o: any) => o.path === "app.bsky.actor.profile/self")
        );
        await verifyCommitEvent(frame.body, didKey);
        const car = new Uint8Array(await (await get("com.atproto.sync.getRepo", { did })).arrayBuffer());
        const repo = await verifyRepoCar(car, did, didKey);
        const profile = repo.creates.find((c) => c.collection === "app.bsky.actor.profile")!;
        const { blocks } = await readCarWithRoot(car);
        assert.equal((decode(blocks.get(profile.cid)!) as any).displayName, "Mira of the wider network");
        assert.ok(repo.creates.some((c) => c.cid.toString() === postCid));
      });

      await t.step("internal routes take the service key only", async () => {
        const none = await post("/functions/v1/network/internal/project");
        assert.equal(none.status, 401);
        await none.body?.cancel();
        const person = await post("/functions/v1/network/internal/project", await siteJwt(mira));
        assert.equal(person.status, 401);
        await person.body?.cancel();
      });

      await t.step("a repository rebuilt from the tables has the MST root of the one built commit by commit", async () => {
        const [head] = await sql<{ data_cid: string }[]>`
          select r.data_cid from public.network_repos r where r.person_id = ${mira.id}`;
        const records = await tableRecords(sql, mira.id);
        const rebuilt = await Repo.formatInitCommit(
          new MemoryBlockstore(),
          did,
          await Secp256k1Keypair.create(),
          [...records].map(([path, record]) => {
            const [collection, rkey] = path.split("/");
            return { action: "create" as never, collection: collection as never, rkey, record: jsonToLex(record) as never };
          }),
        );
        const commit = decode(rebuilt.newBlocks.get(rebuilt.cid)!) as { data: Cid };
        assert.equal(commit.data.toString(), head.data_cid);
        // and the same through the route that rebuilds one repository from the tables: nothing to change
        const again = await post("/functions/v1/network/internal/project", await serviceKey(ctx), { did });
        assert.equal(again.status, 200);
        const [after] = await sql<{ data_cid: string }[]>`
          select data_cid from public.network_repos where person_id = ${mira.id}`;
        assert.equal(after.data_cid, head.data_cid);
      });

      await t.step("a new username goes to the directory and out as #identity; a suspension as #account", async () => {
        const renamed = `${mira.username.slice(0, 24)}x`;
        await sql`update public.profiles set username = ${renamed} where id = ${mira.id}`;
        try {
          const drained = await post("/functions/v1/network/internal/project", await serviceKey(ctx));
          assert.equal(drained.status, 200);
          await drained.body?.cancel();
          const handle = `${renamed}.demo.sitewire.dev`;
          const doc = await (await fetch(`${plcUrl}/${did}/data`)).json();
          assert.deepEqual(doc.alsoKnownAs, [`at://${handle}`]);
          const identity = await early.until((f) => f.header.t === "#identity" && f.body.handle === handle);
          assert.equal(identity.body.did, did);
        } finally {
          await sql`update public.profiles set username = ${mira.username} where id = ${mira.id}`;
          await (await post("/functions/v1/network/internal/project", await serviceKey(ctx))).body?.cancel();
        }
        await sql`update public.profiles set suspended_at = now() where id = ${mira.id}`;
        try {
          await (await post("/functions/v1/network/internal/project", await serviceKey(ctx))).body?.cancel();
          const down = await early.until((f) => f.header.t === "#account" && f.body.status === "takendown");
          assert.equal(down.body.active, false);
        } finally {
          await sql`update public.profiles set suspended_at = null where id = ${mira.id}`;
          await (await post("/functions/v1/network/internal/project", await serviceKey(ctx))).body?.cancel();
        }
      });

      await t.step("getRepoStatus, listRepos and getRepo?since", async () => {
        const latest = await (await get("com.atproto.sync.getLatestCommit", { did })).json();
        const whole = await verifyRepoCar(new Uint8Array(await (await get("com.atproto.sync.getRepo", { did })).arrayBuffer()), did, didKey);
        assert.equal(whole.commit.rev, latest.rev);
        const since = new Uint8Array(await (await get("com.atproto.sync.getRepo", { did, since: latest.rev })).arrayBuffer());
        const { root, blocks } = await readCarWithRoot(since);
        assert.equal(root.toString(), latest.cid);
        assert.equal(blocks.size, 0, "nothing was written after the head's own rev");
        const status = await (await get("com.atproto.sync.getRepoStatus", { did })).json();
        assert.equal(status.active, true);
        const list = await (await get("com.atproto.sync.listRepos", { limit: "1000" })).json();
        assert.ok(list.repos.some((r: any) => r.did === did && r.active === true));
        const notOurs = await get("com.atproto.sync.getLatestCommit", { did: "did:plc:aaaaaaaaaaaaaaaaaaaaaaaa" });
        assert.equal((await notOurs.json()).error, "RepoNotFound");
        const bad = await get("com.atproto.sync.listRepos", { limit: "5000" });
        assert.equal(bad.status, 400);
        await bad.body?.cancel();
      });

      await t.step("a cursor ahead of the stream is FutureCursor", async () => {
        const ahead = consumer(baseUrl, 10_000_000);
        const frame = await ahead.until((f) => f.header.op === -1);
        assert.equal(frame.body.error, "FutureCursor");
        const closed = await ahead.closed;
        assert.equal(closed.code, 1008);
      });

      await t.step("the operator sees the subscribers with cursor and lag", async () => {
        const res = await fetch(`${baseUrl}/functions/v1/network/internal/firehose`, {
          headers: { authorization: `Bearer ${await serviceKey(ctx)}` },
        });
        assert.equal(res.status, 200);
        const view = await res.json();
        assert.ok(view.subscribers.some((s: any) => s.cursor === 0 && typeof s.lag === "number"));
        const denied = await fetch(`${baseUrl}/functions/v1/network/internal/firehose`);
        assert.equal(denied.status, 401);
        await denied.body?.cancel();
      });

      await t.step("leaving deactivates the repository; a suspension takes it down", async () => {
        const left = await post("/network/leave", await siteJwt(mira));
        assert.equal(left.status, 200);
        await left.body?.cancel();
        const gone = await get("com.atproto.sync.getLatestCommit", { did });
        assert.equal((await gone.json()).error, "RepoDeactivated");
        const announced = await early.until((f) => f.header.t === "#account" && f.body.status === "deactivated");
        assert.equal(announced.body.status, "deactivated");
        const back = await post("/network/join", await siteJwt(mira));
        assert.equal((await back.json()).did, did);
        await sql`update public.profiles set suspended_at = now() where id = ${mira.id}`;
        try {
          const down = await get("com.atproto.sync.getRepo", { did });
          assert.equal((await down.json()).error, "RepoTakendown");
          const status = await (await get("com.atproto.sync.getRepoStatus", { did })).json();
          assert.deepEqual([status.active, status.status], [false, "takendown"]);
        } finally {
          await sql`update public.profiles set suspended_at = null where id = ${mira.id}`;
        }
      });

      await t.step("every commit the first consumer got verifies; a backfill from 0 reaches getRepo's state", async () => {
        const commits = early.frames.filter((f) => f.header.t === "#commit" && f.body.repo === did);
        assert.ok(commits.length >= 3);
        for (const f of commits) await verifyCommitEvent(f.body, didKey);
        const seqs = early.frames.map((f) => f.body.seq);
        assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b), "seq only grows");
        const latest = await (await get("com.atproto.sync.getLatestCommit", { did })).json();
        const backfill = consumer(baseUrl, 0);
        await backfill.until((f) => f.header.t === "#commit" && f.body.commit.toString() === latest.cid);
        const state = new Map<string, string>();
        for (const f of backfill.frames.filter((f) => f.header.t === "#commit" && f.body.repo === did)) {
          await verifyCommitEvent(f.body, didKey);
          for (const op of f.body.ops) {
            if (op.action === "delete") state.delete(op.path);
            else state.set(op.path, op.cid.toString());
          }
        }
        const car = new Uint8Array(await (await get("com.atproto.sync.getRepo", { did })).arrayBuffer());
        const repo = await verifyRepoCar(car, did, didKey);
        const held = new Map(repo.creates.map((c) => [`${c.collection}/${c.rkey}`, c.cid.toString()]));
        assert.deepEqual(Object.fromEntries(state), Object.fromEntries(held));
        await backfill.close();
      });
      await early.close();
    });
  } finally {
    controller.abort();
    await server.finished;
    await plc.destroy();
    await relay.shutdown();
    await appview.shutdown();
  }
});
