// Row-level security of the community (the protocol server reads as the reader, so these policies decide
// what any app shows), the network helpers, and what the database itself refuses (SQLSTATE NW400).
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import type { Tx } from "../../shared/db.ts";
import { as, makePeople, refused, rolledBack } from "./support.ts";

let n = 0;
async function person(tx: Tx, name?: string): Promise<{ sub: string }> {
  const email = `net-${crypto.randomUUID().slice(0, 8)}@people.test`;
  const [{ id }] = await tx<{ id: string }[]>`insert into auth.users (email) values (${email}) returning id`;
  await tx`insert into public.profiles (id, email, username) values (${id}, ${email}, ${name ?? null})`;
  return { sub: id };
}

async function post(
  tx: Tx,
  author: { sub: string },
  extra: { reply?: number; quote?: number } = {},
): Promise<number> {
  const rkey = `3kz${(n++).toString().padStart(10, "a")}`;
  const [{ id }] = await tx<{ id: number }[]>`
    insert into public.community_posts (author_id, rkey, cid, record, text, reply_parent_id, reply_root_id, quote_id)
    values (${author.sub}, ${rkey}, 'bafy', '{}'::jsonb, 'text', ${extra.reply ?? null}, ${extra.reply ?? null},
            ${extra.quote ?? null})
    returning id`;
  return id;
}

const refusedByDatabase = async (tx: Tx, statement: (q: Tx) => Promise<unknown>, pattern: RegExp) => {
  await assert.rejects(tx.savepoint((sp) => statement(sp as unknown as Tx)), (error: Error & { code?: string }) => {
    assert.equal(error.code, "NW400");
    assert.match(error.message, pattern);
    return true;
  });
};

const visiblePosts = (tx: Tx, who: Parameters<typeof as>[1], ids: number[]) =>
  as(tx, who, async (q) =>
    (await q<{ id: number }[]>`select id from public.community_posts where id = any(${ids}::bigint[]) order by id`)
      .map((r) => r.id));

test("the site's own people see posts for the site; somebody from outside sees only a joined member's", () =>
  rolledBack(async (tx) => {
    const a = await person(tx), joined = await person(tx), reader = await person(tx);
    await tx`update public.profiles set network_did = ${`did:plc:${joined.sub.replaceAll("-", "").slice(0, 24)}`} where id = ${joined.sub}`;
    const sitePost = await post(tx, a);
    const everyonePost = await post(tx, joined);
    const [{ audience }] = await tx`select audience from public.community_posts where id = ${everyonePost}`;
    assert.equal(audience, "everyone", "the database sets a joined member's audience");
    assert.deepEqual(await visiblePosts(tx, reader, [sitePost, everyonePost]), [sitePost, everyonePost]);
    assert.deepEqual(await visiblePosts(tx, "anon", [sitePost, everyonePost]), [everyonePost]);
    // signed in elsewhere but no person of this site: not the site's own people
    assert.deepEqual(await visiblePosts(tx, { sub: crypto.randomUUID() }, [sitePost, everyonePost]), [everyonePost]);
  }));

test("a suspended member's posts, likes and follows are seen by nobody", () =>
  rolledBack(async (tx) => {
    const a = await person(tx), b = await person(tx), reader = await person(tx);
    const p = await post(tx, a);
    await tx`insert into public.community_likes (author_id, rkey, cid, record, post_id) values (${b.sub}, 'l1', 'c', '{}', ${p})`;
    await tx`insert into public.community_follows (author_id, rkey, cid, record, subject_id) values (${b.sub}, 'f1', 'c', '{}', ${a.sub})`;
    await tx`update public.profiles set suspended_at = now() where id = ${a.sub}`;
    assert.deepEqual(await visiblePosts(tx, reader, [p]), []);
    const likes = await as(tx, reader, (q) => q`select 1 from public.community_likes where post_id = ${p}`);
    assert.equal(likes.length, 0);
    const follows = await as(tx, reader, (q) => q`select 1 from public.community_follows where subject_id = ${a.sub}`);
    assert.equal(follows.length, 0);
  }));

test("a space's channel, messages and hearts are seen by its members only", () =>
  rolledBack(async (tx) => {
    const owner = await person(tx), member = await person(tx), outsider = await person(tx);
    const [{ id: space }] = await tx`insert into public.community_spaces (slug, name) values ('rls-space', 'RLS') returning id`;
    await tx`insert into public.community_space_members (space_id, person_id, role) values (${space}, ${owner.sub}, 'owner'), (${space}, ${member.sub}, 'member')`;
    const [{ id: channel }] = await tx`insert into public.community_channels (space_id, kind, name) values (${space}, 'feed', 'RLS') returning id`;
    const [{ id: message }] = await tx`insert into public.community_messages (channel_id, author_id, text) values (${channel}, ${owner.sub}, 'hi') returning id`;
    await tx`insert into public.community_reactions (message_id, person_id) values (${message}, ${member.sub})`;
    const seen = (who: { sub: string } | "anon") =>
      as(tx, who, async (q) => ({
        spaces: (await q`select 1 from public.community_spaces where id = ${space}`).length,
        messages: (await q`select 1 from public.community_messages where id = ${message}`).length,
        hearts: (await q`select 1 from public.community_reactions where message_id = ${message}`).length,
        members: (await q`select 1 from public.community_space_members where space_id = ${space}`).length,
      }));
    assert.deepEqual(await seen(member), { spaces: 1, messages: 1, hearts: 1, members: 2 });
    assert.deepEqual(await seen(outsider), { spaces: 0, messages: 0, hearts: 0, members: 0 });
    await as(tx, "anon", (q) => refused(q, (s) => s`select 1 from public.community_messages`));
    // a suspended member of the space no longer sees it
    await tx`update public.community_space_members set suspended_at = now() where person_id = ${member.sub}`;
    assert.deepEqual(await seen(member), { spaces: 0, messages: 0, hearts: 0, members: 0 });
  }));

test("notifications are the recipient's alone", () =>
  rolledBack(async (tx) => {
    const a = await person(tx), b = await person(tx), c = await person(tx);
    const p = await post(tx, a);
    await tx`insert into public.community_likes (author_id, rkey, cid, record, post_id) values (${b.sub}, 'l2', 'c', '{}', ${p})`;
    const mine = await as(tx, a, (q) => q`select reason from public.community_notifications`);
    assert.deepEqual(mine.map((r) => r.reason), ["like"]);
    const theirs = await as(tx, c, (q) => q`select 1 from public.community_notifications where recipient_id = ${a.sub}`);
    assert.equal(theirs.length, 0);
  }));

test("a reply or a quote notifies the author of the post it answers or quotes; a plain post nobody", () =>
  rolledBack(async (tx) => {
    const a = await person(tx), b = await person(tx), c = await person(tx);
    const p = await post(tx, a), q = await post(tx, c);
    await post(tx, b);
    const reasons = async (who: { sub: string }) =>
      (await tx`select reason, actor_id from public.community_notifications where recipient_id = ${who.sub} order by id`)
        .map((r) => `${r.reason} by ${r.actor_id === b.sub ? "b" : r.actor_id}`);
    assert.deepEqual(await reasons(a), []);
    await post(tx, b, { reply: p });
    await post(tx, b, { quote: q });
    assert.deepEqual(await reasons(a), ["reply by b"]);
    assert.deepEqual(await reasons(c), ["quote by b"]);
    // answering one's own post tells nobody
    await post(tx, a, { reply: p });
    assert.deepEqual(await reasons(a), ["reply by b"]);
  }));

test("mutes are private: a member reads, makes and removes their own only", () =>
  rolledBack(async (tx) => {
    const a = await person(tx), b = await person(tx), c = await person(tx);
    await as(tx, a, async (q) => {
      await q`insert into public.community_mutes (person_id, subject_id) values (${a.sub}, ${b.sub})`;
      assert.equal((await q`select 1 from public.community_mutes`).length, 1);
      await refused(q, (s) => s`insert into public.community_mutes (person_id, subject_id) values (${c.sub}, ${b.sub})`, /row-level security/);
    });
    await tx`insert into public.community_mutes (person_id, subject_id) values (${a.sub}, ${b.sub})`;
    assert.equal((await as(tx, c, (q) => q`select 1 from public.community_mutes`)).length, 0);
  }));

test("thread mutes are private: a member mutes only threads they may see, and reads and removes their own only", () =>
  rolledBack(async (tx) => {
    const a = await person(tx), b = await person(tx), c = await person(tx);
    const root = await post(tx, b);
    const unseen = await post(tx, c);
    await tx`update public.profiles set suspended_at = now() where id = ${c.sub}`;
    await as(tx, a, async (q) => {
      await q`insert into public.community_thread_mutes (person_id, root_id) values (${a.sub}, ${root})`;
      assert.equal((await q`select 1 from public.community_thread_mutes`).length, 1);
      await refused(q, (s) => s`insert into public.community_thread_mutes (person_id, root_id) values (${b.sub}, ${root})`, /row-level security/);
      // a suspended member's post is seen by nobody, so nobody mutes its thread
      await refused(q, (s) => s`insert into public.community_thread_mutes (person_id, root_id) values (${a.sub}, ${unseen})`, /row-level security/);
    });
    await as(tx, "anon", async (q) => {
      await refused(q, (s) => s`select 1 from public.community_thread_mutes`);
    });
    await tx`insert into public.community_thread_mutes (person_id, root_id) values (${a.sub}, ${root})`;
    assert.equal((await as(tx, b, (q) => q`select 1 from public.community_thread_mutes`)).length, 0, "b sees not a's mute");
    assert.equal((await as(tx, b, (q) => q`delete from public.community_thread_mutes returning 1`)).length, 0, "nor removes it");
    assert.equal((await as(tx, a, (q) => q`delete from public.community_thread_mutes returning 1`)).length, 1);
  }));

test("nobody but the server writes posts or follows, nor a username", () =>
  rolledBack(async (tx) => {
    const a = await person(tx);
    await as(tx, a, async (q) => {
      await refused(q, (s) => s`insert into public.community_posts (author_id, rkey, cid, record) values (${a.sub}, 'x', 'c', '{}')`);
      await refused(q, (s) => s`delete from public.community_posts`);
      await refused(q, (s) => s`insert into public.community_follows (author_id, rkey, cid, record, subject_id) values (${a.sub}, 'f', 'c', '{}', ${a.sub})`);
      // a member changes no username behind the site's back (only administrators change profiles)
      const changed = await q`update public.profiles set username = 'sneaky' where id = ${a.sub} returning id`;
      assert.equal(changed.length, 0);
    });
  }));

test("network_people: the site's people see every member not suspended, somebody from outside only joined ones, never an address", () =>
  rolledBack(async (tx) => {
    const a = await person(tx, `np${crypto.randomUUID().slice(0, 6)}`), joined = await person(tx), gone = await person(tx);
    await tx`update public.profiles set network_did = ${`did:plc:${joined.sub.replaceAll("-", "").slice(0, 24)}`} where id = ${joined.sub}`;
    await tx`update public.profiles set suspended_at = now() where id = ${gone.sub}`;
    const ids = [a.sub, joined.sub, gone.sub];
    const seen = (who: { sub: string } | "anon") =>
      as(tx, who, async (q) =>
        (await q`select id, name from public.network_people() where id = any(${ids}::uuid[])`).map((r) => r.id).sort());
    assert.deepEqual(await seen(a), [a.sub, joined.sub].sort());
    assert.deepEqual(await seen("anon"), [joined.sub]);
    const [row] = await as(tx, a, (q) => q`select * from public.network_people() where id = ${a.sub}`);
    assert.equal(row.email, undefined);
    assert.equal(row.name, (await tx`select username from public.profiles where id = ${a.sub}`)[0].username);
    const nameless = await as(tx, a, (q) => q`select name from public.network_people() where id = ${joined.sub}`);
    assert.equal(nameless[0].name, `m${joined.sub.split("-")[4]}`);
  }));

test("network_user_of_name answers the service role only, by username or by the id's name", () =>
  rolledBack(async (tx) => {
    const named = await person(tx, `un${crypto.randomUUID().slice(0, 6)}`), nameless = await person(tx);
    const [{ username }] = await tx`select username from public.profiles where id = ${named.sub}`;
    await as(tx, "service_role", async (q) => {
      assert.equal((await q`select public.network_user_of_name(${username}) as id`)[0].id, named.sub);
      assert.equal((await q`select public.network_user_of_name(${`m${nameless.sub.split("-")[4]}`}) as id`)[0].id, nameless.sub);
    });
    await as(tx, named, (q) => refused(q, (s) => s`select public.network_user_of_name(${username})`));
    await as(tx, "anon", (q) => refused(q, (s) => s`select public.network_user_of_name(${username})`));
  }));

test("app passwords: a member reads their own names, never a hash; sessions and the repository heads are the server's alone", () =>
  rolledBack(async (tx) => {
    const a = await person(tx), b = await person(tx);
    const [{ id: pw }] = await tx`insert into public.network_app_passwords (person_id, name, hash) values (${a.sub}, 'phone', ${crypto.randomUUID()}) returning id`;
    await tx`insert into public.network_sessions (person_id, app_password_id, access_hash, refresh_hash, access_expires_at, refresh_expires_at)
             values (${a.sub}, ${pw}, ${crypto.randomUUID()}, ${crypto.randomUUID()}, now(), now())`;
    await as(tx, a, async (q) => {
      assert.deepEqual((await q`select name from public.network_app_passwords`).map((r) => r.name), ["phone"]);
      await refused(q, (s) => s`select hash from public.network_app_passwords`);
      await refused(q, (s) => s`select 1 from public.network_sessions`);
      await refused(q, (s) => s`select 1 from public.network_repos`);
      await refused(q, (s) => s`select 1 from public.network_seq`);
      await refused(q, (s) => s`insert into public.network_app_passwords (person_id, name, hash) values (${a.sub}, 'x', 'y')`);
    });
    assert.equal((await as(tx, b, (q) => q`select name from public.network_app_passwords`)).length, 0);
    // revoking (deleting) the app password ends its sessions
    await tx`delete from public.network_app_passwords where id = ${pw}`;
    assert.equal((await tx`select 1 from public.network_sessions where person_id = ${a.sub}`).length, 0);
  }));

test("an app's settings are the member's own to read and write", () =>
  rolledBack(async (tx) => {
    const a = await person(tx), b = await person(tx);
    await as(tx, a, async (q) => {
      await q`insert into public.network_prefs (person_id, preferences) values (${a.sub}, '[{"$type":"app.bsky.actor.defs#adultContentPref","enabled":false}]')`;
      await refused(q, (s) => s`insert into public.network_prefs (person_id) values (${b.sub})`, /row-level security/);
    });
    await tx`insert into public.network_prefs (person_id) values (${a.sub}) on conflict do nothing`;
    assert.equal((await as(tx, b, (q) => q`select 1 from public.network_prefs`)).length, 0);
  }));

test("network_find: actor search finds by name prefix among the people the reader may see", () =>
  rolledBack(async (tx) => {
    const name = `zq${crypto.randomUUID().slice(0, 6).replace(/-/g, "")}`;
    const a = await person(tx, name), reader = await person(tx);
    await tx`update public.profiles set display_name = 'Quintessa Example' where id = ${a.sub}`;
    const find = (who: { sub: string } | "anon", word: string) =>
      as(tx, who, async (q) =>
        (await q`select person_id from public.network_find where names @@ to_tsquery('simple', ${`${word}:*`})`).map((r) => r.person_id));
    assert.ok((await find(reader, name.slice(0, 5))).includes(a.sub));
    assert.ok((await find(reader, "quintess")).includes(a.sub));
    assert.deepEqual(await find("anon", name.slice(0, 5)), []);
  }));

test("the database refuses a reply or quote across a block, wider than its post, or by a suspended member", () =>
  rolledBack(async (tx) => {
    const a = await person(tx), b = await person(tx), c = await person(tx), joined = await person(tx);
    const p = await post(tx, a);
    await tx`insert into public.community_blocks (author_id, rkey, cid, record, subject_id) values (${a.sub}, 'b1', 'c', '{}', ${b.sub})`;
    await refusedByDatabase(tx, (q) => post(q, b, { reply: p }), /reply cannot cross a block/);
    await refusedByDatabase(tx, (q) => post(q, b, { quote: p }), /quote cannot cross a block/);
    await refusedByDatabase(tx, (q) => q`insert into public.community_likes (author_id, rkey, cid, record, post_id) values (${b.sub}, 'l', 'c', '{}', ${p})`, /like cannot cross a block/);
    await tx`update public.profiles set network_did = ${`did:plc:${joined.sub.replaceAll("-", "").slice(0, 24)}`} where id = ${joined.sub}`;
    await refusedByDatabase(tx, (q) => post(q, joined, { reply: p }), /further than the post it answers/);
    await refusedByDatabase(tx, (q) => post(q, joined, { quote: p }), /further/);
    // narrower is fine: a site-only reply to a post for everyone
    const open = await post(tx, joined);
    await post(tx, c, { reply: open });
    await tx`update public.profiles set suspended_at = now() where id = ${c.sub}`;
    await refusedByDatabase(tx, (q) => post(q, c), /suspended/);
  }));

test("only a space's members who are not suspended write or react in it", () =>
  rolledBack(async (tx) => {
    const owner = await person(tx), outsider = await person(tx), member = await person(tx);
    const [{ id: space }] = await tx`insert into public.community_spaces (slug, name) values ('rls-two', 'Two') returning id`;
    await tx`insert into public.community_space_members (space_id, person_id) values (${space}, ${owner.sub}), (${space}, ${member.sub})`;
    const [{ id: channel }] = await tx`insert into public.community_channels (space_id, kind, name) values (${space}, 'feed', 'Two') returning id`;
    const [{ id: message }] = await tx`insert into public.community_messages (channel_id, author_id, text) values (${channel}, ${owner.sub}, 'hi') returning id`;
    await refusedByDatabase(tx, (q) => q`insert into public.community_messages (channel_id, author_id, text) values (${channel}, ${outsider.sub}, 'x')`, /members/);
    await refusedByDatabase(tx, (q) => q`insert into public.community_reactions (message_id, person_id) values (${message}, ${outsider.sub})`, /members/);
    await tx`update public.community_space_members set suspended_at = now() where person_id = ${member.sub}`;
    await refusedByDatabase(tx, (q) => q`insert into public.community_messages (channel_id, author_id, text, parent_id) values (${channel}, ${member.sub}, 'x', ${message})`, /members/);
  }));

test("makePeople's profiles take part in the community like any other", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const p = await post(tx, people.admin);
    assert.deepEqual(await visiblePosts(tx, people.member, [p]), [p]);
    assert.deepEqual(await visiblePosts(tx, people.newcomer, [p]), [], "signed in without a profile is not one of the site's people");
  }));
