// A joined member's K-256 signing key, kept encrypted at rest: AES-GCM under a key derived (HKDF-SHA-256)
// from the deployment secret, which lives in the deployment's environment and never in the database.
import { createPrivateKey, type KeyObject, sign } from "node:crypto";
import { Secp256k1Keypair } from "@atproto/crypto";
import { base64url, fromBase64url } from "../../../shared/ids.ts";

const INFO = new TextEncoder().encode("sitewire network signing keys");

export class MissingKeySecret extends Error {}

async function wrappingKey(secret: string | undefined): Promise<CryptoKey> {
  if (!secret) throw new MissingKeySecret("NETWORK_KEY_SECRET is not set: members' signing keys cannot be kept.");
  const material = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), "HKDF", false, [
    "deriveKey",
  ]);
  return await crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(32), info: INFO },
    material,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

/** A new exportable K-256 key pair and its private key sealed for storage (`<iv>.<ciphertext>`, base64url). */
export async function newSigningKey(secret: string | undefined): Promise<{ keypair: Secp256k1Keypair; sealed: string }> {
  const keypair = await Secp256k1Keypair.create({ exportable: true });
  return { keypair, sealed: await sealKey(secret, await keypair.export()) };
}

export async function sealKey(secret: string | undefined, privateKey: Uint8Array): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt({ name: "AES-GCM", iv }, await wrappingKey(secret), privateKey as BufferSource),
  );
  return `${base64url(iv)}.${base64url(sealed)}`;
}

/**
 * A member's key pair that signs with the runtime's native ECDSA (node:crypto) rather than the library's
 * JavaScript curve arithmetic: every commit is signed inside its repository's lock, and the JavaScript
 * signature (SHA-256, RFC 6979 nonce and the point multiplication, all in JS) cost about twice the native
 * one. The signature is the same kind: K-256 over the SHA-256 of the message, 64 bytes (r, s), s in the
 * lower half of the order as the protocol requires (normalised here whatever the native signer gives).
 * The public key, the DID and export are the library's.
 */
export class NativeSigningKeypair extends Secp256k1Keypair {
  private readonly native: KeyObject;

  constructor(privateKey: Uint8Array, exportable: boolean) {
    super(privateKey, exportable);
    if (privateKey.length !== 32) throw new Error("a K-256 private key is 32 bytes");
    // SEC 1 ECPrivateKey { version 1, the key, [0] the curve secp256k1 } in DER
    const der = new Uint8Array(SEC1_HEAD.length + 32 + SEC1_CURVE.length);
    der.set(SEC1_HEAD, 0);
    der.set(privateKey, SEC1_HEAD.length);
    der.set(SEC1_CURVE, SEC1_HEAD.length + 32);
    this.native = createPrivateKey({ key: der as never, format: "der", type: "sec1" });
  }

  override sign(msg: Uint8Array): Promise<Uint8Array> {
    const signature = new Uint8Array(sign("sha256", msg, { key: this.native, dsaEncoding: "ieee-p1363" }));
    return Promise.resolve(lowS(signature));
  }
}

const SEC1_HEAD = Uint8Array.of(0x30, 0x2e, 0x02, 0x01, 0x01, 0x04, 0x20);
const SEC1_CURVE = Uint8Array.of(0xa0, 0x07, 0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x0a);
/** the order of K-256's group */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

/** The signature with s in the lower half of the order (s and n - s both verify; the protocol takes the low one). */
export function lowS(signature: Uint8Array): Uint8Array {
  if (signature.length !== 64) throw new Error("a K-256 signature is 64 bytes");
  let s = 0n;
  for (let i = 32; i < 64; i++) s = (s << 8n) | BigInt(signature[i]);
  if (s <= N >> 1n) return signature;
  let low = N - s;
  for (let i = 63; i >= 32; i--) {
    signature[i] = Number(low & 0xffn);
    low >>= 8n;
  }
  return signature;
}

const opened = new Map<string, Promise<Secp256k1Keypair>>();

/** The key pair a sealed key holds (kept in memory per process once opened). */
export function openKey(secret: string | undefined, sealed: string): Promise<Secp256k1Keypair> {
  let keypair = opened.get(sealed);
  if (!keypair) {
    keypair = (async () => {
      const [iv, body] = sealed.split(".");
      const privateKey = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: fromBase64url(iv) as BufferSource },
        await wrappingKey(secret),
        fromBase64url(body) as BufferSource,
      );
      return new NativeSigningKeypair(new Uint8Array(privateKey), false);
    })();
    keypair.catch(() => opened.delete(sealed));
    opened.set(sealed, keypair);
  }
  return keypair;
}
