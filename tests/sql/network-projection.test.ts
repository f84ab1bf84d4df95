// The projection's statements (migration network_projection_statements): what the tables say a
// member's repository holds (network_table_records), what projecting a member starts from in one call
// (network_projection_inputs) and a commit kept in one call (network_keep_commit). They are the server's
// alone: nobody else may call them, not even the member they are about.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import type { Tx } from "../../shared/db.ts";
import { as, makePeople, refused, rolledBack, type Who } from "./support.ts";
import { blocksByCid, recordCidsAt } from "../../functions/network/store/repo.ts";

const POST = "app.bsky.feed.post";

/** A joined member (account, head, a held record, a queued path) and another member they follow. */
async function joinedMember(tx: Tx) {
  const { member, support: other } = await makePeople(tx);
  const did = `did:plc:${member.sub.replaceAll("-", "").slice(0, 24)}`;
  // a post from before joining is the site's own people's (audience site): never in the repository
  await tx`insert into public.community_posts (author_id, rkey, cid, record, text)
           values (${member.sub}, 'sitepost', 'bafysite', ${tx.json({ $type: POST, text: "site only" })}, 'site only')`;
  await tx`insert into public.network_accounts (person_id, did, signing_key, signing_did_key, handle)
           values (${member.sub}, ${did}, 'sealed', 'did:key:zQ3sKey', 'member.test')`;
  await tx`update public.profiles set network_did = ${did}, display_name = 'Mira', description = '' where id = ${member.sub}`;
  await tx`insert into public.network_repos (person_id, rev, commit_cid, data_cid)
           values (${member.sub}, '3l000000000aa', 'bafycommit', 'bafydata')`;
  const [{ id: postId }] = await tx<{ id: number }[]>`
    insert into public.community_posts (author_id, rkey, cid, record, text)
    values (${member.sub}, 'pub1', 'bafypub1', ${tx.json({ $type: POST, text: "hello" })}, 'hello') returning id`;
  await tx`insert into public.community_likes (author_id, rkey, cid, record, post_id)
           values (${member.sub}, 'like1', 'bafylike1', ${tx.json({ $type: "app.bsky.feed.like", n: 1 })}, ${postId})`;
  await tx`insert into public.community_follows (author_id, rkey, cid, record, subject_id)
           values (${member.sub}, 'follow1', 'bafyfollow1', ${tx.json({ $type: "app.bsky.graph.follow", n: 2 })}, ${other.sub})`;
  await tx`insert into public.network_repo_records (person_id, path, cid) values (${member.sub}, ${`${POST}/pub1`}, 'bafyheld')`;
  return { ...member, did };
}

test("the projection's statements are the server's alone", () =>
  rolledBack(async (tx) => {
    const member = await joinedMember(tx);
    for (const who of ["anon", member, "authenticated"] as Who[]) {
      await as(tx, who, async (q) => {
        await refused(q, (s) => s`select * from public.network_table_records(${member.sub}::uuid, null)`);
        await refused(q, (s) => s`select * from public.network_projection_inputs(${member.sub}::uuid, true, '{}')`);
        await refused(q, (s) => s`select public.network_keep_commit(${member.sub}::uuid, 'r', 'c', 'd', '{}', ''::bytea,
          '{}', '{}', '{}', '{}', null, null, null, now())`);
      });
    }
    await as(tx, "service_role", async (q) => {
      await q`select * from public.network_table_records(${member.sub}::uuid, null)`;
      await q`select * from public.network_projection_inputs(${member.sub}::uuid, false, '{}')`;
    });
  }));

test("network_table_records: the public records at the paths asked for (all when none), the profile from the site's own when no app wrote one", () =>
  rolledBack(async (tx) => {
    const member = await joinedMember(tx);
    const records = async (paths: string[] | null) =>
      Object.fromEntries(
        (await tx<{ path: string; record: Record<string, unknown> }[]>`
          select path, record from public.network_table_records(${member.sub}, ${paths}::text[])`).map((r) => [r.path, r.record]),
      );
    const profile = { $type: "app.bsky.actor.profile", displayName: "Mira" };
    const all = {
      [`${POST}/pub1`]: { $type: POST, text: "hello" },
      "app.bsky.feed.like/like1": { $type: "app.bsky.feed.like", n: 1 },
      "app.bsky.graph.follow/follow1": { $type: "app.bsky.graph.follow", n: 2 },
      "app.bsky.actor.profile/self": profile,
    };
    assert.deepEqual(await records(null), all);
    assert.deepEqual(await records([`${POST}/pub1`]), { [`${POST}/pub1`]: all[`${POST}/pub1`] });
    // a post for the site's own people, a path nothing holds, a collection that is no table: nothing
    assert.deepEqual(await records([`${POST}/sitepost`, `${POST}/nothing`, "app.bsky.feed.generator/x", ""]), {});
    assert.deepEqual(
      await records(["app.bsky.graph.follow/follow1", "app.bsky.feed.like/like1", "app.bsky.feed.like/gone", "app.bsky.actor.profile/self"]),
      {
        "app.bsky.graph.follow/follow1": all["app.bsky.graph.follow/follow1"],
        "app.bsky.feed.like/like1": all["app.bsky.feed.like/like1"],
        "app.bsky.actor.profile/self": profile,
      },
    );
    assert.deepEqual(await records([]), {});
    // the profile an app wrote wins over the site's fields
    await tx`update public.profiles set network_profile = ${tx.json({ $type: "app.bsky.actor.profile", displayName: "M." })}
             where id = ${member.sub}`;
    assert.deepEqual((await records(["app.bsky.actor.profile/self"]))["app.bsky.actor.profile/self"], {
      $type: "app.bsky.actor.profile",
      displayName: "M.",
    });
  }));

test("network_projection_inputs: the head, the queue taken only when asked, the account, and the records and held cids at the likely paths", () =>
  rolledBack(async (tx) => {
    const member = await joinedMember(tx);
    await tx`delete from public.network_project_queue where person_id = ${member.sub}`;
    await tx`insert into public.network_project_queue (person_id, path)
             values (${member.sub}, ${`${POST}/pub1`}), (${member.sub}, '')`;
    const inputs = async (takeQueue: boolean, likely: string[]) => {
      const [row] = await tx<Record<string, unknown>[]>`
        select * from public.network_projection_inputs(${member.sub}, ${takeQueue}, ${likely}::text[])`;
      return row;
    };
    const kept = await inputs(false, []);
    assert.equal(kept.queued, null, "not taken when not asked");
    assert.equal(kept.records, null);
    assert.equal(kept.held, null);
    assert.deepEqual(
      [kept.did, kept.signing_key, kept.signing_did_key, kept.handle, kept.status, kept.rev, kept.commit_cid, kept.data_cid],
      [member.did, "sealed", "did:key:zQ3sKey", "member.test", "active", "3l000000000aa", "bafycommit", "bafydata"],
    );
    const [{ n }] = await tx<{ n: number }[]>`select count(*)::int as n from public.network_project_queue where person_id = ${member.sub}`;
    assert.equal(n, 2);

    const taken = await inputs(true, [`${POST}/pub1`, `${POST}/new`]);
    assert.deepEqual((taken.queued as string[]).sort(), ["", `${POST}/pub1`]);
    assert.deepEqual(taken.records, { [`${POST}/pub1`]: { $type: POST, text: "hello" } });
    assert.deepEqual(taken.held, { [`${POST}/pub1`]: "bafyheld" });
    const [{ left }] = await tx<{ left: number }[]>`
      select count(*)::int as left from public.network_project_queue where person_id = ${member.sub}`;
    assert.equal(left, 0, "taken off the queue");
    assert.deepEqual((await inputs(true, [])).queued, [], "an empty queue is an empty list");

    // somebody who has not joined: no account, no head
    const { member: stranger } = await makePeople(tx);
    const [none] = await tx<Record<string, unknown>[]>`
      select * from public.network_projection_inputs(${stranger.sub}, true, ${[`${POST}/x`]}::text[])`;
    assert.equal(none.did, null);
    assert.equal(none.rev, null);
    assert.deepEqual([none.queued, none.records, none.held], [[], {}, {}]);
  }));

test("network_keep_commit: the blocks split back to back, the unreachable ones out, the record index, the head and the event", () =>
  rolledBack(async (tx) => {
    const member = await joinedMember(tx);
    await tx`insert into public.network_repo_blocks (person_id, cid, rev, bytes)
             values (${member.sub}, 'bafyold', '3l000000000aa', '\\x01'), (${member.sub}, 'bafystays', '3l000000000aa', '\\x02')`;
    const blocks = [
      { cid: "bafyone", bytes: new Uint8Array([1, 2, 3]) },
      { cid: "bafyempty", bytes: new Uint8Array([]) },
      { cid: "bafybig", bytes: Uint8Array.from({ length: 5000 }, (_, i) => (i * 7) % 256) },
      { cid: "bafystays", bytes: new Uint8Array([9, 9]) }, // already there: kept as it was
    ];
    const all = new Uint8Array(blocks.reduce((n, b) => n + b.bytes.length, 0));
    let at = 0;
    for (const b of blocks) {
      all.set(b.bytes, at);
      at += b.bytes.length;
    }
    const body = new Uint8Array([0xa1, 0x61, 0x78, 0x01]);
    const at0 = new Date("2030-01-02T03:04:05Z");
    await tx`select public.network_keep_commit(${member.sub}, '3l000000000ab', 'bafycommit2', 'bafydata2',
      ${blocks.map((b) => b.cid)}::text[], ${all}, ${blocks.map((b) => b.bytes.length)}::integer[], ${["bafyold"]}::text[],
      ${[`${POST}/pub1`, `${POST}/new`]}::text[], ${[null, "bafynew"]}::text[], ${member.did}, 'commit', ${body}::bytea, ${at0})`;

    const stored = new Map(
      (await tx<{ cid: string; rev: string; bytes: Uint8Array }[]>`
        select cid, rev, bytes from public.network_repo_blocks where person_id = ${member.sub}`).map((r) => [r.cid, r]),
    );
    assert.deepEqual([...stored.keys()].sort(), ["bafybig", "bafyempty", "bafyone", "bafystays"]);
    for (const b of blocks.slice(0, 3)) {
      assert.deepEqual(new Uint8Array(stored.get(b.cid)!.bytes), b.bytes, b.cid);
      assert.equal(stored.get(b.cid)!.rev, "3l000000000ab");
    }
    assert.deepEqual(new Uint8Array(stored.get("bafystays")!.bytes), new Uint8Array([2]), "a block already there stays as it was");
    const index = await tx<{ path: string; cid: string }[]>`
      select path, cid from public.network_repo_records where person_id = ${member.sub} order by path`;
    assert.deepEqual(index.map((r) => [r.path, r.cid]), [[`${POST}/new`, "bafynew"]], "the deleted path out, the new one in");
    const [head] = await tx`select rev, commit_cid, data_cid, updated_at from public.network_repos where person_id = ${member.sub}`;
    assert.deepEqual(
      [head.rev, head.commit_cid, head.data_cid, head.updated_at.toISOString()],
      ["3l000000000ab", "bafycommit2", "bafydata2", at0.toISOString()],
    );
    const events = await tx<{ kind: string; body: Uint8Array }[]>`
      select kind, body from public.network_seq where did = ${member.did}`;
    assert.equal(events.length, 1);
    assert.equal(events[0].kind, "commit");
    assert.deepEqual(new Uint8Array(events[0].body), body);

    // no event when none is given; a block without its length is refused
    await tx`select public.network_keep_commit(${member.sub}, '3l000000000ac', 'bafycommit3', 'bafydata3',
      '{}', ''::bytea, '{}', '{}', '{}', '{}', null, null, null, ${at0})`;
    assert.equal((await tx`select 1 from public.network_seq where did = ${member.did}`).length, 1);
    assert.equal((await tx`select rev from public.network_repos where person_id = ${member.sub}`)[0].rev, "3l000000000ac");
    await refused(
      tx,
      (s) => s`select public.network_keep_commit(${member.sub}, 'r', 'c', 'd', ${["bafyx"]}::text[], ''::bytea, '{}', '{}', '{}', '{}', null, null, null, now())`,
      /each block needs its length/,
    );
  }));

test("rows are looked up by their keys, never by a pass over the member's rows, while the statistics are young", () =>
  rolledBack(async (tx) => {
    const member = await joinedMember(tx);
    const many = Array.from({ length: 400 }, (_, i) => `bafymany${i}`);
    await tx`insert into public.network_repo_blocks (person_id, cid, rev, bytes)
             select ${member.sub}, c, '3l000000000aa', '\\x00' from unnest(${many}::text[]) c`;
    await tx`insert into public.network_repo_records (person_id, path, cid)
             select ${member.sub}, ${`${POST}/`} || c, c from unnest(${many}::text[]) c`;
    await tx`insert into public.community_posts (author_id, rkey, cid, record, text)
             select ${member.sub}, c, c, ${tx.json({ $type: POST, text: "many" })}, 'many' from unnest(${many}::text[]) c`;
    // the plans are the functions' own, made once per session and kept: several calls, as a session's writes are
    for (let round = 0; round < 8; round++) {
      const likely = [`${POST}/${many[round]}`, `${POST}/${many[round + 100]}`, `${POST}/nothing`];
      let before = await fetched(tx);
      const [inputs] = await tx<{ records: Record<string, unknown>; held: Record<string, string> }[]>`
        select records, held from public.network_projection_inputs(${member.sub}, false, ${likely}::text[])`;
      let after = await fetched(tx);
      assert.deepEqual(Object.keys(inputs.records).sort(), likely.slice(0, 2).sort());
      assert.deepEqual(Object.keys(inputs.held).sort(), likely.slice(0, 2).sort());
      assert.ok(after.posts - before.posts <= 2, `round ${round}: posts read ${after.posts - before.posts}`);
      assert.ok(after.records - before.records <= 2, `round ${round}: record index rows read ${after.records - before.records}`);

      before = await fetched(tx);
      await tx`select public.network_keep_commit(${member.sub}, ${`3l00000000${round}ab`}, 'bafyc', 'bafyd', '{}', ''::bytea, '{}',
        ${[many[round * 2], many[round * 2 + 1], "bafynothing"]}::text[],
        ${[`${POST}/${many[round + 200]}`, `${POST}/${many[round + 300]}`]}::text[], ${[null, null]}::text[], null, null, null, now())`;
      after = await fetched(tx);
      assert.ok(after.blocks - before.blocks <= 2, `round ${round}: blocks read ${after.blocks - before.blocks}`);
      assert.ok(after.records - before.records <= 2, `round ${round}: record index rows read ${after.records - before.records}`);

      // the server's own reads (store/repo.ts), likewise
      before = await fetched(tx);
      const read = await blocksByCid(tx, member.sub, [many[100 + round], many[200 + round], "bafynothing"]);
      const cids = await recordCidsAt(tx, member.sub, [`${POST}/${many[100 + round]}`, `${POST}/nothing`]);
      after = await fetched(tx);
      assert.deepEqual(read.map((b) => b.cid).sort(), [many[100 + round], many[200 + round]].sort());
      assert.deepEqual([...cids.keys()], [`${POST}/${many[100 + round]}`]);
      assert.ok(after.blocks - before.blocks <= 2, `read ${round}: blocks read ${after.blocks - before.blocks}`);
      assert.ok(after.records - before.records <= 1, `read ${round}: record index rows read ${after.records - before.records}`);
    }
    const [{ blocks, records }] = await tx<{ blocks: number; records: number }[]>`
      select (select count(*)::int from public.network_repo_blocks where person_id = ${member.sub} and cid like 'bafymany%') as blocks,
             (select count(*)::int from public.network_repo_records where person_id = ${member.sub} and cid like 'bafymany%') as records`;
    assert.deepEqual([blocks, records], [400 - 16, 400 - 16]);
  }));

/** Rows this transaction has fetched so far from the member's posts, record index and blocks. */
async function fetched(tx: Tx): Promise<{ posts: number; records: number; blocks: number }> {
  const [row] = await tx<{ posts: number; records: number; blocks: number }[]>`
    select pg_stat_get_xact_tuples_fetched('public.community_posts'::regclass)::int as posts,
           pg_stat_get_xact_tuples_fetched('public.network_repo_records'::regclass)::int as records,
           pg_stat_get_xact_tuples_fetched('public.network_repo_blocks'::regclass)::int as blocks`;
  return row;
}

test("the projection's functions keep their plans for the session (planned anew on every call before)", () =>
  rolledBack(async (tx) => {
    const rows = await tx<{ proname: string; proconfig: string[] | null }[]>`
      select proname, proconfig from pg_proc
      where pronamespace = 'public'::regnamespace
        and proname in ('network_table_records', 'network_projection_inputs', 'network_keep_commit')`;
    assert.equal(rows.length, 3);
    for (const row of rows) {
      assert.ok(row.proconfig?.includes("plan_cache_mode=force_generic_plan"), `${row.proname}: ${row.proconfig}`);
      assert.ok(row.proconfig?.some((c) => c.startsWith("search_path=")), `${row.proname} names its search path`);
    }
  }));
