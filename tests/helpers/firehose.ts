// What a relay does with a #commit event, for the federation tests and the bench: the signature against
// the member's key, each op against the new tree built from the event's blocks alone, and the ops
// inverted back to prevData (so the diff is whole).
import { MemoryBlockstore, MST, readCarWithRoot, verifyCommitSig } from "@atproto/repo";
import { decode } from "@atproto/lex-cbor";
import type { Cid } from "@atproto/lex-data";
import { readFrame } from "../../functions/network/federation/events.ts";

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

/**
 * What a relay does with a #sync event: its CAR holds the signed commit alone, for this repo and rev,
 * signed by the member's key. Answers the commit's CID and tree root (where a relay's copy that differs
 * fetches the repository anew).
 */
export async function verifySyncEvent(body: Record<string, any>, didKey: string): Promise<{ commit: string; data: string }> {
  const { root, blocks } = await readCarWithRoot(body.blocks);
  if (blocks.size !== 1) throw new CommitRejected("a #sync CAR holds the commit block alone");
  const commit = decode(blocks.get(root)!) as any;
  if (commit.did !== body.did || commit.rev !== body.rev) throw new CommitRejected("the commit names another repo or rev");
  if (!(await verifyCommitSig(commit, didKey))) throw new CommitRejected("the signature is not the member's key's");
  return { commit: root.toString(), data: commit.data.toString() };
}

export interface Frame {
  header: { op: number; t?: string };
  body: Record<string, any>;
}

/** A subscriber (a plain WebSocket) that keeps every frame; `until` waits for one that matches. */
export function consumer(baseUrl: string, cursor?: number) {
  const frames: Frame[] = [];
  const waiters: { match: (f: Frame) => boolean; resolve: (f: Frame) => void }[] = [];
  const url = `${baseUrl.replace(/^http/, "ws")}/xrpc/com.atproto.sync.subscribeRepos${
    cursor === undefined ? "" : `?cursor=${cursor}`
  }`;
  const socket = new WebSocket(url);
  socket.binaryType = "arraybuffer";
  const closed = new Promise<CloseEvent>((resolve) => socket.addEventListener("close", resolve));
  socket.addEventListener("message", (e) => {
    const frame = readFrame(new Uint8Array(e.data as ArrayBuffer)) as Frame;
    frames.push(frame);
    for (const w of [...waiters]) {
      if (w.match(frame)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(frame);
      }
    }
  });
  return {
    frames,
    closed,
    socket,
    until(match: (f: Frame) => boolean, ms = 15_000): Promise<Frame> {
      const found = frames.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no such frame arrived")), ms);
        waiters.push({ match, resolve: (f) => (clearTimeout(timer), resolve(f)) });
      });
    },
    close() {
      socket.close();
      return closed;
    },
  };
}
