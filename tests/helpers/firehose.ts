// What a relay does with a #commit event, for the federation tests and the bench: the signature against
// the member's key, each op against the new tree built from the event's blocks alone, and the ops
// inverted back to prevData (so the diff is whole).
import { MemoryBlockstore, MST, readCarWithRoot, verifyCommitSig } from "@atproto/repo";
import { decode } from "@atproto/lex-cbor";
import type { Cid } from "@atproto/lex-data";

export class CommitRejected extends Error {}

export async function verifyCommitEvent(body: Record<string, any>, didKey: string): Promise<void> {
  const { root, blocks } = await readCarWithRoot(body.blocks);
  if (root.toString() !== body.commit.toString()) throw new CommitRejected("the CAR's root is not the commit");
  const commit = decode(blocks.get(root)!) as any;
  if (commit.did !== body.repo || commit.rev !== body.rev) throw new CommitRejected("the commit names another repo or rev");
  if (!(await verifyCommitSig(commit, didKey))) throw new CommitRejected("the signature is not the member's key's");
  let tree = MST.load(new MemoryBlockstore(blocks), commit.data as Cid);
  for (const op of body.ops) {
    if (String(await tree.get(op.path) ?? null) !== String(op.cid ?? null)) {
      throw new CommitRejected(`${op.path} is not in the new tree as the op says`);
    }
  }
  if (!body.prevData) return;
  for (const op of [...body.ops].reverse()) {
    if (op.action === "create") tree = await tree.delete(op.path);
    else if (op.action === "update") tree = await tree.update(op.path, op.prev);
    else tree = await tree.add(op.path, op.prev);
  }
  if ((await tree.getPointer()).toString() !== body.prevData.toString()) {
    throw new CommitRejected("the inverted diff does not give prevData");
  }
}
