// What a relay does with a #commit event, for the federation tests and the bench: the signature against
// the member's key, each op against the new tree built from the event's blocks alone, and the ops
// inverted back to prevData (so the diff is whole). A #sync is checked the same way (its commit alone),
// and RelayCopy follows one repository through both, fetching it anew with getRepo when a #sync says so.
import { createPublicKey, type KeyObject, verify } from "node:crypto";
import { MemoryBlockstore, MST, readCarWithRoot, verifyCommitSig, verifyRepoCar } from "@atproto/repo";
import { parseDidKey, SECP256K1_JWT_ALG } from "@atproto/crypto";
import { decode, encode } from "@atproto/lex-cbor";
import type { Cid } from "@atproto/lex-data";
import { readFrame } from "../../functions/network/federation/events.ts";

export class CommitRejected extends Error {}

/** A did:key's K-256 public key for the runtime's native verifier, parsed once per key (a relay keeps its keys). */
const nativeKeys = new Map<string, KeyObject>();
// SubjectPublicKeyInfo { { id-ecPublicKey, secp256k1 }, the uncompressed point } in DER, up to the point
const SPKI_HEAD = Uint8Array.of(
  0x30, 0x56, 0x30, 0x10, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x0a, 0x03, 0x42, 0x00,
);
/** half the order of K-256's group: a larger s is the malleable twin the protocol refuses */
const HALF_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n >> 1n;

function nativeKeyOf(didKey: string): KeyObject | undefined {
  let key = nativeKeys.get(didKey);
  if (!key) {
    // the uncompressed point (parseDidKey decompresses it)
    const { jwtAlg, keyBytes: point } = parseDidKey(didKey);
    if (jwtAlg !== SECP256K1_JWT_ALG || point.length !== 65) return undefined;
    const der = new Uint8Array(SPKI_HEAD.length + point.length);
    der.set(SPKI_HEAD);
    der.set(point, SPKI_HEAD.length);
    key = createPublicKey({ key: der as never, format: "der", type: "spki" });
    nativeKeys.set(didKey, key);
  }
  return key;
}

/**
 * The commit's signature checked as @atproto/repo's verifyCommitSig does (the unsigned commit's DAG-CBOR,
 * SHA-256, K-256 ECDSA; the 64-byte compact form only, s in the lower half of the order), by the runtime's
 * native verifier: the JavaScript curve arithmetic cost the bench's verifying consumer about a millisecond
 * a commit. Keys of another kind go to the library.
 */
export async function verifySignedCommit(commit: Record<string, unknown>, didKey: string): Promise<boolean> {
  const key = nativeKeyOf(didKey);
  if (!key) return await verifyCommitSig(commit as never, didKey);
  const { sig, ...unsigned } = commit;
  if (!(sig instanceof Uint8Array) || sig.length !== 64) return false;
  let s = 0n;
  for (let i = 32; i < 64; i++) s = (s << 8n) | BigInt(sig[i]);
  if (s > HALF_ORDER) return false;
  return verify("sha256", encode(unsigned as never), { key, dsaEncoding: "ieee-p1363" }, sig);
}

/** Answers the commit's CID and tree root. */
export async function verifyCommitEvent(body: Record<string, any>, didKey: string): Promise<{ commit: string; data: string }> {
  const { root, blocks } = await readCarWithRoot(body.blocks);
  if (root.toString() !== body.commit.toString()) throw new CommitRejected("the CAR's root is not the commit");
  const commit = decode(blocks.get(root)!) as any;
  if (commit.did !== body.repo || commit.rev !== body.rev) throw new CommitRejected("the commit names another repo or rev");
  if (!(await verifySignedCommit(commit, didKey))) throw new CommitRejected("the signature is not the member's key's");
  let tree = MST.load(new MemoryBlockstore(blocks), commit.data as Cid);
  for (const op of body.ops) {
    if (String(await tree.get(op.path) ?? null) !== String(op.cid ?? null)) {
      throw new CommitRejected(`${op.path} is not in the new tree as the op says`);
    }
  }
  const verified = { commit: root.toString(), data: String(commit.data) };
  if (!body.prevData) return verified;
  for (const op of [...body.ops].reverse()) {
    if (op.action === "create") tree = await tree.delete(op.path);
    else if (op.action === "update") tree = await tree.update(op.path, op.prev);
    else tree = await tree.add(op.path, op.prev);
  }
  if ((await tree.getPointer()).toString() !== body.prevData.toString()) {
    throw new CommitRejected("the inverted diff does not give prevData");
  }
  return verified;
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
  if (!(await verifySignedCommit(commit, didKey))) throw new CommitRejected("the signature is not the member's key's");
  return { commit: root.toString(), data: commit.data.toString() };
}

/**
 * A relay's copy of one repository, kept from the stream: a #commit is verified and must follow on from
 * the copy (`since` its rev, `prevData` its tree root) before its ops are applied; a #sync is verified
 * and, when its commit's tree is not the copy's, the repository is fetched anew with getRepo and
 * verified whole against the member's key. Events at or before the copy's rev are passed over (a fetch
 * can be ahead of the stream). `fetch()` alone starts a copy from the repository as it stands; `fetched`
 * counts the getRepo calls.
 */
export class RelayCopy {
  rev: string | null = null;
  commit: string | null = null;
  data: string | null = null;
  records = new Map<string, string>();
  fetched = 0;

  constructor(readonly baseUrl: string, readonly did: string, public didKey: string) {}

  async apply(frame: Frame): Promise<"commit" | "sync" | "fetched" | "passed over"> {
    const { t } = frame.header;
    const body = frame.body;
    if ((t !== "#commit" && t !== "#sync") || (body.repo ?? body.did) !== this.did) return "passed over";
    if (this.rev !== null && body.rev <= this.rev) return "passed over";
    if (t === "#sync") {
      const named = await verifySyncEvent(body, this.didKey);
      if (named.data === this.data) {
        // the same tree under a new commit (a head signed again): nothing to fetch
        [this.rev, this.commit] = [body.rev, named.commit];
        return "sync";
      }
      await this.fetch({ commit: named.commit, rev: body.rev });
      return "fetched";
    }
    if (this.rev !== null && (body.since !== this.rev || String(body.prevData ?? null) !== this.data)) {
      throw new CommitRejected(`the commit ${body.rev} does not follow on from the copy at ${this.rev}`);
    }
    const { commit, data } = await verifyCommitEvent(body, this.didKey);
    for (const op of body.ops) {
      if (op.action === "delete") this.records.delete(op.path);
      else this.records.set(op.path, op.cid.toString());
    }
    [this.rev, this.commit, this.data] = [body.rev, commit, data];
    return "commit";
  }

  /** getRepo, verified whole (signature, every record under the tree); after a #sync, at least as new as its commit. */
  async fetch(named?: { commit: string; rev: string }) {
    const res = await fetch(`${this.baseUrl}/xrpc/com.atproto.sync.getRepo?did=${encodeURIComponent(this.did)}`);
    if (!res.ok) throw new CommitRejected(`getRepo answered ${res.status}`);
    const car = new Uint8Array(await res.arrayBuffer());
    const { commit, creates } = await verifyRepoCar(car, this.did, this.didKey);
    const cid = commit.cid.toString();
    if (named && (commit.rev < named.rev || (commit.rev === named.rev && cid !== named.commit))) {
      throw new CommitRejected(`getRepo gave ${commit.rev}, not the #sync's ${named.rev}`);
    }
    this.records = new Map(creates.map((c) => [`${c.collection}/${c.rkey}`, c.cid.toString()]));
    const signed = decode(commit.newBlocks.get(commit.cid)!) as { data: Cid };
    [this.rev, this.commit, this.data] = [commit.rev, cid, signed.data.toString()];
    this.fetched++;
  }
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
