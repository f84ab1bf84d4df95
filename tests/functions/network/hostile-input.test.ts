// Hostile input on every XRPC route: whatever arrives (a body past 1 MB, sent whole or chunked, odd
// HTTP methods, odd method names, deep nesting, bad UTF-8, malformed CIDs, at-uris, DIDs and NSIDs),
// the answer is the XRPC error body { error, message } with a 4xx status, never a 5xx; and a 2xx
// answer is always valid for its lexicon.
import assert from "node:assert/strict";
import { lexicons } from "@atproto/api";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { newMember, signedIn } from "../../helpers/network.ts";
import { METHODS } from "../../../functions/network/api/index.ts";

const host = await testHost();
const sql = host.ctx.sql;
const member = await newMember(sql, "hostile");
const agent = await signedIn(host.baseUrl, member);
const token = () => agent.session!.accessJwt;
const MB = 1024 * 1024;

/** A different caller address each time, so wrong passwords sent on purpose never trip the rate limit. */
function someAddress(): string {
  const n = () => Math.floor(Math.random() * 250) + 1;
  return `10.${n()}.${n()}.${n()}`;
}

/** Sends a request and reads its answer: status and the parsed XRPC error body (or the 2xx body). */
async function send(
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: any; text: string }> {
  const headers = new Headers(init.headers);
  if (!headers.has("authorization")) headers.set("authorization", `Bearer ${token()}`);
  headers.set("x-forwarded-for", someAddress());
  const res = await fetch(new URL(path, host.baseUrl), { ...init, headers });
  const text = await res.text();
  let body: unknown = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // left undefined: the assertions below say what was expected
  }
  return { status: res.status, body, text };
}

/** The answer is a 4xx XRPC error body naming `error` (when given). */
function refused(answer: { status: number; body: any; text: string }, status: number, error?: string): void {
  assert.equal(answer.status, status, answer.text.slice(0, 300));
  assert.equal(typeof answer.body?.error, "string", answer.text.slice(0, 300));
  assert.equal(typeof answer.body?.message, "string", answer.text.slice(0, 300));
  if (error) assert.equal(answer.body.error, error, answer.text.slice(0, 300));
}

const post = { text: "hello", createdAt: new Date().toISOString() };

function createRecordBody(extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    repo: member.did,
    collection: "app.bsky.feed.post",
    record: { ...post, ...extra },
  });
}

test("a JSON body past 1 MB is 413 PayloadTooLarge, told by its content-length before it is read", async () => {
  const body = createRecordBody({ padding: "x".repeat(MB) });
  const answer = await send("/xrpc/com.atproto.repo.createRecord", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  refused(answer, 413, "PayloadTooLarge");
  assert.match(answer.body.message, /1 MB/);
});

test("a chunked JSON body past 1 MB is 413 PayloadTooLarge, and the server stops reading it", async () => {
  // 64 MB offered a chunk at a time, with no content-length: the server must refuse it having read little
  const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
  const offered = 64 * MB;
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(
        new TextEncoder().encode(
          `{"repo":"${member.did}","collection":"app.bsky.feed.post","record":{"text":"`,
        ),
      );
    },
    pull(controller) {
      if (pulled >= offered) return controller.close();
      pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  const answer = await send("/xrpc/com.atproto.repo.createRecord", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: stream,
  });
  refused(answer, 413, "PayloadTooLarge");
  assert.ok(
    pulled < offered / 2,
    `the server stopped reading (${(pulled / MB).toFixed(1)} MB of ${offered / MB} MB pulled)`,
  );
});

test("a body just under 1 MB is read whole: the answer is about the request, not its size", async () => {
  const body = createRecordBody({ padding: "x".repeat(MB - 4096) });
  assert.ok(body.length < MB);
  // no token: the body was read and judged before the missing credentials were
  const answer = await send("/xrpc/com.atproto.repo.createRecord", {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "" },
    body,
  });
  refused(answer, 401, "AuthenticationRequired");
});

test("uploadBlob keeps its own bounds: a video of 2 MB is taken, chunked", async () => {
  // 2 MB: more than a JSON body may hold, well within a video's 100 MB
  const video = new Uint8Array(2 * MB);
  let sent = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) return controller.close();
      sent = true;
      controller.enqueue(video);
    },
  });
  const answer = await send("/xrpc/com.atproto.repo.uploadBlob", {
    method: "POST",
    headers: { "content-type": "video/mp4" },
    body: stream,
  });
  assert.equal(answer.status, 200, answer.text.slice(0, 300));
  assert.equal(answer.body.blob.size, 2 * MB);
});

test("odd HTTP methods answer the XRPC error body", async () => {
  for (const method of ["PUT", "DELETE", "PATCH", "post", "BREW"]) {
    const answer = await send("/xrpc/app.bsky.feed.getTimeline", { method });
    refused(answer, 400, "InvalidRequest");
  }
  const get = await send("/xrpc/com.atproto.repo.createRecord");
  refused(get, 400, "InvalidRequest");
  const head = await fetch(new URL("/xrpc/app.bsky.feed.getTimeline", host.baseUrl), {
    method: "HEAD",
    headers: { authorization: `Bearer ${token()}` },
  });
  assert.equal(head.status, 200);
  const preflight = await fetch(new URL("/xrpc/com.atproto.repo.createRecord", host.baseUrl), {
    method: "OPTIONS",
    headers: { origin: "https://app.example", "access-control-request-method": "POST" },
  });
  assert.ok(preflight.status < 300, `preflight ${preflight.status}`);
  await preflight.body?.cancel();
});

test("methods a request line may name but fetch cannot send (TRACE, CONNECT-like) answer the XRPC error body", async () => {
  const port = Number(new URL(host.baseUrl).port);
  for (const method of ["TRACE", "TRACK"]) {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(
      new TextEncoder().encode(
        `${method} /xrpc/app.bsky.feed.getTimeline HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n`,
      ),
    );
    const chunks: Uint8Array[] = [];
    const buffer = new Uint8Array(4096);
    for (;;) {
      const n = await conn.read(buffer);
      if (n === null) break;
      chunks.push(buffer.slice(0, n));
    }
    conn.close();
    const raw = new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => [...c])));
    const status = Number(raw.match(/^HTTP\/1\.1 (\d{3})/)?.[1]);
    assert.ok(status >= 400 && status < 500, `${method}: ${raw.slice(0, 200)}`);
    const body = JSON.parse(raw.slice(raw.indexOf("{")));
    assert.equal(typeof body.error, "string", method);
  }
});

test("odd method names answer the XRPC error body", async () => {
  const names = [
    "",
    "..",
    "%ZZ",
    "%00",
    "%C0%AF",
    "%ED%A0%80",
    "app.bsky",
    "a".repeat(4000),
    "app.bsky.feed.getTimeline%00",
    "app.bsky.feed.getTimeline/extra",
    "APP.BSKY.FEED.GETTIMELINE",
    "app.bsky.feed.getTimeline.",
  ];
  for (const name of names) {
    const answer = await send(`/xrpc/${name}`);
    assert.ok(
      answer.status >= 400 && answer.status < 600 && answer.status !== 500,
      `${name.slice(0, 40)}: ${answer.status}`,
    );
    assert.ok(
      answer.status < 500 || answer.body?.error === "MethodNotImplemented",
      `${name.slice(0, 40)}: ${answer.text.slice(0, 200)}`,
    );
    assert.equal(typeof answer.body?.error, "string", `${name.slice(0, 40)}: ${answer.text.slice(0, 200)}`);
  }
});

test("bodies that are not JSON objects, nest too deep, or hold bad UTF-8, lone surrogates or NUL are InvalidRequest", async () => {
  const bodies: string[] = [
    "not json",
    "[1,2,3]",
    '"a string"',
    "null",
    '{"repo":',
    "[".repeat(100_000) + "]".repeat(100_000),
    `{"repo":"${member.did}","collection":"app.bsky.feed.post","record":${'{"a":'.repeat(5000)}1${
      "}".repeat(5000)
    }}`,
    `{"repo":"${member.did}","collection":"app.bsky.feed.post","record":{"text":"\\ud800","createdAt":"${post.createdAt}"}}`,
    `{"repo":"${member.did}","collection":"app.bsky.feed.post","record":{"text":"\\u0000","createdAt":"${post.createdAt}"}}`,
    `{"repo":"${member.did}","collection":"app.bsky.feed.post","record":{"te\\ud800xt":"a","createdAt":"${post.createdAt}"}}`,
  ];
  for (const body of bodies) {
    const answer = await send("/xrpc/com.atproto.repo.createRecord", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    refused(answer, 400, "InvalidRequest");
  }
  // bytes that are not UTF-8 at all: read as replacement characters, never a 5xx
  const bad: Uint8Array<ArrayBuffer> = new Uint8Array([
    ...new TextEncoder().encode(
      `{"repo":"${member.did}","collection":"app.bsky.feed.post","record":{"text":"`,
    ),
    0xff,
    0xfe,
    0xc0,
    0xaf,
    ...new TextEncoder().encode(`","createdAt":"${post.createdAt}"}}`),
  ]);
  const answer = await send("/xrpc/com.atproto.repo.createRecord", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: bad,
  });
  assert.ok(answer.status === 200 || answer.status === 400, answer.text.slice(0, 200));
  if (answer.status === 200) lexicons.assertValidXrpcOutput("com.atproto.repo.createRecord", answer.body);
});

test("malformed CIDs, at-uris, DIDs, handles and NSIDs in parameters are InvalidRequest", async () => {
  const made = await agent.post({ text: "a post to point at", createdAt: new Date().toISOString() });
  const cases: [string, Record<string, string>][] = [
    ["app.bsky.feed.getLikes", { uri: made.uri, cid: "bafy-not-a-cid" }],
    ["app.bsky.feed.getRepostedBy", { uri: made.uri, cid: "Qm" }],
    ["app.bsky.feed.getLikes", { uri: "at://" }],
    ["app.bsky.feed.getPostThread", { uri: "https://example.com/post" }],
    ["app.bsky.feed.getPosts", { uris: "at://did:web:/app.bsky.feed.post/x" }],
    ["app.bsky.actor.getProfile", { actor: "did:" }],
    ["app.bsky.actor.getProfile", { actor: "not a handle" }],
    ["app.bsky.graph.getRelationships", { actor: member.did, others: "did:web:" }],
    ["com.atproto.repo.listRecords", { repo: member.did, collection: "not an nsid" }],
    ["com.atproto.repo.getRecord", { repo: member.did, collection: "app.bsky.feed.post", rkey: "a/b" }],
    ["com.atproto.sync.getBlob", { did: member.did, cid: "nonsense" }],
    ["app.bsky.feed.getAuthorFeed", { actor: member.did, filter: "everything" }],
    ["app.bsky.feed.getTimeline", { limit: "1e3" }],
  ];
  for (const [nsid, params] of cases) {
    const url = new URL(`/xrpc/${nsid}`, host.baseUrl);
    for (const [key, value] of Object.entries(params)) url.searchParams.append(key, value);
    const answer = await send(url.pathname + url.search);
    refused(answer, 400);
    assert.ok(
      ["InvalidRequest", "MethodNotImplemented"].includes(answer.body.error) || answer.status === 400,
      `${nsid} ${answer.text}`,
    );
  }
  const body = await send("/xrpc/com.atproto.repo.createRecord", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      repo: member.did,
      collection: "app.bsky.feed.post",
      record: post,
      swapCommit: "not-a-cid",
    }),
  });
  refused(body, 400, "InvalidRequest");
  const link = await send("/xrpc/com.atproto.repo.createRecord", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      repo: member.did,
      collection: "app.bsky.feed.post",
      record: {
        ...post,
        embed: {
          $type: "app.bsky.embed.images",
          images: [{
            alt: "",
            image: { $type: "blob", ref: { $link: "zzz" }, mimeType: "image/png", size: 1 },
          }],
        },
      },
    }),
  });
  refused(link, 400);
});

// Values that break a lexicon's types and formats, for every parameter and input field of every method.
const HOSTILE: unknown[] = [
  "",
  "at://",
  "at://did:web:x/app.bsky.feed.post/",
  "bafy",
  "did:web:",
  "a".repeat(3000),
  "../../etc/passwd",
  -1,
  1e308,
  true,
  null,
  [],
  {},
  [[{}]],
  { $type: "x" },
  { $link: "zz" },
  { $bytes: "!!" },
];

test("every method, every parameter and input field, hostile values: always the error body, never a 5xx", async () => {
  const target = await agent.post({ text: "hostile target", createdAt: new Date().toISOString() });
  // a valid value for a lexicon property, so each request breaks one field only
  const valid = (p: any): unknown => {
    if (!p) return undefined;
    if (p.type === "array") {
      const one = valid(p.items);
      return one === undefined ? undefined : [one];
    }
    if (p.type === "integer") return p.minimum ?? 1;
    if (p.type === "boolean") return true;
    if (p.type !== "string") return undefined;
    if (p.knownValues) return p.knownValues[0];
    if (p.enum) return p.enum[0];
    const formats: Record<string, string> = {
      "at-uri": target.uri,
      did: member.did,
      handle: member.handle,
      "at-identifier": member.did,
      cid: target.cid,
      nsid: "app.bsky.feed.post",
      "record-key": "self",
      datetime: new Date().toISOString(),
      uri: "https://example.com/",
    };
    return formats[p.format] ?? "x";
  };
  // methods that would end this test's own session
  const skipped = new Set(["com.atproto.server.deleteSession", "com.atproto.server.revokeAppPassword"]);
  const problems: string[] = [];
  let sent = 0;
  for (const method of METHODS) {
    const def = lexicons.getDef(method.nsid) as any;
    if (!def || skipped.has(method.nsid)) continue;
    const paramDefs: Record<string, any> = def.parameters?.properties ?? {};
    const inputDefs: Record<string, any> = def.input?.schema?.properties ?? {};
    const query = def.type === "query";
    for (const field of [...Object.keys(paramDefs), ...(query ? [] : Object.keys(inputDefs))]) {
      for (const value of HOSTILE) {
        const url = new URL(`/xrpc/${method.nsid}`, host.baseUrl);
        for (const [name, p] of Object.entries(paramDefs)) {
          const v = name === field || name === "cursor" ? undefined : valid(p);
          for (const one of v === undefined ? [] : [v].flat()) url.searchParams.append(name, String(one));
        }
        const input: Record<string, unknown> = {};
        for (const [name, p] of Object.entries(inputDefs)) {
          const v = name === field ? undefined : valid(p);
          if (v !== undefined) input[name] = v;
        }
        if (field in paramDefs) {
          if (typeof value === "object" && value !== null) continue;
          url.searchParams.set(field, String(value));
        } else {
          input[field] = value;
        }
        const answer = await send(url.pathname + url.search, {
          method: query ? "GET" : "POST",
          ...(query ? {} : { headers: { "content-type": "application/json" }, body: JSON.stringify(input) }),
        });
        sent++;
        const what = `${method.nsid} ${field}=${JSON.stringify(value)?.slice(0, 30)}: ${answer.status} ${
          answer.text.slice(0, 160)
        }`;
        if (answer.status >= 500 && answer.body?.error !== "MethodNotImplemented") problems.push(what);
        else if (
          answer.status >= 300 &&
          (typeof answer.body?.error !== "string" || typeof answer.body?.message !== "string")
        ) {
          problems.push(`no error body: ${what}`);
        } else if (answer.status < 300 && answer.text) {
          try {
            lexicons.assertValidXrpcOutput(method.nsid, answer.body);
          } catch (error) {
            problems.push(`invalid 2xx (${error}): ${what}`);
          }
        }
      }
    }
  }
  assert.ok(sent > 1000, `${sent} requests`);
  assert.deepEqual(problems, []);
});

test("the function's other routes (blobs, well-known, the account page) answer hostile paths and hosts with the error body", async () => {
  const paths = [
    "/blob/not-a-uuid/bafy",
    `/blob/${member.id}/not-a-cid`,
    `/blob/${member.id}/%00`,
    `/blob/%ZZ/%ED%A0%80?exp=abc&sig=%00`,
    `/blob/${member.id}/${"b".repeat(5000)}?exp=99999999999999999999&sig=x`,
    "/.well-known/atproto-did",
  ];
  for (const path of paths) {
    const answer = await send(path, { headers: { authorization: "" } });
    assert.ok(
      answer.status >= 400 && answer.status < 500,
      `${path.slice(0, 60)}: ${answer.status} ${answer.text.slice(0, 200)}`,
    );
    assert.equal(typeof answer.body?.error, "string", path.slice(0, 60));
  }
  for (const host of ["%00.demo.sitewire.dev", "a..b", "x".repeat(300) + ".demo.sitewire.dev", "[::1]"]) {
    for (const path of ["/.well-known/atproto-did", "/.well-known/did.json"]) {
      const answer = await send(path, { headers: { authorization: "", "x-forwarded-host": host } });
      assert.ok(
        answer.status >= 400 && answer.status < 500,
        `${host.slice(0, 40)}: ${answer.status} ${answer.text.slice(0, 200)}`,
      );
      assert.equal(typeof answer.body?.error, "string", `${path} ${host.slice(0, 40)}`);
    }
  }
  const account = await send("/account/network/me", { headers: { authorization: "Bearer \u00ff\u00fe" } });
  assert.ok(account.status >= 400 && account.status < 500, `${account.status} ${account.text.slice(0, 200)}`);
});
