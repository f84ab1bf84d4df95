// The desk's webhooks through a loopback receiver: the five sent events with their payloads (and no
// contact token anywhere), the three accepted ones never sent, Chatwoot's signature over
// "<timestamp>.<raw body>", last_at / last_error, a retry with backoff, and the service-key delivery route.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { freePort } from "../../../shared/embedded.ts";
import { hmacSha256Hex } from "../../../shared/webhooks/sign.ts";
import { serviceKey } from "../../../shared/service-key.ts";
import { backoffSeconds } from "../../../shared/webhooks/outbox.ts";
import { call, deliverAll, desk, freshAddress, guest, sleep, thread } from "./desk.ts";

interface Received {
  path: string;
  headers: Headers;
  raw: string;
  body: any;
}

function receiver(failPaths: string[] = []) {
  const port = freePort();
  const got: Received[] = [];
  const controller = new AbortController();
  const server = Deno.serve({ port, hostname: "127.0.0.1", signal: controller.signal, onListen: () => {} }, async (request) => {
    const raw = await request.text();
    const path = new URL(request.url).pathname;
    got.push({ path, headers: request.headers, raw, body: JSON.parse(raw) });
    return new Response("ok", { status: failPaths.includes(path) ? 500 : 200 });
  });
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    got,
    async close() {
      controller.abort();
      await server.finished;
    },
  };
}

test("the delivery route needs the service key", async () => {
  const d = await desk();
  for (const path of ["/webhooks/deliver", "/deliver"]) {
    const refused = await call("POST", `${d.root}${path}`, { body: {} });
    assert.equal(refused.status, 401);
    assert.deepEqual(refused.body.errors, [refused.body.error]);
    assert.equal((await call("POST", `${d.root}${path}`, { body: {}, key: d.agent.key, bearer: d.agent.key })).status, 401);
    const ok = await call("POST", `${d.host.baseUrl}/functions/v1/support-api${path}`, {
      body: { event: "message_created", id: 1 },
      bearer: await serviceKey(d.host.ctx),
    });
    assert.equal(ok.status, 200);
    assert.equal(typeof ok.body.claimed, "number");
  }
});

test("every sent event reaches a subscriber once, signed as Chatwoot signs, with the spec's payloads and no token", async () => {
  const d = await desk();
  const hook = receiver();
  try {
    const made = await call("POST", `${d.app}/webhooks`, {
      key: d.agent.key,
      body: {
        url: hook.url("/all"),
        subscriptions: ["conversation_created", "conversation_status_changed", "conversation_updated", "message_created",
          "contact_created", "message_updated", "contact_updated", "webwidget_triggered"],
      },
    });
    const secret = made.body.payload.webhook.secret as string;
    const g = await guest(d, { custom_attributes: { plan: "pro" } });
    await call("PATCH", g.base, { body: { custom_attributes: { plan: "team" } } }); // contact_updated: never sent
    const opened = await call("POST", `${g.base}/conversations`, { body: {} });
    const conversationId = opened.body.id;
    const line = await call("POST", `${g.base}/conversations/${conversationId}/messages`, { body: { content: "Where is my order?" } });
    await call("POST", `${d.app}/conversations/${conversationId}/assignments`, { key: d.agent.key, body: { assignee_id: d.agent.agentId } });
    await call("POST", `${d.app}/conversations/${conversationId}/messages`, { key: d.agent.key, body: { content: "On its way." } });
    await call("POST", `${d.app}/conversations/${conversationId}/toggle_status`, { key: d.agent.key, body: { status: "resolved" } });
    await call("POST", `${d.app}/conversations/${conversationId}/custom_attributes`, { key: d.agent.key, body: { custom_attributes: { tier: "gold" } } });

    await deliverAll(d, await serviceKey(d.host.ctx));
    // deliveries go out concurrently: the outbox's order is the delivery id's
    // (the subscription hears every contact's events while it exists: keep this guest's)
    const ofGuest = (body: any) =>
      (body.event === "contact_created" ? body.id : (body.conversation ?? body).meta?.sender?.id) === g.id;
    const mine = hook.got.filter((r) => r.path === "/all" && ofGuest(r.body))
      .sort((a, b) => Number(a.headers.get("x-chatwoot-delivery")) - Number(b.headers.get("x-chatwoot-delivery")));
    assert.deepEqual(mine.map((r) => r.body.event), [
      "contact_created",
      "conversation_created",
      "message_created", // the prompt
      "message_created", // the contact's line
      "message_created", // the acknowledgement
      "conversation_updated",
      "message_created", // the agent's line
      "conversation_status_changed",
      "conversation_updated", // the custom attributes
    ]);

    for (const r of mine) {
      const timestamp = r.headers.get("x-chatwoot-timestamp")!;
      assert.match(timestamp, /^\d{10}$/);
      assert.ok(Math.abs(Number(timestamp) - Date.now() / 1000) < 60);
      assert.equal(r.headers.get("x-chatwoot-signature"), `sha256=${await hmacSha256Hex(secret, `${timestamp}.${r.raw}`)}`);
      assert.match(r.headers.get("x-chatwoot-delivery")!, /^\d+$/);
      assert.equal(r.headers.get("content-type"), "application/json");
      assert.equal(r.raw.includes(g.sourceId), false, `${r.body.event} carries no contact token`);
      assert.equal(r.raw.includes("pubsub_token"), false);
    }
    assert.equal(new Set(mine.map((r) => r.headers.get("x-chatwoot-delivery"))).size, mine.length);

    const contact = mine[0].body;
    assert.equal(contact.id, g.id);
    assert.equal(contact.name, "Guest");
    assert.deepEqual(contact.custom_attributes, { plan: "pro" });
    assert.deepEqual(contact.account, { id: 1, name: "Sitewire Demo" });

    const created = mine[1].body;
    assert.equal(created.id, conversationId);
    assert.deepEqual(created.inbox, { id: 1, name: "Demo help desk" });
    assert.equal(created.account.id, 1);
    assert.equal(created.meta.sender.id, g.id);
    assert.ok(Array.isArray(created.messages));

    const message = mine[3].body;
    assert.equal(message.id, line.body.id);
    assert.equal(message.content, "Where is my order?");
    assert.equal(message.message_type, "incoming");
    assert.equal(message.content_type, "text");
    assert.match(message.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(message.sender.id, g.id);
    assert.equal(message.sender.type, "contact");
    assert.deepEqual(message.attachments, []);
    assert.equal(message.conversation.id, conversationId);
    assert.equal("messages" in message.conversation, false);
    assert.equal(message.conversation.meta.sender.id, g.id);
    assert.deepEqual(message.inbox, { id: 1, name: "Demo help desk" });
    assert.equal(mine[4].body.message_type, "activity");
    assert.equal(mine[4].body.sender, null);
    assert.equal(mine[6].body.message_type, "outgoing");
    assert.equal(mine[6].body.sender.id, d.agent.agentId);

    const updated = mine[5].body;
    assert.equal(updated.meta.assignee.id, d.agent.agentId);
    assert.deepEqual(updated.changed_attributes, [{ assignee_id: { previous_value: null, current_value: d.agent.agentId } }]);
    const status = mine[7].body;
    assert.equal(status.status, "resolved");
    assert.ok(status.messages.length >= 4);
    assert.deepEqual(mine[8].body.changed_attributes, [{ custom_attributes: { previous_value: {}, current_value: { tier: "gold" } } }]);

    const listed = await call("GET", `${d.app}/webhooks`, { key: d.agent.key });
    const shown = listed.body.payload.webhooks.find((w: any) => w.id === made.body.payload.webhook.id);
    assert.ok(shown.last_at > 0);
    assert.equal(shown.last_error, null);
    await call("DELETE", `${d.app}/webhooks/${shown.id}`, { key: d.agent.key });
  } finally {
    await hook.close();
  }
});

test("a non-2xx answer is kept as last_error and the delivery is tried again after the backoff", async () => {
  const d = await desk();
  const hook = receiver(["/fails"]);
  try {
    const made = await call("POST", `${d.app}/webhooks`, {
      key: d.agent.key,
      body: { url: hook.url("/fails"), subscriptions: ["contact_created"] },
    });
    const id = made.body.payload.webhook.id;
    const before = Date.now();
    const g = await guest(d);
    // other test files run alongside: this subscription hears their new contacts too; keep this one's
    const tries = () => hook.got.filter((r) => r.path === "/fails" && r.body.id === g.id);
    await deliverAll(d, await serviceKey(d.host.ctx));
    assert.equal(tries().length, 1);
    const shown = (await call("GET", `${d.app}/webhooks`, { key: d.agent.key })).body.payload.webhooks.find((w: any) => w.id === id);
    assert.equal(shown.last_error, "HTTP 500");
    assert.ok(shown.last_at > 0);
    const delivery = tries()[0].headers.get("x-chatwoot-delivery");
    const [row] = await d.host.ctx.sql<{ status: string; attempts: number; next_attempt_at: Date }[]>`
      select status, attempts, next_attempt_at from public.webhook_outbox where id = ${Number(delivery)}`;
    assert.equal(row.status, "pending");
    assert.equal(row.attempts, 1);
    const wait = new Date(row.next_attempt_at).getTime() - before;
    assert.ok(wait >= backoffSeconds(1) * 1000 - 2000 && wait <= backoffSeconds(1) * 1000 + 5000, `retry in ${wait} ms`);
    // not due yet: a second call sends nothing to it
    await deliverAll(d, await serviceKey(d.host.ctx));
    assert.equal(tries().length, 1);
    // once due it is tried again, with the same delivery id
    await d.host.ctx.sql`update public.webhook_outbox set next_attempt_at = now() - interval '1 second'
                         where id = ${Number(delivery)}`;
    await deliverAll(d, await serviceKey(d.host.ctx));
    assert.equal(tries().length, 2);
    assert.equal(tries()[1].headers.get("x-chatwoot-delivery"), delivery);
    await call("DELETE", `${d.app}/webhooks/${id}`, { key: d.agent.key });
    await sleep(1);
  } finally {
    await hook.close();
  }
});

test("a line's files reach the subscriber with addresses signed for an hour from the delivery, inside the signed body", async () => {
  const d = await desk();
  const hook = receiver();
  try {
    const made = await call("POST", `${d.app}/webhooks`, {
      key: d.agent.key,
      body: { url: hook.url("/files"), subscriptions: ["message_created", "conversation_status_changed"] },
    });
    const secret = made.body.payload.webhook.secret as string;
    const t = await thread(d);
    const png = Uint8Array.from(atob(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
    ), (ch) => ch.charCodeAt(0));
    const form = new FormData();
    form.append("content", "The broken lid");
    form.append("attachments[]", new File([png], "lid.png", { type: "image/png" }));
    const posted = await fetch(`${t.url}/messages`, { method: "POST", body: form, headers: { "x-forwarded-for": freshAddress() } });
    assert.equal(posted.status, 200);
    const line = await posted.json();
    await call("POST", `${d.app}/conversations/${t.id}/toggle_status`, { key: d.agent.key, body: { status: "resolved" } });

    await deliverAll(d, await serviceKey(d.host.ctx));
    const mine = hook.got.filter((r) => r.path === "/files" && (r.body.conversation ?? r.body).id === t.id);
    const created = mine.find((r) => r.body.event === "message_created" && r.body.id === line.id);
    assert.ok(created, "the line's message_created was delivered");
    const [file] = created.body.attachments;
    assert.deepEqual(
      { id: file.id, file_type: file.file_type, extension: file.extension, file_size: file.file_size },
      { id: line.attachments[0].id, file_type: "image", extension: "png", file_size: png.byteLength },
    );
    const address = new URL(file.data_url);
    assert.equal(address.origin + address.pathname, `${d.host.baseUrl}/api/desk/files/${file.id}`);
    assert.ok(Math.abs(Number(address.searchParams.get("expires")) - Date.now() / 1000 - 3600) < 60);
    assert.equal(file.thumb_url, file.data_url);
    const fetched = await fetch(file.data_url);
    assert.equal(fetched.status, 200);
    assert.deepEqual(new Uint8Array(await fetched.arrayBuffer()), png);
    // the signature covers the body as sent, addresses included
    const timestamp = created.headers.get("x-chatwoot-timestamp")!;
    assert.equal(created.headers.get("x-chatwoot-signature"), `sha256=${await hmacSha256Hex(secret, `${timestamp}.${created.raw}`)}`);

    // a conversation's event carries its lines' files signed the same way
    const resolved = mine.find((r) => r.body.event === "conversation_status_changed" && r.body.id === t.id);
    assert.ok(resolved, "the status change was delivered");
    const withFile = resolved.body.messages.find((m: any) => m.id === line.id);
    assert.equal((await fetch(withFile.attachments[0].data_url)).status, 200);
    await call("DELETE", `${d.app}/webhooks/${made.body.payload.webhook.id}`, { key: d.agent.key });
  } finally {
    await hook.close();
  }
});
