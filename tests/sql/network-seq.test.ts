// What a joined member's write costs everybody else. The stream's numbers (migration
// network_seq_at_commit) are given when the transaction commits, so a write holds the stream's lock
// through its commit alone, never through its whole transaction, and the numbers still become visible
// in the order they were given; and a write that projects its member inside itself wakes no projector
// (migration network_inline_projection_quiet). On the real server transactions truly overlap and
// notifications cross connections; PGlite serves one session at a time, so there those parts are skipped.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import { emptyDatabase, onRealServer } from "../helpers/db.ts";
import { connect, type Sql, type Tx } from "../../shared/db.ts";
import { migrate } from "../../shared/migrate.ts";
import { makePeople } from "./support.ts";

const realServer = await onRealServer();

/** A migrated database of this file's own: the stream of the shared test database belongs to others. */
async function ownDatabase(): Promise<{ sql: Sql; drop(): Promise<void> }> {
  const db = await emptyDatabase("sitewire_seq");
  // PGlite serves one session at a time: one connection, so nothing waits on a second one
  const sql = connect(db.url, { max: db.onServer ? 4 : 1 });
  await migrate(sql);
  return {
    sql,
    async drop() {
      await sql.end();
      await db.drop();
    },
  };
}

const event = (did: string) => ({ did, kind: "identity", body: new Uint8Array([0xa0]) });

test("an event is numbered when its transaction commits: the next number, in the order a transaction inserted them, and announced", async () => {
  const db = await ownDatabase();
  try {
    const heard: string[] = [];
    const listening = realServer ? await db.sql.listen("network_seq", (n) => heard.push(n)) : undefined;
    await db.sql.begin(async (tx) => {
      await tx`insert into public.network_seq ${tx(event("did:plc:first"))}`;
      await tx`insert into public.network_seq ${tx(event("did:plc:second"))}`;
      // inside the transaction the events wait with provisional (negative) numbers
      const pending = await tx<
        { seq: string }[]
      >`select seq from public.network_seq where did like 'did:plc:%' order by seq`;
      assert.ok(pending.every((r) => Number(r.seq) < 0), JSON.stringify(pending));
    });
    const rows = await db.sql<
      { seq: string; did: string }[]
    >`select seq, did from public.network_seq order by seq`;
    const numbers = rows.map((r) => Number(r.seq));
    assert.deepEqual(rows.map((r) => r.did).slice(-2), ["did:plc:first", "did:plc:second"]);
    assert.ok(numbers.every((n) => n > 0), "no provisional number is left after the commit");
    assert.equal(numbers.at(-1)! - numbers.at(-2)!, 1, "consecutive numbers");
    if (listening) {
      const deadline = Date.now() + 5_000;
      while (heard.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const sha256 = async (bytes: Uint8Array) =>
        Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource)), (b) => b.toString(16).padStart(2, "0")).join("");
      const body = await sha256(event("").body);
      assert.deepEqual(
        heard.slice(-2),
        numbers.slice(-2).map((n) => `${n} identity ${body}`),
        "the notifications name the real numbers, and each event's kind and the hash of its body",
      );
      await listening.unlisten();
    }
    // a rolled back transaction takes no number and announces nothing
    await db.sql.begin(async (tx) => {
      await tx`insert into public.network_seq ${tx(event("did:plc:gone"))}`;
      throw new Error("roll back");
    }).catch(() => {});
    assert.equal((await db.sql`select 1 from public.network_seq where did = 'did:plc:gone'`).length, 0);
  } finally {
    await db.drop();
  }
});

Deno.test({
  name:
    "two writers overlap: the one that inserted later but commits first is not held up and takes the smaller number",
  ignore: !realServer,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const db = await ownDatabase();
    const [early, late] = [await db.sql.reserve(), await db.sql.reserve()];
    try {
      await early`begin`;
      await early`insert into public.network_seq ${early(event("did:plc:early"))}`;
      await late`begin`;
      await late`insert into public.network_seq ${late(event("did:plc:late"))}`;
      // with the lock taken at insert, this commit would wait for the early transaction forever
      await Promise.race([
        late`commit`,
        new Promise((_, reject) =>
          setTimeout(() => reject(new Error("the later writer waited on the earlier one")), 5_000)
        ),
      ]);
      await early`commit`;
      const rows = await db.sql<{ seq: string; did: string }[]>`
        select seq, did from public.network_seq where did in ('did:plc:early', 'did:plc:late') order by seq`;
      assert.deepEqual(rows.map((r) => r.did), ["did:plc:late", "did:plc:early"], "numbered in commit order");
    } finally {
      early.release();
      late.release();
      await db.drop();
    }
  },
});

Deno.test({
  name:
    "an API write that projects its member inside itself wakes no projector for them; the admin's change still does",
  ignore: !realServer,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const db = await ownDatabase();
    try {
      const member = await db.sql.begin(async (tx) => (await makePeople(tx)).member.sub);
      await db.sql`insert into public.network_accounts (person_id, did, signing_key, signing_did_key, handle)
                   values (${member}, 'did:plc:quietprojection', 'sealed', 'did:key:zQ3sQuiet', 'quiet.test')`;
      const woken: string[] = [];
      const listening = await db.sql.listen("network_project", (person) => woken.push(person));
      const post = (tx: Tx, rkey: string) =>
        tx`insert into public.community_posts (author_id, rkey, cid, record, text) values (${member}, ${rkey}, 'bafy', '{}'::jsonb, 'text')`;
      // an API write: the member named as projected here (what lockRepo does)
      await db.sql.begin(async (tx) => {
        await tx`select set_config('sitewire.network_projecting', ${member}, true)`;
        await post(tx, "3api000000000");
      });
      // the admin's change: nobody projects it in its transaction
      await db.sql.begin((tx) => post(tx, "3admin0000000"));
      // notifications arrive in commit order, so once a last one is heard, every earlier one has been
      await db.sql`select pg_notify('network_project', 'last')`;
      const deadline = Date.now() + 5_000;
      while (!woken.includes("last") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(
        woken,
        [member, "last"],
        "the admin's change woke the projectors, the API write did not",
      );
      const queued = await db.sql<
        { path: string }[]
      >`select path from public.network_project_queue where person_id = ${member} order by path`;
      assert.deepEqual(queued.map((q) => q.path), [
        "app.bsky.feed.post/3admin0000000",
        "app.bsky.feed.post/3api000000000",
      ], "both are queued all the same");
      await listening.unlisten();
    } finally {
      await db.drop();
    }
  },
});
