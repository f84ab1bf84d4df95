// The client API (no key), at Chatwoot's computed path and the spec's: guests, attribute merge, threads,
// lines, the acknowledgement, typing, last seen, resolve, reopening, and each route's error cases.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { sha256Hex } from "../../../shared/ids.ts";
import { call, desk, freshAddress, guest, sleep, thread } from "./desk.ts";

test("a guest is made with a token (kept only as its hash) and read back with it, at both client paths", async () => {
  const d = await desk();
  const made = await call("POST", `${d.client}/contacts`, { body: { custom_attributes: { plan: "pro" }, path: "/pricing" } });
  assert.equal(made.status, 200);
  assert.deepEqual(Object.keys(made.body).sort(), [
    "additional_attributes", "custom_attributes", "email", "id", "identifier", "name", "pubsub_token", "source_id",
  ]);
  assert.equal(made.body.name, null);
  assert.equal(made.body.email, null);
  assert.equal(made.body.pubsub_token, null);
  assert.deepEqual(made.body.custom_attributes, { plan: "pro" });
  assert.deepEqual(made.body.additional_attributes, { verified: false });
  const token = made.body.source_id as string;
  const [row] = await d.host.ctx.sql<{ token_hash: string; last_path: string }[]>`
    select token_hash, last_path from public.support_contacts where id = ${made.body.id}`;
  assert.equal(row.token_hash, await sha256Hex(token));
  assert.equal(row.last_path, "/pricing");
  for (const root of [`${d.root}/public/api/v1/inboxes/${d.host.space}`, `${d.root}/public/api/desk/api/v1/inboxes/${d.host.space}`,
    `${d.host.baseUrl}/functions/v1/support-api/public/api/v1/inboxes/${d.host.space}`]) {
    const read = await call("GET", `${root}/contacts/${token}`);
    assert.equal(read.status, 200, root);
    assert.equal(read.body.id, made.body.id);
    assert.equal(read.body.source_id, token);
  }
});

test("the sixth new guest within an hour from one address is refused with 429 and Retry-After", async () => {
  const d = await desk();
  const from = freshAddress();
  for (let i = 0; i < 5; i++) assert.equal((await call("POST", `${d.client}/contacts`, { body: {}, from })).status, 200);
  const sixth = await call("POST", `${d.client}/contacts`, { body: {}, from });
  assert.equal(sixth.status, 429);
  assert.ok(Number(sixth.headers.get("retry-after")) >= 1);
  assert.deepEqual(Object.keys(sixth.body).sort(), ["error", "errors"]);
  assert.equal((await call("POST", `${d.client}/contacts`, { body: {}, from: freshAddress() })).status, 200);
});

test("an unknown inbox, an unknown token and bad bodies answer in the desk's envelope", async () => {
  const d = await desk();
  const g = await guest(d);
  const cases: [string, string, unknown, number][] = [
    ["POST", `${d.root}/public/api/v1/inboxes/not-the-space/contacts`, {}, 404],
    ["GET", `${d.client}/contacts/unknownunknownunknown`, undefined, 404],
    ["GET", `${d.client}/contacts/${g.sourceId}/conversations/999999999`, undefined, 404],
    ["GET", `${d.client}/contacts/${g.sourceId}/conversations/abc`, undefined, 404],
    ["POST", `${d.client}/contacts`, "{not json", 400],
    ["POST", `${d.client}/contacts`, [1, 2], 400],
    ["POST", `${d.client}/contacts`, { custom_attributes: "x" }, 422],
    ["PATCH", g.base, { custom_attributes: [1] }, 422],
    ["POST", `${g.base}/conversations`, { custom_attributes: 3 }, 422],
    ["POST", `${g.base}/conversations`, { custom_attributes: { big: "x".repeat(1024 * 1024) } }, 413],
    ["PATCH", g.base, { custom_attributes: { bad: "a\u0000b" } }, 400],
  ];
  for (const [method, url, body, status] of cases) {
    const answer = await call(method, url, { body });
    assert.equal(answer.status, status, `${method} ${url} ${JSON.stringify(body)}`);
    assert.equal(typeof answer.body.error, "string");
    assert.deepEqual(answer.body.errors, [answer.body.error]);
  }
});

test("PATCH merges custom attributes (null removes one); a given name or email is kept only as an attribute", async () => {
  const d = await desk();
  const g = await guest(d, { custom_attributes: { a: 1, b: 2 } });
  const patched = await call("PATCH", g.base, {
    body: { custom_attributes: { b: null, c: 3 }, name: "Mallory", email: "ceo@example.com", identifier: "u-42" },
  });
  assert.equal(patched.status, 200);
  assert.deepEqual(patched.body.custom_attributes, { a: 1, c: 3, name: "Mallory", email: "ceo@example.com" });
  assert.equal(patched.body.name, null);
  assert.equal(patched.body.email, null);
  assert.equal(patched.body.identifier, "u-42");
  assert.deepEqual(patched.body.additional_attributes, { verified: false });
  // a second visitor claiming the same identifier gets their own contact: nothing is merged
  const other = await guest(d);
  const claimed = await call("PATCH", other.base, { body: { identifier: "u-42" } });
  assert.equal(claimed.body.id, other.id);
  assert.notEqual(claimed.body.id, g.id);
});

test("a new thread opens on the desk's prompt as an activity line and carries its pubsub_token", async () => {
  const d = await desk();
  const g = await guest(d);
  const made = await call("POST", `${g.base}/conversations`, { body: { path: "/help", custom_attributes: { topic: "billing" } } });
  assert.equal(made.status, 200);
  const c = made.body;
  assert.equal(c.inbox_id, 1);
  assert.equal(c.status, "open");
  assert.match(c.pubsub_token, /^[0-9a-f]{64}$/);
  assert.deepEqual(c.custom_attributes, { topic: "billing" });
  assert.deepEqual(c.additional_attributes, { path: "/help", source: "widget" });
  assert.equal(c.contact.id, g.id);
  assert.equal(c.messages.length, 1);
  assert.equal(c.messages[0].message_type, 2);
  assert.equal(c.messages[0].sender, null);
  assert.equal(c.messages[0].content, "Hi! Ask us anything about the demo site.");
  const list = await call("GET", `${g.base}/conversations`);
  assert.ok(Array.isArray(list.body));
  assert.equal(list.body[0].id, c.id);
  assert.equal(list.body[0].messages.length, 1);
});

test("the ninth new thread of a contact within an hour is refused with 429", async () => {
  const d = await desk();
  const g = await guest(d);
  for (let i = 0; i < 8; i++) assert.equal((await call("POST", `${g.base}/conversations`, { body: {} })).status, 200);
  const ninth = await call("POST", `${g.base}/conversations`, { body: {} });
  assert.equal(ninth.status, 429);
  assert.ok(Number(ninth.headers.get("retry-after")) >= 1);
});

test("a contact's line is answered once by the acknowledgement; lines read oldest first from after=", async () => {
  const d = await desk();
  const t = await thread(d);
  const first = await call("POST", `${t.url}/messages`, { body: { content: "Hello there", echo_id: "e-1" } });
  assert.equal(first.status, 200);
  assert.equal(first.body.content, "Hello there");
  assert.equal(first.body.message_type, 0);
  assert.equal(first.body.echo_id, "e-1");
  assert.equal(first.body.status, "sent");
  assert.equal(first.body.private, false);
  assert.equal(first.body.sender.type, "contact");
  assert.equal(first.body.sender.id, t.contactId);
  await sleep(1050);
  assert.equal((await call("POST", `${t.url}/messages`, { body: { content: "Second" } })).status, 200);
  const lines = await call("GET", `${t.url}/messages`);
  assert.deepEqual(lines.body.map((m: any) => [m.message_type, m.content]), [
    [2, "Hi! Ask us anything about the demo site."],
    [0, "Hello there"],
    [2, "Thanks! Someone from the team will answer here shortly."],
    [0, "Second"],
  ]);
  const ids = lines.body.map((m: any) => m.id);
  assert.deepEqual(ids, [...ids].sort((a: number, b: number) => a - b));
  const after = await call("GET", `${t.url}/messages?after=${lines.body[3].created_at}`);
  assert.ok(after.body.some((m: any) => m.content === "Second"));
  assert.ok(after.body.every((m: any) => m.created_at >= lines.body[3].created_at));
  assert.equal((await call("GET", `${t.url}/messages?after=yesterday`)).status, 400);
});

test("a line over 4000 characters is 422 and nothing is kept; a second line within a second is 429", async () => {
  const d = await desk();
  const t = await thread(d);
  const long = await call("POST", `${t.url}/messages`, { body: { content: "x".repeat(4001) } });
  assert.equal(long.status, 422);
  assert.equal((await call("POST", `${t.url}/messages`, { body: { content: "" } })).status, 422);
  assert.equal((await call("POST", `${t.url}/messages`, { body: {} })).status, 422);
  assert.equal((await call("POST", `${t.url}/messages`, { body: { content: "y".repeat(4000) } })).status, 200);
  const quick = await call("POST", `${t.url}/messages`, { body: { content: "too quick" } });
  assert.equal(quick.status, 429);
  assert.ok(Number(quick.headers.get("retry-after")) >= 1);
  const [{ n }] = await d.host.ctx.sql<{ n: number }[]>`
    select count(*)::int as n from public.support_messages where conversation_id = ${t.id} and message_type = 0`;
  assert.equal(n, 1);
});

test("at most 200 lines come back in one read", async () => {
  const d = await desk();
  const t = await thread(d);
  await d.host.ctx.sql`
    insert into public.support_messages (conversation_id, message_type, content, sender_contact_id, created_at)
    select ${t.id}, 0, 'line ' || n, ${t.contactId}, now() + make_interval(secs => n) from generate_series(1, 230) n`;
  const all = await call("GET", `${t.url}/messages`);
  assert.equal(all.body.length, 200);
  assert.equal(all.body[199].content, "line 230");
  const from = await call("GET", `${t.url}/messages?after=0`);
  assert.equal(from.body.length, 200);
  assert.equal(from.body[0].message_type, 2);
});

test("typing, last seen and resolve; a later contact line opens the thread again", async () => {
  const d = await desk();
  const t = await thread(d);
  const typing = await call("POST", `${t.url}/toggle_typing`, { body: { typing_status: "on" } });
  assert.equal(typing.status, 200);
  assert.equal((await call("POST", `${t.url}/toggle_typing`, { body: { typing_status: "maybe" } })).status, 422);
  assert.equal((await call("POST", `${t.url}/update_last_seen`)).status, 200);
  const seen = await call("GET", t.url);
  assert.ok(seen.body.contact_last_seen_at > 0);
  const resolved = await call("POST", `${t.url}/toggle_status`);
  assert.equal(resolved.status, 200);
  assert.equal(resolved.body.status, "resolved");
  assert.equal((await call("POST", `${t.url}/messages`, { body: { content: "one more thing" } })).status, 200);
  assert.equal((await call("GET", t.url)).body.status, "open");
});

test("a contact reaches only its own threads", async () => {
  const d = await desk();
  const mine = await thread(d);
  const stranger = await guest(d);
  for (const suffix of ["", "/messages"]) {
    assert.equal((await call("GET", `${stranger.base}/conversations/${mine.id}${suffix}`)).status, 404);
  }
  assert.equal((await call("POST", `${stranger.base}/conversations/${mine.id}/messages`, { body: { content: "hi" } })).status, 404);
  assert.equal((await call("POST", `${stranger.base}/conversations/${mine.id}/toggle_status`)).status, 404);
});

test("an account's contact is made from the site's session, verified; read by its token alone it is 401", async () => {
  const d = await desk();
  const person = await (await import("../../../shared/people.ts")).ensurePerson(d.host.ctx.sql, `member-${crypto.randomUUID().slice(0, 8)}@desk.test`, "member");
  const jwt = await d.jwt(person);
  const made = await call("POST", `${d.client}/contacts`, { body: {}, bearer: jwt });
  assert.equal(made.status, 200);
  assert.deepEqual(made.body.additional_attributes, { verified: true });
  assert.equal(made.body.email, person.email);
  assert.equal(made.body.identifier, person.id);
  const base = `${d.client}/contacts/${made.body.source_id}`;
  const bare = await call("GET", base);
  assert.equal(bare.status, 401);
  assert.deepEqual(bare.body.errors, [bare.body.error]);
  assert.equal((await call("GET", base, { bearer: jwt })).status, 200);
  // the same person again: the same contact, with a fresh token
  const again = await call("POST", `${d.client}/contacts`, { body: {}, bearer: jwt });
  assert.equal(again.body.id, made.body.id);
  assert.notEqual(again.body.source_id, made.body.source_id);
  assert.equal((await call("GET", base, { bearer: jwt })).status, 404);
  // setUser's word does not replace the account's identifier
  const patched = await call("PATCH", `${d.client}/contacts/${again.body.source_id}`, { body: { identifier: "someone-else" }, bearer: jwt });
  assert.equal(patched.body.identifier, person.id);
});

test("a booking's chat grant lets its signed-in attendee open a thread assigned to the booking's host; nobody else", async () => {
  const d = await desk();
  const { ensurePerson } = await import("../../../shared/people.ts");
  const sql = d.host.ctx.sql;
  const attendee = await ensurePerson(sql, `attendee-${crypto.randomUUID().slice(0, 8)}@desk.test`, "member");
  const uid = `chat-${crypto.randomUUID()}`;
  const [booking] = await sql<{ id: number }[]>`
    insert into public.scheduling_bookings (uid, event_type_slug, event_type_id, title, start_at, end_at, status,
      host_emails, attendee_name, attendee_email, attendee_time_zone, ics_uid)
    values (${uid}, 'chat', 1, 'Chat', '2040-01-01T10:00Z', '2040-01-01T10:30Z', 'accepted', ${[d.agent.email]}, 'A',
            ${attendee.email}, 'UTC', ${uid}) returning id`;
  await sql`insert into public.scheduling_chat_grants (booking_id, attendee_email, host_emails)
            values (${booking.id}, ${attendee.email}, ${["host-without-profile@desk.test", d.agent.email]})`;
  const jwt = await d.jwt(attendee);
  const contact = (await call("POST", `${d.client}/contacts`, { body: {}, bearer: jwt })).body;
  const base = `${d.client}/contacts/${contact.source_id}/conversations`;
  const opened = await call("POST", base, { body: { booking_uid: uid }, bearer: jwt });
  assert.equal(opened.status, 200, JSON.stringify(opened.body));
  const seen = await call("GET", `${d.app}/conversations/${opened.body.id}`, { key: d.agent.key });
  assert.equal(seen.body.meta.assignee.id, d.agent.agentId);
  assert.equal(seen.body.additional_attributes.booking_id, booking.id);

  // a guest who says the attendee's address is not the attendee
  const g = await guest(d, { email: attendee.email });
  assert.equal((await call("POST", `${g.base}/conversations`, { body: { booking_uid: uid } })).status, 422);
  // another signed-in person
  const other = await ensurePerson(sql, `other-${crypto.randomUUID().slice(0, 8)}@desk.test`, "member");
  const otherJwt = await d.jwt(other);
  const otherContact = (await call("POST", `${d.client}/contacts`, { body: {}, bearer: otherJwt })).body;
  assert.equal(
    (await call("POST", `${d.client}/contacts/${otherContact.source_id}/conversations`, { body: { booking_uid: uid }, bearer: otherJwt })).status,
    422,
  );
  // a revoked grant (the booking was cancelled)
  await sql`update public.scheduling_chat_grants set revoked_at = now() where booking_id = ${booking.id}`;
  assert.equal((await call("POST", base, { body: { booking_uid: uid }, bearer: jwt })).status, 422);
});
