// Who is calling: a protocol session (access or refresh token, by its hash in network_sessions) or the
// site's own person token (the account page), turned into the Viewer every method is given.
import type { FunctionContext } from "../../shared/context.ts";
import { bearerToken } from "../../shared/http.ts";
import { verifyPersonToken } from "../../shared/people.ts";
import { didOf, handleOf } from "./identity.ts";
import { memberById, type MemberRow } from "./store/people.ts";
import { sessionByHash, type SessionRow } from "./store/sessions.ts";
import { checkedTokenHash, protocolTokenKind, type TokenKind } from "./tokens.ts";
import { authRequired, expiredToken, invalidToken } from "./xrpc/errors.ts";
import type { MethodAuth, NetworkSite, Viewer } from "./xrpc/method.ts";

export const SESSION_SECRET = "network_jwt";

/** The viewer for a method's auth rule; throws the XRPC error an app expects when the token will not do. */
export async function authenticate(
  ctx: FunctionContext,
  site: NetworkSite,
  request: Request,
  rule: MethodAuth,
  now: Date,
): Promise<Viewer | undefined> {
  return viewerOf(await readCredentials(ctx, request, rule, now), site);
}

/** Whom a request's credentials name, and how they came: read without the site (see readCredentials). */
export interface Credentials {
  member: MemberRow;
  how: Pick<Viewer, "via" | "sessionId" | "appPasswordId">;
}

/**
 * The member a request's credentials name for a method's auth rule (undefined for nobody); throws the
 * XRPC error an app expects when the token will not do. It needs nothing of the site: an XRPC request's
 * session is read in the site settings' statement (sessionLookup, siteAndSession) and given here as
 * `read`; viewerOf makes the viewer.
 */
export async function readCredentials(
  ctx: FunctionContext,
  request: Request,
  rule: MethodAuth,
  now: Date,
  /** the session sessionLookup asked for, read already (beside the site's settings) */
  read?: { lookup: SessionLookup; session: SessionRow | undefined },
): Promise<Credentials | undefined> {
  if (rule === "none") return undefined;
  const header = request.headers.get("authorization");
  const token = bearerToken(request);
  if (!token) {
    if (rule === "optional" && !header) return undefined;
    throw header ? invalidToken("The authorization header must be Bearer <token>") : authRequired();
  }
  // a bad token is refused even where a viewer is optional: the app must learn that it has to refresh
  const kind = protocolTokenKind(token);
  if (rule === "refresh") {
    if (kind !== "refresh") throw invalidToken("This method takes the session's refresh token");
    return await protocolCredentials(ctx, token, "refresh", now, read);
  }
  if (kind === "refresh") throw invalidToken("This method takes an access token, not a refresh token");
  if (kind === "access") return await protocolCredentials(ctx, token, "access", now, read);
  return await siteCredentials(ctx, token);
}

/** The protocol session a request's token would be looked up by: its kind and hash. */
export interface SessionLookup {
  kind: TokenKind;
  hash: string;
}

/**
 * The session readCredentials will look up for this request, when its token is a protocol token of the
 * kind the rule takes and we signed it; undefined otherwise (readCredentials then says why it will not do).
 */
export async function sessionLookup(ctx: FunctionContext, request: Request, rule: MethodAuth): Promise<SessionLookup | undefined> {
  if (rule === "none") return undefined;
  const token = bearerToken(request);
  const kind = token ? protocolTokenKind(token) : undefined;
  if (!token || !kind || (rule === "refresh") !== (kind === "refresh")) return undefined;
  const hash = await checkedTokenHash(await ctx.secrets.get(SESSION_SECRET), token);
  return hash ? { kind, hash } : undefined;
}

async function protocolCredentials(
  ctx: FunctionContext,
  token: string,
  kind: TokenKind,
  now: Date,
  read?: { lookup: SessionLookup; session: SessionRow | undefined },
): Promise<Credentials> {
  const hash = await checkedTokenHash(await ctx.secrets.get(SESSION_SECRET), token);
  if (!hash) throw invalidToken("Token could not be verified");
  const session = read && read.lookup.kind === kind && read.lookup.hash === hash
    ? read.session
    : await sessionByHash(ctx.sql, kind, hash);
  if (!session) throw authRequired("Token has been revoked");
  if (session.expires_at.getTime() <= now.getTime()) {
    throw expiredToken();
  }
  const member = session.member;
  if (member.suspended_at) throw authRequired("Token has been revoked");
  return { member, how: { via: "app", sessionId: session.id, appPasswordId: session.app_password_id } };
}

async function siteCredentials(ctx: FunctionContext, token: string): Promise<Credentials> {
  const claims = await verifyPersonToken({ config: ctx.config, secrets: ctx.secrets }, token);
  if (!claims) throw authRequired("Token could not be verified");
  const member = await memberById(ctx.sql, claims.sub);
  if (!member || member.suspended_at) throw authRequired("No member of this site has that token");
  return { member, how: { via: "site" } };
}

/** The viewer the credentials name, on this site (undefined for nobody). */
export function viewerOf(credentials: Credentials | undefined, site: NetworkSite): Viewer | undefined {
  if (!credentials) return undefined;
  const { member, how } = credentials;
  return { id: member.id, did: didOf(member, site.handleDomain), handle: handleOf(member, site.handleDomain), ...how };
}
