// The network function through the real client: AtpAgent from @atproto/api against the running host.
// The client itself checks every 2xx answer against the lexicons (it throws on an invalid one); the raw
// calls go through tests/helpers/lexicon.ts, which does the same.
import assert from "node:assert/strict";
import { AtpAgent } from "@atproto/api";
import { test } from "../helpers/test.ts";
import { testHost } from "../helpers/host.ts";
import { newMember, signedIn, type TestMember } from "../helpers/network.ts";
import { xrpc } from "../helpers/lexicon.ts";
import { EMPTY_ANSWERS } from "../../functions/network/api/app/bsky/empty.ts";

const host = await testHost();
const sql = host.ctx.sql;

const PNG = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="),
  (c) => c.charCodeAt(0),
);

async function pair(): Promise<{ a: TestMember; b: TestMember; alice: AtpAgent; bob: AtpAgent }> {
  const a = await newMember(sql, "alice");
  const b = await newMember(sql, "bob");
  return { a, b, alice: await signedIn(host.baseUrl, a), bob: await signedIn(host.baseUrl, b) };
}

test("login, getSession and resumeSession through AtpAgent", async () => {
  const m = await newMember(sql, "login");
  const agent = await signedIn(host.baseUrl, m);
  assert.equal(agent.session?.handle, m.handle);
  assert.equal(agent.session?.did, m.did);
  const session = await agent.com.atproto.server.getSession();
  assert.equal(session.data.did, m.did);
  const later = new AtpAgent({ service: host.baseUrl });
  await later.resumeSession(agent.session!);
  assert.equal(later.session?.did, m.did);
  const profile = await later.getProfile({ actor: m.handle });
  assert.equal(profile.data.handle, m.handle);
  assert.equal(profile.data.avatar, undefined, "no picture uploaded: no avatar, the app draws its default");
});

test("an expired access token answers ExpiredToken and the client refreshes and replays the call", async () => {
  const m = await newMember(sql, "expiry");
  const agent = await signedIn(host.baseUrl, m);
  const before = agent.session!.accessJwt;
  await sql`update public.network_sessions set access_expires_at = now() - interval '1 second' where person_id = ${m.id}`;
  const raw = await xrpc(host.baseUrl, "app.bsky.feed.getTimeline", { token: before });
  assert.equal(raw.status, 400);
  assert.equal(raw.body.error, "ExpiredToken");
  const timeline = await agent.getTimeline({ limit: 5 });
  assert.ok(Array.isArray(timeline.data.feed));
  assert.notEqual(agent.session!.accessJwt, before, "the client refreshed its session");
});

test("post, reply, quote, like, repost and follow show in timelines, threads, counts and notifications", async () => {
  const { a, b, alice, bob } = await pair();
  await bob.follow(a.did);
  const root = await alice.post({ text: "first post", createdAt: new Date().toISOString() });
  const reply = await bob.post({
    text: "a reply",
    reply: { root: { uri: root.uri, cid: root.cid }, parent: { uri: root.uri, cid: root.cid } },
    createdAt: new Date().toISOString(),
  });
  const quote = await bob.post({
    text: "a quote",
    embed: { $type: "app.bsky.embed.record", record: { uri: root.uri, cid: root.cid } },
    createdAt: new Date().toISOString(),
  });
  const like = await bob.like(root.uri, root.cid);
  await bob.repost(root.uri, root.cid);

  const timeline = await bob.getTimeline({ limit: 50 });
  const uris = timeline.data.feed.map((item) => item.post.uri);
  assert.ok(uris.includes(root.uri), "the followed member's post is on the timeline");
  assert.ok(uris.includes(reply.uri) && uris.includes(quote.uri), "the reader's own posts are on it");
  const repostItem = timeline.data.feed.find((i) => i.reason?.$type === "app.bsky.feed.defs#reasonRepost");
  assert.equal(repostItem?.post.uri, root.uri);
  const replyItem = timeline.data.feed.find((i) => i.post.uri === reply.uri)!;
  assert.equal((replyItem.reply?.parent as { uri: string }).uri, root.uri);
  const quoteItem = timeline.data.feed.find((i) => i.post.uri === quote.uri)!;
  assert.equal(quoteItem.post.embed?.$type, "app.bsky.embed.record#view");
  const rootView = timeline.data.feed.find((i) => i.post.uri === root.uri && !i.reason)!.post;
  assert.deepEqual(
    [rootView.replyCount, rootView.likeCount, rootView.repostCount, rootView.quoteCount],
    [1, 1, 1, 1],
  );
  assert.equal(rootView.viewer?.like, like.uri, "the reader's own like is named");

  const thread = await alice.getPostThread({ uri: root.uri });
  const replies = (thread.data.thread as { replies: { post: { uri: string } }[] }).replies;
  assert.deepEqual(replies.map((r) => r.post.uri), [reply.uri]);
  const fromReply = await alice.getPostThread({ uri: reply.uri, parentHeight: 1 });
  assert.equal((fromReply.data.thread as any).parent.post.uri, root.uri);
  const shallow = await alice.getPostThread({ uri: root.uri, depth: 0 });
  assert.equal((shallow.data.thread as any).replies, undefined);

  const posts = await alice.getPosts({ uris: [quote.uri, root.uri] });
  assert.deepEqual(posts.data.posts.map((p) => p.uri), [quote.uri, root.uri], "order kept");
  const likes = await alice.getLikes({ uri: root.uri });
  assert.deepEqual(likes.data.likes.map((l) => l.actor.did), [b.did]);
  const reposts = await alice.getRepostedBy({ uri: root.uri });
  assert.deepEqual(reposts.data.repostedBy.map((r) => r.did), [b.did]);

  const unread = await alice.countUnreadNotifications();
  assert.equal(unread.data.count, 5);
  const notes = await alice.listNotifications();
  assert.deepEqual(
    notes.data.notifications.map((n) => n.reason).sort(),
    ["follow", "like", "quote", "reply", "repost"],
  );
  for (const n of notes.data.notifications) {
    assert.equal(n.author.did, b.did);
    assert.equal(n.isRead, false);
    if (n.reason !== "follow") assert.equal(n.reasonSubject, root.uri);
  }
  const onlyLikes = await alice.listNotifications({ reasons: ["like"] });
  assert.deepEqual(onlyLikes.data.notifications.map((n) => n.reason), ["like"]);
  await alice.updateSeenNotifications(new Date(Date.now() + 1000).toISOString() as `${string}Z`);
  assert.equal((await alice.countUnreadNotifications()).data.count, 0);
  assert.ok((await alice.listNotifications()).data.notifications.every((n) => n.isRead));

  const profile = await bob.getProfile({ actor: a.handle });
  assert.equal(profile.data.followersCount, 1);
  assert.equal(profile.data.postsCount, 1);
  assert.ok(profile.data.viewer?.following?.startsWith(`at://${b.did}/app.bsky.graph.follow/`));
  const follows = await alice.getFollows({ actor: b.did });
  assert.deepEqual(follows.data.follows.map((f) => f.did), [a.did]);
  const followers = await bob.getFollowers({ actor: a.handle });
  assert.deepEqual(followers.data.followers.map((f) => f.did), [b.did]);
  const rel = await alice.app.bsky.graph.getRelationships({ actor: b.did, others: [a.did, "nobody.example.com"] });
  assert.equal((rel.data.relationships[0] as any).following?.startsWith(`at://${b.did}/`), true);
  assert.equal((rel.data.relationships[1] as any).notFound, true);
});

test("author feed filters: replies, media, author threads", async () => {
  const { a, alice } = await pair();
  const top = await alice.post({ text: "top", createdAt: new Date().toISOString() });
  const self = await alice.post({
    text: "self thread",
    reply: { root: { uri: top.uri, cid: top.cid }, parent: { uri: top.uri, cid: top.cid } },
    createdAt: new Date().toISOString(),
  });
  const { data: blob } = await alice.uploadBlob(PNG, { encoding: "image/png" });
  const picture = await alice.post({
    text: "picture",
    embed: { $type: "app.bsky.embed.images", images: [{ image: blob.blob, alt: "a dot" }] },
    createdAt: new Date().toISOString(),
  });
  const feed = async (filter?: string) =>
    (await alice.getAuthorFeed({ actor: a.did, filter })).data.feed.map((i) => i.post.uri);
  assert.deepEqual(await feed(), [picture.uri, self.uri, top.uri]);
  assert.deepEqual(await feed("posts_no_replies"), [picture.uri, top.uri]);
  assert.deepEqual(await feed("posts_with_media"), [picture.uri]);
  assert.deepEqual(await feed("posts_with_video"), []);
  assert.deepEqual(await feed("posts_and_author_threads"), [picture.uri, self.uri, top.uri]);

  const [item] = (await alice.getAuthorFeed({ actor: a.did, filter: "posts_with_media" })).data.feed;
  const images = item.post.embed as { $type: string; images: { thumb: string; fullsize: string }[] };
  assert.equal(images.$type, "app.bsky.embed.images#view");
  const res = await fetch(images.images[0].fullsize);
  assert.equal(res.status, 200, "the picture's signed address serves it");
  assert.deepEqual(new Uint8Array(await res.arrayBuffer()), PNG);

  // paging: one post a page, every post once, then no cursor
  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await alice.getAuthorFeed({ actor: a.did, limit: 1, cursor });
    seen.push(...page.data.feed.map((i) => i.post.uri));
    cursor = page.data.cursor;
  } while (cursor);
  assert.deepEqual(seen, [picture.uri, self.uri, top.uri]);
});

test("profile edit through putRecord shows in getProfile and getRecord", async () => {
  const m = await newMember(sql, "editor");
  const agent = await signedIn(host.baseUrl, m);
  await agent.upsertProfile((old) => ({ ...old, displayName: "Edited Name", description: "New line" }));
  const profile = await agent.getProfile({ actor: m.did });
  assert.equal(profile.data.displayName, "Edited Name");
  assert.equal(profile.data.description, "New line");
  const record = await agent.com.atproto.repo.getRecord({ repo: m.did, collection: "app.bsky.actor.profile", rkey: "self" });
  assert.equal((record.data.value as { displayName: string }).displayName, "Edited Name");
});

test("block: blocked posts show as blocked, the author feed refuses, and a block shows in getBlocks", async () => {
  const { a, b, alice, bob } = await pair();
  const post = await alice.post({ text: "before the block", createdAt: new Date().toISOString() });
  const reply = await bob.post({
    text: "reply before the block",
    reply: { root: { uri: post.uri, cid: post.cid }, parent: { uri: post.uri, cid: post.cid } },
    createdAt: new Date().toISOString(),
  });
  await alice.app.bsky.graph.block.create({ repo: a.did }, { subject: b.did, createdAt: new Date().toISOString() });
  const blocks = await alice.app.bsky.graph.getBlocks();
  assert.deepEqual(blocks.data.blocks.map((x) => x.did), [b.did]);
  await assert.rejects(bob.getAuthorFeed({ actor: a.did }), (e: any) => e.error === "BlockedByActor");
  await assert.rejects(alice.getAuthorFeed({ actor: b.did }), (e: any) => e.error === "BlockedActor");
  const thread = await bob.getPostThread({ uri: reply.uri });
  assert.equal((thread.data.thread as any).parent.$type, "app.bsky.feed.defs#blockedPost");
  const profile = await bob.getProfile({ actor: a.did });
  assert.equal(profile.data.viewer?.blockedBy, true);
});

test("mute: hides the muted from the timeline, listed by getMutes, undone by unmute", async () => {
  const { a, b, alice, bob } = await pair();
  await bob.follow(a.did);
  const post = await alice.post({ text: "can you hear me", createdAt: new Date().toISOString() });
  await bob.mute(a.did);
  assert.deepEqual((await bob.app.bsky.graph.getMutes()).data.mutes.map((m) => m.did), [a.did]);
  assert.ok(!(await bob.getTimeline()).data.feed.some((i) => i.post.uri === post.uri));
  assert.equal((await bob.getProfile({ actor: a.did })).data.viewer?.muted, true);
  assert.equal((await alice.getProfile({ actor: b.did })).data.viewer?.muted, false, "a mute is private");
  await bob.unmute(a.did);
  assert.ok((await bob.getTimeline()).data.feed.some((i) => i.post.uri === post.uri));
});

test("preferences: the client's first read writes its saved feeds back, and they come back verbatim", async () => {
  const m = await newMember(sql, "prefs");
  const agent = await signedIn(host.baseUrl, m);
  const prefs = await agent.getPreferences();
  assert.ok(prefs.savedFeeds.length > 0, "the client migrated in its default saved feeds");
  const raw = await agent.app.bsky.actor.getPreferences();
  assert.ok(raw.data.preferences.some((p) => p.$type === "app.bsky.actor.defs#savedFeedsPrefV2"));
  const odd = { $type: "app.bsky.actor.defs#adultContentPref", enabled: false, extra: { kept: [1, 2] } };
  await agent.app.bsky.actor.putPreferences({ preferences: [odd] });
  assert.deepEqual((await agent.app.bsky.actor.getPreferences()).data.preferences, [odd]);
  const bad = await xrpc(host.baseUrl, "app.bsky.actor.putPreferences", {
    token: agent.session!.accessJwt,
    input: { preferences: [{ $type: "com.example.other" }] },
  });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.error, "InvalidRequest");
});

test("searchActors and the typeahead find people by handle name and display name", async () => {
  const m = await newMember(sql, "finder", { displayName: "Quillon Zephyr" });
  const agent = await signedIn(host.baseUrl, m);
  const found = await agent.searchActors({ q: "quillon" });
  assert.deepEqual(found.data.actors.map((x) => x.did), [m.did]);
  const typeahead = await agent.searchActorsTypeahead({ q: m.username.slice(0, 8) });
  assert.ok(typeahead.data.actors.some((x) => x.did === m.did));
  const demo = await agent.searchActors({ q: "tova", limit: 1 });
  assert.equal(demo.data.actors[0]?.handle, "tova.demo.sitewire.dev");
});

test("repo reads: getRecord, listRecords with cursor, describeRepo", async () => {
  const m = await newMember(sql, "repo");
  const agent = await signedIn(host.baseUrl, m);
  const made = [];
  for (let i = 0; i < 3; i++) made.push(await agent.post({ text: `post ${i}`, createdAt: new Date().toISOString() }));
  const one = await agent.com.atproto.repo.getRecord({ repo: m.handle, collection: "app.bsky.feed.post", rkey: made[0].uri.split("/").pop()! });
  assert.equal(one.data.cid, made[0].cid);
  assert.equal(one.data.uri, made[0].uri);
  const pages: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await agent.com.atproto.repo.listRecords({ repo: m.did, collection: "app.bsky.feed.post", limit: 2, cursor });
    pages.push(...page.data.records.map((r) => r.uri));
    cursor = page.data.cursor;
  } while (cursor);
  assert.deepEqual(pages, made.map((p) => p.uri).reverse());
  const described = await agent.com.atproto.repo.describeRepo({ repo: m.did });
  assert.equal(described.data.handle, m.handle);
  assert.ok(described.data.collections.includes("app.bsky.feed.post"));
  const missing = await xrpc(host.baseUrl, "com.atproto.repo.getRecord", {
    params: { repo: m.did, collection: "app.bsky.feed.post", rkey: "3aaaaaaaaaaaa" },
    token: agent.session!.accessJwt,
  });
  assert.deepEqual([missing.status, missing.body.error], [400, "RecordNotFound"]);
});

test("a space with a feed channel is a feed to its members and nothing to anybody else", async () => {
  const { a, b, alice, bob } = await pair();
  const slug = `s${Date.now().toString(36)}`.slice(0, 15);
  const [space] = await sql<{ id: string }[]>`
    insert into public.community_spaces (slug, name, description, created_by) values (${slug}, 'Garden club', 'Seeds and soil', ${a.id})
    returning id`;
  await sql`insert into public.community_space_members (space_id, person_id, role) values (${space.id}, ${a.id}, 'owner')`;
  const [channel] = await sql<{ id: string }[]>`
    insert into public.community_channels (space_id, kind, name) values (${space.id}, 'feed', 'feed') returning id`;
  const [first] = await sql<{ id: number }[]>`
    insert into public.community_messages (channel_id, author_id, text) values (${channel.id}, ${a.id}, 'Tomatoes are in') returning id`;
  await sql`insert into public.community_messages (channel_id, author_id, text, parent_id, root_id)
    values (${channel.id}, ${a.id}, 'and basil', ${first.id}, ${first.id})`;

  const suggested = await alice.app.bsky.feed.getSuggestedFeeds();
  const feedUri = suggested.data.feeds.find((f) => f.displayName === "Garden club")?.uri;
  assert.ok(feedUri, "the member's space is a suggested feed");
  const generator = await alice.app.bsky.feed.getFeedGenerator({ feed: feedUri });
  assert.equal(generator.data.view.creator.did, a.did);
  const feed = await alice.app.bsky.feed.getFeed({ feed: feedUri });
  assert.deepEqual(feed.data.feed.map((i) => (i.post.record as { text: string }).text), ["and basil", "Tomatoes are in"]);
  const firstUri = feed.data.feed[1].post.uri;
  assert.ok(firstUri.endsWith(`/app.bsky.feed.post/s~${first.id.toString(16)}`));
  assert.equal((feed.data.feed[0].reply?.parent as { uri: string }).uri, firstUri);
  const skeleton = await alice.app.bsky.feed.getFeedSkeleton({ feed: feedUri });
  assert.deepEqual(skeleton.data.feed.map((s) => s.post), feed.data.feed.map((i) => i.post.uri));
  const thread = await alice.getPostThread({ uri: firstUri });
  assert.equal((thread.data.thread as any).replies.length, 1);
  const described = await alice.app.bsky.feed.describeFeedGenerator();
  assert.ok(described.data.feeds.some((f) => f.uri === feedUri));

  assert.deepEqual((await bob.app.bsky.feed.getFeed({ feed: feedUri })).data.feed, [], "nothing to a non-member");
  assert.ok(!(await bob.app.bsky.feed.getSuggestedFeeds()).data.feeds.some((f) => f.uri === feedUri));
  assert.deepEqual((await bob.getPosts({ uris: [firstUri] })).data.posts, []);
  await assert.rejects(bob.app.bsky.feed.getFeedGenerator({ feed: feedUri }));
  await assert.rejects(bob.getPostThread({ uri: firstUri }), (e: any) => e.error === "NotFound");
  void b;
});

test("RLS: a post for the site's own people is seen by nobody outside, through any read", async () => {
  const { a, alice } = await pair();
  const post = await alice.post({ text: "for the site's people", createdAt: new Date().toISOString() });
  const rkey = post.uri.split("/").pop()!;
  // signed in: seen
  assert.equal((await alice.getPosts({ uris: [post.uri] })).data.posts.length, 1);
  // anonymous (somebody outside the site): never
  const anon = new AtpAgent({ service: host.baseUrl });
  assert.deepEqual((await anon.getPosts({ uris: [post.uri] })).data.posts, []);
  await assert.rejects(anon.getPostThread({ uri: post.uri }), (e: any) => e.error === "NotFound");
  await assert.rejects(anon.getAuthorFeed({ actor: a.did }), (e: any) => e.status === 400);
  await assert.rejects(anon.getProfile({ actor: a.did }));
  const record = await xrpc(host.baseUrl, "com.atproto.repo.getRecord", {
    params: { repo: a.did, collection: "app.bsky.feed.post", rkey },
  });
  assert.equal(record.status, 400);
  const list = await xrpc(host.baseUrl, "com.atproto.repo.listRecords", { params: { repo: a.did, collection: "app.bsky.feed.post" } });
  assert.equal(list.status, 400);
  assert.deepEqual((await anon.getLikes({ uri: post.uri })).data.likes, []);

  // a member who joined the wider network writes for everyone: then the outside sees it
  const did = `did:plc:${crypto.randomUUID().replace(/-/g, "").slice(0, 24)}`;
  await sql`update public.profiles set network_did = ${did} where id = ${a.id}`;
  const open = await alice.post({ text: "for everyone", createdAt: new Date().toISOString() });
  const seen = await anon.getPosts({ uris: [open.uri, post.uri] });
  assert.deepEqual(seen.data.posts.map((p) => p.uri), [open.uri], "the older site-only post stays hidden");
  const feed = await anon.getAuthorFeed({ actor: did });
  assert.deepEqual(feed.data.feed.map((i) => i.post.uri), [open.uri]);
});

test("the spec's empty answers are lexicon-valid; chat.bsky.* and unknown methods are MethodNotImplemented", async () => {
  const m = await newMember(sql, "empty");
  const agent = await signedIn(host.baseUrl, m);
  const token = agent.session!.accessJwt;
  const params: Record<string, Record<string, string>> = {
    "app.bsky.labeler.getServices": { dids: "did:plc:ar7c4by46qjdydhdevvrndac" },
    "app.bsky.graph.getLists": { actor: m.did },
    "app.bsky.graph.getListsWithMembership": { actor: m.did },
    "app.bsky.graph.getActorStarterPacks": { actor: m.did },
    "app.bsky.graph.getStarterPacks": { uris: `at://${m.did}/app.bsky.graph.starterpack/x` },
    "app.bsky.graph.getStarterPacksWithMembership": { actor: m.did },
    "app.bsky.graph.searchStarterPacks": { q: "x" },
    "app.bsky.graph.getSuggestedFollowsByActor": { actor: m.did },
    "app.bsky.feed.getActorFeeds": { actor: m.did },
  };
  for (const nsid of Object.keys(EMPTY_ANSWERS)) {
    const res = await xrpc(host.baseUrl, nsid, { token, params: params[nsid] ?? {} });
    assert.equal(res.status, 200, nsid); // xrpc() has checked the body against the lexicon
  }
  assert.deepEqual((await agent.app.bsky.labeler.getServices({ dids: ["did:plc:ar7c4by46qjdydhdevvrndac"] })).data.views, []);
  for (const nsid of ["chat.bsky.convo.listConvos", "chat.bsky.actor.declaration", "com.example.nothing.here"]) {
    const res = await xrpc(host.baseUrl, nsid, { token });
    assert.deepEqual([res.status, res.body.error], [501, "MethodNotImplemented"], nsid);
  }
});

test("createAccount and updateHandle are refused saying where instead", async () => {
  const m = await newMember(sql, "refuse");
  const agent = await signedIn(host.baseUrl, m);
  await assert.rejects(
    new AtpAgent({ service: host.baseUrl }).createAccount({ handle: "new.demo.sitewire.dev", email: "n@example.test", password: "x" }),
    (e: any) => e.status >= 400 && e.status < 500 && /site|account/i.test(e.message),
  );
  await assert.rejects(
    agent.com.atproto.identity.updateHandle({ handle: "other.demo.sitewire.dev" }),
    (e: any) => e.status >= 400 && e.status < 500 && /account|username/i.test(e.message),
  );
});

test("errors: no token, a bad token, a bad cursor and a bad limit answer the XRPC names", async () => {
  const noToken = await xrpc(host.baseUrl, "app.bsky.feed.getTimeline");
  assert.deepEqual([noToken.status, noToken.body.error], [401, "AuthenticationRequired"]);
  const badToken = await xrpc(host.baseUrl, "app.bsky.feed.getTimeline", { token: "not.a.jwt" });
  assert.equal(badToken.status < 500 && badToken.status >= 400, true);
  const m = await newMember(sql, "errs");
  const agent = await signedIn(host.baseUrl, m);
  const token = agent.session!.accessJwt;
  const cursor = await xrpc(host.baseUrl, "app.bsky.feed.getTimeline", { token, params: { cursor: "nonsense" } });
  assert.deepEqual([cursor.status, cursor.body.error], [400, "InvalidRequest"]);
  const limit = await xrpc(host.baseUrl, "app.bsky.feed.getTimeline", { token, params: { limit: "1000" } });
  assert.deepEqual([limit.status, limit.body.error], [400, "InvalidRequest"]);
  const thread = await xrpc(host.baseUrl, "app.bsky.feed.getPostThread", {
    token,
    params: { uri: `at://${m.did}/app.bsky.feed.post/3aaaaaaaaaaaa` },
  });
  assert.deepEqual([thread.status, thread.body.error], [400, "NotFound"]);
  const feed = await xrpc(host.baseUrl, "app.bsky.feed.getFeed", { token, params: { feed: "at://did:web:elsewhere.example/app.bsky.feed.generator/x" } });
  assert.deepEqual([feed.status, feed.body.error], [400, "UnknownFeed"]);
});

test("ten wrong passwords from one address answer 429 RateLimitExceeded, even for the right one", async () => {
  const m = await newMember(sql, "limit");
  const address = `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
  const agent = new AtpAgent({
    service: host.baseUrl,
    fetch: (input, init) => {
      const request = new Request(input, init);
      request.headers.set("x-forwarded-for", address);
      return fetch(request);
    },
  });
  for (let i = 0; i < 10; i++) {
    await assert.rejects(agent.login({ identifier: m.handle, password: "wrong-pass-word-xxxx" }), (e: any) => e.status === 401);
  }
  await assert.rejects(
    agent.login({ identifier: m.handle, password: m.password }),
    (e: any) => e.status === 429 && e.error === "RateLimitExceeded",
  );
  // another address is not held back
  await signedIn(host.baseUrl, m, "198.51.100.7");
});
