// What com.atproto.sync.* serves of a joined member's repository, to anybody: the head, the whole
// repository (or what changed since a rev) and a record's proof as CAR files, the member's standing.
import { BlockMap, blocksToCarFile, concatBytesAsync, getRecords } from "@atproto/repo";
import { parseCid } from "@atproto/lex-data";
import type { Db } from "../../../shared/db.ts";
import { type AccountRow, accountByDid, blocksSince, headOf, recordCidsAt, type RepoHeadRow } from "../store/repo.ts";
import { notFound } from "../xrpc/errors.ts";
import { PgRepoStorage } from "./storage.ts";

export const CAR_TYPE = "application/vnd.ipld.car";

export type Standing = { active: true } | { active: false; status: "takendown" | "deactivated" };

export function standingOf(account: Pick<AccountRow, "suspended_at" | "status">): Standing {
  if (account.suspended_at) return { active: false, status: "takendown" };
  if (account.status === "deactivated") return { active: false, status: "deactivated" };
  return { active: true };
}

/** A joined member's repository by DID, with its head; any other DID is RepoNotFound. */
export async function repoOf(db: Db, did: string): Promise<{ account: AccountRow; head: RepoHeadRow }> {
  const account = did.startsWith("did:plc:") ? await accountByDid(db, did) : undefined;
  const head = account ? await headOf(db, account.person_id) : undefined;
  if (!account || !head) throw notFound("RepoNotFound", `Could not find repo for DID: ${did}`);
  return { account, head };
}

/** The same, refusing a member who left (RepoDeactivated) or was suspended (RepoTakendown). */
export async function activeRepoOf(db: Db, did: string) {
  const repo = await repoOf(db, did);
  const standing = standingOf(repo.account);
  if (!standing.active) {
    throw standing.status === "takendown"
      ? notFound("RepoTakendown", `Repo has been takendown: ${did}`)
      : notFound("RepoDeactivated", `Repo has been deactivated: ${did}`);
  }
  return repo;
}

/** The repository as a CAR: the commit, every MST node and record (only blocks newer than `since`). */
export async function repoCar(db: Db, personId: string, head: RepoHeadRow, since?: string): Promise<Uint8Array> {
  const blocks = new BlockMap();
  for (const row of await blocksSince(db, personId, since)) blocks.set(parseCid(row.cid), new Uint8Array(row.bytes));
  return await blocksToCarFile(parseCid(head.commit_cid), blocks);
}

/** A record with its proof (the commit and the MST nodes down to it) as a CAR; absent is RecordNotFound. */
export async function recordProofCar(db: Db, personId: string, head: RepoHeadRow, collection: string, rkey: string) {
  const held = await recordCidsAt(db, personId, [`${collection}/${rkey}`]);
  if (!held.size) throw notFound("RecordNotFound", `Could not locate record: at://${collection}/${rkey}`);
  return await concatBytesAsync(
    getRecords(new PgRepoStorage(db, personId), parseCid(head.commit_cid), [{ collection, rkey }]),
  );
}

export function carResponse(bytes: Uint8Array): Response {
  return new Response(bytes as BodyInit, { status: 200, headers: { "content-type": CAR_TYPE } });
}
