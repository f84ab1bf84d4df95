// Writes through the real client (spec: Protocol server methods, Errors): records in the writer's own
// repository only, checked against their lexicons, TID keys, swaps, the profile on the site's profile,
// blobs with raw-codec CIDs, and the database's refusals answered as InvalidRecord.
import assert from "node:assert/strict";
import { AtpAgent } from "@atproto/api";
import { cidForRawBytes } from "@atproto/lex-data";
import { isValidTid } from "@atproto/syntax";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { xrpc } from "../../helpers/lexicon.ts";
import { newMember, signedIn, type TestMember } from "../../helpers/network.ts";

const host = await testHost();
const sql = host.ctx.sql;
let n = 0;
const addr = () => `198.51.101.${(n++ % 250) + 1}`;

async function member(stem: string): Promise<{ m: TestMember; agent: AtpAgent }> {
  const m = await newMember(sql, stem);
  return { m, agent: await signedIn(host.baseUrl, m, addr()) };
}

/** XRPC error name and status of a call that must fail */
async function refusal(call: Promise<unknown>): Promise<{ status: number; error: string; message: string }> {
  try {
    await call;
  } catch (e) {
    const err = e as { status: number; error: string; message: string };
    return { status: err.status, error: err.error, message: err.message };
  }
  throw new Error("the call succeeded");
}

const PNG = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="),
  (c) => c.charCodeAt(0),
);

test("a post gets a TID key, its CID, and lands in the community as the writer's", async () => {
  const { m, agent } = await member("wp");
  const made = await agent.post({ text: "hello from an app", createdAt: new Date().toISOString() });
  const rkey = made.uri.split("/").pop()!;
  assert.ok(isValidTid(rkey));
  assert.ok(made.uri.startsWith(`at://${m.did}/app.bsky.feed.post/`));
  const [row] = await sql`select cid, text, audience, record from public.community_posts where author_id = ${m.id} and rkey = ${rkey}`;
  assert.equal(row.cid, made.cid);
  assert.equal(row.text, "hello from an app");
  assert.equal(row.audience, "site");
  assert.equal(row.record.$type, "app.bsky.feed.post");
});

test("createRecord answers the lexicon's output (uri, cid, commit, validationStatus)", async () => {
  const { m, agent } = await member("wo");
  const res = await xrpc(host.baseUrl, "com.atproto.repo.createRecord", {
    token: agent.session!.accessJwt,
    input: { repo: m.did, collection: "app.bsky.feed.post", record: { text: "x", createdAt: new Date().toISOString() } },
  });
  assert.equal(res.status, 200);
  assert.equal(res.body.validationStatus, "valid");
  assert.ok(isValidTid(res.body.commit.rev));
});

test("a record that breaks its lexicon is 400 InvalidRecord; a collection the site does not keep is InvalidRequest", async () => {
  const { m, agent } = await member("wi");
  const bad = await xrpc(host.baseUrl, "com.atproto.repo.createRecord", {
    token: agent.session!.accessJwt,
    input: { repo: m.did, collection: "app.bsky.feed.post", record: { text: 42 } },
  });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error, "InvalidRecord");
  const tooLong = await xrpc(host.baseUrl, "com.atproto.repo.createRecord", {
    token: agent.session!.accessJwt,
    input: { repo: m.did, collection: "app.bsky.feed.post", record: { text: "a".repeat(301), createdAt: new Date().toISOString() } },
  });
  assert.equal(tooLong.body.error, "InvalidRecord");
  const badKey = await xrpc(host.baseUrl, "com.atproto.repo.createRecord", {
    token: agent.session!.accessJwt,
    input: { repo: m.did, collection: "app.bsky.feed.post", rkey: "not-a-tid", record: { text: "x", createdAt: new Date().toISOString() } },
  });
  assert.equal(badKey.body.error, "InvalidRecord");
  const other = await xrpc(host.baseUrl, "com.atproto.repo.createRecord", {
    token: agent.session!.accessJwt,
    input: { repo: m.did, collection: "com.example.thing", record: { $type: "com.example.thing" } },
  });
  assert.equal(other.status, 400);
  assert.equal(other.body.error, "InvalidRequest");
});

test("writing to somebody else's repository is 403 Forbidden; no token is 401", async () => {
  const { agent } = await member("wf");
  const other = await newMember(sql, "wg");
  const res = await xrpc(host.baseUrl, "com.atproto.repo.createRecord", {
    token: agent.session!.accessJwt,
    input: { repo: other.did, collection: "app.bsky.feed.post", record: { text: "x", createdAt: new Date().toISOString() } },
  });
  assert.equal(res.status, 403);
  assert.equal(res.body.error, "Forbidden");
  const anonymous = await xrpc(host.baseUrl, "com.atproto.repo.createRecord", {
    input: { repo: other.did, collection: "app.bsky.feed.post", record: { text: "x", createdAt: new Date().toISOString() } },
  });
  assert.equal(anonymous.status, 401);
});

test("reply, quote, like, repost and follow reach the tables and notify the other member", async () => {
  const a = await member("na");
  const b = await member("nb");
  const post = await a.agent.post({ text: "original", createdAt: new Date().toISOString() });
  const ref = { uri: post.uri, cid: post.cid };
  const reply = await b.agent.post({ text: "a reply", reply: { root: ref, parent: ref }, createdAt: new Date().toISOString() });
  const quote = await b.agent.post({
    text: "a quote",
    embed: { $type: "app.bsky.embed.record", record: ref },
    createdAt: new Date().toISOString(),
  });
  await b.agent.like(post.uri, post.cid);
  await b.agent.repost(post.uri, post.cid);
  await b.agent.follow(a.m.did);
  const [original] = await sql`select id from public.community_posts where author_id = ${a.m.id}`;
  const [replyRow] = await sql`select reply_parent_id, reply_root_id from public.community_posts where rkey = ${reply.uri.split("/").pop()!}`;
  assert.equal(replyRow.reply_parent_id, original.id);
  assert.equal(replyRow.reply_root_id, original.id);
  const [quoteRow] = await sql`select quote_id from public.community_posts where rkey = ${quote.uri.split("/").pop()!}`;
  assert.equal(quoteRow.quote_id, original.id);
  const reasons = await sql`select reason from public.community_notifications where recipient_id = ${a.m.id} order by reason`;
  assert.deepEqual(reasons.map((r) => r.reason), ["follow", "like", "quote", "reply", "repost"]);
});

test("a second like of the same post is InvalidRecord; deleting the like lets it be made again", async () => {
  const a = await member("la");
  const b = await member("lb");
  const post = await a.agent.post({ text: "like me", createdAt: new Date().toISOString() });
  const like = await b.agent.like(post.uri, post.cid);
  const again = await refusal(b.agent.like(post.uri, post.cid));
  assert.equal(again.error, "InvalidRecord");
  await b.agent.deleteLike(like.uri);
  const [row] = await sql`select count(*)::int as n from public.community_likes where author_id = ${b.m.id}`;
  assert.equal(row.n, 0);
  await b.agent.like(post.uri, post.cid);
});

test("a like of something that is not a post here is InvalidRecord", async () => {
  const { agent } = await member("lx");
  const res = await refusal(agent.like("at://did:web:nobody.demo.sitewire.dev/app.bsky.feed.post/3kabcdefghij2", "bafyreigr2z5g3gdjsa6dyosyx7nsturzlyszbvvp6cx5eoniqzmgelkr64"));
  assert.equal(res.status, 400);
  assert.equal(res.error, "InvalidRecord");
});

test("the database refuses a reply across a block, and the API answers InvalidRecord", async () => {
  const a = await member("ba");
  const b = await member("bb");
  const post = await a.agent.post({ text: "mine", createdAt: new Date().toISOString() });
  await a.agent.app.bsky.graph.block.create({ repo: a.m.did }, { subject: b.m.did, createdAt: new Date().toISOString() });
  const ref = { uri: post.uri, cid: post.cid };
  const reply = await refusal(b.agent.post({ text: "hey", reply: { root: ref, parent: ref }, createdAt: new Date().toISOString() }));
  assert.equal(reply.status, 400);
  assert.equal(reply.error, "InvalidRecord");
  assert.match(reply.message, /block/);
  const like = await refusal(b.agent.like(post.uri, post.cid));
  assert.equal(like.error, "InvalidRecord");
});

test("a reply wider than its post is refused: a member who joined the wider network answering a site-only post", async () => {
  const a = await member("wa");
  const b = await member("wb");
  const post = await a.agent.post({ text: "site only", createdAt: new Date().toISOString() });
  await sql`update public.profiles set network_did = ${`did:plc:${b.m.username.padEnd(24, "a").slice(0, 24)}`} where id = ${b.m.id}`;
  const ref = { uri: post.uri, cid: post.cid };
  const res = await refusal(b.agent.post({ text: "to everyone", reply: { root: ref, parent: ref }, createdAt: new Date().toISOString() }));
  assert.equal(res.error, "InvalidRecord");
  assert.match(res.message, /further/);
});

test("putRecord of the profile lands on the site's profile; the avatar must be the member's uploaded blob", async () => {
  const { m, agent } = await member("pr");
  const uploaded = await agent.uploadBlob(PNG, { encoding: "image/png" });
  assert.equal(uploaded.data.blob.ref.toString(), (await cidForRawBytes(PNG)).toString());
  assert.ok(uploaded.data.blob.ref.toString().startsWith("bafkrei"), "raw codec");
  await agent.upsertProfile((old) => ({ ...old, displayName: "Prue Example", description: "Hello there", avatar: uploaded.data.blob }));
  const [row] = await sql`select display_name, description, avatar_cid, avatar_mime, network_profile_cid from public.profiles where id = ${m.id}`;
  assert.equal(row.display_name, "Prue Example");
  assert.equal(row.description, "Hello there");
  assert.equal(row.avatar_cid, uploaded.data.blob.ref.toString());
  assert.equal(row.avatar_mime, "image/png");
  assert.ok(row.network_profile_cid);
  const stored = await host.ctx.storage.get("network", `${m.id}/${row.avatar_cid}`);
  assert.equal(stored?.size, PNG.byteLength);
  // somebody else's blob is refused
  const other = await member("ps");
  const theirs = await other.agent.uploadBlob(new Uint8Array([...PNG, 0]), { encoding: "image/png" });
  assert.ok(theirs);
  const res = await xrpc(host.baseUrl, "com.atproto.repo.putRecord", {
    token: agent.session!.accessJwt,
    input: {
      repo: m.did,
      collection: "app.bsky.actor.profile",
      rkey: "self",
      record: { displayName: "Prue", avatar: { $type: "blob", ref: { $link: theirs.data.blob.ref.toString() }, mimeType: "image/png", size: theirs.data.blob.size } },
    },
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.error, "InvalidRecord");
});

test("uploadBlob: only pictures and videos of the allowed types and sizes", async () => {
  const { agent } = await member("ub");
  const token = agent.session!.accessJwt;
  const send = (body: Uint8Array, type: string, headers: Record<string, string> = {}) =>
    fetch(`${host.baseUrl}/xrpc/com.atproto.repo.uploadBlob`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": type, ...headers },
      body: body as BodyInit,
    });
  const pdf = await send(new TextEncoder().encode("%PDF-1.4"), "application/pdf");
  assert.equal(pdf.status, 400);
  assert.equal((await pdf.json()).error, "InvalidRequest");
  const liar = await send(new TextEncoder().encode("not a png"), "image/png");
  assert.equal(liar.status, 400);
  await liar.body?.cancel();
  const big = await send(new Uint8Array(10 * 1024 * 1024 + 1), "image/png");
  assert.equal(big.status, 413);
  assert.equal((await big.json()).error, "PayloadTooLarge");
  const video = await send(new Uint8Array(2048), "video/mp4");
  assert.equal(video.status, 200);
  const body = await video.json();
  assert.equal(body.blob.mimeType, "video/mp4");
  assert.equal(body.blob.size, 2048);
});

test("a post may show only blobs its author uploaded", async () => {
  const { m, agent } = await member("bl");
  const res = await xrpc(host.baseUrl, "com.atproto.repo.createRecord", {
    token: agent.session!.accessJwt,
    input: {
      repo: m.did,
      collection: "app.bsky.feed.post",
      record: {
        text: "picture",
        createdAt: new Date().toISOString(),
        embed: {
          $type: "app.bsky.embed.images",
          images: [{ alt: "", image: { $type: "blob", ref: { $link: (await cidForRawBytes(new Uint8Array([9]))).toString() }, mimeType: "image/png", size: 1 } }],
        },
      },
    },
  });
  assert.equal(res.status, 400);
  assert.equal(res.body.error, "InvalidRecord");
});

test("swapRecord and swapCommit are honoured: a stale one is InvalidSwap", async () => {
  const { m, agent } = await member("sw");
  const token = agent.session!.accessJwt;
  const made = await xrpc(host.baseUrl, "com.atproto.repo.putRecord", {
    token,
    input: { repo: m.did, collection: "app.bsky.actor.profile", rkey: "self", record: { displayName: "One" } },
  });
  assert.equal(made.status, 200);
  const stale = await xrpc(host.baseUrl, "com.atproto.repo.putRecord", {
    token,
    input: { repo: m.did, collection: "app.bsky.actor.profile", rkey: "self", record: { displayName: "Two" }, swapRecord: "bafyreigr2z5g3gdjsa6dyosyx7nsturzlyszbvvp6cx5eoniqzmgelkr64" },
  });
  assert.equal(stale.status, 400);
  assert.equal(stale.body.error, "InvalidSwap");
  const fresh = await xrpc(host.baseUrl, "com.atproto.repo.putRecord", {
    token,
    input: { repo: m.did, collection: "app.bsky.actor.profile", rkey: "self", record: { displayName: "Two" }, swapRecord: made.body.cid, swapCommit: made.body.commit.cid },
  });
  assert.equal(fresh.status, 200);
  const oldCommit = await xrpc(host.baseUrl, "com.atproto.repo.createRecord", {
    token,
    input: { repo: m.did, collection: "app.bsky.feed.post", record: { text: "x", createdAt: new Date().toISOString() }, swapCommit: made.body.commit.cid },
  });
  assert.equal(oldCommit.body.error, "InvalidSwap");
});

test("applyWrites is all or nothing, and answers typed results", async () => {
  const { m, agent } = await member("aw");
  const token = agent.session!.accessJwt;
  const now = new Date().toISOString();
  const failed = await xrpc(host.baseUrl, "com.atproto.repo.applyWrites", {
    token,
    input: {
      repo: m.did,
      writes: [
        { $type: "com.atproto.repo.applyWrites#create", collection: "app.bsky.feed.post", value: { text: "one", createdAt: now } },
        { $type: "com.atproto.repo.applyWrites#create", collection: "app.bsky.feed.post", value: { text: 2 } },
      ],
    },
  });
  assert.equal(failed.body.error, "InvalidRecord");
  const [none] = await sql`select count(*)::int as n from public.community_posts where author_id = ${m.id}`;
  assert.equal(none.n, 0);
  const done = await xrpc(host.baseUrl, "com.atproto.repo.applyWrites", {
    token,
    input: {
      repo: m.did,
      writes: [
        { $type: "com.atproto.repo.applyWrites#create", collection: "app.bsky.feed.post", value: { text: "one", createdAt: now } },
        { $type: "com.atproto.repo.applyWrites#create", collection: "app.bsky.feed.post", value: { text: "two", createdAt: now } },
      ],
    },
  });
  assert.equal(done.status, 200);
  assert.deepEqual(done.body.results.map((r: { $type: string }) => r.$type), [
    "com.atproto.repo.applyWrites#createResult",
    "com.atproto.repo.applyWrites#createResult",
  ]);
  const rkey = done.body.results[0].uri.split("/").pop();
  const deleted = await xrpc(host.baseUrl, "com.atproto.repo.applyWrites", {
    token,
    input: { repo: m.did, writes: [{ $type: "com.atproto.repo.applyWrites#delete", collection: "app.bsky.feed.post", rkey }] },
  });
  assert.equal(deleted.status, 200);
  const [left] = await sql`select count(*)::int as n from public.community_posts where author_id = ${m.id}`;
  assert.equal(left.n, 1);
});

test("deleting a record that is not there is no error", async () => {
  const { m, agent } = await member("dl");
  const res = await xrpc(host.baseUrl, "com.atproto.repo.deleteRecord", {
    token: agent.session!.accessJwt,
    input: { repo: m.did, collection: "app.bsky.feed.post", rkey: "3kabcdefghij2" },
  });
  assert.equal(res.status, 200);
});

test("a space's post: a like becomes a heart, an answer a reply in the room, a repost is refused", async () => {
  const { m, agent } = await member("sp");
  const [message] = await sql`
    select msg.id, msg.channel_id, p.username from public.community_messages msg
    join public.community_channels c on c.id = msg.channel_id join public.community_spaces s on s.id = c.space_id
    join public.profiles p on p.id = msg.author_id
    where s.slug = 'makers' and msg.parent_id is null order by msg.id limit 1`;
  await sql`insert into public.community_space_members (space_id, person_id)
    select space_id, ${m.id} from public.community_channels where id = ${message.channel_id}`;
  const uri = `at://did:web:${message.username}.demo.sitewire.dev/app.bsky.feed.post/s~${Number(message.id).toString(16)}`;
  const cid = "bafyreigr2z5g3gdjsa6dyosyx7nsturzlyszbvvp6cx5eoniqzmgelkr64";
  await agent.like(uri, cid);
  const [heart] = await sql`select kind, rkey from public.community_reactions where message_id = ${message.id} and person_id = ${m.id}`;
  assert.equal(heart.kind, "heart");
  const answer = await agent.post({ text: "from an app", reply: { root: { uri, cid }, parent: { uri, cid } }, createdAt: new Date().toISOString() });
  assert.match(answer.uri, new RegExp(`^at://${m.did}/app.bsky.feed.post/s~[0-9a-f]+$`));
  const [reply] = await sql`select parent_id, channel_id from public.community_messages where author_id = ${m.id}`;
  assert.equal(reply.parent_id, message.id);
  const repost = await refusal(agent.repost(uri, cid));
  assert.equal(repost.error, "InvalidRecord");
  // unliking takes the heart away
  await agent.deleteLike(`at://${m.did}/app.bsky.feed.like/${heart.rkey}`);
  const [gone] = await sql`select count(*)::int as n from public.community_reactions where person_id = ${m.id}`;
  assert.equal(gone.n, 0);
});

test("text Postgres cannot keep (a NUL, a lone surrogate) is InvalidRequest at the door, never a 500", async () => {
  const { m, agent } = await member("nu");
  const res = await fetch(`${host.baseUrl}/xrpc/com.atproto.repo.createRecord`, {
    method: "POST",
    headers: { authorization: `Bearer ${agent.session!.accessJwt}`, "content-type": "application/json" },
    body: `{"repo":"${m.did}","collection":"app.bsky.feed.post","record":{"text":"a\\u0000b","createdAt":"${new Date().toISOString()}"}}`,
  });
  assert.equal(res.status, 400);
  assert.equal((await res.json()).error, "InvalidRequest");
  const param = await fetch(`${host.baseUrl}/xrpc/com.atproto.identity.resolveHandle?handle=a%00b`);
  assert.equal(param.status, 400);
  assert.equal((await param.json()).error, "InvalidRequest");
});

test("putRecord of a post replaces its record but keeps the replies to it", async () => {
  const a = await member("pe");
  const b = await member("pf");
  const post = await a.agent.post({ text: "first words", createdAt: new Date().toISOString() });
  const ref = { uri: post.uri, cid: post.cid };
  await b.agent.post({ text: "an answer", reply: { root: ref, parent: ref }, createdAt: new Date().toISOString() });
  const rkey = post.uri.split("/").pop()!;
  const edited = await xrpc(host.baseUrl, "com.atproto.repo.putRecord", {
    token: a.agent.session!.accessJwt,
    input: { repo: a.m.did, collection: "app.bsky.feed.post", rkey, record: { text: "better words", createdAt: new Date().toISOString() }, swapRecord: post.cid },
  });
  assert.equal(edited.status, 200);
  assert.notEqual(edited.body.cid, post.cid);
  const [row] = await sql`select id, text, cid from public.community_posts where author_id = ${a.m.id} and rkey = ${rkey}`;
  assert.equal(row.text, "better words");
  assert.equal(row.cid, edited.body.cid);
  const [reply] = await sql`select reply_parent_id from public.community_posts where author_id = ${b.m.id}`;
  assert.equal(reply.reply_parent_id, row.id);
});

test("a key the app chose that a record has already is InvalidSwap, in every table, and nothing of the call is kept", async () => {
  const { m, agent } = await member("ky");
  const { m: other, agent: otherAgent } = await member("ky2");
  const token = agent.session!.accessJwt;
  const now = new Date().toISOString();
  const create = (collection: string, rkey: string, record: Record<string, unknown>) =>
    xrpc(host.baseUrl, "com.atproto.repo.createRecord", { token, input: { repo: m.did, collection, rkey, record } });
  const theirs = await otherAgent.post({ text: "to like", createdAt: now });

  const cases: [string, Record<string, unknown>, Record<string, unknown>][] = [
    ["app.bsky.feed.post", { text: "first", createdAt: now }, { text: "second", createdAt: now }],
    ["app.bsky.feed.like", { subject: theirs, createdAt: now }, { subject: theirs, createdAt: now }],
    ["app.bsky.graph.follow", { subject: other.did, createdAt: now }, { subject: other.did, createdAt: now }],
  ];
  for (const [collection, first, second] of cases) {
    const rkey = `3kkey${collection.split(".").pop()!.slice(0, 4)}aaaa`.slice(0, 13);
    const made = await create(collection, rkey, first);
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const again = await create(collection, rkey, second);
    assert.deepEqual([again.status, again.body.error], [400, "InvalidSwap"], collection);
    assert.equal(again.body.message, `There is a ${collection} record with the key ${rkey} already.`);
    const got = await xrpc(host.baseUrl, "com.atproto.repo.getRecord", { token, params: { repo: m.did, collection, rkey } });
    assert.equal(got.body.cid, made.body.cid, `${collection}: the first record stays`);
  }

  // with a new record in the same call: neither is kept
  const [before] = await sql`select count(*)::int as n from public.community_posts where author_id = ${m.id}`;
  const both = await xrpc(host.baseUrl, "com.atproto.repo.applyWrites", {
    token,
    input: {
      repo: m.did,
      writes: [
        { $type: "com.atproto.repo.applyWrites#create", collection: "app.bsky.feed.post", value: { text: "new", createdAt: now } },
        { $type: "com.atproto.repo.applyWrites#create", collection: "app.bsky.feed.post", rkey: "3kkeypostaaaa", value: { text: "taken", createdAt: now } },
      ],
    },
  });
  assert.equal(both.body.error, "InvalidSwap");
  const [after] = await sql`select count(*)::int as n from public.community_posts where author_id = ${m.id}`;
  assert.equal(after.n, before.n);

  // a like that becomes a heart goes to another table: its key is checked against the likes
  const [message] = await sql`
    select msg.id, msg.channel_id, p.username from public.community_messages msg
    join public.community_channels c on c.id = msg.channel_id join public.community_spaces s on s.id = c.space_id
    join public.profiles p on p.id = msg.author_id
    where s.slug = 'makers' and msg.parent_id is null order by msg.id limit 1`;
  await sql`insert into public.community_space_members (space_id, person_id)
    select space_id, ${m.id} from public.community_channels where id = ${message.channel_id}`;
  const spaceUri = `at://did:web:${message.username}.demo.sitewire.dev/app.bsky.feed.post/s~${Number(message.id).toString(16)}`;
  const heart = await create("app.bsky.feed.like", "3kkeylikeaaaa", {
    subject: { uri: spaceUri, cid: "bafyreigr2z5g3gdjsa6dyosyx7nsturzlyszbvvp6cx5eoniqzmgelkr64" },
    createdAt: now,
  });
  assert.deepEqual([heart.status, heart.body.error], [400, "InvalidSwap"]);
  const [hearts] = await sql`select count(*)::int as n from public.community_reactions where person_id = ${m.id}`;
  assert.equal(hearts.n, 0);
});
