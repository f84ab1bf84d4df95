// The repository storage's shortcuts over @atproto/repo (federation/block-map.ts, federation/storage.ts):
// a BlockMap added to another is the map the library's own addMap makes, and tree nodes read through
// PgRepoStorage (kept decoded for the process, federation/mst.ts) are what the library decodes, so trees
// walked over it list the same records, whichever storage read a node first; a node kept when it was made
// (encoded) is the value its block holds.
import assert from "node:assert/strict";
import { cidForCbor, parseCid } from "@atproto/lex-data";
import { encode } from "@atproto/lex-cbor";
import { BlockMap, CidSet, MemoryBlockstore, MST, nodeDataDef, parseObjByDef } from "@atproto/repo";
import { test } from "../../helpers/test.ts";
import { PgRepoStorage } from "../../../functions/network/federation/storage.ts";
import { keptNode } from "../../../functions/network/federation/mst.ts";
import { blocksByText, cidTexts } from "../../../functions/network/federation/block-map.ts";

const ALPHABET = "234567abcdefghijklmnopqrstuvwxyz";
const rkey = (i: number) => `3l7q${Array.from({ length: 9 }, (_, d) => ALPHABET[Math.floor(i / 32 ** (8 - d)) % 32]).join("")}`;

async function block(value: unknown) {
  const bytes = encode(value as never);
  return { cid: await cidForCbor(bytes), bytes };
}

test("addMap copies every block of the map it is given, the later bytes winning, as set() one by one does", async () => {
  const [a, b, c] = await Promise.all([block({ a: 1 }), block({ b: 2 }), block({ c: 3 })]);
  const into = new BlockMap([[a.cid, a.bytes], [b.cid, b.bytes]]);
  const other = new BlockMap([[b.cid, c.bytes], [c.cid, c.bytes]]);
  const expected = new BlockMap([[a.cid, a.bytes], [b.cid, b.bytes]]);
  for (const [cid, bytes] of other) expected.set(cid, bytes);
  assert.equal(into.addMap(other), into);
  assert.ok(into.equals(expected));
  assert.deepEqual(into.cids().map(String), [a.cid, b.cid, c.cid].map(String));
  assert.deepEqual(into.get(b.cid), c.bytes);
  assert.equal(other.size, 2, "the map added is left as it was");
});

test("a BlockMap's and a CidSet's CIDs read as text are the CIDs their own iteration parses", async () => {
  const [a, b] = await Promise.all([block({ a: 1 }), block({ b: 2 })]);
  const blocks = new BlockMap([[a.cid, a.bytes], [b.cid, b.bytes]]);
  assert.deepEqual([...blocksByText(blocks)], blocks.entries().map((e) => [e.cid.toString(), e.bytes]));
  blocksByText(blocks).delete(a.cid.toString());
  assert.ok(!blocks.has(a.cid) && blocks.has(b.cid), "the text map is the BlockMap's own");
  const cids = new CidSet([a.cid, b.cid]);
  assert.deepEqual([...cidTexts(cids)], cids.toList().map(String));
});

test("tree nodes read through PgRepoStorage are the library's decoding, and trees walked over it list the same records", async () => {
  // a tree of a few layers, built in memory; its blocks handed to two storages (no database: every read
  // is answered from what a commit of theirs put, as a commit's own blocks are)
  const memory = new MemoryBlockstore();
  let tree = await MST.create(memory);
  const leaf = parseCid("bafyreie5737gdxlw5i64vzichcalba3z2v5n6icifvx5xytvske7mr3hpm");
  for (let i = 0; i < 300; i++) tree = await tree.add(`app.bsky.feed.post/${rkey(i * 7919 % 100_003)}`, leaf);
  const { root, blocks } = await tree.getUnstoredBlocks();
  await memory.putMany(blocks);
  const storages = ["person-a", "person-b"].map((person) => {
    const storage = new PgRepoStorage(undefined as never, person);
    storage.taken({ newBlocks: blocks, removedCids: new CidSet() } as never);
    return storage;
  });
  const expected = (await MST.load(memory, root).list()).map((l) => `${l.key} ${l.value}`);
  assert.ok(expected.length === 300);
  for (const storage of [...storages, ...storages]) {
    assert.deepEqual((await MST.load(storage, root).list()).map((l) => `${l.key} ${l.value}`), expected);
  }
  for (const [cid, bytes] of blocks) {
    const read = await storages[1].readObjAndBytes(cid, nodeDataDef);
    assert.deepEqual(read, parseObjByDef(bytes, cid, nodeDataDef));
    // decoded once for the process: another member's storage is answered the same decoding
    assert.equal((await storages[0].readObjAndBytes(cid, nodeDataDef)).obj, read.obj);
  }
});

test("a tree node kept as it was made is the value its block holds, and reads of it answer that value", async () => {
  let tree = await MST.create(new MemoryBlockstore());
  const leaf = parseCid("bafyreie5737gdxlw5i64vzichcalba3z2v5n6icifvx5xytvske7mr3hpm");
  let checked = 0;
  for (let i = 0; i < 200; i++) {
    tree = await tree.add(`app.bsky.feed.like/${rkey(i * 104_729 % 1_000_003)}`, leaf);
    if (i % 20 !== 19) continue;
    // each node of the tree as it stands is encoded (getUnstoredBlocks takes every node's pointer)
    const { root, blocks } = await tree.getUnstoredBlocks();
    const storage = new PgRepoStorage(undefined as never, "person-c");
    storage.taken({ newBlocks: blocks, removedCids: new CidSet() } as never);
    for (const [cid, bytes] of blocks) {
      const kept = keptNode(cid.toString());
      assert.ok(kept, `node ${cid} kept as it was made`);
      assert.deepEqual(encode(kept.obj as never), bytes);
      assert.deepEqual(encode(parseObjByDef(bytes, cid, nodeDataDef).obj as never), bytes);
      assert.equal((await storage.readObjAndBytes(cid, nodeDataDef)).obj, kept.obj);
      checked++;
    }
    assert.equal((await MST.load(storage, root).list()).length, i + 1);
  }
  assert.ok(checked > 20);
});
