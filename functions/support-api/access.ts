// Admission for the support API, one round trip through shared/gate.ts (key, site settings, rate limit).
//
//   client API        no key: the contact's token in the path is the secret (an account contact also
//                     needs its person's session); counted per address
//   application API   a support key (header api_access_token, or a bearer) whose maker is on the desk
//                     (profile admin or support). No key, an unknown or a revoked one 401; a key of
//                     another kind or a maker not on the desk 403
// Both need the support and api modules.
import type { Context, MiddlewareHandler } from "hono";
import type { FunctionContext } from "../../shared/context.ts";
import { admit, type RateWindow } from "../../shared/gate.ts";
import { bearerToken, clientAddress } from "../../shared/http.ts";
import { verifyPersonToken } from "../../shared/people.ts";
import { moduleOn, type SiteSettings, spaceId } from "../../shared/site.ts";
import { forbidden, notFound, SupportError, tooMany, unauthorized } from "./envelope.ts";
import { keyMaker } from "./store/agents.ts";
import { contactByToken, type ContactRow } from "./store/contacts.ts";

/** The desk's general limit per key (application) or per address (client); the guards come on top. */
export const SUPPORT_RATE_LIMITS: RateWindow[] = [
  { seconds: 60, limit: 12000 },
  { seconds: 1, limit: 400 },
];

export interface DeskAgent {
  agentId: number;
  personId: string;
  role: "admin" | "support";
}

export type SupportEnv = {
  Variables: { requestId: string; site: SiteSettings; agent: DeskAgent };
};

/** The application API's credential: Chatwoot's `api_access_token` header, else a bearer. */
export function deskToken(request: Request): string | undefined {
  const header = request.headers.get("api_access_token")?.trim();
  return header || bearerToken(request);
}

async function admitted(
  ctx: FunctionContext,
  c: Context<SupportEnv>,
  api: string,
  token: string | undefined,
) {
  const admission = await admit(ctx.sql, {
    api,
    token,
    clientAddress: clientAddress(c),
    windows: SUPPORT_RATE_LIMITS,
    scale: ctx.config.rateLimitScale,
    now: ctx.clock.now(),
    unknownTokensBy: "address",
  });
  if (admission.exceeded) throw tooMany("Too many requests. Try again later.", admission.exceeded.resetIn);
  const site = admission.site;
  if (!site) throw new SupportError(500, "The site has not been imported yet.");
  if (!moduleOn(site, "support") || !moduleOn(site, "api")) throw notFound("The support desk");
  c.set("site", site);
  return admission;
}

/** The client API's admission: the site's switches and the per-address limit. */
export function clientAccess(ctx: FunctionContext): MiddlewareHandler<SupportEnv> {
  return async (c, next) => {
    await admitted(ctx, c, "support-client", undefined);
    await next();
  };
}

/** The application API's admission: a support key whose maker is on the desk. */
export function deskAccess(ctx: FunctionContext): MiddlewareHandler<SupportEnv> {
  return async (c, next) => {
    const token = deskToken(c.req.raw);
    const admission = await admitted(ctx, c, "support", token);
    if (!token) throw unauthorized("No credentials: send the header api_access_token: <support key>.");
    const key = admission.key;
    if (!key || key.revoked) throw unauthorized("The key is invalid or has been revoked.");
    if (key.kind !== "support") throw forbidden(`A ${key.kind} key cannot use the support desk.`);
    const maker = await keyMaker(ctx.sql, key.id);
    if (maker.agentId === null || maker.personId === null || (maker.role !== "admin" && maker.role !== "support")) {
      throw forbidden("The key's maker is not on the desk (an admin or support profile).");
    }
    c.set("agent", { agentId: maker.agentId, personId: maker.personId, role: maker.role });
    await next();
  };
}

/** The person of a valid site session (a bearer person JWT) on the request, if any. */
export async function sessionPerson(ctx: FunctionContext, request: Request): Promise<string | undefined> {
  const token = bearerToken(request);
  if (!token) return undefined;
  const claims = await verifyPersonToken(ctx, token).catch(() => undefined);
  return typeof claims?.sub === "string" ? claims.sub : undefined;
}

/**
 * The contact a client path names (after clientAccess): the path's <inbox> must be the site's space, the
 * token (<sid>) a contact's (404 otherwise), and an account contact also needs its person's session (401).
 * Every client route, and the widget's own doors, find their contact through here.
 */
export async function clientContactOf(
  ctx: FunctionContext,
  c: Context<SupportEnv>,
  token = c.req.param("sid") ?? "",
): Promise<ContactRow> {
  if (c.req.param("inbox") !== undefined && c.req.param("inbox") !== spaceId(c.get("site"))) throw notFound("Inbox");
  const contact = await contactByToken(ctx.sql, token);
  if (!contact) throw notFound("Contact");
  if (contact.person_id && await sessionPerson(ctx, c.req.raw) !== contact.person_id) {
    throw unauthorized("This contact belongs to an account: it is opened by the site's sign-in.");
  }
  return contact;
}
