// A BlockMap added to another without parsing its CIDs. @atproto/repo's BlockMap keeps its blocks by CID
// text; addMap walks the map it is given as [Cid, bytes] pairs, which parses every CID from its text
// (multibase and CID decoding) only for set() to turn it back into the same text. Working out a commit
// adds maps in several places (each op's proof into the blocks a relay needs, the new leaves into the
// new and the relevant blocks), and those parses were about a tenth of a commit's work on the host's
// thread. The text is the map's own key, so copying the entries is the same map; importing this module
// makes addMap do that.
import { BlockMap, type CidSet } from "@atproto/repo";

type Keyed = { map: Map<string, Uint8Array> };

BlockMap.prototype.addMap = function (this: BlockMap, toAdd: BlockMap): BlockMap {
  const into = (this as unknown as Keyed).map;
  for (const [cid, bytes] of (toAdd as unknown as Keyed).map) into.set(cid, bytes);
  return this;
};

/**
 * A BlockMap's blocks by their CID text: the map it keeps them in (changing it changes the BlockMap), whose
 * entries are read without parsing every CID as the BlockMap's own iteration does.
 */
export function blocksByText(blocks: BlockMap): Map<string, Uint8Array> {
  return (blocks as unknown as Keyed).map;
}

/** A CidSet's CIDs as the text it keeps them by (its own iteration parses every one). */
export function cidTexts(cids: CidSet): ReadonlySet<string> {
  return (cids as unknown as { set: Set<string> }).set;
}
