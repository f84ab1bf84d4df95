// Tree nodes remember their encoding (federation/mst.ts): commits worked out with it must be the commits
// the library works out node by node. Each commit's tree root must be the root of a tree built afresh
// from the same records, every new block must hash to its CID, and the ops' proofs must carry the nodes
// a relay needs to check and invert the commit (tests/helpers/firehose.ts verifyCommitEvent).
import assert from "node:assert/strict";
import { cidForCbor, parseCid } from "@atproto/lex-data";
import { MemoryBlockstore, MST, Repo, WriteOpAction } from "@atproto/repo";
import { Secp256k1Keypair } from "@atproto/crypto";
import { encode } from "@atproto/lex-cbor";
import { test } from "../../helpers/test.ts";
import { serializedOnce } from "../../../functions/network/federation/mst.ts";
import { commitEventBody, commitEventCar } from "../../../functions/network/federation/events.ts";
import { verifyCommitEvent } from "../../helpers/firehose.ts";
import { decode } from "@atproto/lex-cbor";

const DID = "did:plc:ewvi7nxzyoun6zhxrhs64oiz";
const ALPHABET = "234567abcdefghijklmnopqrstuvwxyz";
const rkey = (i: number) => `3l6o${Array.from({ length: 9 }, (_, d) => ALPHABET[Math.floor(i / 32 ** (8 - d)) % 32]).join("")}`;
const record = (i: number) => ({ $type: "app.bsky.feed.post", text: `post ${i}`, createdAt: "2030-01-02T03:04:05.678Z" });

/** The root of a tree built from nothing, a key at a time, in a storage of its own. */
async function freshRoot(records: Map<string, string>): Promise<string> {
  let tree = await MST.create(new MemoryBlockstore());
  for (const [path, cid] of records) tree = await tree.add(path, parseCid(cid));
  return (await tree.getPointer()).toString();
}

test("commits worked out with remembered node encodings are the library's, and verify and invert", async () => {
  const key = await Secp256k1Keypair.create();
  const storage = new MemoryBlockstore();
  let repo = await Repo.create(storage, DID, key);
  const held = new Map<string, string>();
  let prevData = (await repo.data.getPointer()).toString();
  const created: string[] = [];
  let changed = 0;
  for (let i = 0; i < 120; i++) {
    // creates (keys all over the tree), an update and a delete of earlier records now and then
    const action = i % 10 === 9 ? WriteOpAction.Delete : i % 10 === 4 ? WriteOpAction.Update : WriteOpAction.Create;
    const path = action === WriteOpAction.Create
      ? `app.bsky.feed.post/${rkey(i * 7919 % 100_003)}`
      : created.splice(created.length - 2, 1)[0];
    if (action === WriteOpAction.Create) created.push(path);
    if (action === WriteOpAction.Update) created.push(path);
    if (action !== WriteOpAction.Create) changed++;
    const [collection, key2] = path.split("/");
    const op = action === WriteOpAction.Delete
      ? { action, collection, rkey: key2 }
      : { action, collection, rkey: key2, record: record(i) };
    const commit = await repo.formatCommit(op as never, key);
    for (const [cid, bytes] of commit.newBlocks) assert.equal((await cidForCbor(bytes)).toString(), cid.toString());
    const prev = held.get(path) ?? null;
    const cid = op.action === WriteOpAction.Delete ? null : (await cidForCbor(encode(record(i) as never))).toString();
    if (cid) held.set(path, cid);
    else held.delete(path);
    const data = String((decode(commit.newBlocks.get(commit.cid)!) as { data: unknown }).data);
    if (i % 15 === 0 || i > 110) assert.equal(data, await freshRoot(held), `the tree root after commit ${i}`);
    const body = decode(commitEventBody({
      did: DID,
      commit,
      car: commitEventCar(commit),
      ops: [{ action: op.action as "create", path, cid, prev }],
      prevData,
      time: new Date(),
    })) as Record<string, unknown>;
    assert.deepEqual(await verifyCommitEvent(body, key.did()), { commit: commit.cid.toString(), data });
    prevData = data;
    repo = await repo.applyCommit(commit);
  }
  assert.equal(changed, 24, "updates and deletes were among the commits");
  // and the encodings were remembered: the root's, once the tree is loaded
  assert.ok(serializedOnce(repo.data) || (await repo.data.serialize(), serializedOnce(repo.data)));
});

test("a node's remembered encoding is its own entries': a new tree from the same node is encoded anew", async () => {
  const tree = await MST.create(new MemoryBlockstore());
  const one = await tree.add(`app.bsky.feed.post/${rkey(1)}`, await cidForCbor(encode(record(1) as never)));
  const first = await one.serialize();
  assert.equal(await one.serialize(), first, "asked again, the same answer");
  const two = await one.add(`app.bsky.feed.post/${rkey(2)}`, await cidForCbor(encode(record(2) as never)));
  const second = await two.serialize();
  assert.notEqual(second.cid.toString(), first.cid.toString());
  assert.equal((await cidForCbor(second.bytes)).toString(), second.cid.toString());
});
