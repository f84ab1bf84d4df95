// Row-level security and grants of analytics_events: the function writes as the service role; staff
// read; administrators delete; visitors (anon) and members neither read nor write.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import type { Tx } from "../../shared/db.ts";
import { as, makePeople, refused, rolledBack } from "./support.ts";

async function insertEvent(tx: Tx, event = "pageview"): Promise<string> {
  const uuid = crypto.randomUUID();
  await tx`insert into public.analytics_events (uuid, event, distinct_id, properties, "timestamp", ip)
           values (${uuid}, ${event}, ${"visitor-" + uuid.slice(0, 8)}, ${tx.json({ path: "/" })}, now(), '203.0.113.9')`;
  return uuid;
}

const uuids = (rows: { uuid: string }[]) => rows.map((r) => r.uuid).sort();

test("anon neither reads nor writes analytics events", () => rolledBack(async (tx) => {
  await insertEvent(tx);
  await as(tx, "anon", async (q) => {
    await refused(q, (s) => s`select uuid from public.analytics_events`);
    await refused(q, (s) => s`insert into public.analytics_events (uuid, event, distinct_id, "timestamp")
                               values (gen_random_uuid(), 'x', 'y', now())`);
    await refused(q, (s) => s`delete from public.analytics_events`);
  });
}));

test("a member sees no analytics event and cannot write one", () => rolledBack(async (tx) => {
  const people = await makePeople(tx);
  const uuid = await insertEvent(tx);
  await as(tx, people.member, async (q) => {
    assert.deepEqual([...await q`select uuid from public.analytics_events`], []);
    await refused(q, (s) => s`insert into public.analytics_events (uuid, event, distinct_id, "timestamp")
                               values (gen_random_uuid(), 'x', 'y', now())`);
    await refused(q, (s) => s`update public.analytics_events set event = 'changed'`);
    const deleted = await q`delete from public.analytics_events where uuid = ${uuid}`;
    assert.equal(deleted.count, 0, "the row is invisible, so nothing is deleted");
  });
  const newcomer = await as(tx, people.newcomer, (q) => q`select uuid from public.analytics_events`);
  assert.deepEqual([...newcomer], [], "signed in without a profile: nothing either");
}));

test("support staff read every analytics event but cannot change or delete one", () => rolledBack(async (tx) => {
  const people = await makePeople(tx);
  const a = await insertEvent(tx, "a");
  const b = await insertEvent(tx, "b");
  await as(tx, people.support, async (q) => {
    const rows = await q<{ uuid: string }[]>`select uuid from public.analytics_events where uuid in (${a}, ${b})`;
    assert.deepEqual(uuids(rows), [a, b].sort());
    await refused(q, (s) => s`update public.analytics_events set event = 'changed' where uuid = ${a}`);
    const deleted = await q`delete from public.analytics_events where uuid = ${a}`;
    assert.equal(deleted.count, 0);
  });
  assert.equal((await tx`select 1 from public.analytics_events where uuid = ${a}`).length, 1);
}));

test("administrators read and delete analytics events (a visitor asking to be forgotten)", () => rolledBack(async (tx) => {
  const people = await makePeople(tx);
  const uuid = await insertEvent(tx);
  await as(tx, people.admin, async (q) => {
    assert.equal((await q`select uuid from public.analytics_events where uuid = ${uuid}`).length, 1);
    await refused(q, (s) => s`insert into public.analytics_events (uuid, event, distinct_id, "timestamp")
                               values (gen_random_uuid(), 'x', 'y', now())`);
    assert.equal((await q`delete from public.analytics_events where uuid = ${uuid}`).count, 1);
    assert.equal((await q`select 1 from public.analytics_events where uuid = ${uuid}`).length, 0);
  });
}));

test("the service role writes events; a uuid is stored once; names, ids and properties are checked", () => rolledBack(async (tx) => {
  const uuid = crypto.randomUUID();
  await as(tx, "service_role", async (q) => {
    const insert = (event: string, distinctId: string, properties: unknown) =>
      q`insert into public.analytics_events (uuid, event, distinct_id, properties, "timestamp")
        values (${uuid}, ${event}, ${distinctId}, ${q.json(properties as never)}, now())
        on conflict (uuid) do nothing`;
    assert.equal((await insert("first", "d", {})).count, 1);
    assert.equal((await insert("again", "d", {})).count, 0, "a retried event is skipped");
    const other = (event: string, distinctId: string, properties: unknown) =>
      q`insert into public.analytics_events (uuid, event, distinct_id, properties, "timestamp")
        values (gen_random_uuid(), ${event}, ${distinctId}, ${q.json(properties as never)}, now())`;
    await refused(q, () => other("e".repeat(201), "d", {}), /analytics_events_event_check/);
    await refused(q, () => other("e", "", {}), /analytics_events_distinct_id_check/);
    await refused(q, () => other("e", "d", [1, 2]), /analytics_events_properties_check/);
    const [row] = await q<{ event: string }[]>`select event from public.analytics_events where uuid = ${uuid}`;
    assert.equal(row.event, "first");
  });
}));

test("readers hold exactly SELECT and DELETE on analytics_events, anon nothing", () => rolledBack(async (tx) => {
  const rows = await tx<{ role: string; privilege: string }[]>`
    select r.role, p.privilege
    from (values ('anon'), ('authenticated')) as r(role)
    cross join (values ('SELECT'), ('INSERT'), ('UPDATE'), ('DELETE'), ('TRUNCATE')) as p(privilege)
    where has_table_privilege(r.role, 'public.analytics_events', p.privilege)
    order by 1, 2`;
  assert.deepEqual(rows.map((r) => `${r.role} ${r.privilege}`), ["authenticated DELETE", "authenticated SELECT"]);
}));
