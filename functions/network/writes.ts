// A member's writes to their own repository: createRecord, putRecord, deleteRecord and applyWrites all
// come here as a list of operations, run in one transaction against the repository head (swapCommit),
// each record checked against its lexicon and mapped onto the community tables.
import { TID } from "@atproto/common-web";
import type { FunctionContext } from "../../shared/context.ts";
import type { Tx } from "../../shared/db.ts";
import { firehoseOf } from "./federation/hub.ts";
import { type Announce, projectQueuedOf } from "./federation/project.ts";
import { atUri } from "./identity.ts";
import {
  BLOCK,
  type BlobRefJson,
  checkRkey,
  type Collection,
  FOLLOW,
  LIKE,
  mediaOf,
  messageIdOfKey,
  messageRecord,
  parseRecordUri,
  POST,
  PROFILE,
  quotedUri,
  recordCid,
  REPOST,
  spaceMessageKey,
  validateRecord,
} from "./records.ts";
import { resolveActor } from "./resolve.ts";
import {
  currentCid,
  deleteRecordRow,
  insertHeart,
  insertPost,
  insertRoomReply,
  insertSubjectPerson,
  insertSubjectPost,
  lockRepo,
  makeRepoHead,
  messageOf,
  postIdOf,
  type RepoHead,
  repoSummary,
  saveProfile,
  saveRepoHead,
  type Stored,
  type TableCollection,
  uploadedBlobs,
} from "./store/writer.ts";
import { RECORD_TABLES } from "./store/reader/records.ts";
import { type Later, pipelinedTransaction } from "./store/pipeline.ts";
import { forbidden, invalidRecord, invalidSwap } from "./xrpc/errors.ts";
import type { NetworkSite, Viewer } from "./xrpc/method.ts";

export type WriteOp =
  | { action: "create"; collection: Collection; rkey?: string; record: unknown }
  | { action: "update"; collection: Collection; rkey: string; record: unknown; swapRecord?: string | null }
  | { action: "delete"; collection: Collection; rkey: string; swapRecord?: string | null };

export type WriteResult =
  | { action: "create" | "update"; uri: string; cid: string }
  | { action: "delete" };

export interface WriteOutcome {
  results: WriteResult[];
  commit: RepoHead;
}

/** The repository named by `repo` must be the writer's own (Forbidden otherwise). */
export async function checkOwnRepo(ctx: FunctionContext, site: NetworkSite, viewer: Viewer, repo: string) {
  if (repo === viewer.did || repo.toLowerCase() === viewer.handle) return;
  const member = await resolveActor(ctx.sql, repo, site.handleDomain);
  if (member?.id !== viewer.id) throw forbidden("Members write to their own repository only.");
}

/** A write checked and hashed before the repository is locked: the lock is held for the SQL alone. */
type Prepared =
  | { op: WriteOp & { action: "delete" }; rkey: string }
  | { op: WriteOp & { action: "create" | "update" }; rkey: string; record: Record<string, unknown>; cid: string; keyIsOurs: boolean };

async function prepare(op: WriteOp): Promise<Prepared> {
  const keyIsOurs = op.action === "create" && op.rkey === undefined && op.collection !== PROFILE;
  const rkey = op.action === "create" ? op.rkey ?? (op.collection === PROFILE ? "self" : TID.nextStr()) : op.rkey;
  checkRkey(op.collection, rkey);
  if (op.action === "delete") return { op, rkey };
  const record = validateRecord(op.collection, op.record);
  return { op, rkey, record, cid: await recordCid(record), keyIsOurs };
}

/** A member's first write finds no head to lock: it is made, and the write runs again holding it. */
const NO_HEAD = Symbol("no repository head yet");

export async function applyWrites(
  ctx: FunctionContext,
  site: NetworkSite,
  viewer: Viewer,
  ops: WriteOp[],
  options: { swapCommit?: string; now: Date },
): Promise<WriteOutcome> {
  const prepared: Prepared[] = [];
  for (const op of ops) prepared.push(await prepare(op));
  // the events the projection appends, handed to this instance's firehose to frame once they commit
  const firehose = firehoseOf(ctx);
  const expected: string[] = [];
  const announce: Announce = (kind, body) => {
    const key = firehose.expect(kind, body);
    if (key) expected.push(key);
  };
  try {
    let outcome = await writeOnce(ctx, site, viewer, prepared, options, announce);
    if (outcome === NO_HEAD) {
      await makeRepoHead(ctx.sql, viewer.id, await initialHead(viewer.did));
      outcome = await writeOnce(ctx, site, viewer, prepared, options, announce);
      if (outcome === NO_HEAD) throw new Error(`the repository head of ${viewer.did} is missing`);
    }
    firehose.committed(expected);
    return outcome;
  } catch (error) {
    firehose.forget(expected);
    const taken = keyTaken(error);
    if (taken) throw keyTakenError(taken.collection, taken.rkey);
    // a second like, repost, follow or block of the same subject
    if ((error as { code?: string })?.code === "23505") {
      throw invalidRecord("That record is there already: one like, repost, follow or block per subject.");
    }
    throw error;
  }
}

/**
 * One transaction of the write. The repository lock is its first statement and the write's own statements
 * queue behind it on the connection without waiting for it (the server runs none of them before the lock
 * is held), so the lock, the rows and the projection's reads go out together; the inserts and the
 * commit's keeping are not waited for either, and the COMMIT follows them (store/pipeline.ts).
 */
async function writeOnce(
  ctx: FunctionContext,
  site: NetworkSite,
  viewer: Viewer,
  prepared: Prepared[],
  options: { swapCommit?: string; now: Date },
  announce: Announce,
): Promise<WriteOutcome | typeof NO_HEAD> {
  try {
    return await pipelinedTransaction(ctx.sql, async (tx, later) => {
      const head = lockRepo(tx, viewer.id).then((head) => {
        if (!head) throw NO_HEAD;
        if (options.swapCommit !== undefined && options.swapCommit !== head.cid) {
          throw invalidSwap(`Commit was at ${head.cid}`);
        }
        return head;
      });
      head.catch(() => {});
      try {
        const results: WriteResult[] = [];
        for (const write of prepared) results.push(await applyOne(tx, site, viewer, write, options.now, later));
        // a joined member's write becomes a signed commit of their repository in this same transaction
        // (only theirs are queued: the queueing trigger skips members without an account). A joined
        // member's DID is their did:plc (made with the account), anybody else's a did:web: by that, the
        // projection's reads go out behind the write's statements; the lock's answer decides, and a member
        // who joined since the session was read is projected after it.
        const written = prepared.map((write) => `${write.op.collection}/${write.rkey}`);
        const project = () => projectQueuedOf(ctx.config, tx, site, viewer.id, options.now, written, later, announce);
        const projecting = viewer.did.startsWith("did:plc:") ? project() : undefined;
        projecting?.catch(() => {});
        const locked = await head;
        const projected = projecting ? await projecting : locked.joined ? await project() : undefined;
        if (projected) return { results, commit: projected };
        const rev = TID.nextStr(locked.rev);
        const commit = {
          rev,
          cid: await recordCid({ did: viewer.did, version: 3, rev, prev: locked.cid, writes: results } as never),
        };
        later(saveRepoHead(tx, viewer.id, commit, options.now));
        return { results, commit };
      } catch (error) {
        await head; // the head's own refusals (no head yet, swapCommit) come before the write's
        throw error;
      }
    });
  } catch (error) {
    if (error === NO_HEAD) return NO_HEAD;
    throw error;
  }
}

/** Applies one operation; the statements whose answers it does not need go to `later`. */
async function applyOne(
  tx: Tx,
  site: NetworkSite,
  viewer: Viewer,
  write: Prepared,
  now: Date,
  later: Later,
): Promise<WriteResult> {
  const rkey = write.rkey;
  if (write.op.action !== "create" && write.op.swapRecord !== undefined) {
    const current = await currentCid(tx, write.op.collection as never, viewer.id, rkey);
    if ((write.op.swapRecord ?? undefined) !== current) throw invalidSwap(`Record was at ${current ?? "nothing"}`);
  }
  if (!("record" in write)) {
    if (write.op.collection === PROFILE) later(clearProfile(tx, viewer.id, now));
    else await deleteRecordRow(tx, write.op.collection, viewer.id, rkey);
    return { action: "delete" };
  }
  const { op, record, cid } = write;
  if (op.collection === PROFILE) {
    await putProfile(tx, viewer.id, record, cid, now, later);
    return { action: op.action, uri: atUri(viewer.did, PROFILE, rkey), cid };
  }
  // an app's edit replaces the record whole; a post keeps its row (and so the replies and quotes of it)
  if (op.action === "update" && op.collection !== POST) await deleteRecordRow(tx, op.collection, viewer.id, rkey);
  // A key the app chose may be taken (one we made just now, a TID, strictly increasing, cannot be): a new
  // row of the record's table is a plain insert, refused by the table's (author, rkey) key (keyTaken
  // answers that as InvalidSwap), so nothing is read first. A row that goes to another table (a heart, a
  // room's reply) is checked against the record's table first.
  const keyMayBeTaken = op.action === "create" && !write.keyIsOurs;
  const createdAt = validDate(record.createdAt) ?? now;
  const stored: Stored = { rkey, cid, record, createdAt, now };
  switch (op.collection) {
    case POST:
      return await writePost(tx, site, viewer, stored, op.action, later, keyMayBeTaken);
    case LIKE:
    case REPOST: {
      const subject = await subjectPost(tx, site, (record.subject as { uri?: string })?.uri);
      if ("messageId" in subject) {
        if (op.collection === REPOST) throw invalidRecord("A space's post cannot be reposted.");
        if (keyMayBeTaken) await keyFree(tx, op.collection, viewer.id, rkey);
        later(insertHeart(tx, viewer.id, subject.messageId, rkey, now));
      } else {
        later(insertSubjectPost(tx, op.collection, viewer.id, stored, subject.postId));
      }
      break;
    }
    case FOLLOW:
    case BLOCK: {
      const subject = await resolveActor(tx, String(record.subject), site.handleDomain);
      if (!subject) throw invalidRecord("The subject is not a member of this site.");
      if (subject.id === viewer.id) throw invalidRecord(`You cannot ${op.collection === FOLLOW ? "follow" : "block"} yourself.`);
      later(insertSubjectPerson(tx, op.collection, viewer.id, stored, subject.id));
      break;
    }
  }
  return { action: op.action, uri: atUri(viewer.did, op.collection, rkey), cid };
}

async function writePost(
  tx: Tx,
  site: NetworkSite,
  viewer: Viewer,
  stored: Stored,
  action: "create" | "update",
  later: Later,
  keyMayBeTaken: boolean,
): Promise<WriteResult> {
  const record = stored.record;
  const media = mediaOf(record.embed);
  await checkBlobs(tx, viewer.id, [...media.pictures, ...(media.video ? [media.video] : [])]);
  const reply = record.reply as { root?: { uri?: string }; parent?: { uri?: string } } | undefined;
  const parent = reply ? await subjectPost(tx, site, reply.parent?.uri, { missing: "ok" }) : undefined;
  if (parent && "messageId" in parent) {
    // an answer to a space's post becomes a reply in that room
    if (keyMayBeTaken) await keyFree(tx, POST, viewer.id, stored.rkey);
    const message = await messageOf(tx, parent.messageId);
    if (!message) throw invalidRecord("The post this answers is gone.");
    const id = await insertRoomReply(tx, viewer.id, message, {
      text: String(record.text ?? ""),
      facets: record.facets,
      embed: record.embed,
      createdAt: stored.createdAt,
    });
    const shown = messageRecord(
      { text: String(record.text ?? ""), facets: record.facets, embed: record.embed, created_at: stored.createdAt },
      record.reply as never,
    );
    return { action, uri: atUri(viewer.did, POST, spaceMessageKey(id)), cid: await recordCid(shown) };
  }
  const root = reply ? await subjectPost(tx, site, reply.root?.uri, { missing: "ok" }) : undefined;
  const quoted = quotedUri(record.embed);
  const quote = quoted ? await subjectPost(tx, site, quoted, { missing: "ok" }) : undefined;
  later(insertPost(tx, viewer.id, stored, {
    text: String(record.text ?? ""),
    facets: record.facets,
    embed: record.embed,
    pictureCount: media.pictures.length,
    hasVideo: Boolean(media.video),
    replyRootId: root && "postId" in root ? root.postId : undefined,
    replyParentId: parent && "postId" in parent ? parent.postId : undefined,
    quoteId: quote && "postId" in quote ? quote.postId : undefined,
  }, { replace: action === "update" }));
  return { action, uri: atUri(viewer.did, POST, stored.rkey), cid: stored.cid };
}

/** Refuses a key the app chose that a record of this collection has already (InvalidSwap). */
async function keyFree(tx: Tx, collection: TableCollection, personId: string, rkey: string): Promise<void> {
  if (await currentCid(tx, collection, personId, rkey)) throw keyTakenError(collection, rkey);
}

function keyTakenError(collection: string, rkey: string) {
  return invalidSwap(`There is a ${collection} record with the key ${rkey} already.`);
}

/** The collection whose table has this name (store/reader/records.ts RECORD_TABLES). */
const COLLECTION_OF_TABLE = new Map<string, string>(
  Object.entries(RECORD_TABLES).map(([collection, table]) => [table, collection]),
);

/**
 * A record table's (author, rkey) key refusing a new row: the key the app chose is taken. Answers the
 * collection and key from the database's error, else undefined.
 */
function keyTaken(error: unknown): { collection: string; rkey: string } | undefined {
  const e = error as { code?: string; table_name?: string; constraint_name?: string; detail?: string };
  if (e?.code !== "23505" || !e.table_name || e.constraint_name !== `${e.table_name}_author_id_rkey_key`) return undefined;
  const collection = COLLECTION_OF_TABLE.get(e.table_name);
  const rkey = /\(author_id, rkey\)=\([^,]*, (.*)\) already exists/.exec(e.detail ?? "")?.[1];
  return collection && rkey !== undefined ? { collection, rkey } : undefined;
}

type Subject = { postId: number } | { messageId: number } | { missing: true };

/**
 * The post an at-uri names on this site: a post row, or a space's message (`s~` key). A like or repost
 * needs it to be here; a reply or quote of something not here (gone, or elsewhere) keeps only its record.
 */
async function subjectPost(
  tx: Tx,
  site: NetworkSite,
  uri: string | undefined,
  options: { missing?: "ok" } = {},
): Promise<{ postId: number } | { messageId: number }> {
  const found = await findPost(tx, site, uri);
  if ("missing" in found) {
    if (options.missing === "ok") return found as never;
    throw invalidRecord("The subject is not a post on this site.");
  }
  return found;
}

async function findPost(tx: Tx, site: NetworkSite, uri: string | undefined): Promise<Subject> {
  const parts = parseRecordUri(uri, "subject.uri");
  if (parts.collection !== POST) return { missing: true };
  const author = await resolveActor(tx, parts.repo, site.handleDomain);
  if (!author) return { missing: true };
  const messageId = messageIdOfKey(parts.rkey);
  if (messageId !== undefined) {
    const message = await messageOf(tx, messageId);
    return message && message.author_id === author.id ? { messageId } : { missing: true };
  }
  const postId = await postIdOf(tx, author.id, parts.rkey);
  return postId === undefined ? { missing: true } : { postId };
}

/** A record may show only blobs its author uploaded here. */
async function checkBlobs(tx: Tx, personId: string, blobs: BlobRefJson[]): Promise<Map<string, string>> {
  const cids = blobs.map((b) => b.ref?.$link).filter((c): c is string => typeof c === "string");
  const known = await uploadedBlobs(tx, personId, cids);
  const missing = cids.find((c) => !known.has(c));
  if (missing) throw invalidRecord(`Blob ${missing} was not uploaded by this member (com.atproto.repo.uploadBlob).`);
  return known;
}

async function putProfile(
  tx: Tx,
  personId: string,
  record: Record<string, unknown>,
  cid: string,
  now: Date,
  later: Later,
) {
  const avatar = record.avatar as BlobRefJson | undefined;
  const banner = record.banner as BlobRefJson | undefined;
  const known = await checkBlobs(tx, personId, [avatar, banner].filter((b): b is BlobRefJson => Boolean(b)));
  const picture = (b: BlobRefJson | undefined) => b ? { cid: b.ref.$link, mime: known.get(b.ref.$link)! } : undefined;
  later(saveProfile(tx, personId, {
    displayName: typeof record.displayName === "string" ? record.displayName : "",
    description: typeof record.description === "string" ? record.description : "",
    avatar: picture(avatar),
    banner: picture(banner),
    record,
    cid,
    now,
  }));
}

/** Deleting the profile record leaves the site's profile with no display name, description or pictures. */
function clearProfile(tx: Tx, personId: string, now: Date): Promise<void> {
  return saveProfile(tx, personId, { displayName: "", description: "", record: null, cid: null, now });
}

function validDate(value: unknown): Date | undefined {
  const date = typeof value === "string" ? new Date(value) : undefined;
  return date && !Number.isNaN(date.getTime()) ? date : undefined;
}

/** A repository that was never written to has a head all the same, made from its DID alone. */
async function initialHead(did: string): Promise<RepoHead> {
  const rev = "2222222222222";
  return { rev, cid: await recordCid({ did, version: 3, rev } as never) };
}

/** The head and counts for checkAccountStatus. */
export async function repoStatus(ctx: FunctionContext, viewer: Viewer) {
  const summary = await repoSummary(ctx.sql, viewer.id);
  const initial = await initialHead(viewer.did);
  return { rev: summary.rev ?? initial.rev, cid: summary.cid ?? initial.cid, records: summary.records, blobs: summary.blobs };
}

