// @atproto/repo's storage over Postgres: a member's MST and commit blocks in network_repo_blocks, read
// through the transaction (or pool) it is given, with what this process already read kept in memory.
import { BlockMap, type CommitData, ReadableBlockstore, type RepoStorage } from "@atproto/repo";
import { type Cid, parseCid } from "@atproto/lex-data";
import type { Db, Tx } from "../../../shared/db.ts";
import { blocksByCid, deleteBlocks, putBlocks } from "../store/repo.ts";

export class PgRepoStorage extends ReadableBlockstore implements RepoStorage {
  private readonly cache = new BlockMap();

  constructor(private readonly db: Db, private readonly personId: string) {
    super();
  }

  async getBytes(cid: Cid): Promise<Uint8Array | null> {
    const { blocks } = await this.getBlocks([cid]);
    return blocks.get(cid) ?? null;
  }

  async has(cid: Cid): Promise<boolean> {
    return (await this.getBytes(cid)) !== null;
  }

  async getBlocks(cids: Cid[]): Promise<{ blocks: BlockMap; missing: Cid[] }> {
    const { blocks, missing } = this.cache.getMany(cids);
    if (missing.length) {
      for (const row of await blocksByCid(this.db, this.personId, missing.map(String))) {
        const cid = parseCid(row.cid);
        const bytes = new Uint8Array(row.bytes);
        this.cache.set(cid, bytes);
        blocks.set(cid, bytes);
      }
    }
    return { blocks, missing: cids.filter((cid) => !blocks.has(cid)) };
  }

  getRoot(): Promise<Cid | null> {
    throw new Error("the repository head is kept in network_repos (lockHead)");
  }

  async putBlock(cid: Cid, block: Uint8Array, rev: string): Promise<void> {
    await this.putMany(new BlockMap([[cid, block]]), rev);
  }

  async putMany(blocks: BlockMap, rev: string): Promise<void> {
    this.cache.addMap(blocks);
    await putBlocks(this.db as Tx, this.personId, rev, blocks.entries().map((e) => ({ cid: e.cid.toString(), bytes: e.bytes })));
  }

  updateRoot(): Promise<void> {
    throw new Error("the repository head is kept in network_repos (saveHead)");
  }

  /** Keeps a commit's new blocks and drops the ones it made unreachable. */
  async applyCommit(commit: CommitData): Promise<void> {
    await this.putMany(commit.newBlocks, commit.rev);
    const removed = commit.removedCids.toList().filter((cid) => !commit.newBlocks.has(cid));
    for (const cid of removed) this.cache.delete(cid);
    await deleteBlocks(this.db as Tx, this.personId, removed.map(String));
  }
}
