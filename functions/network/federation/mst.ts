// A tree node's encoding, worked out once per node. @atproto/repo's MST encodes and hashes a node each
// time it is asked for it (serialize): working out a commit asks again for every changed node when it
// takes the tree's root, again when it diffs the tree against the last one, and three times more for the
// ops' proofs (the key, its left and right neighbours), so each node on a written key's path was
// CBOR-encoded and hashed about five times a commit, the largest part of building one. The library
// never changes a node: a write makes new nodes (newTree, create), and a node's children are nodes of
// the same kind, so once a node's entries are loaded its encoding is fixed. Importing this module makes
// serialize remember its answer per node, for as long as the node is alive (a WeakMap), and only for
// the entries it was worked out from.
import { MST } from "@atproto/repo";

type Serialized = Awaited<ReturnType<MST["serialize"]>>;

const encoded = new WeakMap<MST, { entries: unknown; serialized: Promise<Serialized> }>();
const serialize = MST.prototype.serialize;

MST.prototype.serialize = function (this: MST): Promise<Serialized> {
  const known = encoded.get(this);
  if (known && known.entries === this.entries) return known.serialized;
  const serialized = serialize.call(this);
  // kept once answered (a failed read is asked again), with the entries it was made from
  serialized.then(() => encoded.set(this, { entries: this.entries, serialized }), () => {});
  return serialized;
};

/** Whether this node's encoding is remembered (for the tests). */
export function serializedOnce(node: MST): boolean {
  const known = encoded.get(node);
  return known !== undefined && known.entries === node.entries;
}
