// Signing an app in: an app password (never the site password), ten wrong ones per address per hour,
// JWT-shaped tokens whose hashes are kept; refreshing rotates both tokens.
import type { FunctionContext } from "../../shared/context.ts";
import { sha256Hex } from "../../shared/ids.ts";
import { SESSION_SECRET } from "./auth.ts";
import { didOf, handleOf } from "./identity.ts";
import { resolveIdentifier } from "./resolve.ts";
import type { MemberRow } from "./store/people.ts";
import {
  appPasswordByHash,
  countWrongPassword,
  insertSession,
  rotateSession,
  sessionByHash,
  sweepSessionsOf,
  wrongPasswordCount,
} from "./store/sessions.ts";
import { mintPair, tokenHash } from "./tokens.ts";
import { authRequired, XrpcError } from "./xrpc/errors.ts";
import type { NetworkSite, Viewer } from "./xrpc/method.ts";

export const WRONG_PASSWORDS_PER_HOUR = 10;

export interface SessionAnswer {
  accessJwt: string;
  refreshJwt: string;
  handle: string;
  did: string;
  email: string;
  emailConfirmed: boolean;
  active: boolean;
}

export async function signIn(
  ctx: FunctionContext,
  site: NetworkSite,
  input: { identifier: string; password: string; clientAddress: string; now: Date },
): Promise<SessionAnswer> {
  const bucket = `network:sign-in:${input.clientAddress}`;
  if ((await wrongPasswordCount(ctx.sql, bucket, input.now)) >= WRONG_PASSWORDS_PER_HOUR) {
    throw new XrpcError(429, "RateLimitExceeded", "Too many wrong passwords from this address: try again within the hour.");
  }
  const member = await resolveIdentifier(ctx.sql, input.identifier, site.handleDomain);
  const appPassword = member ? await appPasswordByHash(ctx.sql, member.id, await hashAppPassword(input.password)) : undefined;
  if (!member || !appPassword) {
    await countWrongPassword(ctx.sql, bucket, input.now);
    throw authRequired("Invalid identifier or password");
  }
  if (member.suspended_at) throw new XrpcError(401, "AccountTakedown", "This account is suspended.");
  const did = didOf(member, site.handleDomain);
  const pair = await mintPair(await ctx.secrets.get(SESSION_SECRET), {
    did,
    audience: site.did,
    privileged: appPassword.privileged,
    now: input.now,
  });
  await insertSession(ctx.sql, { personId: member.id, appPasswordId: appPassword.id, now: input.now, ...pair });
  await sweepSessionsOf(ctx.sql, member.id, input.now);
  return answer(member, site, pair);
}

/** A new pair for the refresh token's session; the old refresh token is spent. */
export async function refresh(
  ctx: FunctionContext,
  site: NetworkSite,
  viewer: Viewer,
  refreshJwt: string,
  member: MemberRow,
  now: Date,
): Promise<SessionAnswer> {
  const oldRefreshHash = await tokenHash(refreshJwt);
  const session = await sessionByHash(ctx.sql, "refresh", oldRefreshHash);
  if (!session) throw authRequired("Token has been revoked");
  const pair = await mintPair(await ctx.secrets.get(SESSION_SECRET), {
    did: viewer.did,
    audience: site.did,
    privileged: session.privileged,
    now,
  });
  if (!(await rotateSession(ctx.sql, { id: session.id, oldRefreshHash, now, ...pair }))) {
    throw authRequired("Token has been revoked");
  }
  return answer(member, site, pair);
}

function answer(member: MemberRow, site: NetworkSite, pair: { accessJwt: string; refreshJwt: string }): SessionAnswer {
  return {
    accessJwt: pair.accessJwt,
    refreshJwt: pair.refreshJwt,
    handle: handleOf(member, site.handleDomain),
    did: didOf(member, site.handleDomain),
    email: member.email,
    emailConfirmed: true,
    active: true,
  };
}

/** App passwords are random (about 80 bits), so a plain SHA-256 is enough to keep them unreadable. */
export function hashAppPassword(password: string): Promise<string> {
  return sha256Hex(`network-app-password:${password.trim().toLowerCase()}`);
}

const APP_PASSWORD_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";

/** xxxx-xxxx-xxxx-xxxx from a 32-letter alphabet, as the vendor's app passwords look. */
export function generateAppPassword(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  const chars = Array.from(bytes, (b) => APP_PASSWORD_ALPHABET[b % 32]).join("");
  return chars.match(/.{4}/g)!.join("-");
}
