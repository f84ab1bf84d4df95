// The federation's tables (migrations network_repos, network_federation, network_key_rotations): nobody
// but the server reads or writes them, not even the member they are about, since they hold sealed signing
// keys, repository blocks and the operator's view of the stream; the database's own calls to the
// federation's internal routes (migration network_federation_calls), with pg_net and pg_cron stood in for
// by functions of the same signatures that record what they were asked (they are not on this machine).
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import type { Sql, Tx } from "../../shared/db.ts";
import { privateDatabase } from "../helpers/db.ts";
import { as, makePeople, refused, rolledBack, type Who } from "./support.ts";

/** A joined member with a row in every federation table (as the server writes them). */
async function joinedMember(tx: Tx): Promise<{ sub: string; did: string }> {
  const { member } = await makePeople(tx);
  const did = `did:plc:${member.sub.replaceAll("-", "").slice(0, 24)}`;
  await tx`insert into public.network_accounts (person_id, did, signing_key, signing_did_key, handle)
           values (${member.sub}, ${did}, 'sealed', 'did:key:zQ3sOld', 'member.test')`;
  await tx`update public.profiles set network_did = ${did} where id = ${member.sub}`;
  await tx`insert into public.network_repos (person_id, rev, commit_cid, data_cid) values (${member.sub}, '3l000000000aa', 'bafycommit', 'bafydata')`;
  await tx`insert into public.network_repo_blocks (person_id, cid, rev, bytes) values (${member.sub}, 'bafyblock', '3l000000000aa', '\\x00')`;
  await tx`insert into public.network_repo_records (person_id, path, cid) values (${member.sub}, 'app.bsky.feed.post/3l000000000aa', 'bafyrecord')`;
  await tx`insert into public.network_blobs (person_id, cid, mime, size) values (${member.sub}, 'bafkblob', 'image/png', 1)`;
  await tx`insert into public.network_seq (did, kind, body) values (${did}, 'identity', '\\xa0')`;
  await tx`insert into public.network_project_queue (person_id, path) values (${member.sub}, 'app.bsky.feed.post/3l000000000ab')`;
  await tx`insert into public.network_key_rotations (person_id, signing_key, signing_did_key) values (${member.sub}, 'sealed-next', 'did:key:zQ3sNew')`;
  await tx`insert into public.network_subscribers (id, instance, remote, cursor, last_seq) values (${crypto.randomUUID()}, 'i', '127.0.0.1', 0, 1)`;
  await tx`insert into public.network_crawls (relay, asked_at, status, answer) values (${`https://relay-${member.sub}.test`}, now(), 200, '{}')`;
  return { ...member, did };
}

const TABLES = [
  "network_accounts",
  "network_repos",
  "network_repo_blocks",
  "network_repo_records",
  "network_blobs",
  "network_seq",
  "network_project_queue",
  "network_key_rotations",
  "network_subscribers",
  "network_crawls",
];

test("every federation table keeps row-level security on", () =>
  rolledBack(async (tx) => {
    const rows = await tx<{ relname: string; relrowsecurity: boolean }[]>`
      select relname, relrowsecurity from pg_class
      where relnamespace = 'public'::regnamespace and relname = any(${TABLES})`;
    assert.deepEqual(rows.map((r) => r.relname).sort(), [...TABLES].sort());
    for (const row of rows) assert.equal(row.relrowsecurity, true, `${row.relname} has row-level security`);
  }));

for (const table of TABLES) {
  test(`${table}: anybody, a signed-in person and the member it is about neither read nor write it; the server does`, () =>
    rolledBack(async (tx) => {
      const member = await joinedMember(tx);
      const { member: other } = await makePeople(tx);
      const people: [string, Who][] = [["anon", "anon"], ["another member", other], ["the member themselves", member]];
      for (const [label, who] of people) {
        await as(tx, who, async (q) => {
          await refused(q, (s) => s`select * from ${s(`public.${table}`)}`);
          await refused(q, (s) => s`select count(*) from ${s(`public.${table}`)}`);
          await refused(q, (s) => s`delete from ${s(`public.${table}`)}`);
          await refused(q, (s) => s`update ${s(`public.${table}`)} set ${s(columnOf(table))} = ${s(columnOf(table))}`);
        }).catch((error) => {
          throw new Error(`${label} on ${table}: ${error.message}`);
        });
      }
      await as(tx, "service_role", async (q) => {
        const [{ n }] = await q<{ n: string }[]>`select count(*) as n from ${q(`public.${table}`)}`;
        assert.ok(Number(n) >= 1, `the server reads ${table}`);
      });
    }));
}

function columnOf(table: string): string {
  return { network_subscribers: "remote", network_crawls: "answer", network_seq: "kind" }[table] ?? "person_id";
}

test("a member's sealed signing key is not theirs to read, nor its new one's, nor to put a key of their own", () =>
  rolledBack(async (tx) => {
    const member = await joinedMember(tx);
    await as(tx, member, async (q) => {
      await refused(q, (s) => s`select signing_key from public.network_accounts where person_id = ${member.sub}`);
      await refused(q, (s) => s`select signing_key from public.network_key_rotations`);
      await refused(q, (s) => s`insert into public.network_key_rotations (person_id, signing_key, signing_did_key)
                                 values (${member.sub}, 'mine', 'did:key:zQ3sMine')`);
      await refused(q, (s) => s`update public.network_accounts set signing_did_key = 'did:key:zQ3sMine'`);
    });
  }));

test("the stream's numbers and the projection queue's door are the server's alone", () =>
  rolledBack(async (tx) => {
    const member = await joinedMember(tx);
    for (const who of ["anon", member] as Who[]) {
      await as(tx, who, async (q) => {
        await refused(q, (s) => s`select nextval('public.network_seq_numbers')`);
        await refused(q, (s) => s`select nextval('public.network_seq_provisional')`);
        await refused(q, (s) => s`select public.network_queue_path(${member.sub}::uuid, 'app.bsky.feed.post/x')`);
        await refused(q, (s) => s`select public.network_project_due()`);
        await refused(q, (s) => s`select public.network_schedule_calls()`);
      });
    }
    await as(tx, "service_role", async (q) => {
      // the server appends; the number is given at commit (tests/sql/network-seq.test.ts), provisional until then
      const [{ a }] = await q<{ a: string }[]>`
        insert into public.network_seq (did, kind, body) values ('did:plc:numbers', 'identity', '\\xa0') returning seq as a`;
      const [{ b }] = await q<{ b: string }[]>`
        insert into public.network_seq (did, kind, body) values ('did:plc:numbers', 'identity', '\\xa0') returning seq as b`;
      assert.ok(Number(a) < 0 && Number(b) < 0, "provisional until the commit");
      assert.notEqual(a, b, "each its own");
    });
  }));

test("a key kept for rotation goes with the account", () =>
  rolledBack(async (tx) => {
    const member = await joinedMember(tx);
    await tx`delete from public.network_accounts where person_id = ${member.sub}`;
    assert.equal((await tx`select 1 from public.network_key_rotations where person_id = ${member.sub}`).length, 0);
  }));

// ---- the database's calls to the internal routes (a private database, so the stand-ins meet no other test)

let privateSql: Promise<Sql> | undefined;
async function rolledBackPrivate(fn: (tx: Tx) => Promise<void>): Promise<void> {
  privateSql ??= privateDatabase();
  await rolledBack(fn, await privateSql);
}

async function standInPgNet(tx: Tx): Promise<() => Promise<{ url: string; headers: any }[]>> {
  await tx`create schema net`;
  await tx`create table net.requests (id bigint generated always as identity, url text, headers jsonb)`;
  await tx.unsafe(`create function net.http_post(url text, body jsonb default '{}', params jsonb default '{}',
      headers jsonb default '{}', timeout_milliseconds integer default 5000) returns bigint
    language sql as $$ insert into net.requests (url, headers) values (url, headers) returning id $$`);
  await tx`insert into public.site_secrets (name, value) values ('function_url', 'https://project.example'), ('service_key', 'sk-test')
           on conflict (name) do update set value = excluded.value`;
  return () => tx<{ url: string; headers: any }[]>`select url, headers from net.requests order by id`;
}

async function post(tx: Tx, author: string, rkey: string): Promise<void> {
  await tx`insert into public.community_posts (author_id, rkey, cid, record, text)
           values (${author}, ${rkey}, 'bafy', '{}'::jsonb, 'text')`;
}

test("with pg_net, a change of a joined member's rows asks the network function to project, once per transaction, at its own address", () =>
  rolledBackPrivate(async (tx) => {
    const requests = await standInPgNet(tx);
    const { member: outsider } = await makePeople(tx);
    await post(tx, outsider.sub, "3l000000000a1");
    assert.equal((await requests()).length, 0, "a member who has not joined queues nothing and calls nothing");
    const member = await joinedMember(tx);
    await post(tx, member.sub, "3l000000000a2");
    await post(tx, member.sub, "3l000000000a3");
    await tx`update public.profiles set display_name = 'Renamed' where id = ${member.sub}`;
    const sent = await requests();
    assert.deepEqual(sent.map((r) => r.url), ["https://project.example/functions/v1/network/internal/project"]);
    assert.equal(sent[0].headers.Authorization, "Bearer sk-test");
    const queued = await tx`select path from public.network_project_queue where person_id = ${member.sub} order by path`;
    assert.ok(queued.some((r) => r.path === "app.bsky.feed.post/3l000000000a3"));
  }));

test("an API write that projects in its own transaction calls nothing", () =>
  rolledBackPrivate(async (tx) => {
    const requests = await standInPgNet(tx);
    const member = await joinedMember(tx);
    await tx`select set_config('sitewire.network_project_called', 'here', true)`;
    await post(tx, member.sub, "3l000000000a4");
    assert.equal((await requests()).length, 0);
    assert.equal((await tx`select 1 from public.network_project_queue where path = 'app.bsky.feed.post/3l000000000a4'`).length, 1);
  }));

test("pg_cron: the projection minute calls only while something is queued; the daily crawl at 05:10", () =>
  rolledBackPrivate(async (tx) => {
    const [{ scheduled: without }] = await tx`select public.network_schedule_calls() as scheduled`;
    assert.equal(without, false, "no pg_cron, nothing scheduled");
    await tx`create schema cron`;
    await tx`create table cron.job (jobid bigint generated always as identity, jobname text unique, schedule text, command text)`;
    await tx.unsafe(`create function cron.schedule(job_name text, schedule text, command text) returns bigint
      language sql as $$ insert into cron.job (jobname, schedule, command) values (job_name, schedule, command)
        on conflict (jobname) do update set schedule = excluded.schedule, command = excluded.command returning jobid $$`);
    for (let run = 0; run < 2; run++) assert.equal((await tx`select public.network_schedule_calls() as s`)[0].s, true);
    const jobs = await tx<{ jobname: string; schedule: string; command: string }[]>`
      select jobname, schedule, command from cron.job order by jobname`;
    assert.deepEqual(jobs.map((j) => [j.jobname, j.schedule]), [
      ["sitewire-network-crawl", "10 5 * * *"],
      ["sitewire-network-project", "* * * * *"],
    ]);
    const requests = await standInPgNet(tx);
    await tx`delete from public.network_project_queue`;
    const minute = jobs.find((j) => j.jobname === "sitewire-network-project")!.command;
    assert.equal((await tx.unsafe(minute))[0].network_project_due, null, "an empty queue calls nothing");
    const member = await joinedMember(tx);
    await tx`select set_config('sitewire.network_project_called', 'here', true)`;
    await post(tx, member.sub, "3l000000000a5");
    assert.notEqual((await tx.unsafe(minute))[0].network_project_due, null);
    await tx.unsafe(jobs.find((j) => j.jobname === "sitewire-network-crawl")!.command);
    assert.deepEqual((await requests()).map((r) => r.url), [
      "https://project.example/functions/v1/network/internal/project",
      "https://project.example/functions/v1/network/internal/crawl",
    ]);
  }));
