// Projection: the site's tables are the truth; a joined member's repository is made to agree with them.
// Whatever changed a public row (an app's write, the admin, SQL) queued its path (migration
// network_federation); projecting reads those rows, turns every difference into a write of a signed
// commit (@atproto/repo: MST, commit, signature), keeps the blocks, and appends the #commit event that
// lets a relay verify and invert it from the event alone (new blocks, proof nodes, since, prevData); a
// commit past what a relay takes in one event (COMMIT_EVENT_MAX_BLOCKS_BYTES) is announced by #sync.
import { Repo, type RecordWriteOp, WriteOpAction } from "@atproto/repo";
import { TID } from "@atproto/common-web";
import { jsonToLex } from "@atproto/lexicon";
import { cidForLex, decode } from "@atproto/lex-cbor";
import { type Cid, parseCid } from "@atproto/lex-data";
import type { Keypair } from "@atproto/crypto";
import type { RuntimeConfig } from "../../../shared/config.ts";
import type { Tx } from "../../../shared/db.ts";
import { handleOf } from "../identity.ts";
import {
  type AccountRow,
  accountOf,
  allRecordPaths,
  appendEvent,
  clearRepository,
  keepCommit,
  lockHead,
  projectionInputs,
  recordCidsAt,
  saveHead,
  saveRecordIndex,
  setAccountHandle,
  tableRecords,
} from "../store/repo.ts";
import {
  accountEventBody,
  COMMIT_EVENT_MAX_OPS,
  commitEventBody,
  commitEventCar,
  fitsCommitEvent,
  identityEventBody,
  syncEventBody,
} from "./events.ts";
import { openKey } from "./keys.ts";
import { updateHandle } from "./plc.ts";
import { PgRepoStorage } from "./storage.ts";
import { type Later, sendOrWait } from "../store/pipeline.ts";

/**
 * Hands an event this transaction appends to the firehose of this instance (Firehose.expect), so that it
 * is framed from these bytes once its transaction commits rather than read back from the table.
 */
export type Announce = (kind: "commit" | "identity" | "account" | "sync", body: Uint8Array) => void;

/** A larger change goes out as several commits, each within a commit event's limit of operations. */
const OPS_PER_COMMIT = COMMIT_EVENT_MAX_OPS;

export interface ProjectionSite {
  handleDomain: string;
}

export interface Head {
  cid: string;
  rev: string;
}

/**
 * Makes the member's repository agree with the tables at these paths (every path when undefined; '' =
 * their account: handle and standing). Runs inside the caller's transaction. Answers the head after the
 * last commit, or undefined when the member has not joined (or left) and nothing was projected.
 */
export function project(
  config: RuntimeConfig,
  tx: Tx,
  site: ProjectionSite,
  personId: string,
  paths: string[] | undefined,
  now: Date,
): Promise<Head | undefined> {
  return projectPaths(config, tx, site, personId, { paths }, now);
}

// Every API write of a joined member runs this inside its repository lock, so what it starts from is read
// in one statement (network_projection_inputs): the head, the queue, the account and, at the paths it
// expects to project (`likely`: what the write touched, or the paths it was given), the tables' rows and
// the repository's record cids. Only paths queued beyond them (the admin's edits waiting, rows a trigger
// touched) cost another round trip.
async function projectPaths(
  config: RuntimeConfig,
  tx: Tx,
  site: ProjectionSite,
  personId: string,
  asked: { paths: string[] | undefined } | { queued: true; likely: string[] },
  now: Date,
  later?: Later,
  announce?: Announce,
): Promise<Head | undefined> {
  const takeQueue = "queued" in asked;
  const likely = (takeQueue ? asked.likely : asked.paths ?? []).filter((p) => p !== "");
  const inputs = await projectionInputs(tx, personId, { takeQueue, likely });
  const { account, head } = inputs;
  const paths = takeQueue ? inputs.queued : asked.paths;
  if (!account || account.status !== "active") return undefined;
  const keypair = await openKey(config.networkKeySecret, account.signing_key);
  if (paths?.includes("")) await projectAccount(config, tx, site, account, keypair, now, announce);
  const recordPaths = paths?.filter((p) => p !== "");
  const fresh = !head?.data_cid;
  const scope = fresh ? undefined : recordPaths;
  const readAlready = inputs.records && inputs.held && scope?.every((path) => likely.includes(path));
  const [wanted, held] = readAlready ? [inputs.records!, inputs.held!] : await Promise.all([
    tableRecords(tx, personId, scope),
    fresh
      ? clearRepository(tx, personId).then(() => new Map<string, string>())
      : scope
      ? recordCidsAt(tx, personId, scope)
      : allRecordPaths(tx, personId),
  ]);
  // the record cids the writes put, worked out once (the ops of the commit event name them too)
  const cids = new Map<string, string>();
  const writes: RecordWriteOp[] = [];
  for (const path of new Set([...(scope ?? wanted.keys()), ...(scope ? [] : held.keys())])) {
    const [name, rkey] = path.split("/");
    const collection = name as `${string}.${string}.${string}`;
    const record = wanted.get(path);
    const current = held.get(path);
    if (!record) {
      if (current) writes.push({ action: WriteOpAction.Delete, collection, rkey });
      continue;
    }
    const lex = jsonToLex(record) as Record<string, unknown>;
    const cid = (await cidForLex(lex as never)).toString();
    if (current === cid) continue;
    cids.set(path, cid);
    writes.push({ action: current ? WriteOpAction.Update : WriteOpAction.Create, collection, rkey, record: lex as never });
  }
  const storage = new PgRepoStorage(tx, personId);
  let last: Head | undefined = head?.data_cid ? { cid: head.commit_cid, rev: head.rev } : undefined;
  let announced: "commit" | "sync" = "commit";
  let prevData: string | null = head?.data_cid ?? null;
  if (fresh) {
    // a repository from nothing (on joining): an empty genesis commit, then the records in batches
    const commit = await Repo.formatInitCommit(storage, account.did, keypair, []);
    ({ head: last, dataCid: prevData } = await keep(tx, storage, account, commit, [], null, now, later, cids, undefined, announce));
  }
  for (let i = 0; i < writes.length; i += OPS_PER_COMMIT) {
    const batch = writes.slice(i, i + OPS_PER_COMMIT);
    const repo = await Repo.load(storage, parseCid(last!.cid));
    const commit = await repo.formatCommit(batch, keypair);
    // `held` has every path a batch writes (each path once in all the batches): its cids are the ops' prev
    ({ head: last, announced, dataCid: prevData } = await keep(tx, storage, account, commit, batch, prevData, now, later, cids, held, announce));
  }
  // a repository made from nothing is announced whole as well (what the reference server does on
  // creating an account): a relay that missed the commits still learns the signed head
  if (fresh && announced !== "sync") await appendSync(tx, storage, account.did, last!, now, announce);
  return last;
}

/**
 * Rebuilds a member's repository from the tables in one signed commit and announces it with #sync alone
 * (a reset: the old tree is dropped, so no diff from it is sent). Undefined when the member has not
 * joined or left.
 */
export async function resetRepository(config: RuntimeConfig, tx: Tx, personId: string, now: Date): Promise<Head | undefined> {
  const account = await accountOf(tx, personId);
  if (!account || account.status !== "active") return undefined;
  const keypair = await openKey(config.networkKeySecret, account.signing_key);
  const head = await lockHead(tx, personId);
  const records = [...await tableRecords(tx, personId)].map(([path, record]) => {
    const [collection, rkey] = path.split("/");
    return { path, collection: collection as `${string}.${string}.${string}`, rkey, record: jsonToLex(record) };
  });
  await clearRepository(tx, personId);
  const storage = new PgRepoStorage(tx, personId);
  const commit = await Repo.formatInitCommit(
    storage,
    account.did,
    keypair,
    records.map((r) => ({ action: WriteOpAction.Create, collection: r.collection, rkey: r.rkey, record: r.record as never })),
    // a rev after the old head's, whatever the clock says
    head ? TID.nextStr(head.rev) : undefined,
  );
  await storage.applyCommit(commit);
  await saveRecordIndex(tx, personId, await Promise.all(records.map(async (r) => ({ path: r.path, cid: (await cidForLex(r.record as never)).toString() }))));
  const reset = { cid: commit.cid.toString(), rev: commit.rev };
  await saveHead(tx, personId, { rev: reset.rev, commit_cid: reset.cid, data_cid: dataCidOf(commit.newBlocks.get(commit.cid)!) }, now);
  await appendSync(tx, storage, account.did, reset, now);
  return reset;
}

/**
 * Signs the head again with the member's (new) key: the same tree under a new commit, announced with
 * #sync, so that what relays hold verifies against the key the directory now names.
 */
export async function resignHead(tx: Tx, personId: string, did: string, keypair: Keypair, now: Date): Promise<Head | undefined> {
  const head = await lockHead(tx, personId);
  if (!head?.data_cid) return undefined;
  const storage = new PgRepoStorage(tx, personId);
  const repo = await Repo.load(storage, parseCid(head.commit_cid));
  const commit = await repo.formatResignCommit(TID.nextStr(head.rev), keypair);
  await storage.applyCommit(commit);
  const resigned = { cid: commit.cid.toString(), rev: commit.rev };
  await saveHead(tx, personId, { rev: resigned.rev, commit_cid: resigned.cid, data_cid: head.data_cid }, now);
  await appendSync(tx, storage, did, resigned, now);
  return resigned;
}

/** Appends #sync naming the member's current head. */
export async function syncHead(tx: Tx, personId: string, did: string, now: Date): Promise<void> {
  const head = await lockHead(tx, personId);
  if (head?.data_cid) await appendSync(tx, new PgRepoStorage(tx, personId), did, { cid: head.commit_cid, rev: head.rev }, now);
}

/** Appends #sync naming this head (its signed commit block). */
export async function appendSync(
  tx: Tx,
  storage: PgRepoStorage,
  did: string,
  head: Head,
  now: Date,
  announce?: Announce,
): Promise<void> {
  const commitBytes = await storage.getBytes(parseCid(head.cid));
  if (!commitBytes) throw new Error(`the head commit ${head.cid} of ${did} is not in its repository`);
  const body = syncEventBody({ did, commitCid: head.cid, commitBytes, rev: head.rev, time: now });
  announce?.("sync", body);
  await appendEvent(tx, { did, kind: "sync", body });
}

/**
 * Projects what an app's write just queued for its writer, inside the write's own transaction; `written`
 * are the paths the write touched (read along with the queue). The commit's keeping is sent to `later`
 * rather than waited for: the write's transaction commits right behind it.
 */
export async function projectQueuedOf(
  config: RuntimeConfig,
  tx: Tx,
  site: ProjectionSite,
  personId: string,
  now: Date,
  written: string[],
  later: Later,
  announce?: Announce,
): Promise<Head | undefined> {
  return await projectPaths(config, tx, site, personId, { queued: true, likely: written }, now, later, announce);
}

function dataCidOf(commitBytes: Uint8Array): string {
  return String((decode(commitBytes) as { data: Cid }).data);
}

/**
 * Keeps a commit (its blocks, the record index, the head) and announces it: with #commit, or with #sync
 * for its head when the commit is too big for one commit event (fitsCommitEvent), so that a relay fetches
 * the repository with getRepo rather than refuse the event. `cids` are the record cids of the writes,
 * `before` the cids their paths held. Answers the head, its tree's root (the next commit's prevData) and
 * which event went out.
 */
async function keep(
  tx: Tx,
  storage: PgRepoStorage,
  account: AccountRow,
  commit: Awaited<ReturnType<Repo["formatCommit"]>>,
  writes: RecordWriteOp[],
  prevData: string | null,
  now: Date,
  later: Later | undefined,
  cids: Map<string, string>,
  before: Map<string, string> = new Map(),
  announce?: Announce,
): Promise<{ head: Head; dataCid: string; announced: "commit" | "sync" }> {
  const ops = writes.map((w) => {
    const path = `${w.collection}/${w.rkey}`;
    const cid = w.action === WriteOpAction.Delete ? null : cids.get(path)!;
    return { action: w.action, path, cid, prev: before.get(path) ?? null };
  });
  const dataCid = dataCidOf(commit.newBlocks.get(commit.cid)!);
  const head = { cid: commit.cid.toString(), rev: commit.rev };
  // the commit's new blocks, their CIDs parsed once for the event and for storage
  const newBlocks = commit.newBlocks.entries();
  const car = commitEventCar(commit, newBlocks);
  const fits = fitsCommitEvent(car, ops.length);
  const body = fits ? commitEventBody({ did: account.did, commit, car, ops, prevData, time: now }) : undefined;
  // blocks in and out, the record index, the head and the event: one statement, not waited for when the
  // caller takes it `later` (nothing here needs its answer: storage has the blocks in memory already)
  const { blocks, removed } = storage.taken(commit, newBlocks);
  if (body) announce?.("commit", body);
  await sendOrWait(later, keepCommit(tx, account.person_id, {
    rev: commit.rev,
    commitCid: head.cid,
    dataCid,
    blocks,
    removed,
    index: ops.map((op) => ({ path: op.path, cid: op.cid })),
    event: body ? { did: account.did, kind: "commit", body } : undefined,
  }, now));
  // #sync reads the signed commit from storage, where it has just been put
  if (!fits) await appendSync(tx, storage, account.did, head, now, announce);
  return { head, dataCid, announced: fits ? "commit" : "sync" };
}

/** A new handle goes to the directory and out as #identity; the member's standing goes out as #account. */
async function projectAccount(
  config: RuntimeConfig,
  tx: Tx,
  site: ProjectionSite,
  account: AccountRow,
  keypair: Keypair,
  now: Date,
  announce?: Announce,
) {
  const handle = handleOf({ id: account.person_id, username: account.username }, site.handleDomain);
  if (handle !== account.handle) {
    await updateHandle(config.networkPlcUrl, account.did, keypair, handle);
    await setAccountHandle(tx, account.person_id, handle);
    const identity = identityEventBody(account.did, handle, now);
    announce?.("identity", identity);
    await appendEvent(tx, { did: account.did, kind: "identity", body: identity });
  }
  const standing = accountEventBody(account.did, account.suspended_at ? "takendown" : "active", now);
  announce?.("account", standing);
  await appendEvent(tx, { did: account.did, kind: "account", body: standing });
}
