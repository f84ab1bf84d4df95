// A tree node's encoding, worked out once per node. @atproto/repo's MST encodes and hashes a node each
// time it is asked for it (serialize): working out a commit asks again for every changed node when it
// takes the tree's root, again when it diffs the tree against the last one, and three times more for the
// ops' proofs (the key, its left and right neighbours), so each node on a written key's path was
// CBOR-encoded and hashed about five times a commit, the largest part of building one. The library
// never changes a node: a write makes new nodes (newTree, create), and a node's children are nodes of
// the same kind, so once a node's entries are loaded its encoding is fixed. Importing this module makes
// serialize remember its answer per node, for as long as the node is alive (a WeakMap), and only for
// the entries it was worked out from.
//
// It also keeps nodes decoded, by CID, for the process (keptNode, which PgRepoStorage answers the
// library's node reads from): every commit loads the nodes on its key's path from the root, and decoding
// and checking each block again (CBOR, then the library's schema) was about a tenth of a commit's work.
// The nodes on that path are the ones the member's last commit made, which were never read: so a node
// serialize encodes is kept too, as the node data the library encoded (serializeNodeData of the same
// entries), the very value a read of its block decodes to. The library only reads that value
// (deserializeNodeData makes new entries from it), and a CID names one content, so a kept node is never
// stale. Bounded: the least recently used go first.
import { MST, mstUtil } from "@atproto/repo";
import { RecentMap } from "../../../shared/recent-map.ts";

type Serialized = Awaited<ReturnType<MST["serialize"]>>;

const encoded = new WeakMap<MST, { entries: unknown; serialized: Promise<Serialized> }>();
const serialize = MST.prototype.serialize;

MST.prototype.serialize = function (this: MST): Promise<Serialized> {
  const known = encoded.get(this);
  if (known && known.entries === this.entries) return known.serialized;
  const serialized = serialize.call(this);
  // kept once answered (a failed read is asked again), with the entries it was made from
  serialized.then(({ cid, bytes }) => {
    encoded.set(this, { entries: this.entries, serialized });
    const key = cid.toString();
    if (!decoded.has(key)) keepNode(key, { obj: mstUtil.serializeNodeData(this.entries!), bytes });
  }, () => {});
  return serialized;
};

/** Whether this node's encoding is remembered (for the tests). */
export function serializedOnce(node: MST): boolean {
  const known = encoded.get(node);
  return known !== undefined && known.entries === node.entries;
}

/** A node as the library reads it: its block's value (checked against the node schema) and its bytes. */
export type DecodedNode = { obj: unknown; bytes: Uint8Array };

const decoded = new RecentMap<string, DecodedNode>(20_000);

/** The node this CID names, if this process has read or made it. */
export function keptNode(cid: string): DecodedNode | undefined {
  return decoded.get(cid);
}

export function keepNode(cid: string, node: DecodedNode) {
  decoded.set(cid, node);
}
