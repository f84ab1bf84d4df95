// The app view (network.appview): reads about somebody elsewhere are asked of it as the member, with a
// service token signed by their key (reference §7: ES256K, iss, aud, lxm, exp); getTimeline and
// listNotifications merge its first page with the site's own. A member who has not joined is refused
// with the reason; a closed network answers MethodNotImplemented.
import type { Keypair } from "@atproto/crypto";
import type { FunctionContext } from "../../../shared/context.ts";
import { base64url } from "../../../shared/ids.ts";
import { nameFromDid, nameFromHandle } from "../identity.ts";
import { resolveActor } from "../resolve.ts";
import { accountOf } from "../store/repo.ts";
import { authRequired, forbidden, methodNotImplemented, XrpcError } from "../xrpc/errors.ts";
import type { Call, NetworkSite } from "../xrpc/method.ts";
import { openKey } from "./keys.ts";
import { CLOSED_MESSAGE, federationOf } from "./settings.ts";

/** The reads that may be about somebody elsewhere, and the parameters naming whom (or whose post). */
const ABOUT: Record<string, string> = {
  "app.bsky.actor.getProfile": "actor",
  "app.bsky.actor.getProfiles": "actors",
  "app.bsky.feed.getAuthorFeed": "actor",
  "app.bsky.feed.getPostThread": "uri",
  "app.bsky.feed.getPosts": "uris",
  "app.bsky.feed.getLikes": "uri",
  "app.bsky.feed.getRepostedBy": "uri",
  "app.bsky.graph.getFollows": "actor",
  "app.bsky.graph.getFollowers": "actor",
};

/** The first page of these merges the app view's items with the site's own (list field, time field). */
const MERGED: Record<string, { list: string; time: (item: any) => string | undefined }> = {
  "app.bsky.feed.getTimeline": { list: "feed", time: (i) => i?.reason?.indexedAt ?? i?.post?.indexedAt },
  "app.bsky.notification.listNotifications": { list: "notifications", time: (i) => i?.indexedAt },
};

const TIMEOUT_MS = 10_000;
const TOKEN_SECONDS = 60;

/** Whether this identifier (handle, DID or at-uri) names somebody who is not a member of this site. */
async function elsewhere(ctx: FunctionContext, site: NetworkSite, value: string): Promise<boolean> {
  const authority = value.startsWith("at://") ? value.slice(5).split("/")[0] : value;
  if (!authority) return false;
  const lower = authority.toLowerCase();
  if (nameFromHandle(lower, site.handleDomain) || nameFromDid(lower, site.handleDomain)) return false;
  if (lower === site.handleDomain || lower.endsWith(`.${site.handleDomain}`)) return false;
  if (lower.startsWith("did:web:") && lower.endsWith(site.handleDomain)) return false;
  return !(await resolveActor(ctx.sql, authority, site.handleDomain));
}

/**
 * The app view's answer when the call is about somebody elsewhere; undefined when the site answers it
 * itself.
 */
export async function remoteRead(call: Call): Promise<Response | undefined> {
  const param = ABOUT[call.nsid];
  if (!param) return undefined;
  const raw = call.params[param];
  const values = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  let away = false;
  for (const value of values) {
    if (await elsewhere(call.ctx, call.site, value)) {
      away = true;
      break;
    }
  }
  if (!away) return undefined;
  const federation = federationOf(call.ctx.config, call.site);
  if (!federation.open) throw methodNotImplemented(CLOSED_MESSAGE);
  const asker = await joinedAsker(call);
  const appview = federation.appview;
  if (!appview) throw methodNotImplemented("The site has no app view for people elsewhere (network.appview).");
  const response = await askAppview(appview, asker, call.nsid, new URL(call.request.url).search);
  return new Response(response.body, {
    status: response.status,
    headers: { "content-type": response.headers.get("content-type") ?? "application/json" },
  });
}

/** The site's own first page with the app view's first page merged in, newest first. */
export async function mergedFirstPage(call: Call, own: unknown): Promise<unknown> {
  const merge = MERGED[call.nsid];
  if (!merge || !call.viewer || call.params.cursor !== undefined || !own || typeof own !== "object") return own;
  const federation = federationOf(call.ctx.config, call.site);
  if (!federation.open || !federation.appview) return own;
  const account = await accountOf(call.ctx.sql, call.viewer.id);
  if (!account || account.status !== "active") return own;
  const keypair = await openKey(call.ctx.config.networkKeySecret, account.signing_key);
  let theirs: Record<string, unknown[]>;
  try {
    const response = await askAppview(federation.appview, { did: account.did, keypair }, call.nsid, new URL(call.request.url).search);
    if (!response.ok) {
      await response.body?.cancel();
      return own;
    }
    theirs = await response.json();
  } catch {
    return own; // the site's own page still answers when the app view is away
  }
  const mine = (own as Record<string, unknown[]>)[merge.list] ?? [];
  const seen = new Set(mine.map((item: any) => item?.post?.uri ?? item?.uri));
  const added = (theirs[merge.list] ?? []).filter((item: any) => !seen.has(item?.post?.uri ?? item?.uri));
  const all = [...mine, ...added].sort((a, b) => (merge.time(b) ?? "").localeCompare(merge.time(a) ?? ""));
  return { ...(own as object), [merge.list]: all };
}

async function joinedAsker(call: Call): Promise<{ did: string; keypair: Keypair }> {
  if (!call.viewer) throw authRequired("Sign in to read about people elsewhere.");
  const account = await accountOf(call.ctx.sql, call.viewer.id);
  if (!account || account.status !== "active") {
    throw forbidden("Join the wider network (POST /network/join) to read about people elsewhere.");
  }
  return { did: account.did, keypair: await openKey(call.ctx.config.networkKeySecret, account.signing_key) };
}

async function askAppview(
  appview: { url: string; did: string },
  asker: { did: string; keypair: Keypair },
  nsid: string,
  search: string,
): Promise<Response> {
  const token = await serviceJwt(asker.keypair, { iss: asker.did, aud: appview.did, lxm: nsid });
  try {
    return await fetch(`${appview.url}/xrpc/${nsid}${search}`, {
      headers: { authorization: `Bearer ${token}`, accept: "application/json" },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch {
    throw new XrpcError(502, "UpstreamFailure", "The app view could not be reached.");
  }
}

/**
 * A service token (what @atproto/xrpc-server's createServiceJwt makes): header {typ, alg ES256K}, payload
 * {iat, iss, aud, exp, lxm, jti}, signed with the member's key (low-S, compact r‖s) over the two parts.
 */
export async function serviceJwt(
  keypair: Keypair,
  claims: { iss: string; aud: string; lxm: string },
  now = Date.now(),
): Promise<string> {
  const iat = Math.floor(now / 1000);
  const json = (value: unknown) => base64url(new TextEncoder().encode(JSON.stringify(value)));
  const jti = base64url(crypto.getRandomValues(new Uint8Array(16)));
  const input = `${json({ typ: "JWT", alg: keypair.jwtAlg })}.${
    json({ iat, iss: claims.iss, aud: claims.aud, exp: iat + TOKEN_SECONDS, lxm: claims.lxm, jti })
  }`;
  return `${input}.${base64url(await keypair.sign(new TextEncoder().encode(input)))}`;
}
