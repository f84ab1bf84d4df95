// /.well-known/atproto-did and /.well-known/did.json, answered for the host they were asked on: a
// member's handle host gets that member's DID and did:web document, the site's own host the site's.
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { didOf, memberDidDocument, nameFromHandle, siteDidDocument } from "../identity.ts";
import { networkSite } from "../xrpc/dispatch.ts";
import { memberByName } from "../store/people.ts";
import { methodNotImplemented, XrpcError } from "../xrpc/errors.ts";

/** The host the request was asked on: the proxy's X-Forwarded-Host where the deployment trusts one. */
function askedHost(ctx: FunctionContext, c: Context): string {
  const forwarded = ctx.config.trustedProxies > 0 ? c.req.header("x-forwarded-host")?.split(",")[0]?.trim() : undefined;
  return (forwarded || c.req.header("host") || new URL(c.req.url).host).toLowerCase();
}

async function memberOfHost(ctx: FunctionContext, c: Context) {
  const site = await networkSite(ctx);
  if (!site) throw methodNotImplemented("The site's network is off.");
  const host = askedHost(ctx, c);
  const name = nameFromHandle(host, site.handleDomain);
  const member = name ? await memberByName(ctx.sql, name) : undefined;
  return { site, host, member: member && !member.suspended_at ? member : undefined };
}

const notHere = () => new XrpcError(404, "NotFound", "No member's handle is at this host.");

export function atprotoDid(ctx: FunctionContext) {
  return async (c: Context) => {
    const { site, member } = await memberOfHost(ctx, c);
    if (!member) throw notHere();
    return c.text(didOf(member, site.handleDomain));
  };
}

export function didJson(ctx: FunctionContext) {
  return async (c: Context) => {
    const { site, host, member } = await memberOfHost(ctx, c);
    if (member && !member.network_did) return c.json(memberDidDocument(member, site.handleDomain, site.origin));
    if (host === new URL(site.origin).host.toLowerCase()) return c.json(siteDidDocument(ctx.config));
    throw notHere();
  };
}
