// Federation, continued, against real protocol parts on loopback (a did:plc directory from npm in memory,
// the real client, @atproto/repo's verifiers): #sync where the protocol has it (joining, rejoining, a
// reset, a new key) checked by a verifying consumer; a new signing key written to the directory; getBlob;
// describeRepo's DID document; hostile sync parameters; the internal routes only at the function's own
// address; a cursor older than the backfill window told OutdatedCursor; a subscriber that stops
// reading cut off with ConsumerTooSlow; and a commit too big for one event announced by #sync, which a
// relay's copy follows by fetching the repository.
import assert from "node:assert/strict";
import { AtpAgent } from "@atproto/api";
import { readCarWithRoot, verifyCommitSig, verifyRepoCar } from "@atproto/repo";
import { decode, decodeAll } from "@atproto/lex-cbor";
import { cidForRawBytes } from "@atproto/lex-data";
import { test } from "../../helpers/test.ts";
import { consumer, type Frame, RelayCopy, verifyCommitEvent, verifySyncEvent } from "../../helpers/firehose.ts";
import { closeCode, openRawWebSocket } from "../../helpers/raw-websocket.ts";
import { testSql } from "../../helpers/db.ts";
import { newMember, startFederationHost } from "../../helpers/network.ts";
import { withSettings } from "../../helpers/site-settings.ts";
import { serviceKey } from "../../../shared/service-key.ts";
import { functionRootUrl, handToApp } from "../../../shared/http.ts";
import { emitRewrites } from "../../../web/rewrites.ts";
import { createNetworkApp } from "../../../functions/network/app.ts";
import { COMMIT_EVENT_MAX_BLOCKS_BYTES } from "../../../functions/network/federation/events.ts";
import { POST, validateRecord } from "../../../functions/network/records.ts";

const sql = testSql();

const PNG = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="),
  (c) => c.charCodeAt(0),
);
/** the firehose's per-socket bound in this test (NETWORK_FIREHOSE_BUFFER) */
const BUFFER = 64 * 1024;

test("federation stream: #sync, a new signing key at the directory, getBlob, describeRepo, hostile input, internal routes, the backfill window, a slow consumer, a commit too big for one event", async (t) => {
  const federation = await startFederationHost(sql, { networkKeySecret: "a deployment secret for the stream tests", networkFirehoseBufferBytes: BUFFER });
  const { baseUrl, plcUrl, ctx, siteJwt, post, get } = federation;
  const key = await serviceKey(ctx);
  const internal = (route: string, body?: unknown) => post(`/functions/v1/network/internal/${route}`, key, body);
  const xrpcError = async (res: Response) => {
    assert.match(res.headers.get("content-type") ?? "", /application\/json/);
    return { status: res.status, error: (await res.json()).error };
  };
  const directoryKey = async (did: string) => (await (await fetch(`${plcUrl}/${did}/data`)).json()).verificationMethods.atproto;
  const latest = async (did: string) => await (await get("com.atproto.sync.getLatestCommit", { did })).json();
  const ofRepo = (did: string, kind: string) => (f: Frame) => f.header.t === kind && (f.body.did ?? f.body.repo) === did;

  const mira = await newMember(sql, "strm");
  const otto = await newMember(sql, "strm");
  const stay = await newMember(sql, "strm");
  try {
    await withSettings((c) => {
      c.network = { ...(c.network ?? {}), federation: "open", apps: true };
    }, async () => {
      const stream = consumer(baseUrl, 0);
      /** a frame that arrived after the first `mark` frames and matches */
      const after = (mark: number, match: (f: Frame) => boolean) => (f: Frame) => stream.frames.indexOf(f) >= mark && match(f);
      let did = "";
      let didKey = "";

      await t.step("joining announces #identity, #account, the commits, then #sync naming the head", async () => {
        const joined = await (await post("/network/join", await siteJwt(mira))).json();
        did = joined.did;
        didKey = await directoryKey(did);
        const sync = await stream.until(ofRepo(did, "#sync"));
        const kinds = stream.frames.filter((f) => (f.body.did ?? f.body.repo) === did).map((f) => f.header.t);
        assert.equal(kinds.filter((k) => k === "#sync").length, 1);
        assert.deepEqual(kinds.slice(0, 3), ["#identity", "#account", "#commit"]);
        assert.equal(kinds.at(-1), "#sync", "the #sync comes after the commits it names");
        const named = await verifySyncEvent(sync.body, didKey);
        const head = await latest(did);
        assert.deepEqual([named.commit, sync.body.rev], [head.cid, head.rev]);
        for (const f of stream.frames.filter(ofRepo(did, "#commit"))) await verifyCommitEvent(f.body, didKey);
        await (await post("/network/join", await siteJwt(otto))).body?.cancel();
      });

      await t.step("describeRepo's DID document is the one the directory holds, with the signing key", async () => {
        const described = await (await get("com.atproto.repo.describeRepo", { repo: did })).json();
        const held = await (await fetch(`${plcUrl}/${did}`)).json();
        assert.deepEqual(described.didDoc, held);
        assert.deepEqual(described.didDoc.verificationMethod.map((m: any) => [m.id, m.controller]), [["#atproto", did]]);
        assert.equal(described.did, did);
      });

      const agent = new AtpAgent({ service: baseUrl });
      await agent.login({ identifier: mira.handle, password: mira.password });
      const blobCid = (await cidForRawBytes(PNG)).toString();

      await t.step("getBlob: the bytes as their type; missing, another member's, not joined, bad and closed answers", async () => {
        const uploaded = await agent.uploadBlob(PNG, { encoding: "image/png" });
        assert.equal(uploaded.data.blob.ref.toString(), blobCid);
        const found = await get("com.atproto.sync.getBlob", { did, cid: blobCid });
        assert.equal(found.status, 200);
        assert.equal(found.headers.get("content-type"), "image/png");
        assert.deepEqual(new Uint8Array(await found.arrayBuffer()), PNG);
        const absent = (await cidForRawBytes(new Uint8Array([1, 2, 3]))).toString();
        assert.deepEqual(await xrpcError(await get("com.atproto.sync.getBlob", { did, cid: absent })), { status: 400, error: "BlobNotFound" });
        const ottoDid = (await sql<{ did: string }[]>`select did from public.network_accounts where person_id = ${otto.id}`)[0].did;
        assert.deepEqual(await xrpcError(await get("com.atproto.sync.getBlob", { did: ottoDid, cid: blobCid })), { status: 400, error: "BlobNotFound" });
        // a member who has not joined has no public repository, whatever they uploaded
        assert.deepEqual(await xrpcError(await get("com.atproto.sync.getBlob", { did: stay.did, cid: blobCid })), { status: 400, error: "RepoNotFound" });
        assert.deepEqual(await xrpcError(await get("com.atproto.sync.getBlob", { did, cid: "not-a-cid" })), { status: 400, error: "InvalidRequest" });
        await withSettings((c) => (c.network = { ...(c.network ?? {}), federation: "closed" }), async () => {
          assert.deepEqual(await xrpcError(await get("com.atproto.sync.getBlob", { did, cid: blobCid })), { status: 501, error: "MethodNotImplemented" });
        });
      });

      await t.step("getBlob of a suspended member is RepoTakendown, of one who left RepoDeactivated; rejoining sends #sync", async () => {
        await sql`update public.profiles set suspended_at = now() where id = ${mira.id}`;
        try {
          assert.deepEqual(await xrpcError(await get("com.atproto.sync.getBlob", { did, cid: blobCid })), { status: 400, error: "RepoTakendown" });
        } finally {
          await sql`update public.profiles set suspended_at = null where id = ${mira.id}`;
        }
        await (await post("/network/leave", await siteJwt(mira))).body?.cancel();
        assert.deepEqual(await xrpcError(await get("com.atproto.sync.getBlob", { did, cid: blobCid })), { status: 400, error: "RepoDeactivated" });
        const mark = stream.frames.length;
        await (await post("/network/join", await siteJwt(mira))).body?.cancel();
        const active = await stream.until(after(mark, (f) => ofRepo(did, "#account")(f) && f.body.active === true));
        const sync = await stream.until(after(mark, ofRepo(did, "#sync")));
        assert.ok(stream.frames.indexOf(sync) > stream.frames.indexOf(active));
        assert.equal((await verifySyncEvent(sync.body, didKey)).commit, (await latest(did)).cid);
        assert.equal((await get("com.atproto.sync.getBlob", { did, cid: blobCid })).status, 200);
        // the suspension ended the member's sessions: the app signs in again
        await agent.login({ identifier: mira.handle, password: mira.password });
      });

      await t.step("a reset rebuilds the repository from the tables in one commit, announced by #sync alone", async () => {
        await agent.post({ text: "before the reset", createdAt: new Date().toISOString() });
        const before = await verifyRepoCar(new Uint8Array(await (await get("com.atproto.sync.getRepo", { did })).arrayBuffer()), did, didKey);
        const seen = stream.frames.length;
        const reset = await (await internal("project", { did, reset: true })).json();
        const sync = await stream.until((f) => ofRepo(did, "#sync")(f) && f.body.rev === reset.rev);
        assert.equal((await verifySyncEvent(sync.body, didKey)).commit, reset.cid);
        assert.ok(reset.rev > before.commit.rev, "the reset's rev follows the old head's");
        await new Promise((r) => setTimeout(r, 200));
        assert.deepEqual(stream.frames.slice(seen).filter((f) => (f.body.did ?? f.body.repo) === did).map((f) => f.header.t), ["#sync"]);
        const after = await verifyRepoCar(new Uint8Array(await (await get("com.atproto.sync.getRepo", { did })).arrayBuffer()), did, didKey);
        const paths = (r: typeof after) => r.creates.map((c) => `${c.collection}/${c.rkey}=${c.cid}`).sort();
        assert.deepEqual(paths(after), paths(before));
        assert.equal((await latest(did)).cid, reset.cid);
      });

      await t.step("a new signing key goes to the directory; the head is signed again with it and new commits verify with it", async () => {
        const mark = stream.frames.length;
        const docBefore = (await (await get("com.atproto.repo.describeRepo", { repo: did })).json()).didDoc;
        const res = await internal("rotate-key", { did });
        assert.equal(res.status, 200);
        const rotated = await res.json();
        const named = await directoryKey(did);
        assert.equal(named, rotated.signingKey);
        assert.notEqual(named, didKey);
        // the directory's document names it (what a relay resolves), and so does describeRepo
        const described = await (await get("com.atproto.repo.describeRepo", { repo: did })).json();
        assert.deepEqual(described.didDoc, await (await fetch(`${plcUrl}/${did}`)).json());
        assert.notDeepEqual(described.didDoc.verificationMethod, docBefore.verificationMethod);
        const identity = await stream.until(after(mark, ofRepo(did, "#identity")));
        assert.equal(identity.body.handle, mira.handle);
        const head = await latest(did);
        const sync = await stream.until((f) => ofRepo(did, "#sync")(f) && f.body.rev === head.rev);
        assert.equal((await verifySyncEvent(sync.body, named)).commit, head.cid);
        await assert.rejects(verifySyncEvent(sync.body, didKey), /signature/);
        const created = await agent.post({ text: "signed with the new key", createdAt: new Date().toISOString() });
        const frame = await stream.until((f) => ofRepo(did, "#commit")(f) && f.body.ops.some((o: any) => o.cid?.toString() === created.cid));
        await verifyCommitEvent(frame.body, named);
        await assert.rejects(verifyCommitEvent(frame.body, didKey), /signature/);
        await verifyRepoCar(new Uint8Array(await (await get("com.atproto.sync.getRepo", { did })).arrayBuffer()), did, named);
        // the new key is the rotation key too: a later directory operation (a new handle) is accepted
        const renamed = `${mira.username.slice(0, 24)}r`;
        await sql`update public.profiles set username = ${renamed} where id = ${mira.id}`;
        try {
          assert.equal((await internal("project")).status, 200);
          assert.deepEqual((await (await fetch(`${plcUrl}/${did}/data`)).json()).alsoKnownAs, [`at://${renamed}.demo.sitewire.dev`]);
        } finally {
          await sql`update public.profiles set username = ${mira.username} where id = ${mira.id}`;
          await (await internal("project")).body?.cancel();
        }
        didKey = named;
        // the operator's route refuses a DID that is not a joined member's, and anybody without the key
        assert.deepEqual(await xrpcError(await internal("rotate-key", { did: stay.did })), { status: 400, error: "RepoNotFound" });
        assert.deepEqual(await xrpcError(await internal("rotate-key", { did: "not a did" })), { status: 400, error: "InvalidRequest" });
        assert.equal((await post("/functions/v1/network/internal/rotate-key", await siteJwt(mira), { did })).status, 401);
      });

      await t.step("a member whose projection fails stays queued and is passed over; the others' commits go out", async () => {
        const [{ signing_key: sealed }] = await sql`select signing_key from public.network_accounts where did = ${did}`;
        const ottoDid = (await (await get("com.atproto.identity.resolveHandle", { handle: otto.handle })).json()).did;
        // mira's key sealed under a secret this deployment does not hold; both members change their name
        await sql`update public.network_accounts set signing_key = ${"AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"} where did = ${did}`;
        const renamed = { mira: `${mira.username.slice(0, 24)}f`, otto: `${otto.username.slice(0, 24)}f` };
        await sql`update public.profiles set username = ${renamed.mira} where id = ${mira.id}`;
        await sql`update public.profiles set username = ${renamed.otto} where id = ${otto.id}`;
        try {
          const drained = await internal("project");
          assert.equal(drained.status, 200);
          const answer = await drained.json();
          assert.ok(answer.failed >= 1 && answer.projected >= 1, JSON.stringify(answer));
          assert.deepEqual((await (await fetch(`${plcUrl}/${ottoDid}/data`)).json()).alsoKnownAs, [`at://${renamed.otto}.demo.sitewire.dev`]);
          const [{ queued }] = await sql`select count(*)::int as queued from public.network_project_queue where person_id = ${mira.id}`;
          assert.ok(queued > 0, "the failing member's change waits for the next drain");
        } finally {
          await sql`update public.network_accounts set signing_key = ${sealed} where did = ${did}`;
          await sql`update public.profiles set username = ${mira.username} where id = ${mira.id}`;
          await sql`update public.profiles set username = ${otto.username} where id = ${otto.id}`;
          await (await internal("project")).body?.cancel();
        }
      });

      await t.step("hostile parameters on the sync routes answer the XRPC error envelope, never a 5xx", async () => {
        const cases: [string, Record<string, string>][] = [
          ["com.atproto.sync.getLatestCommit", { did: "did:plc:\u0000" }],
          ["com.atproto.sync.getLatestCommit", { did: "not-a-did" }],
          ["com.atproto.sync.getLatestCommit", { did: `did:plc:${"a".repeat(5000)}` }],
          ["com.atproto.sync.getLatestCommit", {}],
          ["com.atproto.sync.getRepoStatus", { did: "did:web:\uD800" }],
          ["com.atproto.sync.getRepo", { did, since: "\u0000" }],
          ["com.atproto.sync.getRepo", { did, since: "not-a-tid" }],
          ["com.atproto.sync.getRecord", { did, collection: "app.bsky.feed.post", rkey: "../../x" }],
          ["com.atproto.sync.getRecord", { did, collection: "not an nsid", rkey: "3l000000000aa" }],
          ["com.atproto.sync.getRecord", { did, collection: "app.bsky.feed.post\u0000", rkey: "self" }],
          ["com.atproto.sync.getBlob", { did, cid: "bafy\u0000" }],
          ["com.atproto.sync.getBlob", { did, cid: "b".repeat(10_000) }],
          ["com.atproto.sync.getBlob", { did: "did:plc:%00", cid: blobCid }],
          ["com.atproto.sync.listRepos", { cursor: "\u0000" }],
          ["com.atproto.sync.listRepos", { cursor: "did:plc:zz", limit: "-1" }],
          ["com.atproto.sync.listRepos", { limit: "1e3" }],
        ];
        for (const [nsid, params] of cases) {
          const res = await get(nsid, params);
          assert.ok(res.status >= 400 && res.status < 500, `${nsid} ${JSON.stringify(params)} answered ${res.status}`);
          const body = await res.json();
          assert.equal(typeof body.error, "string");
          assert.equal(typeof body.message, "string");
        }
        // a cursor that is no number, or a negative one, on the stream
        for (const cursor of ["-1", "abc", "1e3", "99999999999999999999"]) {
          const res = await fetch(`${baseUrl}/xrpc/com.atproto.sync.subscribeRepos?cursor=${cursor}`, { headers: { upgrade: "websocket", connection: "upgrade", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version": "13" } });
          assert.equal(res.status, 400, `cursor ${cursor}`);
          assert.equal((await res.json()).error, "InvalidRequest");
        }
      });

      await t.step("the internal routes answer only at the function's own address, as the deployment and the database call them", async () => {
        for (const path of ["/internal/project", "/network/internal/project", "/xrpc/../internal/project", "/network/blob/../internal/crawl"]) {
          const res = await post(path, key);
          assert.equal(res.status, 404, `${path} is no public path`);
          await res.body?.cancel();
        }
        assert.ok(!emitRewrites("https://fn.example").some((r) => r.source.includes("internal") || r.destination.includes("/internal")));
        // the deployed function is asked at /network/... (its name first) and hands the rest to the app,
        // exactly as functions/network/index.ts does
        const app = createNetworkApp(ctx);
        const deployed = (path: string, token?: string) => {
          const request = new Request(`https://fn.example${path}`, { method: "GET", headers: token ? { authorization: `Bearer ${token}` } : {} });
          return handToApp(app.fetch, request, functionRootUrl("network", request.url), {});
        };
        assert.equal((await deployed("/network/internal/firehose", key)).status, 200);
        assert.equal((await deployed("/network/internal/firehose")).status, 401);
        assert.equal((await deployed("/functions/v1/network/internal/firehose", key)).status, 200);
      });

      await t.step("a cursor older than the backfill window is told OutdatedCursor, then replayed from the window's first event, then live; one inside it is replayed without", async () => {
        const newest = async () => Number((await sql<{ seq: string }[]>`select max(seq) as seq from public.network_seq`)[0].seq);
        const posted = async (text: string) => (await agent.post({ text, createdAt: new Date().toISOString() })).cid;
        const carries = (cid: string) => (f: Frame) => f.header.t === "#commit" && f.body.ops.some((o: any) => o.cid?.toString() === cid);
        const before = await newest();
        for (const n of [1, 2, 3, 4]) await posted(`the backfill window, ${n}`);
        const made = (await sql<{ seq: string }[]>`select seq from public.network_seq where seq > ${before} order by seq`)
          .map((r) => Number(r.seq));
        // every event up to the second one made here falls out of the default day's window
        const lastOutside = made[1];
        const inWindow = made.filter((seq) => seq > lastOutside);
        let agedThrough = lastOutside;
        await sql`update public.network_seq set created_at = created_at - interval '2 days' where seq <= ${lastOutside}`;
        try {
          const outdated = consumer(baseUrl, before);
          const current = consumer(baseUrl, lastOutside);
          for (const c of [outdated, current]) await c.until((f) => f.body.seq === made.at(-1));
          const [info, ...replayed] = outdated.frames;
          assert.deepEqual(info.header, { op: 1, t: "#info" });
          assert.equal(info.body.name, "OutdatedCursor");
          assert.equal(typeof info.body.message, "string");
          assert.deepEqual(replayed.slice(0, inWindow.length).map((f) => f.body.seq), inWindow);
          assert.deepEqual(current.frames.slice(0, inWindow.length).map((f) => f.body.seq), inWindow);
          const live = await posted("the backfill window, live");
          for (const c of [outdated, current]) {
            const frame = await c.until(carries(live));
            const seqs = c.frames.slice(0, c.frames.indexOf(frame) + 1).filter((f) => f.header.t !== "#info").map((f) => f.body.seq);
            assert.deepEqual(seqs, [...new Set(seqs)].sort((a, b) => a - b), "replay then live, each event once, in order");
          }
          assert.equal(outdated.frames.filter((f) => f.header.t === "#info").length, 1);
          assert.ok(!current.frames.some((f) => f.header.t === "#info"), "a cursor inside the window is not outdated");
          await outdated.close();
          await current.close();

          // with every event older than the window, an outdated cursor follows live only
          const top = await newest();
          await sql`update public.network_seq set created_at = created_at - interval '2 days'
            where seq > ${lastOutside} and seq <= ${top}`;
          agedThrough = top;
          const stale = consumer(baseUrl, before);
          await stale.until((f) => f.header.t === "#info");
          const after = await posted("the backfill window, after it emptied");
          const frame = await stale.until(carries(after));
          assert.equal(stale.frames[0].body.name, "OutdatedCursor");
          assert.ok(stale.frames.slice(1).every((f) => f.body.seq > top), "nothing from before the window");
          assert.ok(stale.frames.indexOf(frame) > 0);
          await stale.close();
        } finally {
          await sql`update public.network_seq set created_at = created_at + interval '2 days' where seq <= ${agedThrough}`;
        }
      });

      await t.step("a subscriber that stops reading is cut off with ConsumerTooSlow; the others keep up", async () => {
        const seqAtStart = (await (await fetch(`${baseUrl}/functions/v1/network/internal/firehose`, { headers: { authorization: `Bearer ${key}` } })).json()).seq;
        const slow = await openRawWebSocket(`${baseUrl.replace("http", "ws")}/xrpc/com.atproto.sync.subscribeRepos`);
        const watching = async () =>
          ((await (await fetch(`${baseUrl}/functions/v1/network/internal/firehose`, { headers: { authorization: `Bearer ${key}` } })).json())
            .subscribers as { cursor: number | null; lastSeq: number }[]).filter((s) => s.cursor === null);
        for (let i = 0; i < 50 && (await watching()).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
        assert.equal((await watching()).length, 1, "the slow subscriber is on the stream");
        // big commits (200 posts of 3,000 bytes each, about 0.6 MB an event) until the server gives up on it;
        // the kernel's socket buffers take a few megabytes before anything waits in the server
        // each post's own text (identical records would be one block: the repository is content-addressed)
        const text = " 👩‍👩‍👧".repeat(145); // 158 graphemes, 2,768 bytes with the key: a valid post
        let rounds = 0;
        let sent = 0;
        while ((await watching()).length > 0) {
          assert.ok(rounds++ < 40, "the slow subscriber was never cut off");
          await sql`
            insert into public.community_posts (author_id, rkey, cid, record, text)
            select ${mira.id}::uuid, r.rkey, 'bafy', jsonb_build_object('$type', 'app.bsky.feed.post', 'text', r.rkey || ${text}::text,
                   'createdAt', '2030-01-01T00:00:00.000Z'), r.rkey || ${text}::text
            from (select '3m' || lpad(to_hex(${rounds * 1000}::int + g), 11, 'a') as rkey from generate_series(1, 200) g) r`;
          assert.equal((await internal("project")).status, 200);
          sent += 200 * 3000;
          await new Promise((r) => setTimeout(r, 100));
        }
        const seqAtCut = (await (await fetch(`${baseUrl}/functions/v1/network/internal/firehose`, { headers: { authorization: `Bearer ${key}` } })).json()).seq;
        // a healthy subscriber has every event; the slow one, read now, got fewer, then the error and the close
        const last = await latest(did);
        const healthy = await stream.until((f) => f.header.t === "#commit" && f.body.commit.toString() === last.cid, 60_000);
        await verifyCommitEvent(healthy.body, didKey);
        const { frames, bytes } = await slow.readAll();
        const binary = frames.filter((f) => f.opcode === 2).map((f) => [...decodeAll(f.payload)] as [any, any]);
        const error = binary.at(-1)!;
        assert.deepEqual([error[0].op, error[1].error], [-1, "ConsumerTooSlow"]);
        const close = frames.find((f) => f.opcode === 8)!;
        assert.equal(closeCode(close), 1008);
        const messages = binary.slice(0, -1);
        assert.ok(messages.length < seqAtCut - seqAtStart, "the server stopped sending to it");
        assert.deepEqual(messages.map(([, b]) => b.seq), messages.map(([, b]) => b.seq).sort((a, b) => a - b));
        assert.ok(bytes < sent, `it was sent ${bytes} bytes of the ${sent} the stream carried`);
        console.log(`  slow subscriber: ${rounds} rounds, ${messages.length} frames (${(bytes / 1e6).toFixed(1)} MB) before the cut`);
        await sql`delete from public.community_posts where author_id = ${mira.id} and rkey like '3m%'`;
        await (await internal("project")).body?.cancel();
      });

      await t.step("a commit whose blocks pass the relays' 2 MB goes out as #sync for its head; a relay's copy fetches the repository and the next commit follows on from it", async () => {
        // a subscriber of its own from the stream's present (the slow consumer's flood cut off the first one)
        const [{ seq }] = await sql<{ seq: string }[]>`select max(seq) as seq from public.network_seq`;
        const relay = consumer(baseUrl, Number(seq));
        const copy = new RelayCopy(baseUrl, did, didKey);
        await copy.fetch();
        const before = copy.rev!;
        // 30 posts, each with a link card whose description is 80,000 characters: valid posts (the lexicon
        // bounds a post's text, not a card's description), 2.4 MB in all, queued by a change outside the
        // API (an app's write is one request of at most 1 MB) and projected together into one commit
        const description = "a long link card ".repeat(80_000 / 17);
        const rkeys = Array.from({ length: 30 }, (_, i) => `3mbig${String(i).padStart(8, "a")}`);
        const recordOf = (rkey: string) => ({
          $type: POST,
          text: `a post with a long card, ${rkey}`,
          embed: {
            $type: "app.bsky.embed.external",
            external: { uri: `https://example.com/${rkey}`, title: rkey, description: `${rkey} ${description}` },
          },
          createdAt: "2030-01-01T00:00:00.000Z",
        });
        validateRecord(POST, recordOf(rkeys[0]));
        await sql`
          insert into public.community_posts (author_id, rkey, cid, record, text)
          select ${mira.id}::uuid, r.rkey, 'bafy', r.record, r.record->>'text'
          from jsonb_to_recordset(${sql.json(rkeys.map((rkey) => ({ rkey, record: recordOf(rkey) })))}) as r(rkey text, record jsonb)`;
        try {
          assert.equal((await internal("project")).status, 200);
          const head = await latest(did);
          const written = new Uint8Array(await (await get("com.atproto.sync.getRepo", { did, since: before })).arrayBuffer());
          assert.ok(written.byteLength > COMMIT_EVENT_MAX_BLOCKS_BYTES, `the commit wrote ${written.byteLength} bytes of blocks`);

          const sync = await relay.until((f) => ofRepo(did, "#sync")(f) && f.body.rev === head.rev);
          await new Promise((r) => setTimeout(r, 200));
          assert.deepEqual(relay.frames.filter((f) => (f.body.did ?? f.body.repo) === did).map((f) => f.header.t), ["#sync"]);
          // the CAR holds the signed commit alone, signed by the member's key
          const { root, blocks } = await readCarWithRoot(sync.body.blocks);
          assert.equal(root.toString(), head.cid);
          assert.equal(blocks.size, 1);
          assert.ok(await verifyCommitSig(decode(blocks.get(root)!) as never, didKey));
          assert.equal(await copy.apply(sync), "fetched");
          assert.deepEqual([copy.commit, copy.rev, copy.fetched], [head.cid, head.rev, 2]);
          for (const rkey of rkeys) assert.ok(copy.records.has(`${POST}/${rkey}`), `the copy holds ${rkey}`);

          const created = await agent.post({ text: "after the big commit", createdAt: new Date().toISOString() });
          const frame = await relay.until((f) => ofRepo(did, "#commit")(f) && f.body.ops.some((o: any) => o.cid?.toString() === created.cid));
          assert.equal(frame.body.since, sync.body.rev);
          assert.equal(frame.body.prevData.toString(), (decode(blocks.get(root)!) as any).data.toString());
          assert.equal(await copy.apply(frame), "commit");
          const whole = await verifyRepoCar(new Uint8Array(await (await get("com.atproto.sync.getRepo", { did })).arrayBuffer()), did, didKey);
          assert.deepEqual(
            Object.fromEntries(copy.records),
            Object.fromEntries(whole.creates.map((c) => [`${c.collection}/${c.rkey}`, c.cid.toString()])),
          );
        } finally {
          await relay.close();
          await sql`delete from public.community_posts where author_id = ${mira.id} and rkey like '3mbig%'`;
          await (await internal("project")).body?.cancel();
        }
      });

      await stream.close();
    });
  } finally {
    await federation.close();
  }
});
