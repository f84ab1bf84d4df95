// Row-level security of the support desk: staff (admin, support) read the whole desk, a signed-in person
// reads their own account contact's threads, nobody else reads anything, and nobody but the service role
// writes. Also the desk's triggers: bookkeeping of a line, webhook rows only while a subscription wants
// the event, and the live channel's notifications.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import type { Tx } from "../../shared/db.ts";
import { as, database, makePeople, refused, rolledBack } from "./support.ts";

interface Desk {
  accountContact: number;
  guest: number;
  ownThread: number;
  guestThread: number;
  ownLine: number;
  guestLine: number;
  ownFile: number;
  guestFile: number;
}

async function desk(tx: Tx, member: string): Promise<Desk> {
  const hash = (n: number) => (String(n).repeat(64)).slice(0, 64);
  const [{ id: accountContact }] = await tx<{ id: number }[]>`
    insert into public.support_contacts (person_id, kind, verified) values (${member}, 'user', true) returning id`;
  const [{ id: guest }] = await tx<{ id: number }[]>`
    insert into public.support_contacts (token_hash) values (${hash(7)}) returning id`;
  const thread = async (contact: number) =>
    (await tx<{ id: number }[]>`insert into public.support_conversations (contact_id) values (${contact}) returning id`)[0]
      .id;
  const ownThread = await thread(accountContact), guestThread = await thread(guest);
  const line = async (conversation: number, contact: number) =>
    (await tx<{ id: number }[]>`
      insert into public.support_messages (conversation_id, message_type, content, sender_contact_id)
      values (${conversation}, 0, 'hello', ${contact}) returning id`)[0].id;
  const ownLine = await line(ownThread, accountContact), guestLine = await line(guestThread, guest);
  const file = async (message: number) =>
    (await tx<{ id: number }[]>`
      insert into public.support_attachments (message_id, file_type, extension, content_type, storage_key, file_size)
      values (${message}, 'image', 'png', 'image/png', ${crypto.randomUUID()}, 10) returning id`)[0].id;
  return {
    accountContact,
    guest,
    ownThread,
    guestThread,
    ownLine,
    guestLine,
    ownFile: await file(ownLine),
    guestFile: await file(guestLine),
  };
}

const TABLES = [
  ["support_contacts", "accountContact", "guest"],
  ["support_conversations", "ownThread", "guestThread"],
  ["support_messages", "ownLine", "guestLine"],
  ["support_attachments", "ownFile", "guestFile"],
] as const;

test("staff read every contact, conversation, message and attachment of the desk", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const d = await desk(tx, people.member.sub);
    for (const who of [people.admin, people.support]) {
      for (const [table, own, other] of TABLES) {
        const seen = await as(tx, who, (q) =>
          q<{ id: number }[]>`select id from ${q(`public.${table}`)} where id in (${d[own]}, ${d[other]}) order by id`);
        assert.deepEqual(seen.map((r) => Number(r.id)), [d[own], d[other]].sort((a, b) => a - b), `${table} for staff`);
      }
    }
  }));

test("a signed-in person reads their own account contact's threads and nothing of anybody else's", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const d = await desk(tx, people.member.sub);
    for (const [table, own, other] of TABLES) {
      const seen = await as(tx, people.member, (q) =>
        q<{ id: number }[]>`select id from ${q(`public.${table}`)} where id in (${d[own]}, ${d[other]})`);
      assert.deepEqual(seen.map((r) => Number(r.id)), [d[own]], `${table} for its owner`);
      const stranger = await as(tx, people.newcomer, (q) =>
        q<{ id: number }[]>`select id from ${q(`public.${table}`)} where id in (${d[own]}, ${d[other]})`);
      assert.equal(stranger.length, 0, `${table} for another signed-in person`);
    }
  }));

test("visitors without a session read nothing of the desk", () =>
  rolledBack(async (tx) => {
    await desk(tx, (await makePeople(tx)).member.sub);
    for (const table of ["support_contacts", "support_conversations", "support_messages", "support_attachments",
      "support_webhooks", "support_agents"]) {
      await as(tx, "anon", (q) => refused(q, (s) => s`select id from ${s(`public.${table}`)}`));
    }
  }));

test("nobody but the service role writes the desk, not even an administrator", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const d = await desk(tx, people.member.sub);
    await as(tx, people.admin, async (q) => {
      await refused(q, (s) => s`update public.support_conversations set status = 'resolved' where id = ${d.ownThread}`);
      await refused(q, (s) => s`insert into public.support_messages (conversation_id, message_type, content)
                                values (${d.ownThread}, 2, 'x')`);
      await refused(q, (s) => s`delete from public.support_contacts where id = ${d.guest}`);
      await refused(q, (s) => s`insert into public.support_webhooks (url, subscriptions, secret)
                                values ('https://x.test', '{message_created}', 's')`);
    });
    await as(tx, people.member, (q) =>
      refused(q, (s) => s`update public.support_messages set content = 'changed' where id = ${d.ownLine}`));
  }));

test("the contact token's hash and a webhook's secret are never readable, not even by staff", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    await desk(tx, people.member.sub);
    await tx`insert into public.support_webhooks (url, subscriptions, secret) values ('https://x.test', '{message_created}', 's')`;
    await as(tx, people.admin, async (q) => {
      await refused(q, (s) => s`select token_hash from public.support_contacts`);
      await refused(q, (s) => s`select secret from public.support_webhooks`);
      const [hook] = await q<{ url: string }[]>`select url from public.support_webhooks where url = 'https://x.test'`;
      assert.equal(hook.url, "https://x.test");
    });
    await as(tx, people.member, async (q) => {
      assert.equal((await q`select id from public.support_webhooks`).length, 0);
    });
  }));

test("every profile has an agent number, made with the profile", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const rows = await tx<{ person_id: string }[]>`
      select person_id from public.support_agents where person_id in (${people.admin.sub}, ${people.support.sub})`;
    assert.equal(rows.length, 2);
  }));

test("a contact line opens a resolved thread again and starts the wait; an agent's line ends it and is the first reply", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const d = await desk(tx, people.member.sub);
    const [agent] = await tx<{ id: number }[]>`select id from public.support_agents where person_id = ${people.support.sub}`;
    const state = async () =>
      (await tx<{ status: string; waiting: boolean; replied: boolean; read: boolean }[]>`
        select status, waiting_since is not null as waiting, first_reply_created_at is not null as replied,
               agent_last_seen_at is not null as read
        from public.support_conversations where id = ${d.guestThread}`)[0];
    assert.deepEqual({ ...await state() }, { status: "open", waiting: true, replied: false, read: false });
    await tx`insert into public.support_messages (conversation_id, message_type, content, sender_agent_id)
             values (${d.guestThread}, 1, 'hi', ${agent.id})`;
    assert.deepEqual({ ...await state() }, { status: "open", waiting: false, replied: true, read: true });
    await tx`update public.support_conversations set status = 'resolved', resolved_at = now() where id = ${d.guestThread}`;
    await tx`insert into public.support_messages (conversation_id, message_type, content, sender_contact_id)
             values (${d.guestThread}, 0, 'again', ${d.guest})`;
    assert.deepEqual({ ...await state() }, { status: "open", waiting: true, replied: true, read: true });
  }));

test("no outbox row is written while no subscription wants the event; one per subscription that does", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    // this transaction sees only its own subscriptions (the run's other tests may have left some)
    await tx`delete from public.support_webhooks`;
    const [{ last }] = await tx<{ last: number }[]>`select coalesce(max(id), 0)::bigint as last from public.webhook_outbox`;
    const count = async () =>
      Number((await tx<{ n: number }[]>`select count(*)::int as n from public.webhook_outbox
        where api = 'support' and id > ${last}`)[0].n);
    const before = await count();
    const d = await desk(tx, people.member.sub);
    await tx`set constraints all immediate`; // the lines' events, as their commit would make them
    await tx`set constraints all deferred`;
    assert.equal(await count(), before, "nothing while nobody subscribes");
    await tx`insert into public.support_webhooks (url, subscriptions, secret) values
      ('https://a.test/h', '{message_created,contact_created}', 's1'),
      ('https://b.test/h', '{conversation_status_changed,message_updated}', 's2')`;
    await tx`insert into public.support_messages (conversation_id, message_type, content, sender_contact_id)
             values (${d.guestThread}, 0, 'hello again', ${d.guest})`;
    await tx`update public.support_messages set content = 'edited' where id = ${d.guestLine}`;
    await tx`update public.support_conversations set status = 'pending' where id = ${d.guestThread}`;
    // a new line's event is made at the end of its transaction: end the waiting now, as a commit would
    await tx`set constraints all immediate`;
    const rows = await tx<{ event: string; url: string; body: string }[]>`
      select event, url, body from public.webhook_outbox where api = 'support' and id > ${last} order by id`;
    assert.deepEqual(rows.map((r) => [r.event, r.url]), [
      ["conversation_status_changed", "https://b.test/h"],
      ["message_created", "https://a.test/h"],
    ]);
    const message = JSON.parse(rows[1].body);
    assert.equal(message.event, "message_created");
    assert.equal(message.message_type, "incoming");
    assert.match(message.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(message.conversation.id, d.guestThread);
    assert.equal("messages" in message.conversation, false);
    assert.equal(message.conversation.meta.sender.id, d.guest);
    assert.equal(JSON.stringify(rows).includes("token"), false, "no token of any kind in a payload");
  }));

test("the live channel hears a new line, a changed line, a status change and typing, once committed", async () => {
  const sql = await database();
  const heard: Record<string, unknown>[] = [];
  const listener = await sql.listen("support_live", (payload) => heard.push(JSON.parse(payload)));
  const hash = crypto.randomUUID().replaceAll("-", "").padEnd(64, "0");
  let ids = { contact: 0, thread: 0, line: 0, token: "" };
  try {
    await sql.begin(async (tx) => {
      const [c] = await tx<{ id: number }[]>`insert into public.support_contacts (token_hash) values (${hash}) returning id`;
      const [v] = await tx<{ id: number; pubsub_token: string }[]>`
        insert into public.support_conversations (contact_id) values (${c.id}) returning id, pubsub_token`;
      const [m] = await tx<{ id: number }[]>`
        insert into public.support_messages (conversation_id, message_type, content, sender_contact_id)
        values (${v.id}, 0, 'hi', ${c.id}) returning id`;
      ids = { contact: Number(c.id), thread: Number(v.id), line: Number(m.id), token: v.pubsub_token };
      await tx`update public.support_messages set content = null, content_attributes = '{"deleted": true}' where id = ${m.id}`;
      await tx`update public.support_conversations set status = 'resolved' where id = ${v.id}`;
      await tx`select public.support_signal_typing(${v.id}, true, 'contact', ${c.id})`;
    });
    const deadline = Date.now() + 15000;
    while (heard.filter((h) => h.conversation_id === ids.thread).length < 4 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const mine = heard.filter((h) => h.conversation_id === ids.thread);
    // a new line carries itself (as the desk's builder shows it) when it fits the notification
    const created = mine.find((h) => h.event === "message.created") as { message?: { id: number; content: string } };
    assert.equal(created?.message?.id, ids.line);
    delete created.message;
    const base = { conversation_id: ids.thread, pubsub_token: ids.token };
    // a new line is announced when its transaction ends (with its attachments), the rest at once
    assert.deepEqual(mine, [
      { event: "message.updated", ...base, message_id: ids.line },
      { event: "conversation.status_changed", ...base, status: "resolved" },
      { event: "conversation.typing_on", ...base, sender: { type: "contact", id: ids.contact } },
      { event: "message.created", ...base, message_id: ids.line },
    ]);
  } finally {
    await listener.unlisten();
    await sql`delete from public.support_contacts where token_hash = ${hash}`;
  }
});

test("subscriptions declared in the site's configuration become source file ones, kept in step with it", () =>
  rolledBack(async (tx) => {
    const declared = (hooks: unknown[]) =>
      tx`update public.site_settings set config = jsonb_set(config, '{webhooks}', ${tx.json(hooks as never)})`;
    const rows = () =>
      tx<{ url: string; subscriptions: string[]; source: string; secret: string }[]>`
        select url, subscriptions, source, secret from public.support_webhooks where source = 'file' order by url`;
    await declared([
      { api: "support", url: "https://a.test/hook", subscriptions: ["message_created", "nonsense"], secret: "s3cret" },
      { api: "support", url: "https://b.test/hook", subscriptions: ["contact_created"] },
      { api: "support", url: "https://c.test/hook", subscriptions: ["nonsense"] },
      { api: "forms", url: "https://d.test/hook", form: "x" },
    ]);
    const first = await rows();
    assert.deepEqual(first.map((r) => [r.url, r.subscriptions]), [
      ["https://a.test/hook", ["message_created"]],
      ["https://b.test/hook", ["contact_created"]],
    ]);
    assert.equal(first[0].secret, "s3cret");
    assert.match(first[1].secret, /^[0-9a-f]{64}$/, "a secret is made where none is declared");
    await declared([{ api: "support", url: "https://b.test/hook", subscriptions: ["contact_created", "conversation_created"] }]);
    const second = await rows();
    assert.deepEqual(second.map((r) => [r.url, r.subscriptions]), [
      ["https://b.test/hook", ["contact_created", "conversation_created"]],
    ]);
    assert.equal(second[0].secret, first[1].secret, "an undeclared secret is kept across imports");
  }));
