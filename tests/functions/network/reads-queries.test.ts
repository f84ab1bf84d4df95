// No N+1: a timeline page (and an author feed page, a thread, notifications) costs the same number of
// statements whatever it holds. Statements are counted by the driver's own debug hook on a pool of the
// test database, under the network function's real app.
import assert from "node:assert/strict";
import postgres from "postgres";
import { test } from "../../helpers/test.ts";
import { testDatabaseUrl } from "../../helpers/db.ts";
import { testHost } from "../../helpers/host.ts";
import { newMember, signedIn } from "../../helpers/network.ts";
import { createContext } from "../../../shared/context.ts";
import type { Sql } from "../../../shared/db.ts";
import { createNetworkApp } from "../../../functions/network/app.ts";

const host = await testHost();
let statements = 0;
const counted = postgres(testDatabaseUrl(), {
  max: 2,
  onnotice: () => {},
  debug: () => {
    statements++;
  },
  types: { bigint: { to: 20, from: [20], serialize: (v: number) => String(v), parse: (v: string) => Number(v) } },
}) as unknown as Sql;
const app = createNetworkApp(createContext(host.ctx.config, { sql: counted }));

async function statementsFor(path: string, token: string): Promise<number> {
  const before = statements;
  const res = await app.request(path, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200, await res.clone().text());
  await res.arrayBuffer();
  return statements - before;
}

test("a timeline page is a fixed number of statements, however many posts, authors and reposts it holds", async () => {
  const reader = await newMember(host.ctx.sql, "counter");
  const agent = await signedIn(host.baseUrl, reader);
  const token = agent.session!.accessJwt;
  const path = "/xrpc/app.bsky.feed.getTimeline?limit=50";
  const authors = [];
  for (let i = 0; i < 3; i++) {
    const m = await newMember(host.ctx.sql, `author${i}`);
    authors.push({ m, agent: await signedIn(host.baseUrl, m) });
    await agent.follow(m.did);
  }
  const first = await authors[0].agent.post({ text: "one", createdAt: new Date().toISOString() });
  await statementsFor(path, token); // warm-up: secrets and caches
  const small = await statementsFor(path, token);

  for (const { agent: author } of authors) {
    for (let i = 0; i < 8; i++) {
      const post = await author.post({
        text: `post ${i}`,
        ...(i % 3 === 0 ? { reply: { root: first, parent: first } } : {}),
        ...(i % 4 === 1 ? { embed: { $type: "app.bsky.embed.record", record: first } } : {}),
        createdAt: new Date().toISOString(),
      });
      if (i % 2) await author.repost(post.uri, post.cid);
      if (i % 3 === 1) await agent.like(post.uri, post.cid);
    }
  }
  const timeline = await agent.getTimeline({ limit: 50 });
  assert.ok(timeline.data.feed.length >= 30, `a long page: ${timeline.data.feed.length} items`);
  const large = await statementsFor(path, token);
  assert.equal(large, small, `statements for a page of 1 item (${small}) and of ${timeline.data.feed.length} (${large})`);
  assert.ok(large <= 12, `a timeline page takes few statements (${large})`);

  const feedPath = `/xrpc/app.bsky.feed.getAuthorFeed?actor=${authors[1].m.did}`;
  const threadPath = `/xrpc/app.bsky.feed.getPostThread?uri=${encodeURIComponent(first.uri)}`;
  const authorFeed = await statementsFor(feedPath, token);
  const thread = await statementsFor(threadPath, token);
  for (const { agent: author } of authors) await author.post({ text: "more", reply: { root: first, parent: first }, createdAt: new Date().toISOString() });
  assert.equal(await statementsFor(feedPath, token), authorFeed, "author feed");
  assert.equal(await statementsFor(threadPath, token), thread, "thread with more replies");

  // getPosts: one author's posts cost the same for two addresses as for all of them
  const theirs = (await agent.getAuthorFeed({ actor: authors[2].m.did, filter: "posts_with_media", limit: 25 })).data.feed
    .map((i) => i.post.uri);
  const all = (await agent.getAuthorFeed({ actor: authors[2].m.did, limit: 25 })).data.feed
    .filter((i) => !i.reason).map((i) => i.post.uri);
  assert.equal(theirs.length, 0);
  assert.ok(all.length >= 8, `${all.length} posts`);
  const postsPath = (uris: string[]) => `/xrpc/app.bsky.feed.getPosts?${uris.map((u) => `uris=${encodeURIComponent(u)}`).join("&")}`;
  assert.equal(await statementsFor(postsPath(all), token), await statementsFor(postsPath(all.slice(0, 2)), token), "getPosts");
});

test("quotes, search, known followers and a member's likes cost the same statements for one item as for many", async () => {
  const reader = await newMember(host.ctx.sql, "counted");
  const agent = await signedIn(host.baseUrl, reader);
  const token = agent.session!.accessJwt;
  const subject = await newMember(host.ctx.sql, "subject");
  const word = `cq${crypto.randomUUID().replace(/-/g, "").slice(0, 8)}`;
  const target = await agent.post({ text: `${word} target`, createdAt: new Date().toISOString() });
  const quotesPath = `/xrpc/app.bsky.feed.getQuotes?uri=${encodeURIComponent(target.uri)}`;
  const searchPath = `/xrpc/app.bsky.feed.searchPosts?q=${word}&limit=50`;
  const likesPath = `/xrpc/app.bsky.feed.getActorLikes?actor=${reader.did}`;
  const knownPath = `/xrpc/app.bsky.graph.getKnownFollowers?actor=${subject.did}`;
  const paths = [quotesPath, searchPath, likesPath, knownPath];
  let oneItem: number[] = [];
  for (let i = 0; i < 4; i++) {
    const m = await newMember(host.ctx.sql, `writer${i}`);
    const writer = await signedIn(host.baseUrl, m);
    await agent.follow(m.did);
    await writer.follow(subject.did);
    const quote = await writer.post({
      text: `${word} quote ${i}`,
      embed: { $type: "app.bsky.embed.record", record: target },
      createdAt: new Date().toISOString(),
    });
    await agent.like(quote.uri, quote.cid);
    if (i === 0) {
      for (const path of paths) await statementsFor(path, token); // warm-up: secrets and caches
      oneItem = [];
      for (const path of paths) oneItem.push(await statementsFor(path, token));
    }
  }
  const many = [];
  for (const path of paths) many.push(await statementsFor(path, token));
  assert.deepEqual(many, oneItem, "getQuotes, searchPosts, getActorLikes, getKnownFollowers");
  assert.ok(many.every((n) => n <= 14), `few statements each (${many})`);
});

test("a post through createRecord is a few statements: the repository lock is held for the SQL alone", async () => {
  const writer = await newMember(host.ctx.sql, "writer");
  const agent = await signedIn(host.baseUrl, writer);
  const token = agent.session!.accessJwt;
  const create = async () => {
    const before = statements;
    const res = await app.request("/xrpc/com.atproto.repo.createRecord", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ repo: writer.did, collection: "app.bsky.feed.post", record: { text: "counted", createdAt: new Date().toISOString() } }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    await res.arrayBuffer();
    return statements - before;
  };
  await create(); // the first write makes the repository's head
  const later = await create();
  // the site's settings with the session and its member (one statement); begin, the head locked, the post,
  // the head saved, commit
  assert.ok(later <= 6, `statements for a post (${later})`);
});
