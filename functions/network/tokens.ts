// Protocol session tokens: JWT-shaped (apps decode the access token to read exp and scope), HS256 with
// the site's `network_jwt` secret. Their claims are not trusted: a token counts only while its SHA-256
// hash is in network_sessions, and the expiry there is the one that decides.
import * as jose from "jose";
import { randomHex, sha256Hex } from "../../shared/ids.ts";

export const ACCESS_SECONDS = 2 * 3600;
export const REFRESH_SECONDS = 90 * 24 * 3600;

export type TokenKind = "access" | "refresh";

export interface MintedPair {
  accessJwt: string;
  refreshJwt: string;
  accessHash: string;
  refreshHash: string;
  accessExpiresAt: Date;
  refreshExpiresAt: Date;
}

export async function mintPair(
  secret: string,
  input: { did: string; audience: string; privileged: boolean; now: Date },
): Promise<MintedPair> {
  const key = new TextEncoder().encode(secret);
  const iat = Math.floor(input.now.getTime() / 1000);
  const accessExpiresAt = new Date((iat + ACCESS_SECONDS) * 1000);
  const refreshExpiresAt = new Date((iat + REFRESH_SECONDS) * 1000);
  const accessJwt = await new jose.SignJWT({
    scope: input.privileged ? "com.atproto.appPassPrivileged" : "com.atproto.appPass",
  })
    .setProtectedHeader({ typ: "at+jwt", alg: "HS256" })
    .setSubject(input.did).setAudience(input.audience).setIssuedAt(iat)
    .setExpirationTime(Math.floor(accessExpiresAt.getTime() / 1000)).setJti(randomHex(16))
    .sign(key);
  const refreshJwt = await new jose.SignJWT({ scope: "com.atproto.refresh" })
    .setProtectedHeader({ typ: "refresh+jwt", alg: "HS256" })
    .setSubject(input.did).setAudience(input.audience).setIssuedAt(iat)
    .setExpirationTime(Math.floor(refreshExpiresAt.getTime() / 1000)).setJti(randomHex(16))
    .sign(key);
  return {
    accessJwt,
    refreshJwt,
    accessHash: await sha256Hex(accessJwt),
    refreshHash: await sha256Hex(refreshJwt),
    accessExpiresAt,
    refreshExpiresAt,
  };
}

/** at+jwt / refresh+jwt: one of ours by its header; anything else may be the site's own person token. */
export function protocolTokenKind(token: string): TokenKind | undefined {
  try {
    const typ = jose.decodeProtectedHeader(token).typ;
    return typ === "at+jwt" ? "access" : typ === "refresh+jwt" ? "refresh" : undefined;
  } catch {
    return undefined;
  }
}

/** Whether we signed it (expiry is not checked here: network_sessions decides that). */
export async function signedByUs(secret: string, token: string): Promise<boolean> {
  try {
    await jose.compactVerify(token, new TextEncoder().encode(secret), { algorithms: ["HS256"] });
    return true;
  } catch {
    return false;
  }
}

export const tokenHash = sha256Hex;

/**
 * Tokens whose signature checked out, with the hash network_sessions knows them by: an app sends the same
 * access token with every request until it refreshes, and a signature that held under a secret always
 * will, so it is checked (and hashed) once per process. The session's row still decides every request
 * (revoked, expired). Bounded: the least recently used go first.
 */
const CHECKED_TOKENS = 10_000;
const checked = new Map<string, { secret: string; hash: string }>();

/** The token's hash when we signed it under `secret`, else undefined. */
export async function checkedTokenHash(secret: string, token: string): Promise<string | undefined> {
  const known = checked.get(token);
  if (known && known.secret === secret) {
    checked.delete(token);
    checked.set(token, known);
    return known.hash;
  }
  if (!(await signedByUs(secret, token))) return undefined;
  const hash = await tokenHash(token);
  checked.delete(token);
  checked.set(token, { secret, hash });
  if (checked.size > CHECKED_TOKENS) checked.delete(checked.keys().next().value!);
  return hash;
}
