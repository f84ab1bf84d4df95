// The event stream's bodies and frames (reference §9): each body is stored as DAG-CBOR without its seq;
// a frame is the header `{op, t}` and the body with seq, two DAG-CBOR objects back to back, encoded with
// @atproto/lex-cbor (cborg with the data model's rules, what @atproto/xrpc-server's frames use).
import type { CommitData } from "@atproto/repo";
import { decodeAll, encode } from "@atproto/lex-cbor";
import { type Cid, parseCid } from "@atproto/lex-data";
import { blocksByText } from "./block-map.ts";
import { concatBytes } from "../../../shared/bytes.ts";

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

/** A block and the CID it is known by. */
export interface CarBlock {
  cid: Cid;
  bytes: Uint8Array;
}

/**
 * The #commit's `blocks`: a CAR (v1) rooted at the commit, with its new blocks (`newBlocks`, the commit's
 * newBlocks as entries, which the caller reads once for storage too) and then the nodes the ops' proofs
 * pass that are not among them. Written here in one pass: a BlockMap keeps its CIDs as text and parses
 * each again on every pass over it, and the library's CAR writer is an async stream a chunk at a time.
 */
export function commitEventCar(commit: CommitData, newBlocks: CarBlock[] = commit.newBlocks.entries()): Uint8Array {
  const blocks = [...newBlocks];
  const taken = new Set(newBlocks.map((b) => b.cid.toString()));
  // by CID text: only the proof nodes not among the new blocks have their CIDs parsed
  for (const [cid, bytes] of blocksByText(commit.relevantBlocks)) {
    if (!taken.has(cid)) {
      taken.add(cid);
      blocks.push({ cid: parseCid(cid), bytes });
    }
  }
  return carFile(commit.cid, blocks);
}

/** A CAR v1 file: its header ({version: 1, roots}) and each block as varint(length) CID bytes, block bytes. */
export function carFile(root: Cid, blocks: CarBlock[]): Uint8Array {
  const header = encode({ version: 1, roots: [root] } as never);
  const parts: Uint8Array[] = [varint(header.byteLength), header];
  for (const { cid, bytes } of blocks) parts.push(varint(cid.bytes.byteLength + bytes.byteLength), cid.bytes, bytes);
  return concatBytes(parts);
}

/** An unsigned LEB128 varint (the CAR format's lengths). */
function varint(value: number): Uint8Array {
  const bytes: number[] = [];
  while (value >= 0x80) {
    bytes.push((value & 0x7f) | 0x80);
    value = Math.floor(value / 128);
  }
  bytes.push(value);
  return Uint8Array.from(bytes);
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
export function syncEventBody(event: { did: string; commitCid: string; commitBytes: Uint8Array; rev: string; time: Date }): Uint8Array {
  const cid = parseCid(event.commitCid);
  return encode({
    did: event.did,
    blocks: carFile(cid, [{ cid, bytes: event.commitBytes }]),
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

/** Each kind's frame header, encoded once. */
const HEADERS = Object.fromEntries(
  Object.entries(TYPE_OF).map(([kind, t]) => [kind, encode({ op: 1, t })]),
) as Record<keyof typeof TYPE_OF, Uint8Array>;

/**
 * A message frame: header then the stored body with its number. The body is DAG-CBOR already, a map
 * without `seq`: the `seq` entry is spliced into it where the canonical key order puts it (keys by
 * length, then bytewise) and the map's count goes up by one, so the frame's bytes are what encoding
 * `{seq, ...body}` anew would give, without decoding the body (CAR blocks and all) to encode it again.
 */
export function messageFrame(kind: keyof typeof TYPE_OF, seq: number, body: Uint8Array): Uint8Array {
  return withSeq(HEADERS[kind], seq, body);
}

const MAP = 5;
const SEQ_KEY = new TextEncoder().encode("seq");

/** `prefix` followed by the DAG-CBOR map `body` with `seq: <seq>` added in its canonical place. */
function withSeq(prefix: Uint8Array, seq: number, body: Uint8Array): Uint8Array {
  if (!Number.isSafeInteger(seq) || seq < 0) throw new Error(`an event number is a whole number (${seq})`);
  if (body[0] >> 5 !== MAP) throw new Error("an event body is a DAG-CBOR map");
  const { value: count, next: entries } = readArgument(body, 0);
  // the first entry whose key sorts after "seq": the new entry goes before it
  let at = entries;
  for (let i = 0; i < count; i++) {
    const key = readArgument(body, at);
    if (body[at] >> 5 !== 3) throw new Error("an event body's keys are text");
    const order = compareKey(body, key.next, key.value);
    if (order === 0) throw new Error("the stored event body has a seq already");
    if (order > 0) break;
    at = skipItem(body, key.next + key.value);
  }
  const mapHeader = encodeArgument(MAP, count + 1);
  const seqValue = encodeArgument(0, seq);
  const out = new Uint8Array(
    prefix.length + mapHeader.length + (body.length - entries) + 1 + SEQ_KEY.length + seqValue.length,
  );
  let n = 0;
  const put = (bytes: Uint8Array) => {
    out.set(bytes, n);
    n += bytes.length;
  };
  put(prefix);
  put(mapHeader);
  put(body.subarray(entries, at));
  put(encodeArgument(3, SEQ_KEY.length));
  put(SEQ_KEY);
  put(seqValue);
  put(body.subarray(at));
  return out;
}

/** How the text key at `start` (`length` bytes) sorts against "seq": shorter first, then bytewise. */
function compareKey(bytes: Uint8Array, start: number, length: number): number {
  if (length !== SEQ_KEY.length) return length - SEQ_KEY.length;
  for (let i = 0; i < length; i++) {
    const d = bytes[start + i] - SEQ_KEY[i];
    if (d !== 0) return d;
  }
  return 0;
}

/** The argument of the item at `at` (a count, a length or the value itself) and where what follows starts. */
function readArgument(bytes: Uint8Array, at: number): { value: number; next: number } {
  const info = bytes[at] & 0x1f;
  if (info < 24) return { value: info, next: at + 1 };
  const size = info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : info === 27 ? 8 : 0;
  if (size === 0 || at + 1 + size > bytes.length) throw new Error("not DAG-CBOR (indefinite or cut short)");
  let value = 0;
  for (let i = 1; i <= size; i++) value = value * 256 + bytes[at + i];
  return { value, next: at + 1 + size };
}

/** Where the item that starts at `at` ends. */
function skipItem(bytes: Uint8Array, at: number): number {
  const major = bytes[at] >> 5;
  if (major === 7) {
    const info = bytes[at] & 0x1f;
    if (info < 24) return at + 1;
    return readArgument(bytes, at).next;
  }
  const { value, next } = readArgument(bytes, at);
  switch (major) {
    case 0:
    case 1:
      return next;
    case 2:
    case 3:
      return next + value;
    case 4: {
      let end = next;
      for (let i = 0; i < value; i++) end = skipItem(bytes, end);
      return end;
    }
    case MAP: {
      let end = next;
      for (let i = 0; i < 2 * value; i++) end = skipItem(bytes, end);
      return end;
    }
    default: // a tag (a CID's 42): the tagged item follows
      return skipItem(bytes, next);
  }
}

/** The shortest head of an item of this major type with this argument (what DAG-CBOR requires). */
function encodeArgument(major: number, value: number): Uint8Array {
  const type = major << 5;
  if (value < 24) return Uint8Array.of(type | value);
  if (value < 0x100) return Uint8Array.of(type | 24, value);
  if (value < 0x10000) return Uint8Array.of(type | 25, value >> 8, value & 0xff);
  if (value < 0x100000000) return Uint8Array.of(type | 26, value >>> 24, (value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff);
  const head = new Uint8Array(9);
  head[0] = type | 27;
  const high = Math.floor(value / 0x100000000);
  const low = value >>> 0;
  new DataView(head.buffer).setUint32(1, high);
  new DataView(head.buffer).setUint32(5, low);
  return head;
}

/** An #info frame: something the subscriber should know that is no event (OutdatedCursor), so no seq. */
export function infoFrame(name: string, message?: string): Uint8Array {
  return concatBytes([encode({ op: 1, t: "#info" }), encode({ name, ...(message ? { message } : {}) })]);
}

/** An error frame; the server closes the socket after it. */
export function errorFrame(error: string, message?: string): Uint8Array {
  return concatBytes([encode({ op: -1 }), encode({ error, ...(message ? { message } : {}) })]);
}

/** Header and body of a frame (what a consumer does). */
export function readFrame(bytes: Uint8Array): { header: { op: number; t?: string }; body: Record<string, unknown> } {
  const [header, body] = [...decodeAll(bytes)] as unknown as [{ op: number; t?: string }, Record<string, unknown>];
  return { header, body };
}
