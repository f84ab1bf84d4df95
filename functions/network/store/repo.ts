// SQL of the federated side (service role): joined members' accounts, their repository blocks and
// record index, the projection queue, the event stream (network_seq), subscribers and crawls.
import type { Db, Tx } from "../../../shared/db.ts";

export interface AccountRow {
  person_id: string;
  did: string;
  signing_key: string;
  signing_did_key: string;
  handle: string;
  status: "active" | "deactivated";
  username: string | null;
  suspended_at: Date | null;
}

const accountColumns = (db: Db) =>
  db`a.person_id, a.did, a.signing_key, a.signing_did_key, a.handle, a.status, p.username, p.suspended_at`;

export async function accountOf(db: Db, personId: string): Promise<AccountRow | undefined> {
  const [row] = await db<AccountRow[]>`
    select ${accountColumns(db)} from public.network_accounts a join public.profiles p on p.id = a.person_id
    where a.person_id = ${personId}`;
  return row;
}

export async function accountByDid(db: Db, did: string): Promise<AccountRow | undefined> {
  const [row] = await db<AccountRow[]>`
    select ${accountColumns(db)} from public.network_accounts a join public.profiles p on p.id = a.person_id
    where a.did = ${did}`;
  return row;
}

export async function insertAccount(
  tx: Tx,
  account: { personId: string; did: string; sealedKey: string; didKey: string; handle: string; now: Date },
): Promise<void> {
  await tx`
    insert into public.network_accounts (person_id, did, signing_key, signing_did_key, handle, joined_at)
    values (${account.personId}, ${account.did}, ${account.sealedKey}, ${account.didKey}, ${account.handle}, ${account.now})`;
  await tx`update public.profiles set network_did = ${account.did} where id = ${account.personId}`;
}

export async function setAccountStatus(tx: Tx, personId: string, status: "active" | "deactivated", now: Date) {
  await tx`
    update public.network_accounts set status = ${status}, left_at = ${status === "active" ? null : now}
    where person_id = ${personId}`;
}

export async function setAccountHandle(tx: Tx, personId: string, handle: string) {
  await tx`update public.network_accounts set handle = ${handle} where person_id = ${personId}`;
}

// ---- a new signing key on its way to the directory (migration network_key_rotations)

export interface RotationRow {
  signing_key: string;
  signing_did_key: string;
  started_at: Date;
}

/** Keeps the new key unless another rotation of the member's waits; answers whether it was kept. */
export async function startRotation(db: Db, r: { personId: string; sealedKey: string; didKey: string; now: Date }) {
  const rows = await db`
    insert into public.network_key_rotations (person_id, signing_key, signing_did_key, started_at)
    values (${r.personId}, ${r.sealedKey}, ${r.didKey}, ${r.now}) on conflict (person_id) do nothing returning 1`;
  return rows.length === 1;
}

export async function pendingRotation(db: Db, personId: string): Promise<RotationRow | undefined> {
  const [row] = await db<RotationRow[]>`
    select signing_key, signing_did_key, started_at from public.network_key_rotations where person_id = ${personId}`;
  return row;
}

export async function dropRotation(db: Db, personId: string, didKey: string) {
  await db`delete from public.network_key_rotations where person_id = ${personId} and signing_did_key = ${didKey}`;
}

/** The account takes the kept key (the directory names it now); false when another key is kept instead. */
export async function finishRotation(tx: Tx, personId: string, didKey: string): Promise<boolean> {
  const rows = await tx`
    with taken as (
      delete from public.network_key_rotations where person_id = ${personId} and signing_did_key = ${didKey}
      returning signing_key, signing_did_key
    )
    update public.network_accounts a set signing_key = taken.signing_key, signing_did_key = taken.signing_did_key
    from taken where a.person_id = ${personId} returning 1`;
  return rows.length === 1;
}

// ---- repository head, blocks and record index

export interface RepoHeadRow {
  rev: string;
  commit_cid: string;
  data_cid: string | null;
}

/** The head, locked for this transaction (one writer per repository at a time). */
export async function lockHead(tx: Tx, personId: string): Promise<RepoHeadRow | undefined> {
  const [row] = await tx<RepoHeadRow[]>`
    select rev, commit_cid, data_cid from public.network_repos where person_id = ${personId} for update`;
  return row;
}

export async function headOf(db: Db, personId: string): Promise<RepoHeadRow | undefined> {
  const [row] = await db<RepoHeadRow[]>`
    select rev, commit_cid, data_cid from public.network_repos where person_id = ${personId} and data_cid is not null`;
  return row;
}

export async function saveHead(tx: Tx, personId: string, head: RepoHeadRow, now: Date) {
  await tx`
    insert into public.network_repos (person_id, rev, commit_cid, data_cid, updated_at)
    values (${personId}, ${head.rev}, ${head.commit_cid}, ${head.data_cid}, ${now})
    on conflict (person_id) do update set rev = excluded.rev, commit_cid = excluded.commit_cid,
      data_cid = excluded.data_cid, updated_at = excluded.updated_at`;
}

/**
 * These blocks of the member's, each read by its primary key: `cid = any(...)` beside the person alone
 * (or a join the planner flattens) was planned as a pass over all the member's blocks, by their (person,
 * rev) index, while the table's statistics were young; `offset 0` keeps the lookup a probe per cid.
 */
export async function blocksByCid(db: Db, personId: string, cids: string[]): Promise<{ cid: string; bytes: Uint8Array }[]> {
  if (cids.length === 0) return [];
  return await db<{ cid: string; bytes: Uint8Array }[]>`
    select b.cid, b.bytes from unnest(${cids}::text[]) as wanted (cid)
    cross join lateral (
      select cid, bytes from public.network_repo_blocks where person_id = ${personId} and cid = wanted.cid offset 0
    ) b`;
}

export async function putBlocks(tx: Tx, personId: string, rev: string, blocks: { cid: string; bytes: Uint8Array }[]) {
  if (blocks.length === 0) return;
  const rows = blocks.map((b) => ({ person_id: personId, cid: b.cid, rev, bytes: b.bytes }));
  await tx`insert into public.network_repo_blocks ${tx(rows, "person_id", "cid", "rev", "bytes")} on conflict do nothing`;
}

export async function deleteBlocks(tx: Tx, personId: string, cids: string[]) {
  if (cids.length === 0) return;
  await tx`delete from public.network_repo_blocks where person_id = ${personId} and cid = any(${cids})`;
}

/** A commit's blocks in, the ones it left unreachable out, in one statement (it runs inside the repo lock). */
export async function replaceBlocks(
  tx: Tx,
  personId: string,
  rev: string,
  blocks: { cid: string; bytes: Uint8Array }[],
  removed: string[],
) {
  if (removed.length === 0) return await putBlocks(tx, personId, rev, blocks);
  if (blocks.length === 0) return await deleteBlocks(tx, personId, removed);
  const rows = blocks.map((b) => ({ person_id: personId, cid: b.cid, rev, bytes: b.bytes }));
  await tx`
    with gone as (delete from public.network_repo_blocks where person_id = ${personId} and cid = any(${removed}))
    insert into public.network_repo_blocks ${tx(rows, "person_id", "cid", "rev", "bytes")} on conflict do nothing`;
}

/** The blocks a commit after `since` wrote (getRepo?since=). */
export async function blocksSince(db: Db, personId: string, since: string | undefined) {
  return await db<{ cid: string; bytes: Uint8Array }[]>`
    select cid, bytes from public.network_repo_blocks
    where person_id = ${personId} ${since ? db`and rev > ${since}` : db``} order by rev, cid`;
}

/** The record cids at these paths, each read by its key (see blocksByCid: not a pass over the member's records). */
export async function recordCidsAt(db: Db, personId: string, paths: string[]): Promise<Map<string, string>> {
  const rows = await db<{ path: string; cid: string }[]>`
    select r.path, r.cid from (select distinct path from unnest(${paths}::text[]) as wanted (path)) wanted
    cross join lateral (
      select path, cid from public.network_repo_records where person_id = ${personId} and path = wanted.path offset 0
    ) r`;
  return new Map(rows.map((r) => [r.path, r.cid]));
}

export async function allRecordPaths(db: Db, personId: string): Promise<Map<string, string>> {
  const rows = await db<{ path: string; cid: string }[]>`
    select path, cid from public.network_repo_records where person_id = ${personId}`;
  return new Map(rows.map((r) => [r.path, r.cid]));
}

export async function saveRecordIndex(
  tx: Tx,
  personId: string,
  changes: { path: string; cid: string | null }[],
) {
  const gone = changes.filter((c) => c.cid === null).map((c) => c.path);
  const put = changes.filter((c) => c.cid !== null).map((c) => ({ person_id: personId, path: c.path, cid: c.cid }));
  if (gone.length) {
    await tx`delete from public.network_repo_records where person_id = ${personId} and path = any(${gone})`;
  }
  if (put.length) {
    await tx`insert into public.network_repo_records ${tx(put, "person_id", "path", "cid")}
      on conflict (person_id, path) do update set cid = excluded.cid`;
  }
}

export async function clearRepository(tx: Tx, personId: string) {
  await tx`delete from public.network_repo_blocks where person_id = ${personId}`;
  await tx`delete from public.network_repo_records where person_id = ${personId}`;
}

// ---- what the site's tables say the repository holds

/**
 * The records the tables hold at these paths (all of the member's public records when paths is
 * undefined): posts only when everyone may see them; the profile as an app wrote it, else the site's
 * display name and description (migration network_projection_statements, network_table_records).
 */
export async function tableRecords(
  db: Db,
  personId: string,
  paths?: string[],
): Promise<Map<string, Record<string, unknown>>> {
  const rows = await db<{ path: string; record: Record<string, unknown> }[]>`
    select path, record from public.network_table_records(${personId}, ${paths ?? null}::text[])`;
  return new Map(rows.map((r) => [r.path, r.record]));
}

/** What projecting a member starts from (network_projection_inputs), read in one statement. */
export interface ProjectionInputs {
  /** the paths taken off the queue (undefined unless asked to take them) */
  queued: string[] | undefined;
  account: AccountRow | undefined;
  head: RepoHeadRow | undefined;
  /** the tables' records at the likely paths (undefined when none were named) */
  records: Map<string, Record<string, unknown>> | undefined;
  /** the repository's record cids at the likely paths (undefined when none were named) */
  held: Map<string, string> | undefined;
}

/**
 * Locks the member's head for this transaction, takes their queued paths when `takeQueue`, and reads their
 * account and, at the `likely` paths, the tables' records and the repository's cids: one round trip.
 */
export async function projectionInputs(
  tx: Tx,
  personId: string,
  options: { takeQueue: boolean; likely: string[] },
): Promise<ProjectionInputs> {
  const [row] = await tx<
    (Omit<AccountRow, "person_id"> & RepoHeadRow & {
      queued: string[] | null;
      records: Record<string, Record<string, unknown>> | null;
      held: Record<string, string> | null;
    })[]
  >`select * from public.network_projection_inputs(${personId}, ${options.takeQueue}, ${options.likely}::text[])`;
  const { queued, records, held, rev, commit_cid, data_cid, ...account } = row;
  return {
    queued: options.takeQueue ? queued ?? [] : undefined,
    account: account.did === null ? undefined : { person_id: personId, ...account },
    head: rev === null ? undefined : { rev, commit_cid, data_cid },
    records: records ? new Map(Object.entries(records)) : undefined,
    held: held ? new Map(Object.entries(held)) : undefined,
  };
}

/** A commit to keep: its new blocks, the ones it left unreachable, the record index at its paths, the head. */
export interface KeptCommit {
  rev: string;
  commitCid: string;
  dataCid: string;
  blocks: { cid: string; bytes: Uint8Array }[];
  removed: string[];
  /** a null cid: no record there any more */
  index: { path: string; cid: string | null }[];
  /** its event, if it goes out as one (appendEvent's) */
  event?: { did: string; kind: SeqEvent["kind"]; body: Uint8Array };
}

/** Keeps a commit (network_keep_commit): blocks in and out, the record index, the head and its event, in one statement. */
export async function keepCommit(tx: Tx, personId: string, commit: KeptCommit, now: Date): Promise<void> {
  const lengths = commit.blocks.map((b) => b.bytes.byteLength);
  const bytes = new Uint8Array(lengths.reduce((sum, n) => sum + n, 0));
  let at = 0;
  for (const block of commit.blocks) {
    bytes.set(block.bytes, at);
    at += block.bytes.byteLength;
  }
  await tx`
    select public.network_keep_commit(${personId}, ${commit.rev}, ${commit.commitCid}, ${commit.dataCid},
      ${commit.blocks.map((b) => b.cid)}::text[], ${bytes}, ${lengths}::integer[], ${commit.removed}::text[],
      ${commit.index.map((c) => c.path)}::text[], ${commit.index.map((c) => c.cid)}::text[],
      ${commit.event?.did ?? null}, ${commit.event?.kind ?? null}, ${commit.event?.body ?? null}::bytea, ${now})`;
}

// ---- the projection queue

/** Claims one member's queued paths (skipping members another instance is projecting). */
/** The oldest queued member's paths, taken off the queue (not one of `passedOver`, which failed this drain). */
export async function claimQueued(
  tx: Tx,
  passedOver: string[] = [],
): Promise<{ personId: string; paths: string[] } | undefined> {
  const rows = await tx<{ person_id: string; path: string }[]>`
    with one as (
      select person_id from public.network_project_queue
      where person_id <> all(${passedOver}::uuid[])
      order by queued_at limit 1 for update skip locked
    )
    delete from public.network_project_queue q using one where q.person_id = one.person_id
    returning q.person_id, q.path`;
  if (rows.length === 0) return undefined;
  return { personId: rows[0].person_id, paths: rows.map((r) => r.path) };
}

// ---- the event stream

export interface SeqEvent {
  seq: number;
  did: string;
  kind: "commit" | "identity" | "account" | "sync";
  body: Uint8Array;
  created_at: Date;
}

/**
 * Appends an event. Its number is given when the transaction commits (migration network_seq_at_commit),
 * under one lock held through the commit alone, so numbers become visible in order and no write waits on
 * another's whole transaction; the notification goes out with the number.
 */
export async function appendEvent(tx: Tx, event: { did: string; kind: SeqEvent["kind"]; body: Uint8Array }): Promise<void> {
  await tx`insert into public.network_seq (did, kind, body) values (${event.did}, ${event.kind}, ${event.body})`;
}

export async function eventsAfter(db: Db, after: number, limit: number): Promise<SeqEvent[]> {
  const rows = await db<(Omit<SeqEvent, "seq"> & { seq: string })[]>`
    select seq, did, kind, body, created_at from public.network_seq where seq > ${after} order by seq limit ${limit}`;
  return rows.map((r) => ({ ...r, seq: Number(r.seq) }));
}

export async function lastSeq(db: Db): Promise<number> {
  const [row] = await db<{ seq: string | null }[]>`select max(seq) as seq from public.network_seq`;
  return Number(row.seq ?? 0);
}

/**
 * Where a subscriber with this cursor starts, by the database's clock: after its cursor when the event
 * that follows it is inside the backfill window (or none follows yet); otherwise, outdated, just before
 * the first event inside the window, or after the newest event when none is. A few index probes however
 * long the stream (network_seq_created_at finds the window's first). created_at is its transaction's
 * start, whose order can differ from the numbers' by a transaction's length: the boundary is as sharp as
 * that, and a start never moves back before the cursor.
 */
export async function replayStart(
  db: Db,
  cursor: number,
  backfillMs: number,
): Promise<{ after: number; outdated: boolean }> {
  const [row] = await db<{ outdated: boolean; after: string }[]>`
    with window_start as (select now() - make_interval(secs => ${backfillMs / 1000}::double precision) as at),
    following as (select created_at from public.network_seq where seq > ${cursor} order by seq limit 1)
    select coalesce(f.created_at < w.at, false) as outdated,
      case when f.created_at < w.at then greatest(${cursor}::bigint, coalesce(
        (select s.seq - 1 from public.network_seq s where s.created_at >= w.at order by s.created_at limit 1),
        (select max(seq) from public.network_seq)))
      else ${cursor}::bigint end as after
    from window_start w left join following f on true`;
  return { after: Number(row.after), outdated: row.outdated };
}

// ---- listRepos

export interface RepoListRow {
  person_id: string;
  did: string;
  commit_cid: string;
  rev: string;
  status: "active" | "deactivated";
  suspended_at: Date | null;
}

export async function listRepos(db: Db, after: string | undefined, limit: number): Promise<RepoListRow[]> {
  return await db<RepoListRow[]>`
    select a.person_id, a.did, r.commit_cid, r.rev, a.status, p.suspended_at
    from public.network_accounts a
    join public.network_repos r on r.person_id = a.person_id and r.data_cid is not null
    join public.profiles p on p.id = a.person_id
    where ${after ? db`a.did > ${after}` : db`true`}
    order by a.did limit ${limit}`;
}

// ---- what the operator sees

export async function saveSubscriber(
  db: Db,
  s: { id: string; instance: string; remote: string; cursor: number | null; lastSeq: number | null },
) {
  await db`
    insert into public.network_subscribers (id, instance, remote, cursor, last_seq)
    values (${s.id}, ${s.instance}, ${s.remote}, ${s.cursor}, ${s.lastSeq})
    on conflict (id) do update set last_seq = excluded.last_seq, seen_at = now()`;
}

export async function dropSubscriber(db: Db, id: string) {
  await db`delete from public.network_subscribers where id = ${id}`;
}

export async function subscribers(db: Db) {
  return await db<
    { id: string; instance: string; remote: string; cursor: string | null; last_seq: string | null; connected_at: Date; seen_at: Date }[]
  >`select id, instance, remote, cursor, last_seq, connected_at, seen_at from public.network_subscribers
    order by connected_at`;
}

export async function saveCrawl(db: Db, crawl: { relay: string; at: Date; status: number | null; answer: string }) {
  await db`
    insert into public.network_crawls (relay, asked_at, status, answer)
    values (${crawl.relay}, ${crawl.at}, ${crawl.status}, ${crawl.answer})
    on conflict (relay) do update set asked_at = excluded.asked_at, status = excluded.status, answer = excluded.answer`;
}

export async function lastCrawl(db: Db) {
  const [row] = await db<{ relay: string; asked_at: Date; status: number | null; answer: string }[]>`
    select relay, asked_at, status, answer from public.network_crawls order by asked_at desc limit 1`;
  return row;
}

export async function joinedActiveDids(db: Db): Promise<number> {
  const [row] = await db<{ n: string }[]>`select count(*) as n from public.network_accounts where status = 'active'`;
  return Number(row.n);
}

export async function blobOf(db: Db, personId: string, cid: string): Promise<{ mime: string } | undefined> {
  const [row] = await db<{ mime: string }[]>`
    select mime from public.network_blobs where person_id = ${personId} and cid = ${cid}`;
  return row;
}
