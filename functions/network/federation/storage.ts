// @atproto/repo's storage over Postgres: a member's MST and commit blocks in network_repo_blocks, read
// through the transaction (or pool) it is given, with what this process already read kept in memory.
import type { check } from "@atproto/common-web";
import { BlockMap, type CommitData, nodeDataDef, ReadableBlockstore, type RepoStorage } from "@atproto/repo";
import { type Cid, parseCid } from "@atproto/lex-data";
import type { Db, Tx } from "../../../shared/db.ts";
import { RecentMap } from "../../../shared/recent-map.ts";
import { blocksByCid, putBlocks, replaceBlocks } from "../store/repo.ts";
// every commit worked out over this storage encodes each tree node once and reads the nodes this process
// knows without decoding them (see mst.ts), and adds block maps without parsing their CIDs (block-map.ts)
import { keepNode, keptNode } from "./mst.ts";
import { blocksByText, cidTexts } from "./block-map.ts";

/**
 * Blocks this process has read or written, shared by every repository and transaction: a block is named by
 * the hash of its bytes, so a kept copy can never be stale, and a commit then reads none of the tree it
 * walks from the database (those reads sat inside the repository lock, in every write). Bounded: the
 * least recently used go first.
 */
const kept = new RecentMap<string, Uint8Array>(20_000);

export class PgRepoStorage extends ReadableBlockstore implements RepoStorage {
  /** this storage's own view: what it read or wrote, less what a commit of its dropped */
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
    const unread: Cid[] = [];
    for (const cid of missing) {
      const bytes = kept.get(cid.toString());
      if (bytes) {
        this.cache.set(cid, bytes);
        blocks.set(cid, bytes);
      } else unread.push(cid);
    }
    if (unread.length) {
      for (const row of await blocksByCid(this.db, this.personId, unread.map(String))) {
        const cid = parseCid(row.cid);
        const bytes = new Uint8Array(row.bytes);
        this.cache.set(cid, bytes);
        kept.set(row.cid, bytes);
        blocks.set(cid, bytes);
      }
    }
    return { blocks, missing: cids.filter((cid) => !blocks.has(cid)) };
  }

  /** A tree node this process read or made is answered decoded already (mst.ts keptNode). */
  override async attemptRead<T>(cid: Cid, def: check.Def<T>): Promise<{ obj: T; bytes: Uint8Array } | null> {
    if ((def as unknown) !== nodeDataDef) return await super.attemptRead(cid, def);
    const key = cid.toString();
    const known = keptNode(key);
    if (known) return known as { obj: T; bytes: Uint8Array };
    const read = await super.attemptRead(cid, def);
    if (read) keepNode(key, read);
    return read;
  }

  getRoot(): Promise<Cid | null> {
    throw new Error("the repository head is kept in network_repos (lockHead)");
  }

  async putBlock(cid: Cid, block: Uint8Array, rev: string): Promise<void> {
    await this.putMany(new BlockMap([[cid, block]]), rev);
  }

  async putMany(blocks: BlockMap, rev: string): Promise<void> {
    this.cache.addMap(blocks);
    await putBlocks(this.db as Tx, this.personId, rev, this.keep(blocks.entries()));
  }

  /** The blocks as rows, each kept for the process too (a rolled-back write leaves only true copies). */
  private keep(blocks: { cid: Cid; bytes: Uint8Array }[]): { cid: string; bytes: Uint8Array }[] {
    return blocks.map((e) => {
      const cid = e.cid.toString();
      kept.set(cid, e.bytes);
      return { cid, bytes: e.bytes };
    });
  }

  updateRoot(): Promise<void> {
    throw new Error("the repository head is kept in network_repos (saveHead)");
  }

  /** Keeps a commit's new blocks and drops the ones it made unreachable. */
  async applyCommit(commit: CommitData): Promise<void> {
    const { blocks, removed } = this.taken(commit);
    await replaceBlocks(this.db as Tx, this.personId, commit.rev, blocks, removed);
  }

  /**
   * A commit's blocks as this storage now sees them (its new blocks read from memory from here on, the
   * unreachable ones gone), and the rows the database must change to match: for a caller that writes
   * them in a statement of its own (keepCommit).
   */
  taken(
    commit: CommitData,
    /** the commit's newBlocks as entries, if the caller has read them already */
    newBlocks: { cid: Cid; bytes: Uint8Array }[] = commit.newBlocks.entries(),
  ): { blocks: { cid: string; bytes: Uint8Array }[]; removed: string[] } {
    for (const { cid, bytes } of newBlocks) this.cache.set(cid, bytes);
    // by CID text, as both sets keep them and the rows name them
    const made = blocksByText(commit.newBlocks);
    const removed = [...cidTexts(commit.removedCids)].filter((cid) => !made.has(cid));
    const cached = blocksByText(this.cache);
    for (const cid of removed) cached.delete(cid);
    return { blocks: this.keep(newBlocks), removed };
  }
}
