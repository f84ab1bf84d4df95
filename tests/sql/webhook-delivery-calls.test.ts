// The database's own calls to the functions (migrations 036 and 20261125001000): with pg_net, a
// transaction that writes outbox rows asks the delivery route of each API's own function once; pg_cron schedules the delivery minute and the daily
// sweep; Vault's secrets win over site_secrets; plain Postgres calls nothing. pg_net, pg_cron and Vault
// are not on this machine: each test stands in for them with functions of the same signatures, which
// record what they were asked. A private in-memory PGlite, so "nothing is due" can be stated and the
// stand-ins never meet another test's transaction.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import type { Tx } from "../../shared/db.ts";
import { privateDatabase } from "../helpers/db.ts";
import { as, refused, rolledBack as rolledBackOn } from "./support.ts";

const sql = await privateDatabase();
const rolledBack = (fn: (tx: Tx) => Promise<void>) => rolledBackOn(fn, sql);

/** pg_net's net.http_post, recording each request instead of sending it. */
async function standInPgNet(tx: Tx): Promise<() => Promise<{ url: string; headers: any; timeout: number }[]>> {
  await tx`create schema net`;
  await tx`create table net.requests (id bigint generated always as identity, url text, body jsonb, headers jsonb, timeout integer)`;
  await tx.unsafe(`create function net.http_post(url text, body jsonb default '{}', params jsonb default '{}',
      headers jsonb default '{}', timeout_milliseconds integer default 5000) returns bigint
    language sql as $$ insert into net.requests (url, body, headers, timeout)
      values (url, body, headers, timeout_milliseconds) returning id $$`);
  return () => tx<{ url: string; headers: any; timeout: number }[]>`select url, headers, timeout from net.requests order by id`;
}

async function configure(tx: Tx, secrets: Record<string, string>): Promise<void> {
  for (const [name, value] of Object.entries(secrets)) {
    await tx`insert into public.site_secrets (name, value) values (${name}, ${value})
             on conflict (name) do update set value = excluded.value`;
  }
}

async function writeOutboxRow(tx: Tx, at = "now()", api = "content"): Promise<void> {
  await tx.unsafe(`insert into public.webhook_outbox (api, subscription_id, event, url, body, next_attempt_at)
    values ('${api}', 'h', 'e', 'https://hooks.example/in', '{}', ${at})`);
}

test("without pg_net an outbox write calls nothing and goes through", () =>
  rolledBack(async (tx) => {
    await configure(tx, { function_url: "https://project.example", service_key: "sk-test" });
    await writeOutboxRow(tx);
    const [{ id }] = await tx`select public.sitewire_call_content('/webhooks/deliver') as id`;
    assert.equal(id, null);
  }));

test("with pg_net a transaction that writes outbox rows calls the delivery route once, with the service key", () =>
  rolledBack(async (tx) => {
    const requests = await standInPgNet(tx);
    await configure(tx, { function_url: "https://project.example/", service_key: "sk-test" });
    // a statement that writes no row asks for nothing
    await tx`insert into public.webhook_outbox (api, subscription_id, event, url, body)
             select 'content', 'h', 'e', 'https://hooks.example/in', '{}' where false`;
    assert.equal((await requests()).length, 0);
    await writeOutboxRow(tx);
    await writeOutboxRow(tx);
    const sent = await requests();
    assert.equal(sent.length, 1, "one call per transaction: the route drains everything due");
    assert.equal(sent[0].url, "https://project.example/functions/v1/content/webhooks/deliver");
    assert.deepEqual(sent[0].headers, { Authorization: "Bearer sk-test", "Content-Type": "application/json" });
    assert.equal(sent[0].timeout, 60000);
  }));

test("each API's rows call the delivery route of the function that owns the API, once per transaction", () =>
  rolledBack(async (tx) => {
    const requests = await standInPgNet(tx);
    await configure(tx, { function_url: "https://project.example", service_key: "sk-test" });
    await writeOutboxRow(tx, "now()", "forms");
    await writeOutboxRow(tx, "now()", "scheduling");
    await writeOutboxRow(tx, "now()", "forms");
    // one statement writing rows of two APIs calls both
    await tx.unsafe(`insert into public.webhook_outbox (api, subscription_id, event, url, body)
      values ('content', 'h', 'e', 'https://hooks.example/in', '{}'), ('support', 'h', 'e', 'https://hooks.example/in', '{}'),
             ('scheduling', 'h', 'e', 'https://hooks.example/in', '{}')`);
    assert.deepEqual((await requests()).map((r) => r.url), [
      "https://project.example/functions/v1/forms-api/webhooks/deliver",
      "https://project.example/functions/v1/scheduling-api/webhooks/deliver",
      "https://project.example/functions/v1/content/webhooks/deliver",
      "https://project.example/functions/v1/support-api/webhooks/deliver",
    ]);
  }));

test("pg_cron's minute calls the route of each API with rows due, and only those", () =>
  rolledBack(async (tx) => {
    await configure(tx, { function_url: "https://project.example", service_key: "sk-test" });
    await tx`update public.webhook_outbox set status = 'delivered' where status = 'pending'`;
    await writeOutboxRow(tx, "now() - interval '1 minute'", "scheduling");
    await writeOutboxRow(tx, "now() - interval '1 minute'", "forms");
    await writeOutboxRow(tx, "now() + interval '1 hour'", "content");
    const requests = await standInPgNet(tx);
    const [{ calls }] = await tx`select public.webhook_outbox_deliver_due() as calls`;
    assert.equal(Number(calls), 2);
    assert.deepEqual((await requests()).map((r) => r.url), [
      "https://project.example/functions/v1/forms-api/webhooks/deliver",
      "https://project.example/functions/v1/scheduling-api/webhooks/deliver",
    ]);
  }));

test("with pg_net but no address or no key nothing is called", () =>
  rolledBack(async (tx) => {
    const requests = await standInPgNet(tx);
    await tx`delete from public.site_secrets where name in ('function_url', 'service_key')`;
    await configure(tx, { service_key: "sk-test" });
    await writeOutboxRow(tx);
    const [{ id }] = await tx`select public.sitewire_call_content('/webhooks/deliver') as id`;
    assert.equal(id, null);
    assert.equal((await requests()).length, 0);
  }));

test("Vault's sitewire_ secrets win over site_secrets where Vault holds them", () =>
  rolledBack(async (tx) => {
    const requests = await standInPgNet(tx);
    await configure(tx, { function_url: "https://from-site-secrets.example", service_key: "sk-site" });
    await tx`create schema vault`;
    await tx`create table vault.decrypted_secrets (name text, decrypted_secret text)`;
    await tx`insert into vault.decrypted_secrets values ('sitewire_function_url', 'https://from-vault.example')`;
    await tx`select public.sitewire_call_content('/sweep-uploads')`;
    const [sent] = await requests();
    assert.equal(sent.url, "https://from-vault.example/functions/v1/content/sweep-uploads");
    assert.equal(sent.headers.Authorization, "Bearer sk-site", "a secret Vault lacks comes from site_secrets");
  }));

test("pg_cron: the delivery minute (only while rows are due) and the 04:50 sweep are scheduled, by name", () =>
  rolledBack(async (tx) => {
    const [{ scheduled: without }] = await tx`select public.sitewire_schedule_calls() as scheduled`;
    assert.equal(without, false);
    await tx`create schema cron`;
    await tx`create table cron.job (jobid bigint generated always as identity, jobname text unique, schedule text, command text)`;
    await tx.unsafe(`create function cron.schedule(job_name text, schedule text, command text) returns bigint
      language sql as $$ insert into cron.job (jobname, schedule, command) values (job_name, schedule, command)
        on conflict (jobname) do update set schedule = excluded.schedule, command = excluded.command returning jobid $$`);
    for (let run = 0; run < 2; run++) {
      const [{ scheduled }] = await tx`select public.sitewire_schedule_calls() as scheduled`;
      assert.equal(scheduled, true);
    }
    const jobs = await tx<{ jobname: string; schedule: string; command: string }[]>`
      select jobname, schedule, command from cron.job order by jobname`;
    assert.deepEqual(jobs.map((j) => [j.jobname, j.schedule]), [
      ["sitewire-sweep-image-cache", "40 4 * * *"],
      ["sitewire-sweep-rate-limits", "*/10 * * * *"],
      ["sitewire-sweep-uploads", "50 4 * * *"],
      ["sitewire-webhook-delivery", "* * * * *"],
    ]);

    // what the jobs run: the minute calls only while a row is due
    const requests = await standInPgNet(tx);
    await configure(tx, { function_url: "https://project.example", service_key: "sk-test" });
    const minute = jobs.find((j) => j.jobname === "sitewire-webhook-delivery")!.command;
    assert.equal((await tx.unsafe(minute))[0].webhook_outbox_deliver_due, null);
    await writeOutboxRow(tx, "now() + interval '1 hour'"); // a retry not due yet (its own call is the write's)
    const afterWrite = (await requests()).length;
    assert.equal((await tx.unsafe(minute))[0].webhook_outbox_deliver_due, null);
    await tx`update public.webhook_outbox set next_attempt_at = now() - interval '1 second'`;
    await tx.unsafe(minute);
    const sent = await requests();
    assert.equal(sent.length, afterWrite + 1);
    assert.equal(sent.at(-1)!.url, "https://project.example/functions/v1/content/webhooks/deliver");
    await tx.unsafe(jobs.find((j) => j.jobname === "sitewire-sweep-uploads")!.command);
    assert.equal((await requests()).at(-1)!.url, "https://project.example/functions/v1/content/sweep-uploads");
    await tx.unsafe(jobs.find((j) => j.jobname === "sitewire-sweep-image-cache")!.command);
    assert.equal((await requests()).at(-1)!.url, "https://project.example/functions/v1/content/sweep-image-cache");

    // the rate-limit job runs in the database itself: buckets long over go, a live one stays
    const second = (offset: number) => Math.floor(Date.now() / 1000) + offset;
    await tx`insert into public.rate_limit_buckets (bucket, windows, hits, counted_at, expires_at) values
      ('cron-test:old', '{60}', '{5}', ${second(-7200)}, ${second(-7170)}),
      ('cron-test:live', '{60}', '{5}', ${second(0)}, ${second(60)})`;
    await tx.unsafe(jobs.find((j) => j.jobname === "sitewire-sweep-rate-limits")!.command);
    const left = await tx<{ bucket: string }[]>`select bucket from public.rate_limit_buckets where bucket like 'cron-test:%'`;
    assert.deepEqual(left.map((r) => r.bucket), ["cron-test:live"]);
  }));

test("readers can neither run the calls nor read their secrets", () =>
  rolledBack(async (tx) => {
    for (const who of ["anon", { sub: crypto.randomUUID() }] as const) {
      await as(tx, who, async (q) => {
        await refused(q, (s) => s`select public.sitewire_call_secret('service_key')`);
        await refused(q, (s) => s`select public.sitewire_call_content('/webhooks/deliver')`);
        await refused(q, (s) => s`select public.webhook_outbox_deliver_due()`);
        await refused(q, (s) => s`select public.sitewire_schedule_calls()`);
      });
    }
  }));
