// The application API under a support key whose maker is on the desk: the auth matrix on every route,
// then each route's behaviour and error cases.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { createKey, revokeKey } from "../../../shared/keys.ts";
import { call, desk, type Desk, sleep, thread } from "./desk.ts";

/** Every application route, with a body the right key is answered for, and that answer's status. */
async function routes(d: Desk): Promise<[string, string, unknown, number][]> {
  const t = await thread(d);
  const c = `${d.app}/conversations/${t.id}`;
  const [hook] = await d.host.ctx.sql<{ id: number }[]>`
    insert into public.support_webhooks (url, subscriptions, secret) values ('http://127.0.0.1:9/matrix', '{contact_updated}', 's')
    returning id`;
  const [line] = await d.host.ctx.sql<{ id: number }[]>`
    insert into public.support_messages (conversation_id, message_type, content, sender_agent_id)
    values (${t.id}, 1, 'To be withdrawn', ${d.agent.agentId}) returning id`;
  return [
    ["GET", `${d.app}/conversations`, undefined, 200],
    ["GET", c, undefined, 200],
    ["GET", `${c}/messages`, undefined, 200],
    ["POST", `${c}/messages`, { content: "From the matrix", message_type: "outgoing" }, 200],
    ["DELETE", `${c}/messages/${line.id}`, undefined, 200],
    ["POST", `${c}/toggle_status`, { status: "pending" }, 200],
    ["POST", `${c}/assignments`, { assignee_id: d.agent.agentId }, 200],
    ["POST", `${c}/toggle_typing_status`, { typing_status: "on" }, 200],
    ["POST", `${c}/update_last_seen`, undefined, 200],
    ["POST", `${c}/custom_attributes`, { custom_attributes: { tier: "gold" } }, 200],
    ["GET", `${d.app}/contacts`, undefined, 200],
    ["GET", `${d.app}/contacts/${t.contactId}`, undefined, 200],
    ["GET", `${d.app}/contacts/${t.contactId}/conversations`, undefined, 200],
    ["GET", `${d.app}/inboxes`, undefined, 200],
    ["GET", `${d.app}/agents`, undefined, 200],
    ["GET", `${d.root}/api/v1/profile`, undefined, 200],
    ["GET", `${d.app}/webhooks`, undefined, 200],
    ["POST", `${d.app}/webhooks`, { url: "http://127.0.0.1:9/made", subscriptions: ["message_created"] }, 201],
    ["PATCH", `${d.app}/webhooks/${hook.id}`, { subscriptions: ["contact_created"] }, 200],
    ["PUT", `${d.app}/webhooks/${hook.id}`, { subscriptions: ["contact_updated"] }, 200],
    ["DELETE", `${d.app}/webhooks/${hook.id}`, undefined, 204],
  ];
}

test("every application route: 401 without a key or with a revoked one, 403 for another kind or a maker not on the desk", async () => {
  const d = await desk();
  const revoked = await d.keyBy("support");
  const [{ id: revokedId }] = await d.host.ctx.sql<{ id: string }[]>`
    select id from public.api_keys where created_by = ${revoked.person.id}`;
  await revokeKey(d.host.ctx.sql, revokedId);
  const otherKind = await d.keyBy("admin", "scheduling");
  const member = await d.keyBy("member");
  const nobody = (await createKey(d.host.ctx.sql, { name: "no maker", kind: "support" })).key;
  const admin = await d.keyBy("admin");
  for (const [method, url, body, ok] of await routes(d)) {
    const label = `${method} ${url}`;
    const expect = async (options: { key?: string; bearer?: string }, status: number) => {
      const answer = await call(method, url, { body, ...options });
      assert.equal(answer.status, status, `${label} ${JSON.stringify(options)}: ${JSON.stringify(answer.body)}`);
      if (status >= 400) assert.deepEqual(answer.body.errors, [answer.body.error], label);
    };
    await expect({}, 401);
    await expect({ key: "pk_support_00000000000000000000000000000000" }, 401);
    await expect({ key: revoked.key }, 401);
    await expect({ key: otherKind.key }, 403);
    await expect({ key: member.key }, 403);
    await expect({ key: nobody }, 403);
    await expect({ bearer: d.agent.key }, ok);
    // the header form (Chatwoot's api_access_token) is the same key
    if (method === "GET") await expect({ key: d.agent.key }, ok);
  }
  // an administrator's key is on the desk too
  assert.equal((await call("GET", `${d.app}/conversations`, { key: admin.key })).status, 200);
  await d.host.ctx.sql`delete from public.support_webhooks where url like 'http://127.0.0.1:9/%'`;
});

test("the conversation list: status and assignee filters, meta counts, 25 a page, latest first, without messages", async () => {
  const d = await desk();
  const mine = await thread(d);
  await call("POST", `${d.app}/conversations/${mine.id}/assignments`, { key: d.agent.key, body: { assignee_id: d.agent.agentId } });
  const resolved = await thread(d);
  await call("POST", `${d.app}/conversations/${resolved.id}/toggle_status`, { key: d.agent.key, body: { status: "resolved" } });
  const open = await call("GET", `${d.app}/conversations?status=open`, { key: d.agent.key });
  assert.equal(open.status, 200);
  const { meta, payload } = open.body.data;
  assert.ok(meta.all_count >= 1 && meta.mine_count >= 1);
  assert.equal(meta.all_count, meta.assigned_count + meta.unassigned_count);
  assert.ok(payload.length <= 25);
  assert.ok(payload.every((c: any) => c.status === "open" && c.messages.length === 0));
  assert.ok(!payload.some((c: any) => c.id === resolved.id));
  const stamps = payload.map((c: any) => c.timestamp);
  assert.deepEqual(stamps, [...stamps].sort((a: number, b: number) => b - a));
  const me = await call("GET", `${d.app}/conversations?status=all&assignee_type=me`, { key: d.agent.key });
  assert.ok(me.body.data.payload.every((c: any) => c.meta.assignee?.id === d.agent.agentId));
  assert.ok(me.body.data.payload.some((c: any) => c.id === mine.id));
  const unassigned = await call("GET", `${d.app}/conversations?status=resolved&assignee_type=unassigned`, { key: d.agent.key });
  assert.ok(unassigned.body.data.payload.some((c: any) => c.id === resolved.id));
  // page two of the same list continues it; the list is this file's agent's own, so threads other test
  // files open meanwhile cannot shift it between the two reads
  await d.host.ctx.sql`
    insert into public.support_conversations (contact_id, assignee_id)
    select ${mine.contactId}, ${d.agent.agentId} from generate_series(1, 26)`;
  const one = await call("GET", `${d.app}/conversations?status=open&assignee_type=me&page=1`, { key: d.agent.key });
  const two = await call("GET", `${d.app}/conversations?status=open&assignee_type=me&page=2`, { key: d.agent.key });
  assert.equal(one.body.data.payload.length, 25);
  const firstIds = new Set(one.body.data.payload.map((c: any) => c.id));
  assert.ok(two.body.data.payload.every((c: any) => !firstIds.has(c.id)));
  for (const bad of ["status=snoozing", "assignee_type=them", "page=0", "page=x"]) {
    assert.equal((await call("GET", `${d.app}/conversations?${bad}`, { key: d.agent.key })).status, 400, bad);
  }
});

test("one conversation with its messages and meta; unknown ones are 404", async () => {
  const d = await desk();
  const t = await thread(d);
  await call("POST", `${t.url}/messages`, { body: { content: "Help me" } });
  const one = await call("GET", `${d.app}/conversations/${t.id}`, { key: d.agent.key });
  assert.equal(one.status, 200);
  const c = one.body;
  assert.equal(c.account_id, 1);
  assert.equal(c.channel, "Channel::WebWidget");
  assert.equal(c.can_reply, true);
  assert.equal(c.muted, false);
  assert.equal(c.unread_count, 1);
  assert.ok(c.waiting_since > 0);
  assert.equal(c.first_reply_created_at, 0);
  assert.equal(c.meta.sender.id, t.contactId);
  assert.equal(c.meta.sender.name, "Guest");
  assert.equal(c.meta.hmac_verified, false);
  assert.equal(c.meta.assignee, null);
  assert.equal(c.last_non_activity_message.content, "Help me");
  assert.equal(c.messages.length, 3);
  assert.equal("pubsub_token" in c, false);
  const lines = await call("GET", `${d.app}/conversations/${t.id}/messages`, { key: d.agent.key });
  assert.equal(lines.body.meta.contact.id, t.contactId);
  assert.equal(lines.body.payload.length, 3);
  for (const url of [`${d.app}/conversations/99999999`, `${d.app}/conversations/x/messages`]) {
    assert.equal((await call("GET", url, { key: d.agent.key })).status, 404);
  }
});

test("an agent's line is the key maker's, ends the wait and marks the thread read; private or another type is 422", async () => {
  const d = await desk();
  const t = await thread(d);
  await call("POST", `${t.url}/messages`, { body: { content: "Anyone there?" } });
  const url = `${d.app}/conversations/${t.id}/messages`;
  const line = await call("POST", url, { key: d.agent.key, body: { content: "Yes, here.", message_type: "outgoing" } });
  assert.equal(line.status, 200);
  assert.equal(line.body.message_type, 1);
  assert.equal(line.body.sender.type, "user");
  assert.equal(line.body.sender.id, d.agent.agentId);
  const after = (await call("GET", `${d.app}/conversations/${t.id}`, { key: d.agent.key })).body;
  assert.equal(after.unread_count, 0);
  assert.equal(after.waiting_since, 0);
  assert.ok(after.first_reply_created_at > 0);
  for (const body of [
    { content: "note", private: true },
    { content: "x", message_type: "incoming" },
    { content: "x", message_type: "activity" },
    { content: "" },
    { content: "pick", content_type: "input_select", content_attributes: { items: "no" } },
  ]) {
    assert.equal((await call("POST", url, { key: d.agent.key, body })).status, 422, JSON.stringify(body));
  }
  const offer = await call("POST", url, {
    key: d.agent.key,
    body: { content: "Pick one", content_type: "input_select", content_attributes: { items: [{ title: "Yes", value: "y" }] } },
  });
  assert.equal(offer.body.content_type, "input_select");
  assert.deepEqual(offer.body.content_attributes, { items: [{ title: "Yes", value: "y" }] });
  // the contact sees the agent's line
  await sleep(10);
  const seen = await call("GET", `${t.url}/messages`);
  assert.ok(seen.body.some((m: any) => m.content === "Yes, here." && m.message_type === 1));
});

test("toggle_status in all three forms", async () => {
  const d = await desk();
  const t = await thread(d);
  const url = `${d.app}/conversations/${t.id}/toggle_status`;
  const toggle = async (body?: unknown) => (await call("POST", url, { key: d.agent.key, body })).body;
  assert.deepEqual(await toggle({ status: "pending" }), {
    meta: {},
    payload: { success: true, current_status: "pending", conversation_id: t.id, snoozed_until: null },
  });
  assert.equal((await toggle()).payload.current_status, "resolved");
  assert.ok((await call("GET", `${d.app}/conversations/${t.id}`, { key: d.agent.key })).body.additional_attributes.resolved_at > 0);
  assert.equal((await toggle({})).payload.current_status, "open");
  assert.equal((await toggle({ status: "open" })).payload.current_status, "open");
  assert.equal((await call("POST", url, { key: d.agent.key, body: { status: "snoozed" } })).status, 422);
});

test("assignments: an agent answers the agent, null or 0 unassigns and answers null, no such agent is 422", async () => {
  const d = await desk();
  const t = await thread(d);
  const url = `${d.app}/conversations/${t.id}/assignments`;
  const assigned = await call("POST", url, { key: d.agent.key, body: { assignee_id: d.agent.agentId } });
  assert.equal(assigned.status, 200);
  assert.equal(assigned.body.id, d.agent.agentId);
  assert.equal(assigned.body.email, d.agent.email);
  assert.equal(assigned.body.role, "agent");
  for (const none of [null, 0, "0"]) {
    const answer = await call("POST", url, { key: d.agent.key, body: { assignee_id: none } });
    assert.equal(answer.status, 200);
    assert.equal(answer.body, null);
  }
  const member = await d.keyBy("member");
  const [{ id: memberAgent }] = await d.host.ctx.sql<{ id: number }[]>`
    select id from public.support_agents where person_id = ${member.person.id}`;
  for (const bad of [99999999, memberAgent, "abc", -1]) {
    assert.equal((await call("POST", url, { key: d.agent.key, body: { assignee_id: bad } })).status, 422, String(bad));
  }
});

test("contacts: by last seen with counts, one with conversations_count, its conversations; the token never shown", async () => {
  const d = await desk();
  const t = await thread(d);
  const list = await call("GET", `${d.app}/contacts`, { key: d.agent.key });
  assert.equal(list.status, 200);
  assert.equal(list.body.meta.current_page, 1);
  assert.ok(list.body.meta.count >= 1);
  const seen = list.body.payload.map((c: any) => c.last_activity_at);
  assert.deepEqual(seen, [...seen].sort((a: number, b: number) => b - a), "last seen first");
  // the newest contact is near the top (others of the run may have lines stamped later)
  await d.host.ctx.sql`update public.support_contacts set last_seen_at = now() + interval '1 day' where id = ${t.contactId}`;
  assert.equal((await call("GET", `${d.app}/contacts`, { key: d.agent.key })).body.payload[0].id, t.contactId);
  const one = await call("GET", `${d.app}/contacts/${t.contactId}`, { key: d.agent.key });
  assert.equal(one.body.payload.conversations_count, 1);
  assert.equal(one.body.payload.name, "Guest");
  assert.deepEqual(one.body.payload.additional_attributes.kind, "guest");
  assert.equal(one.body.payload.contact_inboxes[0].source_id, null);
  const theirs = await call("GET", `${d.app}/contacts/${t.contactId}/conversations`, { key: d.agent.key });
  assert.deepEqual(theirs.body.payload.map((c: any) => c.id), [t.id]);
  for (const answer of [list, one, theirs]) assert.equal(JSON.stringify(answer.body).includes(t.sourceId), false);
  assert.equal((await call("GET", `${d.app}/contacts/99999999`, { key: d.agent.key })).status, 404);
  assert.equal((await call("GET", `${d.app}/contacts/99999999/conversations`, { key: d.agent.key })).status, 404);
  assert.equal((await call("GET", `${d.app}/contacts?page=-2`, { key: d.agent.key })).status, 400);
});

test("inboxes, agents and the profile (the key's maker, never a key)", async () => {
  const d = await desk();
  const inboxes = await call("GET", `${d.app}/inboxes`, { key: d.agent.key });
  assert.deepEqual(inboxes.body.payload.map((i: any) => [i.id, i.channel_type, i.website_token, i.name]), [
    [1, "Channel::WebWidget", d.host.space, "Demo help desk"],
  ]);
  const agents = await call("GET", `${d.app}/agents`, { key: d.agent.key });
  assert.ok(Array.isArray(agents.body));
  assert.ok(agents.body.some((a: any) => a.id === d.agent.agentId && a.role === "agent"));
  const profile = await call("GET", `${d.root}/api/v1/profile`, { key: d.agent.key });
  assert.equal(profile.body.id, d.agent.agentId);
  assert.equal(profile.body.email, d.agent.email);
  assert.equal(profile.body.accounts[0].id, 1);
  assert.equal(JSON.stringify(profile.body).includes(d.agent.key), false);
  assert.equal("access_token" in profile.body, false);
});

test("webhooks: made flat or under webhook (secret shown once), changed, removed; bad url or no known event is 422", async () => {
  const d = await desk();
  const url = `${d.app}/webhooks`;
  const flat = await call("POST", url, { key: d.agent.key, body: { url: "http://127.0.0.1:9/a", subscriptions: ["message_created", "nonsense"] } });
  assert.equal(flat.status, 201);
  assert.deepEqual(flat.body.payload.webhook.subscriptions, ["message_created"]);
  assert.match(flat.body.payload.webhook.secret, /^[0-9A-Za-z]{32}$/);
  const nested = await call("POST", url, { key: d.agent.key, body: { webhook: { url: "http://127.0.0.1:9/b", subscriptions: ["webwidget_triggered"] } } });
  assert.equal(nested.status, 201);
  const id = nested.body.payload.webhook.id;
  const listed = await call("GET", url, { key: d.agent.key });
  const shown = listed.body.payload.webhooks.find((w: any) => w.id === id);
  assert.deepEqual(Object.keys(shown).sort(), ["account_id", "id", "inbox", "last_at", "last_error", "source", "subscriptions", "url"]);
  assert.equal(shown.source, "hand");
  const changed = await call("PATCH", `${url}/${id}`, { key: d.agent.key, body: { webhook: { url: "http://127.0.0.1:9/c" } } });
  assert.equal(changed.body.payload.webhook.url, "http://127.0.0.1:9/c");
  assert.deepEqual(changed.body.payload.webhook.subscriptions, ["webwidget_triggered"]);
  assert.equal("secret" in changed.body.payload.webhook, false);
  for (const body of [
    { url: "not a url", subscriptions: ["message_created"] },
    { url: "ftp://x.test/h", subscriptions: ["message_created"] },
    { url: "http://x.test/h", subscriptions: ["nonsense"] },
    { url: "http://x.test/h", subscriptions: [] },
    { url: "http://x.test/h" },
  ]) {
    assert.equal((await call("POST", url, { key: d.agent.key, body })).status, 422, JSON.stringify(body));
  }
  assert.equal((await call("PATCH", `${url}/${id}`, { key: d.agent.key, body: { subscriptions: ["x"] } })).status, 422);
  assert.equal((await call("DELETE", `${url}/${id}`, { key: d.agent.key })).status, 204);
  assert.equal((await call("DELETE", `${url}/${id}`, { key: d.agent.key })).status, 404);
  assert.equal((await call("PATCH", `${url}/${id}`, { key: d.agent.key, body: {} })).status, 404);
  await call("DELETE", `${url}/${flat.body.payload.webhook.id}`, { key: d.agent.key });
});
