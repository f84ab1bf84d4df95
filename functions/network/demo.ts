// The demo community: community.yaml in a site's content directory (the demo site ships one) loaded into
// a site whose community is still empty, so `task dev` and the tests start with a living timeline. Posts,
// likes, reposts and follows get their records, keys (TIDs from their times) and CIDs as an app would
// have written them.
import { TID } from "@atproto/common-web";
import { parse as parseYaml } from "yaml";
import type { RuntimeConfig } from "../../shared/config.ts";
import type { Sql } from "../../shared/db.ts";
import { ensurePerson } from "../../shared/people.ts";
import { readSiteSettings } from "../../shared/site.ts";
import { atUri, didOf, handleDomainOf, handleOf } from "./identity.ts";
import { generateAppPassword, hashAppPassword } from "./sessions.ts";
import { memberByEmail } from "./store/people.ts";
import { appPasswordByHash, deleteAppPassword, insertAppPassword } from "./store/sessions.ts";
import { FOLLOW, LIKE, POST, recordCid, REPOST } from "./records.ts";
import {
  communityIsEmpty,
  insertSeedMessage,
  insertSeedPost,
  insertSeedSpace,
  insertSeedSubject,
  setCommunityProfile,
} from "./store/demo.ts";

interface Community {
  people?: { email: string; username: string; name?: string; description?: string }[];
  follows?: [string, string][];
  posts?: { key: string; by: string; at: string; text: string; reply?: string; quote?: string }[];
  likes?: [string, string][];
  reposts?: [string, string][];
  spaces?: {
    slug: string;
    name: string;
    description?: string;
    members: string[];
    owner?: string;
    messages?: { key: string; by: string; at: string; text: string; reply?: string }[];
    hearts?: [string, string][];
  }[];
}

/** After a site import: the demo community of the imported directory, under the site's handle domain. */
export async function loadSiteCommunity(sql: Sql, dir: string, config: RuntimeConfig): Promise<string | undefined> {
  const settings = await readSiteSettings(sql);
  return settings ? await loadDemoCommunity(sql, dir, handleDomainOf(config, settings)) : undefined;
}

/** Loads `<dir>/community.yaml` when the site has one and its community is empty; answers what it did. */
export async function loadDemoCommunity(sql: Sql, dir: string, handleDomain: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await Deno.readTextFile(`${dir}/community.yaml`);
  } catch {
    return undefined;
  }
  const community = parseYaml(text) as Community;
  return await sql.begin(async (tx) => {
    if (!(await communityIsEmpty(tx))) return undefined;
    const people = new Map<string, { id: string; did: string }>();
    for (const p of community.people ?? []) {
      const person = await ensurePerson(tx, p.email);
      await setCommunityProfile(tx, person.id, p.username, p.name ?? p.username, p.description ?? "");
      people.set(p.username, { id: person.id, did: didOf({ id: person.id, username: p.username }, handleDomain) });
    }
    const who = (name: string) => {
      const person = people.get(name);
      if (!person) throw new Error(`community.yaml: nobody has the username ${name}`);
      return person;
    };
    let clock = 0;
    const keyAt = (at: string) => TID.fromTime(new Date(at).getTime() * 1000, clock++ % 1024).toString();

    const posts = new Map<string, { id: number; uri: string; cid: string; at: string; root?: string }>();
    for (const p of community.posts ?? []) {
      const author = who(p.by);
      const rkey = keyAt(p.at);
      const parent = p.reply ? posts.get(p.reply) : undefined;
      const root = parent ? posts.get(parent.root ?? p.reply!) ?? parent : undefined;
      const quoted = p.quote ? posts.get(p.quote) : undefined;
      const record: Record<string, unknown> = {
        $type: POST,
        text: p.text,
        ...(parent && root
          ? { reply: { root: { uri: root.uri, cid: root.cid }, parent: { uri: parent.uri, cid: parent.cid } } }
          : {}),
        ...(quoted ? { embed: { $type: "app.bsky.embed.record", record: { uri: quoted.uri, cid: quoted.cid } } } : {}),
        createdAt: new Date(p.at).toISOString(),
      };
      const cid = await recordCid(record);
      const id = await insertSeedPost(tx, {
        authorId: author.id,
        rkey,
        cid,
        record,
        text: p.text,
        embed: record.embed,
        replyRootId: root?.id,
        replyParentId: parent?.id,
        quoteId: quoted?.id,
        at: new Date(p.at),
      });
      posts.set(p.key, { id, uri: atUri(author.did, POST, rkey), cid, at: p.at, root: parent ? (parent.root ?? p.reply) : undefined });
    }

    const subjectRecords = async (collection: typeof LIKE | typeof REPOST, pairs: [string, string][]) => {
      for (const [name, key] of pairs) {
        const post = posts.get(key);
        if (!post) throw new Error(`community.yaml: no post ${key}`);
        const at = new Date(new Date(post.at).getTime() + 600_000);
        const record = { $type: collection, subject: { uri: post.uri, cid: post.cid }, createdAt: at.toISOString() };
        await insertSeedSubject(tx, collection, who(name).id, keyAt(at.toISOString()), await recordCid(record), record, { postId: post.id }, at);
      }
    };
    await subjectRecords(LIKE, community.likes ?? []);
    await subjectRecords(REPOST, community.reposts ?? []);
    for (const [name, subject] of community.follows ?? []) {
      const at = new Date("2026-11-19T12:00:00Z");
      const record = { $type: FOLLOW, subject: who(subject).did, createdAt: at.toISOString() };
      await insertSeedSubject(tx, FOLLOW, who(name).id, keyAt(at.toISOString()), await recordCid(record), record, { personId: who(subject).id }, at);
    }

    for (const s of community.spaces ?? []) {
      const channelId = await insertSeedSpace(tx, {
        slug: s.slug,
        name: s.name,
        description: s.description ?? "",
        ownerId: who(s.owner ?? s.members[0]).id,
        memberIds: s.members.map((m) => who(m).id),
      });
      const messages = new Map<string, { id: number; root: number }>();
      for (const m of s.messages ?? []) {
        const parent = m.reply ? messages.get(m.reply) : undefined;
        const id = await insertSeedMessage(tx, { channelId, authorId: who(m.by).id, text: m.text, parentId: parent?.id, rootId: parent?.root, at: new Date(m.at) });
        messages.set(m.key, { id, root: parent?.root ?? id });
      }
      for (const [name, key] of s.hearts ?? []) {
        const message = messages.get(key);
        if (!message) throw new Error(`community.yaml: no message ${key} in ${s.slug}`);
        await insertSeedSubject(tx, "heart", who(name).id, null, null, null, { messageId: message.id }, new Date());
      }
    }
    return `community: ${people.size} people, ${posts.size} posts, ${(community.spaces ?? []).length} space(s)`;
  }) as string | undefined;
}

export interface DemoSignIn {
  handle: string;
  did: string;
  app_password: string;
}

const DEMO_APP_PASSWORD_NAME = "task dev";

/**
 * A demo member who can sign an app in at once (`task dev` writes it to dev.json): their handle, DID and
 * an app password named "task dev". The one from the last run is kept while it still works.
 */
export async function demoSignIn(
  sql: Sql,
  config: RuntimeConfig,
  email: string,
  previous: string | undefined,
): Promise<DemoSignIn | undefined> {
  const settings = await readSiteSettings(sql);
  const member = await memberByEmail(sql, email);
  if (!settings || !member) return undefined;
  const domain = handleDomainOf(config, settings);
  const identity = { handle: handleOf(member, domain), did: didOf(member, domain) };
  if (previous && (await appPasswordByHash(sql, member.id, await hashAppPassword(previous)))) {
    return { ...identity, app_password: previous };
  }
  await deleteAppPassword(sql, member.id, DEMO_APP_PASSWORD_NAME);
  const password = generateAppPassword();
  await insertAppPassword(sql, {
    personId: member.id,
    name: DEMO_APP_PASSWORD_NAME,
    hash: await hashAppPassword(password),
    privileged: false,
    now: new Date(),
  });
  return { ...identity, app_password: password };
}
