// Hostile input on every documented operation of every API: each operation of the served OpenAPI
// document is called with the key its API takes, and with malformed path segments, query strings and
// bodies (invalid UTF-8, a lone surrogate, NUL, JSON nested far deeper than any parser's stack, values of
// the wrong type, numbers out of range). Whatever the API makes of it, the answer is never a 5xx, never
// a stack trace or a runtime's own message, and a JSON answer parses.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import { testHost } from "../helpers/host.ts";
import type { KeyKind } from "../../shared/keys.ts";
import { mintPersonJwt } from "../../shared/people.ts";
import { METHODS } from "../../functions/network/api/index.ts";
import { newMember } from "../helpers/network.ts";

const host = await testHost();

interface Operation {
  method: string;
  path: string;
  hasBody: boolean;
}

async function documentedOperations(): Promise<Operation[]> {
  const document = await (await fetch(`${host.baseUrl}/openapi.json`)).json();
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<Record<string, { requestBody?: unknown }>>(document.paths)) {
    for (const method of ["get", "post", "put", "patch", "delete"]) {
      if (item[method]) operations.push({ method: method.toUpperCase(), path, hasBody: !!item[method].requestBody });
    }
  }
  return operations;
}

/** The key kinds an operation's API takes, read from its address (the content API: delivery and management). */
function keyKindsOf(path: string): KeyKind[] {
  if (path.startsWith("/api/content")) return ["delivery", "management"];
  if (/^\/api\/(forms|workspaces|insights|me)\b/.test(path)) return ["forms"];
  if (path.startsWith("/api/scheduling")) return ["scheduling"];
  if (/^\/api\/(store|carts|\{version\})/.test(path)) return ["storefront"];
  if (path.startsWith("/api/desk")) return ["support"];
  return [];
}

function headersFor(kind: KeyKind | undefined, key: string | undefined): Record<string, string> {
  if (!kind || !key) return {};
  if (kind === "support") return { api_access_token: key };
  if (kind === "storefront") return { "x-shopify-storefront-access-token": key };
  return { authorization: `Bearer ${key}` };
}

/** Plausible values for path parameters, so a request reaches the handler and not only the router. */
function plausible(name: string): string {
  if (name === "space") return host.space;
  if (name === "environment") return "master";
  if (name === "version") return "2024-10";
  if (name === "nsid") return "com.atproto.repo.createRecord";
  return "1";
}

const HOSTILE_SEGMENTS = [
  "%00",
  "%ED%A0%80", // a lone surrogate in UTF-8's bytes (CESU), invalid UTF-8
  "%FF%FE",
  "..%2F..%2Fetc%2Fpasswd",
  "x".repeat(5000),
  "-1",
  "99999999999999999999999",
  "%F0%9F%98%80",
];

const HOSTILE_QUERY = "limit=%00&skip=-1&page=99999999999999999999999&order=%ED%A0%80&page_size=1e309" +
  "&x[y][z]=1&sys.id[in]=%FF&fields.a[near]=&cursor=%00&since=not-a-date&locale=%ED%A0%80&include=11";

const encoder = new TextEncoder();
const HOSTILE_BODIES: { label: string; body: Uint8Array<ArrayBuffer>; type: string }[] = [
  { label: "invalid UTF-8", body: new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), type: "application/json" },
  { label: "a lone surrogate", body: encoder.encode('{"name":"\\ud800","title":"\\udfff x"}'), type: "application/json" },
  { label: "NUL", body: encoder.encode('{"name":"a\\u0000b","content":"\\u0000"}'), type: "application/json" },
  { label: "deep nesting", body: encoder.encode("[".repeat(200_000) + "]".repeat(200_000)), type: "application/json" },
  { label: "deep objects", body: encoder.encode('{"a":'.repeat(50_000) + "1" + "}".repeat(50_000)), type: "application/json" },
  { label: "null", body: encoder.encode("null"), type: "application/json" },
  { label: "a string", body: encoder.encode('"text"'), type: "application/json" },
  { label: "an array", body: encoder.encode("[1,2,3]"), type: "application/json" },
  { label: "out of range", body: encoder.encode('{"limit":1e400,"id":-1e400,"quantity":99999999999999999999999}'), type: "application/json" },
  { label: "__proto__", body: encoder.encode('{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}'), type: "application/json" },
  { label: "truncated", body: encoder.encode('{"a":[1,2'), type: "application/json" },
  { label: "JSON as text/plain", body: encoder.encode('{"a":1}'), type: "text/plain" },
  { label: "a form body", body: encoder.encode("a=%FF&b=%00"), type: "application/x-www-form-urlencoded" },
  { label: "GraphQL nonsense", body: encoder.encode('{"query":"{ a { b { c { d { e { f { g { h { i { j { k { l } } } } } } } } } } } }","variables":"x"}'), type: "application/json" },
];

/** Why an answer is not acceptable, or undefined when it is. */
async function badAnswer(response: Response): Promise<string | undefined> {
  const text = await response.text();
  // the protocol's own answer to a method the server does not have, as the reference PDS gives it
  const unknownXrpcMethod = response.status === 501 && new URL(response.url).pathname.startsWith("/xrpc/") &&
    JSON.parse(text).error === "MethodNotImplemented";
  if (response.status >= 500 && !unknownXrpcMethod) return `${response.status}: ${text.slice(0, 300)}`;
  if (/\bat (async )?\S+ \(?(file|ext|node):|\.ts:\d+:\d+|PostgresError|TypeError:|RangeError:|SyntaxError: Unexpected/.test(text)) {
    return `${response.status} leaks a runtime detail: ${text.slice(0, 300)}`;
  }
  if ((response.headers.get("content-type") ?? "").includes("json") && text !== "") {
    try {
      JSON.parse(text);
    } catch {
      return `${response.status} answers broken JSON: ${text.slice(0, 200)}`;
    }
  }
  return undefined;
}

async function probe(failures: string[], label: string, url: string, init: RequestInit) {
  let response: Response;
  try {
    response = await fetch(url, { ...init, redirect: "manual" });
  } catch (error) {
    failures.push(`${label}: no answer (${error instanceof Error ? error.message : error})`);
    return;
  }
  const bad = await badAnswer(response);
  if (bad) failures.push(`${label}: ${bad}`);
}

const operations = await documentedOperations();

test("the served document lists the operations of every API (the probes below cover them all)", () => {
  const prefixes = new Set(operations.map((op) => op.path.split("/").slice(0, 3).join("/")));
  for (const prefix of ["/api/content", "/api/forms", "/api/scheduling", "/api/store", "/api/desk", "/xrpc/{nsid}"]) {
    assert.ok(prefixes.has(prefix), prefix);
  }
});

test("malformed path segments and query strings never get a 5xx or a runtime's message", async () => {
  const failures: string[] = [];
  for (const op of operations) {
    if (op.method === "DELETE" && !op.path.includes("{")) continue; // nothing hostile to put in its address
    for (const kind of [undefined, ...keyKindsOf(op.path)]) {
      const headers = headersFor(kind, kind && await host.key(kind));
      const label = `${op.method} ${op.path}${kind ? ` (${kind} key)` : ""}`;
      if (op.path.includes("{")) {
        for (const segment of HOSTILE_SEGMENTS) {
          const path = op.path.replace(/\{[^}]+\}/g, segment);
          await probe(failures, `${label} at ${path.slice(0, 80)}`, `${host.baseUrl}${path}`, { method: op.method, headers });
        }
      }
      const path = op.path.replace(/\{([^}]+)\}/g, (_, name) => plausible(name));
      await probe(failures, `${label} with a hostile query`, `${host.baseUrl}${path}?${HOSTILE_QUERY}`, { method: op.method, headers });
    }
  }
  assert.deepEqual(failures, []);
});

test("malformed bodies never get a 5xx or a runtime's message", async () => {
  const failures: string[] = [];
  for (const op of operations.filter((op) => op.hasBody)) {
    const path = op.path.replace(/\{([^}]+)\}/g, (_, name) => plausible(name));
    for (const kind of [undefined, ...keyKindsOf(op.path)]) {
      // a fresh key an operation, so the probes meet the parser and not the rate limit
      const key = kind && await host.key(kind);
      for (const { label, body, type } of HOSTILE_BODIES) {
        await probe(failures, `${op.method} ${op.path}${kind ? ` (${kind} key)` : ""} with ${label}`, `${host.baseUrl}${path}`, {
          method: op.method,
          headers: { ...headersFor(kind, key), "content-type": type },
          body,
        });
      }
    }
  }
  assert.deepEqual(failures, []);
});

test("a body that is not UTF-8 is refused in each API's envelope, never taken with replacement characters", async () => {
  // requests each API would take, but for one string whose bytes are not UTF-8 (0xff 0xfe)
  const BAD = "@@not-utf8@@";
  const send = async (path: string, kind: KeyKind | undefined, method: string, body: unknown) => {
    const text = JSON.stringify(body); // ASCII: a character is a byte
    const at = text.indexOf(BAD);
    const raw = new Uint8Array([...encoder.encode(text.slice(0, at)), 0xff, 0xfe, ...encoder.encode(text.slice(at + BAD.length))]);
    const res = await fetch(`${host.baseUrl}${path}`, {
      method,
      headers: { ...headersFor(kind, kind && await host.key(kind)), "content-type": "application/json" },
      body: raw,
    });
    return { status: res.status, text: await res.text() };
  };
  const graphqlContent = `/api/content/content/v1/spaces/${host.space}/environments/master`;
  const cases: [string, Promise<{ status: number; text: string }>][] = [
    ["content GraphQL", send(graphqlContent, "delivery", "POST", { query: "{ __typename }", extensions: { note: BAD } })],
    ["store GraphQL", send("/api/2024-10/graphql.json", "storefront", "POST", { query: "{ shop { name } }", extensions: { note: BAD } })],
    ["scheduling webhook", send("/api/scheduling/v2/webhooks", "scheduling", "POST", {
      subscriberUrl: "http://127.0.0.1:9/utf8",
      triggers: ["BOOKING_CREATED"],
      active: false,
      payloadTemplate: BAD,
    })],
    ["forms webhook", send("/api/forms/feedback/webhooks/utf8", "forms", "PUT", { url: "http://127.0.0.1:9/utf8", enabled: false, secret: BAD })],
    ["protocol sign-in", send("/xrpc/com.atproto.server.createSession", undefined, "POST", { identifier: BAD, password: "x" })],
    ["desk contact", send(`/api/desk/public/api/v1/inboxes/${host.space}/contacts`, undefined, "POST", { name: BAD })],
  ];
  for (const [label, answer] of cases) {
    const { status, text } = await answer;
    assert.equal(status, 400, `${label}: ${status} ${text.slice(0, 300)}`);
    assert.match(text, /UTF-8/, label);
  }
});

// The protocol server's methods sit behind one documented path (/xrpc/{nsid}): each is probed by name,
// as nobody and as a member (the site's own session), through GET and POST alike.
const XRPC_PARAMS = ["actor", "actors", "uri", "uris", "cursor", "limit", "repo", "collection", "rkey", "did", "handle",
  "cid", "since", "q", "feed", "feeds", "list", "depth", "parentHeight", "filter", "term", "reverse", "includePins"];

test("every protocol method: malformed parameters and bodies get the XRPC error envelope, never a 5xx", async () => {
  const member = await newMember(host.ctx.sql, "hostile");
  const session = await mintPersonJwt(await host.ctx.secrets.get("jwt"), {
    id: member.id,
    email: `${member.username}@example.test`,
    role: "member",
  });
  const failures: string[] = [];
  for (const { nsid } of METHODS) {
    for (const token of [undefined, session]) {
      const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
      const who = token ? "a member" : "nobody";
      // a shorter long value here: two dozen parameters of 5,000 characters pass what a client sends
      for (const value of HOSTILE_SEGMENTS.map((segment) => segment.length > 600 ? segment.slice(0, 600) : segment)) {
        const query = XRPC_PARAMS.map((name) => `${name}=${value}`).join("&");
        await probe(failures, `GET ${nsid} as ${who} with ${value.slice(0, 20)}`, `${host.baseUrl}/xrpc/${nsid}?${query}`, { headers });
      }
      for (const { label, body, type } of HOSTILE_BODIES) {
        await probe(failures, `POST ${nsid} as ${who} with ${label}`, `${host.baseUrl}/xrpc/${nsid}`, {
          method: "POST",
          headers: { ...headers, "content-type": type },
          body,
        });
      }
    }
  }
  assert.deepEqual(failures, []);
});
