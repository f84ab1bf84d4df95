// A member's signing key as opened from storage (federation/keys.ts openKey) signs with the runtime's
// native ECDSA: its signatures must be what the protocol's own verifier takes (strictly: 64 bytes, low
// s), from the same public key and DID as the library's key pair, and a high s must be turned low. The
// bench's verifying consumer checks signatures natively too (helpers/firehose.ts): it must take and refuse
// what the library does.
import assert from "node:assert/strict";
import { Secp256k1Keypair, verifySignature } from "@atproto/crypto";
import { verifyCommitSig } from "@atproto/repo";
import { encode } from "@atproto/lex-cbor";
import { parseCid } from "@atproto/lex-data";
import { test } from "../../helpers/test.ts";
import { lowS, NativeSigningKeypair, openKey, sealKey } from "../../../functions/network/federation/keys.ts";
import { verifySignedCommit } from "../../helpers/firehose.ts";

const CID = "bafyreie5737gdxlw5i64vzichcalba3z2v5n6icifvx5xytvske7mr3hpm";
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const bytesOf = (n: bigint) => Uint8Array.from({ length: 32 }, (_, i) => Number((n >> BigInt(8 * (31 - i))) & 0xffn));
const numberOf = (bytes: Uint8Array) => bytes.reduce((n, b) => (n << 8n) | BigInt(b), 0n);

test("an opened key's native signatures verify strictly against the member's did:key", async () => {
  const library = await Secp256k1Keypair.create({ exportable: true });
  const opened = await openKey("a deployment secret", await sealKey("a deployment secret", await library.export()));
  assert.ok(opened instanceof NativeSigningKeypair);
  assert.equal(opened.did(), library.did());
  for (let i = 0; i < 50; i++) {
    const message = crypto.getRandomValues(new Uint8Array(100 + i));
    const signature: Uint8Array = await opened.sign(message);
    assert.equal(signature.length, 64);
    assert.ok(numberOf(signature.subarray(32)) <= N >> 1n, "s is in the lower half");
    assert.equal(await verifySignature(library.did(), message, signature), true);
    // and not for another message
    const other = message.slice();
    other[0] ^= 1;
    assert.equal(await verifySignature(library.did(), other, signature), false);
  }
});

test("lowS turns a high s into n - s and leaves a low one as it is", async () => {
  const key = await Secp256k1Keypair.create();
  const message = new TextEncoder().encode("a commit's bytes");
  const low = await key.sign(message);
  const high = low.slice();
  high.set(bytesOf(N - numberOf(low.subarray(32))), 32);
  assert.equal(await verifySignature(key.did(), message, high), false, "the protocol refuses a high s");
  assert.deepEqual(lowS(high.slice()), low);
  assert.deepEqual(lowS(low.slice()), low);
  assert.throws(() => lowS(new Uint8Array(63)));
});

test("the consumer's native check of a commit's signature agrees with @atproto/repo's verifyCommitSig", async () => {
  const key = await Secp256k1Keypair.create();
  const other = await Secp256k1Keypair.create();
  const unsigned = { did: "did:plc:ewvi7nxzyoun6zhxrhs64oiz", version: 3, data: parseCid(CID), rev: "3l6oveex3ii2l", prev: null };
  const sig = await key.sign(encode(unsigned as never));
  const high = sig.slice();
  high.set(bytesOf(N - numberOf(sig.subarray(32))), 32);
  const tampered = sig.slice();
  tampered[5] ^= 1;
  const cases: [string, Record<string, unknown>, string][] = [
    ["signed", { ...unsigned, sig }, key.did()],
    ["another key's", { ...unsigned, sig }, other.did()],
    ["another rev", { ...unsigned, rev: "3l6oveex3ii2m", sig }, key.did()],
    ["a high s", { ...unsigned, sig: high }, key.did()],
    ["a changed byte", { ...unsigned, sig: tampered }, key.did()],
    ["cut short", { ...unsigned, sig: sig.subarray(0, 63) }, key.did()],
    ["no signature", { ...unsigned }, key.did()],
  ];
  for (const [name, commit, didKey] of cases) {
    const expected = await verifyCommitSig(commit as never, didKey).catch(() => false);
    assert.equal(expected, name === "signed", `the library on ${name}`);
    assert.equal(await verifySignedCommit(commit, didKey), expected, name);
  }
});
