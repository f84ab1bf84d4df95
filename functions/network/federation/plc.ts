// The did:plc directory (NETWORK_PLC_URL): a joined member's genesis operation (their signing key, their
// handle, the site as their server) and later handle changes, built and signed with @did-plc/lib and
// posted to the directory over plain HTTP.
import { createOp, updateHandleOp } from "@did-plc/lib";
import type { Keypair } from "@atproto/crypto";

export class DirectoryError extends Error {}

const TIMEOUT_MS = 10_000;

/** Registers a new did:plc whose rotation and signing key is the member's own key; answers the DID. */
export async function registerDid(
  plcUrl: string,
  keypair: Keypair,
  options: { handle: string; pds: string },
): Promise<string> {
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
  const response = await fetch(`${plcUrl}/${encodeURIComponent(did)}/log/last`, {
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  if (!response.ok) throw new DirectoryError(`The directory did not give ${did}'s last operation (${response.status}).`);
  const op = await updateHandleOp(await response.json(), keypair, handle);
  await post(plcUrl, did, op);
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
