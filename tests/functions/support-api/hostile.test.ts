// Hostile input on every route of the desk: odd methods, JSON nested past any use, 2 MB bodies, NUL and
// lone surrogates (as JSON escapes, in form fields, in paths and queries), bytes that are not UTF-8, and
// forms that are not forms. Whatever is sent, the answer is never a 5xx, and every refusal is the desk's
// own envelope `{ error, errors: [error] }` (with CORS, so a browser client can read it).
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { serviceKey } from "../../../shared/service-key.ts";
import { desk, freshAddress, thread } from "./desk.ts";

const d = await desk();
const t = await thread(d);
const [offer] = await d.host.ctx.sql<{ id: number }[]>`
  insert into public.support_messages (conversation_id, message_type, content, content_type, content_attributes)
  values (${t.id}, 1, 'Pick one', 'input_select', ${d.host.ctx.sql.json({ items: [{ title: "A", value: "a" }] })})
  returning id`;
const service = await serviceKey(d.host.ctx);

type Route = { method: string; path: string; auth?: "key" | "service" };

const clientBase = `/public/api/v1/inboxes/${d.host.space}/contacts/${t.sourceId}`;
const conversation = `${clientBase}/conversations/${t.id}`;
const app = "/api/v1/accounts/1";
const ROUTES: Route[] = [
  { method: "POST", path: `/public/api/v1/inboxes/${d.host.space}/contacts` },
  { method: "POST", path: `/public/api/desk/api/v1/inboxes/${d.host.space}/contacts` },
  { method: "GET", path: clientBase },
  { method: "PATCH", path: clientBase },
  { method: "GET", path: `${clientBase}/conversations` },
  { method: "POST", path: `${clientBase}/conversations` },
  { method: "GET", path: conversation },
  { method: "GET", path: `${conversation}/messages` },
  { method: "POST", path: `${conversation}/messages` },
  { method: "POST", path: `${conversation}/toggle_typing` },
  { method: "POST", path: `${conversation}/update_last_seen` },
  { method: "POST", path: `${conversation}/toggle_status` },
  { method: "POST", path: `/widget/v1/inboxes/${d.host.space}/contacts/${t.sourceId}/conversations/${t.id}/messages/${offer.id}/choice` },
  { method: "GET", path: "/packs/js/sdk.js" },
  { method: "GET", path: "/support" },
  { method: "GET", path: "/cable" },
  { method: "GET", path: "/files/1" },
  { method: "POST", path: "/webhooks/deliver", auth: "service" },
  { method: "POST", path: "/deliver", auth: "service" },
  { method: "GET", path: `${app}/conversations`, auth: "key" },
  { method: "GET", path: `${app}/conversations/${t.id}`, auth: "key" },
  { method: "GET", path: `${app}/conversations/${t.id}/messages`, auth: "key" },
  { method: "POST", path: `${app}/conversations/${t.id}/messages`, auth: "key" },
  { method: "DELETE", path: `${app}/conversations/${t.id}/messages/999999999`, auth: "key" },
  { method: "POST", path: `${app}/conversations/${t.id}/toggle_status`, auth: "key" },
  { method: "POST", path: `${app}/conversations/${t.id}/assignments`, auth: "key" },
  { method: "POST", path: `${app}/conversations/${t.id}/toggle_typing_status`, auth: "key" },
  { method: "POST", path: `${app}/conversations/${t.id}/custom_attributes`, auth: "key" },
  { method: "POST", path: `${app}/conversations/${t.id}/update_last_seen`, auth: "key" },
  { method: "GET", path: `${app}/contacts`, auth: "key" },
  { method: "GET", path: `${app}/contacts/${t.contactId}`, auth: "key" },
  { method: "GET", path: `${app}/contacts/${t.contactId}/conversations`, auth: "key" },
  { method: "GET", path: `${app}/inboxes`, auth: "key" },
  { method: "GET", path: `${app}/agents`, auth: "key" },
  { method: "GET", path: "/api/v1/profile", auth: "key" },
  { method: "GET", path: `${app}/webhooks`, auth: "key" },
  { method: "POST", path: `${app}/webhooks`, auth: "key" },
  { method: "PATCH", path: `${app}/webhooks/999999999`, auth: "key" },
  { method: "DELETE", path: `${app}/webhooks/999999999`, auth: "key" },
];

function headersFor(route: Route, extra: Record<string, string> = {}): Record<string, string> {
  const headers: Record<string, string> = { "x-forwarded-for": freshAddress(), ...extra };
  if (route.auth === "key") headers["api_access_token"] = d.agent.key;
  if (route.auth === "service") headers["authorization"] = `Bearer ${service}`;
  return headers;
}

/** Sends, and holds the answer to the rule: below 500, and a refusal in the desk's envelope with CORS. */
async function holds(what: string, method: string, url: string, init: { headers: Record<string, string>; body?: BodyInit }) {
  const response = await fetch(url, { method, headers: init.headers, body: init.body });
  const text = await response.text();
  const label = `${what}: ${method} ${url.slice(d.root.length, d.root.length + 140)} → ${response.status}`;
  assert.ok(response.status < 500, `${label} ${text.slice(0, 200)}`);
  if (response.status >= 400 && method !== "HEAD") {
    let body: { error?: unknown; errors?: unknown } | undefined;
    try {
      body = JSON.parse(text);
    } catch {
      assert.fail(`${label}: not JSON: ${text.slice(0, 200)}`);
    }
    assert.equal(typeof body?.error, "string", `${label}: ${text.slice(0, 200)}`);
    assert.deepEqual(body?.errors, [body?.error], label);
    assert.equal(response.headers.get("access-control-allow-origin"), "*", `${label}: CORS`);
  }
  return response.status;
}

const deep = (levels: number) => `{"content":${"[".repeat(levels)}${"]".repeat(levels)}}`;
const json = { "content-type": "application/json" };

const BODIES: { what: string; body: BodyInit; headers: Record<string, string> }[] = [
  { what: "JSON nested 100000 deep", body: deep(100_000), headers: json },
  { what: "JSON nested 200 deep in an object", body: `{"custom_attributes":${'{"a":'.repeat(200)}1${"}".repeat(200)}}`, headers: json },
  { what: "a 2 MB JSON body", body: JSON.stringify({ content: "x".repeat(2 * 1024 * 1024) }), headers: json },
  { what: "a 2 MB body that is not JSON", body: new Uint8Array(2 * 1024 * 1024).fill(0x61), headers: json },
  { what: "NUL in a string", body: JSON.stringify({ content: "a\u0000b", url: "http://a\u0000b", custom_attributes: { k: "\u0000" } }), headers: json },
  { what: "NUL in a member name", body: '{"custom_attributes":{"a\\u0000":1},"content":"hi"}', headers: json },
  { what: "a lone surrogate", body: '{"content":"\\ud800","typing_status":"\\udc00","status":"\\ud800","value":"\\ud800"}', headers: json },
  { what: "bytes that are not UTF-8", body: new Uint8Array([0x7b, 0x22, 0x63, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]), headers: json },
  { what: "JSON that is not an object", body: "[1,2,3]", headers: json },
  { what: "JSON cut short", body: '{"content": "hel', headers: json },
  { what: "huge numbers", body: '{"assignee_id":1e400,"content":"hi","after":-1e400,"subscriptions":[1e400]}', headers: json },
  { what: "wrong types everywhere", body: '{"content":{"a":1},"echo_id":[1],"custom_attributes":"x","assignee_id":"x","status":7,"url":5,"subscriptions":"all","webhook":7,"typing_status":[],"value":{}}', headers: json },
  { what: "a form that is not a form", body: "--x\r\nContent-Disposition: form-data; name=\"content\"\r\n\r\nhi", headers: { "content-type": "multipart/form-data; boundary=x" } },
  { what: "a form without its boundary", body: "content=hi", headers: { "content-type": "multipart/form-data" } },
  { what: "a form with NUL in a field", body: formWith("a\u0000b"), headers: {} },
  { what: "a form with a lone surrogate", body: formWith("\ud800"), headers: {} },
  { what: "url-encoded NUL", body: "content=a%00b", headers: { "content-type": "application/x-www-form-urlencoded" } },
];

function formWith(content: string): FormData {
  const form = new FormData();
  form.append("content", content);
  form.append("echo_id", content);
  form.append("attachments[]", new File([new Uint8Array([1, 2, 3])], `${content}.png`, { type: "image/png" }));
  return form;
}

test("every route answers hostile bodies in the desk's envelope, never a 5xx", async () => {
  for (const route of ROUTES) {
    for (const sample of BODIES) {
      // a fresh body for each send (a FormData or a stream is read once)
      await holds(sample.what, route.method === "GET" ? "POST" : route.method, `${d.root}${route.path}`, {
        headers: headersFor(route, sample.headers),
        body: sample.body,
      });
    }
  }
});

test("the routes that read a JSON body refuse each kind of hostile body with its own status", async () => {
  const readers = ROUTES.filter((r) =>
    [
      `/public/api/v1/inboxes/${d.host.space}/contacts`,
      clientBase,
      `${clientBase}/conversations`,
      `${conversation}/messages`,
      `${conversation}/toggle_typing`,
      `${app}/conversations/${t.id}/messages`,
      `${app}/conversations/${t.id}/assignments`,
      `${app}/webhooks`,
    ].includes(r.path) && r.method !== "GET"
  );
  assert.equal(readers.length, 8);
  const expected: Record<string, number> = {
    "JSON nested 100000 deep": 400,
    "a 2 MB JSON body": 413,
    "a 2 MB body that is not JSON": 413,
    "NUL in a string": 400,
    "NUL in a member name": 400,
    "a lone surrogate": 400,
    "bytes that are not UTF-8": 400,
    "JSON that is not an object": 400,
    "JSON cut short": 400,
  };
  for (const route of readers) {
    for (const sample of BODIES.filter((b) => b.what in expected)) {
      const status = await holds(sample.what, route.method, `${d.root}${route.path}`, {
        headers: headersFor(route, sample.headers),
        body: sample.body,
      });
      assert.equal(status, expected[sample.what], `${sample.what}: ${route.method} ${route.path}`);
    }
  }
});

test("every route answers odd methods in the desk's envelope: 405 (or 404), never a 5xx", async () => {
  for (const route of ROUTES) {
    for (const method of ["PUT", "DELETE", "PATCH", "PROPFIND", "HEAD", "OPTIONS", "X-SITEWIRE"]) {
      if (method === route.method) continue;
      await holds("an odd method", method, `${d.root}${route.path}`, { headers: headersFor(route) });
    }
  }
});

test("paths and queries with NUL, lone surrogates, bad UTF-8 and long ids: the desk's envelope, never a 5xx", async () => {
  const segments = ["%00", "%ED%A0%80", "%FF%FE", "%C3%28", "99999999999999999999999", "-1", "0", "1.5", "%2F..%2F", "a".repeat(4000)];
  for (const route of ROUTES) {
    for (const segment of segments) {
      const parts = route.path.split("/");
      // each path segment in turn, and the query
      for (let i = 1; i < parts.length; i++) {
        const bent = [...parts];
        bent[i] = segment;
        await holds(`segment ${i} = ${segment.slice(0, 20)}`, route.method, `${d.root}${bent.join("/")}`, {
          headers: headersFor(route, route.method === "GET" ? {} : json),
          body: route.method === "GET" || route.method === "DELETE" ? undefined : "{}",
        });
      }
    }
    for (const query of ["after=%00", "page=%ED%A0%80", "status=%FF", "page=99999999999999999999", "page=-3", "after=1e400", "typing_status=%00", "expires=%00&signature=%ED%A0%80"]) {
      await holds(`query ${query}`, route.method, `${d.root}${route.path}?${query}`, {
        headers: headersFor(route, route.method === "GET" ? {} : json),
        body: route.method === "GET" || route.method === "DELETE" ? undefined : "{}",
      });
    }
  }
});

test("hostile headers: a key with NUL or non-ASCII bytes, a bearer that is not a JWT, a bad encoding", async () => {
  for (const route of ROUTES) {
    for (const headers of <Record<string, string>[]> [
      { api_access_token: "pk_support_\u00ff\u00fe" },
      { authorization: "Bearer a.b.c" },
      { authorization: "Bearer " + "x".repeat(8000) },
      { authorization: "Basic Zm9vOmJhcg==" },
      { "content-type": "application/json", "content-encoding": "gzip" },
    ]) {
      await holds(`header ${Object.keys(headers).join(",")}`, route.method, `${d.root}${route.path}`, {
        headers: { "x-forwarded-for": freshAddress(), ...headers },
        body: route.method === "GET" || route.method === "DELETE" ? undefined : '{"content":"hi"}',
      });
    }
  }
});

test("the cable takes hostile frames without falling over: each bad subscribe is rejected, a good one still confirmed", async () => {
  const socket = new WebSocket(`${d.root.replace(/^http/, "ws")}/cable`, ["actioncable-v1-json"]);
  const frames: { type?: string; identifier?: string }[] = [];
  const closed = new Promise((resolve) => socket.addEventListener("close", resolve));
  socket.addEventListener("message", (event) => frames.push(JSON.parse(event.data)));
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve);
    socket.addEventListener("error", reject);
  });
  const room = (token: unknown) => JSON.stringify({ channel: "RoomChannel", pubsub_token: token });
  const bad = [
    room("\u0000"),
    room("\ud800"),
    room({ a: 1 }),
    room("x".repeat(5000)),
    `{"channel":"RoomChannel","pubsub_token":${"[".repeat(2000)}${"]".repeat(2000)}}`, // deep, and within the 16 KB a frame may hold
    "not json",
  ];
  for (const frame of [
    "not json",
    "\u0000",
    "[".repeat(100_000),
    JSON.stringify({ command: "subscribe" }),
    JSON.stringify({ command: "subscribe", identifier: { channel: "RoomChannel" } }),
    JSON.stringify({ command: "message", identifier: room(t.pubsub), data: "\ud800" }),
    JSON.stringify({ command: "\ud800", identifier: "\u0000" }),
    "x".repeat(2 * 1024 * 1024),
    ...bad.map((identifier) => JSON.stringify({ command: "subscribe", identifier })),
  ]) socket.send(frame);
  socket.send(new Uint8Array([0xff, 0xfe, 0x00]));
  socket.send(JSON.stringify({ command: "subscribe", identifier: room(t.pubsub) }));
  const started = Date.now();
  while (!frames.some((f) => f.type === "confirm_subscription" && f.identifier === room(t.pubsub))) {
    assert.ok(Date.now() - started < 10_000, `no confirmation: ${JSON.stringify(frames).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  for (const identifier of bad) {
    assert.ok(
      frames.some((f) => f.type === "reject_subscription" && f.identifier === identifier),
      `rejected: ${identifier.slice(0, 60)}`,
    );
  }
  socket.close();
  await closed;
});
