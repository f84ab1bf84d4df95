// The reads apps make beyond the timeline, through AtpAgent (which checks every 2xx answer against the
// lexicons): known followers, quotes, a member's own likes, post search, and the answers about lists and
// starter packs the site does not have. Each with its paging, the reader's view (RLS, blocks) and its errors.
import assert from "node:assert/strict";
import { AtpAgent } from "@atproto/api";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { newMember, signedIn, type TestMember } from "../../helpers/network.ts";
import { xrpc } from "../../helpers/lexicon.ts";

const host = await testHost();
const sql = host.ctx.sql;
const now = () => new Date().toISOString();

async function members(...stems: string[]): Promise<{ m: TestMember; agent: AtpAgent }[]> {
  return await Promise.all(stems.map(async (stem) => {
    const m = await newMember(sql, stem);
    return { m, agent: await signedIn(host.baseUrl, m) };
  }));
}

/** Every page of a listing, limit 1 a page, following the cursor to the end. */
async function allPages<T>(
  page: (cursor?: string) => Promise<{ items: T[]; cursor?: string }>,
): Promise<T[]> {
  const seen: T[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const next = await page(cursor);
    seen.push(...next.items);
    cursor = next.cursor;
    if (!cursor) return seen;
  }
  throw new Error("the cursor never ended");
}

test("getKnownFollowers: the subject's followers whom the reader follows, newest first, paged; blocks hide", async () => {
  const [alice, bob, carol, dave, eve] = await members("kfa", "kfb", "kfc", "kfd", "kfe");
  await alice.agent.follow(bob.m.did);
  await alice.agent.follow(carol.m.did);
  await bob.agent.follow(eve.m.did);
  await dave.agent.follow(eve.m.did);
  await carol.agent.follow(eve.m.did);

  const known = await alice.agent.app.bsky.graph.getKnownFollowers({ actor: eve.m.handle });
  assert.equal(known.data.subject.did, eve.m.did);
  assert.deepEqual(
    known.data.followers.map((f) => f.did),
    [carol.m.did, bob.m.did],
    "dave is no one alice follows",
  );
  assert.equal(known.data.cursor, undefined);
  const paged = await allPages(async (cursor) => {
    const { data } = await alice.agent.app.bsky.graph.getKnownFollowers({
      actor: eve.m.did,
      limit: 1,
      cursor,
    });
    return { items: data.followers.map((f) => f.did), cursor: data.cursor };
  });
  assert.deepEqual(paged, [carol.m.did, bob.m.did]);

  await alice.agent.app.bsky.graph.block.create({ repo: alice.m.did }, {
    subject: carol.m.did,
    createdAt: now(),
  });
  const afterBlock = await alice.agent.app.bsky.graph.getKnownFollowers({ actor: eve.m.did });
  assert.deepEqual(afterBlock.data.followers.map((f) => f.did), [bob.m.did]);

  const anonymous = await xrpc(host.baseUrl, "app.bsky.graph.getKnownFollowers", {
    params: { actor: eve.m.did },
  });
  assert.deepEqual([anonymous.status, anonymous.body.error], [401, "AuthenticationRequired"]);
  const token = alice.agent.session!.accessJwt;
  const nobody = await xrpc(host.baseUrl, "app.bsky.graph.getKnownFollowers", {
    token,
    params: { actor: "nobody.demo.sitewire.dev" },
  });
  assert.deepEqual([nobody.status, nobody.body.error], [400, "InvalidRequest"]);
  const bad = await xrpc(host.baseUrl, "app.bsky.graph.getKnownFollowers", {
    token,
    params: { actor: eve.m.did, cursor: "nope" },
  });
  assert.deepEqual([bad.status, bad.body.error], [400, "InvalidRequest"]);
});

test("getQuotes: the posts quoting a post, newest first, paged, by version with cid; blocks hide", async () => {
  const [alice, bob, carol] = await members("qa", "qb", "qc");
  const quoted = await alice.agent.post({ text: "quote me", createdAt: now() });
  const other = await alice.agent.post({ text: "not me", createdAt: now() });
  const first = await bob.agent.post({
    text: "bob quotes",
    embed: { $type: "app.bsky.embed.record", record: { uri: quoted.uri, cid: quoted.cid } },
    createdAt: now(),
  });
  const PNG = Uint8Array.from(
    atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="),
    (c) => c.charCodeAt(0),
  );
  const { data: blob } = await carol.agent.uploadBlob(PNG, { encoding: "image/png" });
  const second = await carol.agent.post({
    text: "carol quotes with a picture",
    embed: {
      $type: "app.bsky.embed.recordWithMedia",
      record: { $type: "app.bsky.embed.record", record: { uri: quoted.uri, cid: quoted.cid } },
      media: { $type: "app.bsky.embed.images", images: [{ image: blob.blob, alt: "a dot" }] },
    },
    createdAt: now(),
  });
  await bob.agent.post({
    text: "quotes the other",
    embed: { $type: "app.bsky.embed.record", record: { uri: other.uri, cid: other.cid } },
    createdAt: now(),
  });

  const quotes = await alice.agent.app.bsky.feed.getQuotes({ uri: quoted.uri });
  assert.equal(quotes.data.uri, quoted.uri);
  assert.deepEqual(quotes.data.posts.map((p) => p.uri), [second.uri, first.uri]);
  assert.equal(quotes.data.posts[1].embed?.$type, "app.bsky.embed.record#view");
  const paged = await allPages(async (cursor) => {
    const { data } = await alice.agent.app.bsky.feed.getQuotes({ uri: quoted.uri, limit: 1, cursor });
    return { items: data.posts.map((p) => p.uri), cursor: data.cursor };
  });
  assert.deepEqual(paged, [second.uri, first.uri]);
  const thisVersion = await alice.agent.app.bsky.feed.getQuotes({ uri: quoted.uri, cid: quoted.cid });
  assert.equal(thisVersion.data.posts.length, 2);
  const otherVersion = await alice.agent.app.bsky.feed.getQuotes({ uri: quoted.uri, cid: other.cid });
  assert.deepEqual(otherVersion.data.posts, [], "quotes of another version of the post are left out");

  await alice.agent.app.bsky.graph.block.create({ repo: alice.m.did }, {
    subject: bob.m.did,
    createdAt: now(),
  });
  assert.deepEqual(
    (await alice.agent.app.bsky.feed.getQuotes({ uri: quoted.uri })).data.posts.map((p) => p.uri),
    [second.uri],
  );

  // somebody outside the site sees none of these site-only posts
  const anon = new AtpAgent({ service: host.baseUrl });
  assert.deepEqual((await anon.app.bsky.feed.getQuotes({ uri: quoted.uri })).data.posts, []);
  const missing = await alice.agent.app.bsky.feed.getQuotes({
    uri: `at://${alice.m.did}/app.bsky.feed.post/3aaaaaaaaaaaa`,
  });
  assert.deepEqual(missing.data.posts, []);
  const bad = await xrpc(host.baseUrl, "app.bsky.feed.getQuotes", { params: { uri: "not-an-at-uri" } });
  assert.deepEqual([bad.status, bad.body.error], [400, "InvalidRequest"]);
});

test("getActorLikes: a member's own likes and hearts, newest first, paged; nobody else's", async () => {
  const [alice, bob] = await members("la", "lb");
  const one = await bob.agent.post({ text: "like me", createdAt: now() });
  const two = await bob.agent.post({ text: "and me", createdAt: now() });
  await alice.agent.like(one.uri, one.cid);
  await alice.agent.like(two.uri, two.cid);
  // a space's post (a message of its feed channel) liked through the app is a heart
  const slug = `l${Date.now().toString(36)}`.slice(0, 15);
  const [space] = await sql<{ id: string }[]>`
    insert into public.community_spaces (slug, name, created_by) values (${slug}, 'Likers', ${bob.m.id}) returning id`;
  await sql`insert into public.community_space_members (space_id, person_id, role)
    values (${space.id}, ${bob.m.id}, 'owner'), (${space.id}, ${alice.m.id}, 'member')`;
  const [channel] = await sql<{ id: string }[]>`
    insert into public.community_channels (space_id, kind, name) values (${space.id}, 'feed', 'feed') returning id`;
  const [message] = await sql<{ id: number }[]>`
    insert into public.community_messages (channel_id, author_id, text) values (${channel.id}, ${bob.m.id}, 'a room post')
    returning id`;
  const roomUri = `at://${bob.m.did}/app.bsky.feed.post/s~${message.id.toString(16)}`;
  const [roomPost] = (await alice.agent.getPosts({ uris: [roomUri] })).data.posts;
  await alice.agent.like(roomUri, roomPost.cid);

  const likes = await alice.agent.app.bsky.feed.getActorLikes({ actor: alice.m.handle });
  assert.deepEqual(likes.data.feed.map((i) => i.post.uri), [roomUri, two.uri, one.uri]);
  assert.ok(likes.data.feed.every((i) => i.post.viewer?.like), "each shows the reader's own like");
  const paged = await allPages(async (cursor) => {
    const { data } = await alice.agent.app.bsky.feed.getActorLikes({ actor: alice.m.did, limit: 1, cursor });
    return { items: data.feed.map((i) => i.post.uri), cursor: data.cursor };
  });
  assert.deepEqual(paged, [roomUri, two.uri, one.uri]);

  const token = bob.agent.session!.accessJwt;
  const theirs = await xrpc(host.baseUrl, "app.bsky.feed.getActorLikes", {
    token,
    params: { actor: alice.m.did },
  });
  assert.deepEqual(
    [theirs.status, theirs.body.error],
    [400, "InvalidRequest"],
    "likes are their owner's to list",
  );
  const anonymous = await xrpc(host.baseUrl, "app.bsky.feed.getActorLikes", {
    params: { actor: alice.m.did },
  });
  assert.deepEqual([anonymous.status, anonymous.body.error], [401, "AuthenticationRequired"]);
  assert.deepEqual((await bob.agent.app.bsky.feed.getActorLikes({ actor: bob.m.did })).data.feed, []);
});

test("searchPosts: words as prefixes, newest first or best match, every filter, paged; as the reader", async () => {
  const [alice, bob, carol] = await members("sa", "sb", "sc");
  const word = `zq${crypto.randomUUID().replace(/-/g, "").slice(0, 8)}`;
  const text = `Ripe tomatoes ${word} from ${bob.m.handle} at garden`;
  const bytes = (s: string) => new TextEncoder().encode(s).byteLength;
  const mentionStart = bytes(`Ripe tomatoes ${word} from `);
  const link = "https://shop.garden.example.com/seeds?x=1";
  const rich = await alice.agent.post({
    text: `${text} ${link}`,
    langs: ["en"],
    tags: ["allotment"],
    facets: [
      {
        index: { byteStart: mentionStart, byteEnd: mentionStart + bytes(bob.m.handle) },
        features: [{ $type: "app.bsky.richtext.facet#mention", did: bob.m.did }],
      },
      {
        index: { byteStart: bytes(`${text} `), byteEnd: bytes(`${text} ${link}`) },
        features: [{ $type: "app.bsky.richtext.facet#link", uri: link }],
      },
    ],
    createdAt: now(),
  });
  const plain = await bob.agent.post({ text: `${word} basil`, langs: ["de"], createdAt: now() });
  const soup = await carol.agent.post({ text: `${word} tomato soup, tomato ${word}`, createdAt: now() });

  const search = async (params: Record<string, unknown>, agent = alice.agent) =>
    (await agent.app.bsky.feed.searchPosts({ q: word, ...params } as never)).data.posts.map((p) => p.uri);
  assert.deepEqual(await search({}), [soup.uri, plain.uri, rich.uri], "newest first");
  assert.deepEqual(await search({ q: `${word} tomat` }), [soup.uri, rich.uri], "every word, each a prefix");
  assert.deepEqual(await search({ q: `${word.toUpperCase()} BASIL` }), [plain.uri], "whatever the case");
  assert.deepEqual(await search({ author: bob.m.handle }), [plain.uri]);
  assert.deepEqual(await search({ mentions: bob.m.did }), [rich.uri]);
  assert.deepEqual(await search({ lang: "en" }), [rich.uri]);
  assert.deepEqual(await search({ domain: "example.com" }), [rich.uri]);
  assert.deepEqual(await search({ domain: "ample.com" }), [], "a domain is matched by whole labels");
  assert.deepEqual(await search({ url: link }), [rich.uri]);
  assert.deepEqual(await search({ tag: ["allotment"] }), [rich.uri]);
  assert.deepEqual(await search({ tag: ["allotment", "other"] }), [], "every tag");
  assert.deepEqual(await search({ since: "2999-01-01" }), []);
  assert.deepEqual(await search({ until: new Date(Date.now() - 86_400_000).toISOString() }), []);
  assert.deepEqual(await search({ since: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10) }), [
    soup.uri,
    plain.uri,
    rich.uri,
  ]);
  const top = await search({ q: `${word} tomato`, sort: "top" });
  assert.equal(top[0], soup.uri, "the post that says it most comes first");
  assert.deepEqual([...top].sort(), [soup.uri, rich.uri].sort());

  for (const sort of ["latest", "top"]) {
    const paged = await allPages(async (cursor) => {
      const { data } = await alice.agent.app.bsky.feed.searchPosts({ q: word, sort, limit: 1, cursor });
      return { items: data.posts.map((p) => p.uri), cursor: data.cursor };
    });
    assert.deepEqual([...paged].sort(), [soup.uri, plain.uri, rich.uri].sort(), `${sort}: every post once`);
    assert.equal(new Set(paged).size, 3);
  }

  await alice.agent.app.bsky.graph.block.create({ repo: alice.m.did }, {
    subject: carol.m.did,
    createdAt: now(),
  });
  assert.deepEqual(await search({}), [plain.uri, rich.uri], "a blocked author's posts are left out");
  // somebody outside the site sees none of these site-only posts
  const anon = new AtpAgent({ service: host.baseUrl });
  assert.deepEqual(await search({}, anon), []);
  assert.deepEqual(await search({ author: "nobody.demo.sitewire.dev" }), []);

  const token = alice.agent.session!.accessJwt;
  for (
    const params of [{ q: word, since: "yesterday" }, { q: word, cursor: "x" }, { q: word, sort: "best" }, {}]
  ) {
    const res = await xrpc(host.baseUrl, "app.bsky.feed.searchPosts", {
      token,
      params: params as Record<string, string>,
    });
    assert.deepEqual([res.status, res.body.error], [400, "InvalidRequest"], JSON.stringify(params));
  }
});

test("a list or starter pack, which the site does not have, is not found", async () => {
  const [alice] = await members("ls");
  const token = alice.agent.session!.accessJwt;
  const list = `at://${alice.m.did}/app.bsky.graph.list/3aaaaaaaaaaaa`;
  const cases: [string, Record<string, string> | undefined, Record<string, string> | undefined, string][] = [
    ["app.bsky.graph.getList", { list }, undefined, "InvalidRequest"],
    ["app.bsky.feed.getListFeed", { list }, undefined, "UnknownList"],
    ["app.bsky.graph.muteActorList", undefined, { list }, "InvalidRequest"],
    ["app.bsky.graph.unmuteActorList", undefined, { list }, "InvalidRequest"],
    [
      "app.bsky.graph.getStarterPack",
      { starterPack: `at://${alice.m.did}/app.bsky.graph.starterpack/x` },
      undefined,
      "InvalidRequest",
    ],
  ];
  for (const [nsid, params, input, error] of cases) {
    const res = await xrpc(host.baseUrl, nsid, { token, params, input });
    assert.deepEqual([res.status, res.body.error], [400, error], nsid);
    assert.match(res.body.message, /not found/, nsid);
  }
  await assert.rejects(
    alice.agent.app.bsky.feed.getListFeed({ list }),
    (e: any) => e.error === "UnknownList",
  );
  const malformed = await xrpc(host.baseUrl, "app.bsky.graph.getList", { token, params: { list: "nope" } });
  assert.deepEqual([malformed.status, malformed.body.error], [400, "InvalidRequest"]);
  const anonymous = await xrpc(host.baseUrl, "app.bsky.graph.muteActorList", { input: { list } });
  assert.deepEqual([anonymous.status, anonymous.body.error], [401, "AuthenticationRequired"]);
});

test("muteThread: the thread's posts show threadMuted to the reader alone, and its notifications go quiet until unmuted", async () => {
  const [alice, bob, carol] = await members("ta", "tb", "tc");
  const root = await alice.agent.post({ text: "a thread", createdAt: now() });
  const other = await alice.agent.post({ text: "another", createdAt: now() });
  const reply = await bob.agent.post({
    text: "first answer",
    reply: { root: { uri: root.uri, cid: root.cid }, parent: { uri: root.uri, cid: root.cid } },
    createdAt: now(),
  });
  // muting from a reply mutes the whole thread (its root)
  await alice.agent.app.bsky.graph.muteThread({ root: reply.uri });
  const [rootView, replyView, otherView] =
    (await alice.agent.getPosts({ uris: [root.uri, reply.uri, other.uri] })).data.posts;
  assert.deepEqual([
    rootView.viewer?.threadMuted,
    replyView.viewer?.threadMuted,
    otherView.viewer?.threadMuted,
  ], [true, true, false]);
  assert.equal(
    (await bob.agent.getPosts({ uris: [root.uri] })).data.posts[0].viewer?.threadMuted,
    false,
    "a mute is private",
  );

  const before = (await alice.agent.listNotifications()).data.notifications.length;
  const unreadBefore = (await alice.agent.countUnreadNotifications()).data.count;
  await carol.agent.post({
    text: "second answer",
    reply: { root: { uri: root.uri, cid: root.cid }, parent: { uri: reply.uri, cid: reply.cid } },
    createdAt: now(),
  });
  await carol.agent.like(root.uri, root.cid);
  await carol.agent.like(other.uri, other.cid);
  const notes = (await alice.agent.listNotifications()).data.notifications;
  assert.equal(notes.length, before + 1, "only the like outside the thread");
  assert.equal(notes[0].reasonSubject, other.uri);
  assert.equal((await alice.agent.countUnreadNotifications()).data.count, unreadBefore + 1);

  await alice.agent.app.bsky.graph.unmuteThread({ root: root.uri });
  assert.equal((await alice.agent.getPosts({ uris: [reply.uri] })).data.posts[0].viewer?.threadMuted, false);
  assert.equal((await alice.agent.listNotifications()).data.notifications.length, before + 3, "heard again");
  await alice.agent.app.bsky.graph.unmuteThread({ root: root.uri }); // not muted: nothing to do

  const token = alice.agent.session!.accessJwt;
  const missing = await xrpc(host.baseUrl, "app.bsky.graph.muteThread", {
    token,
    input: { root: `at://${alice.m.did}/app.bsky.feed.post/3aaaaaaaaaaaa` },
  });
  assert.deepEqual([missing.status, missing.body.error], [400, "InvalidRequest"]);
  const malformed = await xrpc(host.baseUrl, "app.bsky.graph.muteThread", { token, input: { root: "nope" } });
  assert.deepEqual([malformed.status, malformed.body.error], [400, "InvalidRequest"]);
  const anonymous = await xrpc(host.baseUrl, "app.bsky.graph.muteThread", { input: { root: root.uri } });
  assert.deepEqual([anonymous.status, anonymous.body.error], [401, "AuthenticationRequired"]);
  // an anonymous reader's view of a post has no thread mute to ask about (and no error)
  const open = await xrpc(host.baseUrl, "app.bsky.feed.getPosts", { params: { uris: root.uri } });
  assert.equal(open.status, 200);
});
