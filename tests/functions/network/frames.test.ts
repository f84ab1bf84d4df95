// The firehose's message frames (federation/events.ts messageFrame): the stored body's `seq` is spliced
// into its encoded map where DAG-CBOR's key order puts it, never decoded and encoded again; the bytes must
// be exactly what encoding `{seq, ...body}` anew gives, for every kind of event and every size of number.
import assert from "node:assert/strict";
import { decode, encode } from "@atproto/lex-cbor";
import { parseCid } from "@atproto/lex-data";
import { BlockMap, blocksToCarFile, MemoryBlockstore, readCarWithRoot, Repo, WriteOpAction } from "@atproto/repo";
import { Secp256k1Keypair } from "@atproto/crypto";
import { test } from "../../helpers/test.ts";
import {
  accountEventBody,
  commitEventBody,
  commitEventCar,
  identityEventBody,
  messageFrame,
  readFrame,
  syncEventBody,
} from "../../../functions/network/federation/events.ts";

const TYPE = { commit: "#commit", identity: "#identity", account: "#account", sync: "#sync" } as const;
const CID = "bafyreie5737gdxlw5i64vzichcalba3z2v5n6icifvx5xytvske7mr3hpm";
const CID2 = "bafyreihq3gvh5tdp7ki3dsovqpq4xzbqcgcs3qjdktgh2upaxtqoyzj4xe";
const NUMBERS = [0, 1, 23, 24, 255, 256, 65_535, 65_536, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 7, Number.MAX_SAFE_INTEGER];

/** What encoding the frame anew gives: the header, then the body decoded with seq added. */
function reencoded(kind: keyof typeof TYPE, seq: number, body: Uint8Array): Uint8Array {
  const header = encode({ op: 1, t: TYPE[kind] });
  const full = encode({ seq, ...(decode(body) as Record<string, unknown>) } as never);
  const out = new Uint8Array(header.length + full.length);
  out.set(header);
  out.set(full, header.length);
  return out;
}

const time = new Date("2030-01-02T03:04:05.678Z");
const commit = (since: string | null) => ({ cid: parseCid(CID), rev: "3l6oveex3ii2l", since }) as never;
const bodies: [keyof typeof TYPE, string, Uint8Array][] = [
  ["commit", "a create, since null, no prevData", commitEventBody({
    did: "did:plc:ewvi7nxzyoun6zhxrhs64oiz",
    commit: commit(null),
    car: Uint8Array.from({ length: 3000 }, (_, i) => i % 251),
    ops: [{ action: "create", path: "app.bsky.feed.post/3l6oveex3ii2l", cid: CID2, prev: null }],
    prevData: null,
    time,
  })],
  ["commit", "updates and a delete with prev, prevData", commitEventBody({
    did: "did:plc:ewvi7nxzyoun6zhxrhs64oiz",
    commit: commit("3l6oveex3ii2k"),
    car: new Uint8Array([1, 2, 3]),
    ops: [
      { action: "update", path: "app.bsky.actor.profile/self", cid: CID2, prev: CID },
      { action: "delete", path: "app.bsky.feed.like/3l6oveex3ii2a", cid: null, prev: CID2 },
    ],
    prevData: CID,
    time,
  })],
  ["identity", "with its handle", identityEventBody("did:plc:ewvi7nxzyoun6zhxrhs64oiz", "mira.example.test", time)],
  ["account", "active", accountEventBody("did:plc:ewvi7nxzyoun6zhxrhs64oiz", "active", time)],
  ["account", "taken down", accountEventBody("did:plc:ewvi7nxzyoun6zhxrhs64oiz", "takendown", time)],
  ["sync", "the head's commit", syncEventBody({
    did: "did:plc:ewvi7nxzyoun6zhxrhs64oiz",
    commitCid: CID,
    commitBytes: new Uint8Array(200).fill(7),
    rev: "3l6oveex3ii2l",
    time,
  })],
];

test("a frame's bytes are the re-encoded frame's, for every kind of event and every size of number", () => {
  for (const [kind, label, body] of bodies) {
    for (const seq of NUMBERS) {
      assert.deepEqual(messageFrame(kind, seq, body), reencoded(kind, seq, body), `${kind} (${label}) at ${seq}`);
    }
    const { header, body: read } = readFrame(messageFrame(kind, 42, body));
    assert.deepEqual(header, { op: 1, t: TYPE[kind] });
    assert.equal(read.seq, 42);
  }
});

test("seq goes where the key order puts it, in maps of any size, and the map's count grows by one", () => {
  const keys = ["a", "zz", "abc", "ops", "rev", "sep", "ser", "seqq", "zzz", "time", "longer key"];
  for (let size = 0; size <= 30; size++) {
    const map: Record<string, unknown> = {};
    for (let i = 0; i < size; i++) map[keys[i] ?? `key${String(i).padStart(3, "0")}`] = i % 2 ? [i, { nested: CID }] : parseCid(CID);
    const body = encode(map as never);
    for (const seq of [5, 2 ** 33]) {
      assert.deepEqual(messageFrame("identity", seq, body), reencoded("identity", seq, body), `${size} entries at ${seq}`);
    }
  }
});

test("a body that is no map, or has a seq already, is refused rather than framed wrong", () => {
  assert.throws(() => messageFrame("identity", 1, encode([1, 2] as never)), /map/);
  assert.throws(() => messageFrame("identity", 1, encode({ did: "did:plc:x", seq: 3 } as never)), /seq already/);
  assert.throws(() => messageFrame("identity", -1, encode({ did: "did:plc:x" } as never)), /whole number/);
});

test("a #commit's CAR is the one the library's writer makes of the same blocks, new ones first, and reads back whole", async () => {
  const key = await Secp256k1Keypair.create();
  const storage = new MemoryBlockstore();
  const record = (i: number) => ({ $type: "app.bsky.feed.post", text: `post ${i}`, createdAt: time.toISOString() });
  const writes = Array.from({ length: 40 }, (_, i) => ({
    action: WriteOpAction.Create,
    collection: "app.bsky.feed.post",
    rkey: `3l6oveex3ii${String(i).padStart(2, "0")}`.replace(/\d/g, (d) => "234567abcd"[Number(d)]),
    record: record(i),
  }));
  let repo = await Repo.create(storage, "did:plc:ewvi7nxzyoun6zhxrhs64oiz", key, writes as never);
  for (const op of [
    { action: WriteOpAction.Create, collection: "app.bsky.feed.post", rkey: "3l6ozzzzzzzzz", record: record(99) },
    { action: WriteOpAction.Update, collection: "app.bsky.feed.post", rkey: writes[3].rkey, record: record(100) },
    { action: WriteOpAction.Delete, collection: "app.bsky.feed.post", rkey: writes[7].rkey },
  ]) {
    const commit = await repo.formatCommit(op as never, key);
    const library = new BlockMap();
    library.addMap(commit.newBlocks);
    library.addMap(commit.relevantBlocks);
    const car = commitEventCar(commit);
    assert.deepEqual(car, await blocksToCarFile(commit.cid, library), op.action);
    const { root, blocks } = await readCarWithRoot(car);
    assert.equal(root.toString(), commit.cid.toString());
    assert.ok(blocks.equals(library), op.action);
    repo = await repo.applyCommit(commit);
  }
});
