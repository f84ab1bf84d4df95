// The desk's live channel, /api/desk/cable, through @rails/actioncable (the client Chatwoot's widget,
// dashboard and mobile apps use) and through a bare WebSocket for the wire frames: welcome, pings,
// confirm/reject, and an agent's line, a status change and typing pushed from the database's
// notifications to the conversation's pubsub_token subscribers only.
import assert from "node:assert/strict";
import { adapters, createConsumer } from "@rails/actioncable";
import { test } from "../../helpers/test.ts";
import { call, desk, thread } from "./desk.ts";

// @rails/actioncable reads a socket's state by enumerating WebSocket's constants (CONNECTING, OPEN, ...),
// which browsers expose as enumerable (WebIDL) and Deno does not: the same class with them enumerable
class BrowserWebSocket extends WebSocket {}
for (const [name, value] of [["CONNECTING", 0], ["OPEN", 1], ["CLOSING", 2], ["CLOSED", 3]] as const) {
  Object.defineProperty(BrowserWebSocket, name, { value, enumerable: true });
}
adapters.WebSocket = BrowserWebSocket;

const d = await desk();
const cableUrl = `${d.root.replace(/^http/, "ws")}/cable`;
const key = d.agent.key;

/** An agent's line through the application API. */
async function agentLine(conversationId: number, content: string): Promise<{ id: number }> {
  const answer = await call("POST", `${d.app}/conversations/${conversationId}/messages`, {
    key,
    body: { content, message_type: "outgoing" },
  });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

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
  const conversation = await thread(d);
  const { consumer, received, states } = await subscribeRoom(conversation.pubsub);
  try {
    assert.deepEqual(states, ["connected"]);
    const line = await agentLine(conversation.id, "Hello from the desk");
    const pushed = await waitFor(received, (b) => b.event === "message.created" && b.data.id === line.id, "agent line");
    assert.equal(pushed.data.content, "Hello from the desk");
    assert.equal(pushed.data.message_type, 1);
    assert.equal(pushed.data.conversation_id, conversation.id);
    assert.equal(pushed.data.sender.type, "user");
    // the contact's own line is pushed too (another tab of the same visitor sees it)
    const own = await call("POST", `${conversation.url}/messages`, { body: { content: "Thanks!", echo_id: "e1" } });
    const ownLine = Array.isArray(own.body) ? own.body[0] : own.body;
    const echoed = await waitFor(received, (b) => b.event === "message.created" && b.data.id === ownLine.id, "contact line");
    assert.equal(echoed.data.echo_id, "e1");
    assert.equal(echoed.data.message_type, 0);
  } finally {
    consumer.disconnect();
  }
});

test("another thread's subscriber hears nothing of it", async () => {
  const mine = await thread(d);
  const other = await thread(d);
  const { consumer, received } = await subscribeRoom(other.pubsub);
  try {
    await agentLine(mine.id, "Only for the first thread");
    const marker = await agentLine(other.id, "For the second thread");
    await waitFor(received, (b) => b.data.id === marker.id, "the second thread's own line");
    assert.deepEqual(received.filter((b) => b.data.conversation_id === mine.id), []);
  } finally {
    consumer.disconnect();
  }
});

test("a status change and the agent's typing are pushed; lines arrive in the order they were committed", async () => {
  const conversation = await thread(d);
  const { consumer, received } = await subscribeRoom(conversation.pubsub);
  try {
    const app = `${d.app}/conversations/${conversation.id}`;
    await call("POST", `${app}/toggle_typing_status`, { key, body: { typing_status: "on" } });
    const typing = await waitFor(received, (b) => b.event === "conversation.typing_on", "typing_on");
    assert.equal(typing.data.conversation.id, conversation.id);
    assert.equal(typing.data.user.type, "user");
    const lines: { id: number }[] = [];
    for (let i = 0; i < 5; i++) lines.push(await agentLine(conversation.id, `line ${i}`));
    await waitFor(received, (b) => b.data.id === lines[4].id, "the last line");
    const order = received.filter((b) => b.event === "message.created").map((b) => b.data.id);
    assert.deepEqual(order, lines.map((l) => l.id));
    await call("POST", `${app}/toggle_status`, { key, body: { status: "resolved" } });
    const status = await waitFor(received, (b) => b.event === "conversation.status_changed", "status change");
    assert.deepEqual(status.data, { id: conversation.id, status: "resolved" });
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
  const conversation = await thread(d);
  const { socket, frames } = await rawSocket();
  try {
    assert.equal(socket.protocol, "actioncable-v1-json");
    await waitFor(frames, (f) => f.type === "welcome", "welcome");
    assert.deepEqual(frames[0], { type: "welcome" });
    // the identifier is the client's own JSON text, key order and spacing included
    const identifier = `{"pubsub_token": "${conversation.pubsub}", "channel": "RoomChannel"}`;
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
    const line = await agentLine(conversation.id, "over the wire");
    const pushed = await waitFor(frames, (f) => f.message?.data?.id === line.id, "broadcast");
    assert.deepEqual(Object.keys(pushed).sort(), ["identifier", "message"]);
    assert.equal(pushed.identifier, identifier);
    assert.equal(pushed.message.event, "message.created");
    // after unsubscribe nothing more arrives for it
    socket.send(JSON.stringify({ command: "unsubscribe", identifier }));
    await new Promise((r) => setTimeout(r, 200));
    const after = await agentLine(conversation.id, "not heard");
    const marker = await agentLine(conversation.id, "also not heard");
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
