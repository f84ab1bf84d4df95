// A joined member's K-256 signing key, kept encrypted at rest: AES-GCM under a key derived (HKDF-SHA-256)
// from the deployment secret, which lives in the deployment's environment and never in the database.
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
      return await Secp256k1Keypair.import(new Uint8Array(privateKey));
    })();
    keypair.catch(() => opened.delete(sealed));
    opened.set(sealed, keypair);
  }
  return keypair;
}
