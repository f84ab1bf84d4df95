// The did:plc directory (NETWORK_PLC_URL): a joined member's genesis operation (their signing key, their
// handle, the site as their server), later handle changes and new signing keys, built and signed with
// @did-plc/lib and posted to the directory over plain HTTP. The library is loaded on first use: it is one
// 2 MB bundle (about 6 MB of heap once loaded) that a host whose members never join the wider network
// would otherwise hold for nothing.
import type { DocumentData } from "@did-plc/lib";
import type { Keypair } from "@atproto/crypto";

let library: Promise<typeof import("@did-plc/lib")> | undefined;
const plc = () => library ??= import("@did-plc/lib");

export class DirectoryError extends Error {}

const TIMEOUT_MS = 10_000;

/** Registers a new did:plc whose rotation and signing key is the member's own key; answers the DID. */
export async function registerDid(
  plcUrl: string,
  keypair: Keypair,
  options: { handle: string; pds: string },
): Promise<string> {
  const { createOp } = await plc();
  const { op, did } = await createOp({
    signingKey: keypair.did(),
    rotationKeys: [keypair.did()],
    handle: options.handle,
    pds: options.pds,
    signer: keypair,
  });
  await post(plcUrl, did, op);
  return did;
}

/** Writes a new handle into the member's DID document. */
export async function updateHandle(plcUrl: string, did: string, keypair: Keypair, handle: string): Promise<void> {
  const { updateHandleOp } = await plc();
  const op = await updateHandleOp(await lastOp(plcUrl, did), keypair, handle);
  await post(plcUrl, did, op);
}

/**
 * Names a new key in the member's DID document, as their signing key and their rotation key alike (the
 * site holds one key per member, which must be able to sign the next operation); signed by the current
 * key, the only rotation key the directory accepts for them.
 */
export async function updateSigningKey(plcUrl: string, did: string, current: Keypair, next: Keypair): Promise<void> {
  const { createUpdateOp } = await plc();
  const op = await createUpdateOp(await lastOp(plcUrl, did), current, (normalized) => ({
    ...normalized,
    rotationKeys: [next.did()],
    verificationMethods: { ...normalized.verificationMethods, atproto: next.did() },
  }));
  await post(plcUrl, did, op);
}

/** The key the directory's document names as the member's signing key (#atproto). */
export async function directorySigningKey(plcUrl: string, did: string): Promise<string | undefined> {
  const response = await get(plcUrl, `${encodeURIComponent(did)}/data`);
  if (!response.ok) throw new DirectoryError(`The directory did not give ${did}'s document (${response.status}).`);
  return ((await response.json()) as DocumentData).verificationMethods?.atproto;
}

/** A member's DID document as the directory serves it, from what the site knows of them. */
export async function plcDidDocument(member: { did: string; handle: string; didKey: string; pds: string }) {
  const { formatDidDoc } = await plc();
  return formatDidDoc({
    did: member.did,
    rotationKeys: [member.didKey],
    verificationMethods: { atproto: member.didKey },
    alsoKnownAs: [`at://${member.handle}`],
    services: { atproto_pds: { type: "AtprotoPersonalDataServer", endpoint: member.pds } },
  });
}

async function lastOp(plcUrl: string, did: string) {
  const response = await get(plcUrl, `${encodeURIComponent(did)}/log/last`);
  if (!response.ok) throw new DirectoryError(`The directory did not give ${did}'s last operation (${response.status}).`);
  return await response.json();
}

async function get(plcUrl: string, path: string): Promise<Response> {
  try {
    return await fetch(`${plcUrl}/${path}`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch {
    throw new DirectoryError(`The did:plc directory at ${plcUrl} could not be reached.`);
  }
}

async function post(plcUrl: string, did: string, op: unknown): Promise<void> {
  let response: Response;
  try {
    response = await fetch(`${plcUrl}/${encodeURIComponent(did)}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(op),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch {
    throw new DirectoryError(`The did:plc directory at ${plcUrl} could not be reached.`);
  }
  if (!response.ok) {
    throw new DirectoryError(`The did:plc directory refused the operation (${response.status}): ${await response.text()}`);
  }
}
