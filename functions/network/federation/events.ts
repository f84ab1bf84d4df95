// The event stream's bodies and frames (reference §9): each body is stored as DAG-CBOR without its seq;
// a frame is the header `{op, t}` and the body with seq, two DAG-CBOR objects back to back, encoded with
// @atproto/lex-cbor (cborg with the data model's rules, what @atproto/xrpc-server's frames use).
import { BlockMap, blocksToCarFile, type CommitData } from "@atproto/repo";
import { decode, decodeAll, encode } from "@atproto/lex-cbor";
import { parseCid } from "@atproto/lex-data";

export interface CommitOp {
  action: "create" | "update" | "delete";
  path: string;
  cid: string | null;
  prev: string | null;
}

/**
 * What one #commit may carry: the sync protocol (v1.1) has relays refuse a commit event whose `blocks` CAR
 * is over 2 MB (reference §9, "blocks ≤2 MB", taken as 2,000,000 bytes) or that has more than 200 ops. A
 * commit past either goes out as #sync instead, and a relay fetches the repository with getRepo.
 */
export const COMMIT_EVENT_MAX_BLOCKS_BYTES = 2_000_000;
export const COMMIT_EVENT_MAX_OPS = 200;

/** The #commit's `blocks`: a CAR rooted at the commit, with its new blocks and the nodes the ops' proofs pass. */
export async function commitEventCar(commit: CommitData): Promise<Uint8Array> {
  // a map of its own: the commit's newBlocks are what storage keeps, and stay as they are
  const blocks = new BlockMap();
  blocks.addMap(commit.newBlocks);
  blocks.addMap(commit.relevantBlocks);
  return await blocksToCarFile(commit.cid, blocks);
}

/** Whether a relay takes this commit as a #commit (see COMMIT_EVENT_MAX_BLOCKS_BYTES). */
export function fitsCommitEvent(car: Uint8Array, ops: number): boolean {
  return car.byteLength <= COMMIT_EVENT_MAX_BLOCKS_BYTES && ops <= COMMIT_EVENT_MAX_OPS;
}

export function commitEventBody(event: {
  did: string;
  commit: CommitData;
  /** commitEventCar's answer */
  car: Uint8Array;
  ops: CommitOp[];
  prevData: string | null;
  time: Date;
}): Uint8Array {
  return encode({
    rebase: false,
    tooBig: false,
    repo: event.did,
    commit: event.commit.cid,
    rev: event.commit.rev,
    since: event.commit.since,
    blocks: event.car,
    ops: event.ops.map((op) => ({
      action: op.action,
      path: op.path,
      cid: op.cid ? parseCid(op.cid) : null,
      ...(op.prev ? { prev: parseCid(op.prev) } : {}),
    })),
    blobs: [],
    ...(event.prevData ? { prevData: parseCid(event.prevData) } : {}),
    time: event.time.toISOString(),
  } as never);
}

/**
 * #sync: the repository is now at this commit, whatever came before (after joining, rejoining, a reset or
 * a new signing key). The CAR holds the signed commit block alone; a relay checks the signature and,
 * where its copy differs, fetches the repository anew.
 */
export async function syncEventBody(event: { did: string; commitCid: string; commitBytes: Uint8Array; rev: string; time: Date }) {
  const cid = parseCid(event.commitCid);
  const blocks = new BlockMap();
  blocks.set(cid, event.commitBytes);
  return encode({
    did: event.did,
    blocks: await blocksToCarFile(cid, blocks),
    rev: event.rev,
    time: event.time.toISOString(),
  } as never);
}

export function identityEventBody(did: string, handle: string, time: Date): Uint8Array {
  return encode({ did, handle, time: time.toISOString() });
}

export type AccountStatus = "active" | "takendown" | "deactivated";

export function accountEventBody(did: string, status: AccountStatus, time: Date): Uint8Array {
  return encode({ did, active: status === "active", ...(status === "active" ? {} : { status }), time: time.toISOString() });
}

const TYPE_OF = { commit: "#commit", identity: "#identity", account: "#account", sync: "#sync" } as const;

/** A message frame: header then the stored body with its number. */
export function messageFrame(kind: keyof typeof TYPE_OF, seq: number, body: Uint8Array): Uint8Array {
  const header = encode({ op: 1, t: TYPE_OF[kind] });
  const full = encode({ seq, ...(decode(body) as Record<string, unknown>) } as never);
  return concat(header, full);
}

/** An #info frame: something the subscriber should know that is no event (OutdatedCursor), so no seq. */
export function infoFrame(name: string, message?: string): Uint8Array {
  return concat(encode({ op: 1, t: "#info" }), encode({ name, ...(message ? { message } : {}) }));
}

/** An error frame; the server closes the socket after it. */
export function errorFrame(error: string, message?: string): Uint8Array {
  return concat(encode({ op: -1 }), encode({ error, ...(message ? { message } : {}) }));
}

/** Header and body of a frame (what a consumer does). */
export function readFrame(bytes: Uint8Array): { header: { op: number; t?: string }; body: Record<string, unknown> } {
  const [header, body] = [...decodeAll(bytes)] as unknown as [{ op: number; t?: string }, Record<string, unknown>];
  return { header, body };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
