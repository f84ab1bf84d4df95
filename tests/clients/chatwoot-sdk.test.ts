// @figuro/chatwoot-sdk (a generated Chatwoot client, axios underneath) against the running host: its
// client API (a visitor's contact, conversation and lines at <install>/public/api/v1/inboxes/<space>) and
// its application API (the desk's conversations, an agent's answer, assignment, status, contacts, inboxes,
// agents, profile, webhooks) with install root {base_url}/api/desk and a support key.
import assert from "node:assert/strict";
import * as chatwoot from "@figuro/chatwoot-sdk";
import { test } from "../helpers/test.ts";
import { desk } from "../functions/support-api/desk.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

// a CommonJS package: its class is module.exports.default
const ChatwootClient = ((chatwoot as Any).default?.default ?? (chatwoot as Any).default) as Any;

function sdk(basePath: string, token?: string): Any {
  return new ChatwootClient({
    config: { basePath, with_credentials: false, credentials: "omit", ...(token ? { token } : {}) },
  });
}

test("a visitor talks to the desk through the SDK's client API and an agent answers through its application API", async () => {
  const d = await desk();
  const visitor = sdk(d.root);
  const contact = await visitor.client.contacts.create({ inboxIdentifier: d.host.space, data: { custom_attributes: { via: "sdk" } } });
  assert.equal(typeof contact.source_id, "string");
  const read = await visitor.client.contacts.get({ inboxIdentifier: d.host.space, contactIdentifier: contact.source_id });
  assert.equal(read.id, contact.id);
  const conversation = await visitor.client.conversations.create({ inboxIdentifier: d.host.space, contactIdentifier: contact.source_id });
  assert.equal(conversation.status, "open");
  const line = await visitor.client.messages.create({
    inboxIdentifier: d.host.space,
    contactIdentifier: contact.source_id,
    conversationId: conversation.id,
    data: { content: "Hello from the SDK" },
  });
  assert.equal(line.content, "Hello from the SDK");

  const agent = sdk(d.root, d.agent.key);
  const list = await agent.conversations.list({ accountId: 1, status: "open", assigneeType: "unassigned" });
  assert.ok(list.data.payload.some((c: Any) => c.id === conversation.id));
  const answer = await agent.messages.create({
    accountId: 1,
    conversationId: conversation.id,
    data: { content: "Hello from the desk", message_type: "outgoing" },
  });
  assert.equal(answer.message_type, 1);
  const assigned = await agent.conversationAssignment.assign({
    accountId: 1,
    conversationId: conversation.id,
    data: { assignee_id: d.agent.agentId },
  });
  assert.equal(assigned.id, d.agent.agentId);
  const toggled = await agent.conversations.toggleStatus({ accountId: 1, conversationId: conversation.id, data: { status: "resolved" } });
  assert.equal(toggled.payload.current_status, "resolved");
  const shown = await agent.conversations.get({ accountId: 1, conversationId: conversation.id });
  assert.equal(shown.meta.assignee.id, d.agent.agentId);
  const messages = await agent.messages.list({ accountId: 1, conversationId: conversation.id });
  assert.ok(messages.payload.some((m: Any) => m.content === "Hello from the desk"));

  const lines = await visitor.client.messages.list({
    inboxIdentifier: d.host.space,
    contactIdentifier: contact.source_id,
    conversationId: conversation.id,
  });
  assert.ok(lines.some((m: Any) => m.content === "Hello from the desk" && m.message_type === 1));

  const contacts = await agent.contacts.list({ accountId: 1 });
  assert.ok(contacts.payload.some((c: Any) => c.id === contact.id));
  const theirs = await agent.contacts.listConversations({ accountId: 1, id: contact.id });
  assert.deepEqual(theirs.payload.map((c: Any) => c.id), [conversation.id]);
  const inboxes = await agent.inboxes.list({ accountId: 1 });
  assert.equal(inboxes.payload[0].website_token, d.host.space);
  const agents = await agent.agents.list({ accountId: 1 });
  assert.ok(agents.some((a: Any) => a.id === d.agent.agentId));
  const profile = await agent.profile.profile();
  assert.equal(profile.email, d.agent.email);

  const hook = await agent.webhooks.create({
    accountId: 1,
    data: { url: "http://127.0.0.1:9/sdk", subscriptions: ["conversation_created"] },
  });
  assert.equal(hook.payload.webhook.url, "http://127.0.0.1:9/sdk");
  const changed = await agent.webhooks.update({ accountId: 1, webhookId: hook.payload.webhook.id, data: { url: "http://127.0.0.1:9/sdk2" } });
  assert.equal(changed.payload.webhook.url, "http://127.0.0.1:9/sdk2");
  const hooks = await agent.webhooks.list({ accountId: 1 });
  assert.ok(hooks.payload.webhooks.some((w: Any) => w.id === hook.payload.webhook.id));
  await agent.webhooks.delete({ accountId: 1, webhookId: hook.payload.webhook.id });
});

test("the SDK sees the desk's refusals as errors with the status: a wrong key 401, a private note 422", async () => {
  const d = await desk();
  await assert.rejects(sdk(d.root, "pk_support_00000000000000000000000000000000").profile.profile(), (e: Any) => {
    assert.equal(e.status, 401);
    return true;
  });
  const agent = sdk(d.root, d.agent.key);
  const visitor = sdk(d.root);
  const contact = await visitor.client.contacts.create({ inboxIdentifier: d.host.space, data: {} });
  const conversation = await visitor.client.conversations.create({ inboxIdentifier: d.host.space, contactIdentifier: contact.source_id });
  await assert.rejects(
    agent.messages.create({ accountId: 1, conversationId: conversation.id, data: { content: "note", private: true } }),
    (e: Any) => {
      assert.equal(e.status, 422);
      return true;
    },
  );
});
