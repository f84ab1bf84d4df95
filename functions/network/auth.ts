// Who is calling: a protocol session (access or refresh token, by its hash in network_sessions) or the
// site's own person token (the account page), turned into the Viewer every method is given.
import type { FunctionContext } from "../../shared/context.ts";
import { bearerToken } from "../../shared/http.ts";
import { verifyPersonToken } from "../../shared/people.ts";
import { didOf, handleOf } from "./identity.ts";
import { memberById, type MemberRow } from "./store/people.ts";
import { sessionByHash } from "./store/sessions.ts";
import { protocolTokenKind, signedByUs, tokenHash, type TokenKind } from "./tokens.ts";
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
    return await protocolViewer(ctx, site, token, "refresh", now);
  }
  if (kind === "refresh") throw invalidToken("This method takes an access token, not a refresh token");
  if (kind === "access") return await protocolViewer(ctx, site, token, "access", now);
  return await siteViewer(ctx, site, token);
}

async function protocolViewer(
  ctx: FunctionContext,
  site: NetworkSite,
  token: string,
  kind: TokenKind,
  now: Date,
): Promise<Viewer> {
  if (!(await signedByUs(await ctx.secrets.get(SESSION_SECRET), token))) {
    throw invalidToken("Token could not be verified");
  }
  const session = await sessionByHash(ctx.sql, kind, await tokenHash(token));
  if (!session) throw authRequired("Token has been revoked");
  if (session.expires_at.getTime() <= now.getTime()) {
    throw expiredToken();
  }
  const member = session.member;
  if (member.suspended_at) throw authRequired("Token has been revoked");
  return viewerOf(member, site, { via: "app", sessionId: session.id, appPasswordId: session.app_password_id });
}

async function siteViewer(ctx: FunctionContext, site: NetworkSite, token: string): Promise<Viewer> {
  const claims = await verifyPersonToken({ config: ctx.config, secrets: ctx.secrets }, token);
  if (!claims) throw authRequired("Token could not be verified");
  const member = await memberById(ctx.sql, claims.sub);
  if (!member || member.suspended_at) throw authRequired("No member of this site has that token");
  return viewerOf(member, site, { via: "site" });
}

function viewerOf(member: MemberRow, site: NetworkSite, how: Pick<Viewer, "via" | "sessionId" | "appPasswordId">): Viewer {
  return { id: member.id, did: didOf(member, site.handleDomain), handle: handleOf(member, site.handleDomain), ...how };
}
