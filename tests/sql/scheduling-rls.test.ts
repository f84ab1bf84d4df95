// Row-level security of the scheduling tables: who reads bookings, held time, subscriptions, payments
// and tiers, and that nobody but the service role writes them.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import type { Tx } from "../../shared/db.ts";
import { as, makePeople, refused, rolledBack } from "./support.ts";

async function emailOf(tx: Tx, sub: string): Promise<string> {
  const [row] = await tx<{ email: string }[]>`select email from public.profiles where id = ${sub}`;
  return row.email;
}

async function booking(tx: Tx, attendee: string, hostEmail: string): Promise<number> {
  const uid = `rls-${crypto.randomUUID()}`;
  const [{ id }] = await tx<{ id: number }[]>`
    insert into public.scheduling_bookings (uid, event_type_slug, event_type_id, title, start_at, end_at, status,
      host_emails, attendee_name, attendee_email, attendee_time_zone, ics_uid)
    values (${uid}, 'rls', 1, 'RLS', '2040-01-01T10:00Z', '2040-01-01T10:30Z', 'accepted', ${[
    hostEmail,
  ]}, 'A',
            ${attendee}, 'UTC', ${uid}) returning id`;
  await tx`insert into public.scheduling_holds (booking_id, host_email, during)
           values (${id}, ${hostEmail}, tstzrange('2040-01-01T10:00Z', '2040-01-01T10:30Z'))`;
  return id;
}

/** A booking the member attends, one the support person hosts, and one of neither. */
async function threeBookings(tx: Tx, people: Awaited<ReturnType<typeof makePeople>>) {
  const member = await emailOf(tx, people.member.sub), support = await emailOf(tx, people.support.sub);
  return {
    attended: await booking(tx, member, "host@rls.test"),
    hosted: await booking(tx, "someone@rls.test", support),
    other: await booking(tx, "else@rls.test", "host2@rls.test"),
  };
}

test("people read the bookings they attend or host; administrators read all; anon none", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const { attended, hosted, other } = await threeBookings(tx, people);
    const seen = (who: { sub: string }) =>
      as(
        tx,
        who,
        async (q) =>
          (await q<
            { id: number }[]
          >`select id from public.scheduling_bookings where id in (${attended}, ${hosted}, ${other}) order by id`)
            .map((r) => r.id),
      );
    assert.deepEqual(await seen(people.member), [attended]);
    assert.deepEqual(await seen(people.support), [hosted]);
    assert.deepEqual(await seen(people.admin), [attended, hosted, other]);
    await as(tx, "anon", async (q) => await refused(q, (s) => s`select id from public.scheduling_bookings`));
    await as(tx, people.admin, async (q) => {
      await refused(
        q,
        (s) => s`update public.scheduling_bookings set status = 'cancelled' where id = ${other}`,
      );
      await refused(q, (s) => s`delete from public.scheduling_holds where booking_id = ${other}`);
    });
  }));

test("held time is read by administrators only", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const id = await booking(tx, await emailOf(tx, people.member.sub), "host@rls.test");
    const count = (who: { sub: string }) =>
      as(tx, who, async (q) =>
        (await q<
          { n: number }[]
        >`select count(*)::int as n from public.scheduling_holds where booking_id = ${id}`)[0].n);
    assert.equal(await count(people.member), 0);
    assert.equal(await count(people.admin), 1);
  }));

test("scheduling webhooks: administrators read them without the secret; people read nothing; nobody writes", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    await tx`insert into public.scheduling_webhooks (subscriber_url, triggers, secret) values ('https://x.example/h', ${[
      "BOOKING_CREATED",
    ]}, 'top')`;
    await as(tx, people.admin, async (q) => {
      const rows = await q`select id, subscriber_url, last_error from public.scheduling_webhooks`;
      assert.ok(rows.length >= 1);
      await refused(q, (s) => s`select secret from public.scheduling_webhooks`);
      await refused(
        q,
        (s) =>
          s`insert into public.scheduling_webhooks (subscriber_url, triggers) values ('https://y.example', '{}')`,
      );
    });
    await as(tx, people.member, async (q) => {
      assert.equal((await q`select id from public.scheduling_webhooks`).length, 0);
    });
    await as(tx, "anon", async (q) => await refused(q, (s) => s`select id from public.scheduling_webhooks`));
  }));

test("payment fulfilment records are the service role's alone", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    await tx`insert into public.scheduling_payments (session_id, status, event_type_slug, attendee_email) values ('cs_rls', 'processing', 'x', 'a@b.c')`;
    for (const who of [people.admin, people.member]) {
      await as(tx, who, async (q) =>
        await refused(q, (s) =>
          s`select session_id from public.scheduling_payments`));
    }
    await as(tx, "service_role", async (q) => {
      assert.equal(
        (await q`select session_id from public.scheduling_payments where session_id = 'cs_rls'`).length,
        1,
      );
    });
  }));

test("tiers: a person reads their own; administrators set anyone's; a member cannot raise their own", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    await as(tx, people.admin, async (q) => {
      await q`insert into public.person_tiers (person_id, tier) values (${people.member.sub}, 'supporter')`;
    });
    await tx`insert into public.person_tiers (person_id, tier) values (${people.member.sub}, 'supporter') on conflict do nothing`;
    await as(tx, people.member, async (q) => {
      assert.deepEqual(
        (await q<{ tier: string }[]>`select tier from public.person_tiers`).map((r) => r.tier),
        ["supporter"],
      );
      const changed =
        await q`update public.person_tiers set tier = 'member' where person_id = ${people.member.sub} returning 1`;
      assert.equal(changed.length, 0, "the update policy is the administrators'");
      await refused(
        q,
        (s) =>
          s`insert into public.person_tiers (person_id, tier) values (${people.support.sub}, 'supporter')`,
        /row-level security/,
      );
    });
    await as(tx, people.support, async (q) => {
      assert.equal((await q`select tier from public.person_tiers`).length, 0);
    });
  }));

test("meeting joins: people read those of meetings they attend or host; administrators all; nobody writes", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const { attended, hosted, other } = await threeBookings(tx, people);
    for (const id of [attended, hosted, other]) {
      await tx`insert into public.scheduling_meeting_joins (booking_id, email, name, role)
               values (${id}, 'guest@rls.test', 'Guest', 'guest')`;
    }
    const seen = (who: { sub: string }) =>
      as(tx, who, async (q) =>
        (await q<{ booking_id: number }[]>`
          select booking_id from public.scheduling_meeting_joins
           where booking_id in (${attended}, ${hosted}, ${other}) order by booking_id`).map((r) =>
          Number(r.booking_id)
        ));
    assert.deepEqual(await seen(people.member), [attended]);
    assert.deepEqual(await seen(people.support), [hosted]);
    assert.deepEqual(await seen(people.admin), [attended, hosted, other]);
    await as(
      tx,
      "anon",
      async (q) => await refused(q, (s) => s`select email from public.scheduling_meeting_joins`),
    );
    await as(tx, people.admin, async (q) => {
      await refused(
        q,
        (s) =>
          s`insert into public.scheduling_meeting_joins (booking_id, email, name, role) values (${other}, 'x@y.z', 'X', 'guest')`,
      );
      await refused(q, (s) => s`update public.scheduling_meeting_joins set left_at = now()`);
    });
    await refused(
      tx,
      (s) =>
        s`insert into public.scheduling_meeting_joins (booking_id, email, name, role) values (${other}, 'Upper@Case.z', 'U', 'guest')`,
      /check constraint/,
    );
  }));

test("chat access: the attendee and the hosts read their grant, administrators every one; nobody writes", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const member = await emailOf(tx, people.member.sub), support = await emailOf(tx, people.support.sub);
    const mine = await booking(tx, member, support);
    const other = await booking(tx, "else@rls.test", "host2@rls.test");
    for (
      const [id, attendee, hostEmail] of [[mine, member, support], [other, "else@rls.test", "host2@rls.test"]]
    ) {
      await tx`insert into public.scheduling_chat_grants (booking_id, attendee_email, host_emails)
               values (${id}, ${String(attendee).toLowerCase()}, ${[String(hostEmail)]})`;
    }
    const seen = (who: { sub: string }) =>
      as(tx, who, async (q) =>
        (await q<{ booking_id: number }[]>`
          select booking_id from public.scheduling_chat_grants where booking_id in (${mine}, ${other})
           order by booking_id`).map((r) => Number(r.booking_id)));
    assert.deepEqual(await seen(people.member), [mine], "the attendee");
    assert.deepEqual(await seen(people.support), [mine], "the host");
    assert.deepEqual(await seen(people.admin), [mine, other]);
    await as(
      tx,
      "anon",
      async (q) => await refused(q, (s) => s`select booking_id from public.scheduling_chat_grants`),
    );
    await as(tx, people.member, async (q) => {
      await refused(q, (s) => s`update public.scheduling_chat_grants set revoked_at = now()`);
    });
    await as(tx, people.admin, async (q) => {
      await refused(q, (s) => s`delete from public.scheduling_chat_grants where booking_id = ${other}`);
    });
    const hostless = await booking(tx, "x@y.z", "host3@rls.test");
    await refused(
      tx,
      (s) =>
        s`insert into public.scheduling_chat_grants (booking_id, attendee_email, host_emails) values (${hostless}, 'x@y.z', '{}')`,
      /check constraint/,
    );
  }));
