// The desk's live channel, /api/desk/cable, through @rails/actioncable (the client Chatwoot's widget,
// dashboard and mobile apps use) and through a bare WebSocket for the wire frames: welcome, pings,
// confirm/reject, and an agent's line, a status change and typing pushed from the database's
// notifications to the conversation's pubsub_token subscribers only.
import assert from "node:assert/strict";
import { adapters, createConsumer } from "@rails/actioncable";
import { test } from "../../helpers/test.ts";
import { testHost } from "../../helpers/host.ts";
import { agentKey, agentLine, openThread, send } from "./live-desk.ts";

// @rails/actioncable reads a socket's state by enumerating WebSocket's constants (CONNECTING, OPEN, ...),
// which browsers expose as enumerable (WebIDL) and Deno does not: the same class with them enumerable
class BrowserWebSocket extends WebSocket {}
for (const [name, value] of [["CONNECTING", 0], ["OPEN", 1], ["CLOSING", 2], ["CLOSED", 3]] as const) {
  Object.defineProperty(BrowserWebSocket, name, { value, enumerable: true });
}
adapters.WebSocket = BrowserWebSocket;

const host = await testHost();
const cableUrl = `${host.baseUrl.replace(/^http/, "ws")}/api/desk/cable`;
const key = await agentKey(host.ctx.sql, "cable-agent@example.test");
let visitor = 0;
const nextAddress = () => `198.51.100.${++visitor}`;

/** Resolves with the first item `items` gets that satisfies `want`. */
function waitFor<T>(items: T[], want: (item: T) => boolean, what: string, ms = 5000): Promise<T> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const look = () => {
      const found = items.find(want);
      if (found) return resolve(found);
      if (Date.now() - started > ms) return reject(new Error(`no ${what} within ${ms} ms: ${JSON.stringify(items)}`));
      setTimeout(look, 10);
    };
    look();
  });
}

interface Broadcast {
  event: string;
  data: Record<string, any>;
}

/** A consumer subscribed to a thread's RoomChannel, recording what it receives. */
async function subscribeRoom(pubsubToken: string) {
  const consumer = createConsumer(cableUrl);
  const received: Broadcast[] = [];
  const states: string[] = [];
  consumer.subscriptions.create({ channel: "RoomChannel", pubsub_token: pubsubToken }, {
    connected: () => states.push("connected"),
    rejected: () => states.push("rejected"),
    received: (data: Broadcast) => received.push(data),
  });
  await waitFor(states, () => true, "confirmation or rejection");
  return { consumer, received, states };
}

test("an agent's line reaches the thread's subscriber through @rails/actioncable, as message.created", async () => {
  const thread = await openThread(host.baseUrl, host.space, nextAddress());
  const { consumer, received, states } = await subscribeRoom(thread.pubsubToken);
  try {
    assert.deepEqual(states, ["connected"]);
    const line = await agentLine(host.baseUrl, key, thread.conversationId, "Hello from the desk");
    const pushed = await waitFor(received, (b) => b.event === "message.created" && b.data.id === line.id, "agent line");
    assert.equal(pushed.data.content, "Hello from the desk");
    assert.equal(pushed.data.message_type, 1);
    assert.equal(pushed.data.conversation_id, thread.conversationId);
    assert.equal(pushed.data.sender.type, "user");
    // the contact's own line is pushed too (another tab of the same visitor sees it)
    const own = await send("POST", `${thread.root}/messages`, { content: "Thanks!", echo_id: "e1" });
    const ownLine = Array.isArray(own) ? own[0] : own;
    const echoed = await waitFor(received, (b) => b.event === "message.created" && b.data.id === ownLine.id, "contact line");
    assert.equal(echoed.data.echo_id, "e1");
    assert.equal(echoed.data.message_type, 0);
  } finally {
    consumer.disconnect();
  }
});

test("another thread's subscriber hears nothing of it", async () => {
  const mine = await openThread(host.baseUrl, host.space, nextAddress());
  const other = await openThread(host.baseUrl, host.space, nextAddress());
  const { consumer, received } = await subscribeRoom(other.pubsubToken);
  try {
    await agentLine(host.baseUrl, key, mine.conversationId, "Only for the first thread");
    const marker = await agentLine(host.baseUrl, key, other.conversationId, "For the second thread");
    await waitFor(received, (b) => b.data.id === marker.id, "the second thread's own line");
    assert.deepEqual(received.filter((b) => b.data.conversation_id === mine.conversationId), []);
  } finally {
    consumer.disconnect();
  }
});

test("a status change and the agent's typing are pushed; lines arrive in the order they were committed", async () => {
  const thread = await openThread(host.baseUrl, host.space, nextAddress());
  const { consumer, received } = await subscribeRoom(thread.pubsubToken);
  try {
    const app = `${host.baseUrl}/api/desk/api/v1/accounts/1/conversations/${thread.conversationId}`;
    await send("POST", `${app}/toggle_typing_status`, { typing_status: "on" }, { api_access_token: key });
    const typing = await waitFor(received, (b) => b.event === "conversation.typing_on", "typing_on");
    assert.equal(typing.data.conversation.id, thread.conversationId);
    assert.equal(typing.data.user.type, "user");
    const lines: { id: number }[] = [];
    for (let i = 0; i < 5; i++) lines.push(await agentLine(host.baseUrl, key, thread.conversationId, `line ${i}`));
    await waitFor(received, (b) => b.data.id === lines[4].id, "the last line");
    const order = received.filter((b) => b.event === "message.created").map((b) => b.data.id);
    assert.deepEqual(order, lines.map((l) => l.id));
    await send("POST", `${app}/toggle_status`, { status: "resolved" }, { api_access_token: key });
    const status = await waitFor(received, (b) => b.event === "conversation.status_changed", "status change");
    assert.deepEqual(status.data, { id: thread.conversationId, status: "resolved" });
  } finally {
    consumer.disconnect();
  }
});

test("a pubsub_token nobody holds is rejected", async () => {
  const { consumer, states } = await subscribeRoom("0".repeat(64));
  consumer.disconnect();
  assert.deepEqual(states, ["rejected"]);
});

/** A bare socket speaking the wire protocol, recording every frame. */
async function rawSocket(protocols = ["actioncable-v1-json", "actioncable-unsupported"]) {
  const socket = new WebSocket(cableUrl, protocols);
  const frames: Record<string, any>[] = [];
  socket.onmessage = (event) => frames.push(JSON.parse(event.data));
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = () => reject(new Error("the socket did not open"));
  });
  return { socket, frames };
}

test("the wire: actioncable-v1-json agreed, welcome first, a ping every three seconds, identifiers echoed verbatim", async () => {
  const thread = await openThread(host.baseUrl, host.space, nextAddress());
  const { socket, frames } = await rawSocket();
  try {
    assert.equal(socket.protocol, "actioncable-v1-json");
    await waitFor(frames, (f) => f.type === "welcome", "welcome");
    assert.deepEqual(frames[0], { type: "welcome" });
    // the identifier is the client's own JSON text, key order and spacing included
    const identifier = `{"pubsub_token": "${thread.pubsubToken}", "channel": "RoomChannel"}`;
    socket.send(JSON.stringify({ command: "subscribe", identifier }));
    await waitFor(frames, (f) => f.type === "confirm_subscription", "confirmation");
    assert.ok(frames.some((f) => f.type === "confirm_subscription" && f.identifier === identifier));
    // a second subscribe to the same identifier is ignored (no second confirmation)
    socket.send(JSON.stringify({ command: "subscribe", identifier }));
    socket.send(JSON.stringify({ command: "message", identifier, data: JSON.stringify({ action: "update_presence" }) }));
    socket.send("not json");
    const ping = await waitFor(frames, (f) => f.type === "ping", "ping", 4500);
    assert.equal(typeof ping.message, "number");
    assert.ok(Math.abs(ping.message - Date.now() / 1000) < 10);
    assert.equal(frames.filter((f) => f.type === "confirm_subscription").length, 1);
    const line = await agentLine(host.baseUrl, key, thread.conversationId, "over the wire");
    const pushed = await waitFor(frames, (f) => f.message?.data?.id === line.id, "broadcast");
    assert.deepEqual(Object.keys(pushed).sort(), ["identifier", "message"]);
    assert.equal(pushed.identifier, identifier);
    assert.equal(pushed.message.event, "message.created");
    // after unsubscribe nothing more arrives for it
    socket.send(JSON.stringify({ command: "unsubscribe", identifier }));
    await new Promise((r) => setTimeout(r, 200));
    const after = await agentLine(host.baseUrl, key, thread.conversationId, "not heard");
    const marker = await agentLine(host.baseUrl, key, thread.conversationId, "also not heard");
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(frames.some((f) => f.message?.data?.id === after.id || f.message?.data?.id === marker.id), false);
  } finally {
    socket.close();
  }
});

test("a subscription to another channel or with no token is rejected with the identifier echoed", async () => {
  const { socket, frames } = await rawSocket();
  try {
    await waitFor(frames, (f) => f.type === "welcome", "welcome");
    for (const identifier of [JSON.stringify({ channel: "AppearanceChannel" }), JSON.stringify({ channel: "RoomChannel" }), "{"]) {
      socket.send(JSON.stringify({ command: "subscribe", identifier }));
      await waitFor(frames, (f) => f.type === "reject_subscription" && f.identifier === identifier, `rejection of ${identifier}`);
    }
  } finally {
    socket.close();
  }
});

test("a plain GET of the cable is refused in the desk's envelope", async () => {
  const response = await fetch(cableUrl.replace(/^ws/, "http"));
  assert.equal(response.status, 400);
  const body = await response.json();
  assert.equal(typeof body.error, "string");
  assert.deepEqual(body.errors, [body.error]);
});
