// /xrpc/<nsid>: the checks every method shares, in the order the spec gives them (module off, unknown
// method, apps off, credentials), then the method's own handler; its answer leaves as JSON.
import type { Context } from "hono";
import { lexicons } from "@atproto/api";
import type { FunctionContext } from "../../../shared/context.ts";
import { clientAddress, readJsonObject } from "../../../shared/http.ts";
import { jsonPathText, jsonProblem, unstorableParameter } from "../../../shared/input-text.ts";
import { moduleOn, type SiteSettings } from "../../../shared/site.ts";
import { readCredentials, type SessionLookup, sessionLookup, viewerOf } from "../auth.ts";
import { type SessionRow, siteAndSession } from "../store/sessions.ts";
import { mergedFirstPage, remoteRead } from "../federation/appview.ts";
import { handleDomainOf, siteDidOf } from "../identity.ts";
import { forbidden, invalidRequest, methodNotImplemented } from "./errors.ts";
import { checkInput, checkParams } from "./lexicon.ts";
import type { Call, Method, NetworkSite, Viewer } from "./method.ts";
import type { Db, Tx } from "../../../shared/db.ts";

export const APPS_OFF_MESSAGE = "This site does not let other apps sign in.";

/** The site for this request, or undefined while the network module is off. */
export async function networkSite(ctx: FunctionContext): Promise<NetworkSite | undefined> {
  return (await networkSiteAnd(ctx)).site;
}

/**
 * The site settings last read through each pool, with the `site` answer version they were read at: they
 * are sent again only once that version moved (a trigger bumps it on any change of the settings).
 */
const knownSites = new WeakMap<Db, { version: number; settings: SiteSettings }>();

/** The site (undefined while the network module is off) and, when asked, a protocol session: one statement. */
async function networkSiteAnd(
  ctx: FunctionContext,
  lookup?: SessionLookup,
): Promise<{ site: NetworkSite | undefined; session: SessionRow | undefined }> {
  const known = knownSites.get(ctx.sql);
  const read = await siteAndSession(ctx.sql, known?.version ?? null, lookup);
  let settings = read.settings;
  if (settings && read.version !== null) knownSites.set(ctx.sql, { version: read.version, settings });
  else if (!settings && known && read.version === known.version) settings = known.settings;
  if (!settings || !moduleOn(settings, "network")) return { site: undefined, session: read.session };
  return {
    site: {
      settings,
      handleDomain: handleDomainOf(ctx.config, settings),
      did: siteDidOf(ctx.config),
      origin: ctx.config.publicUrl,
    },
    session: read.session,
  };
}

/** network.apps: other apps may sign in only when the configuration says true. */
export function appsAllowed(site: NetworkSite): boolean {
  return site.settings.config?.network?.apps === true;
}

export function xrpcHandler(ctx: FunctionContext, methods: Map<string, Method>) {
  return async (c: Context) => {
    const nsid = c.req.param("nsid") ?? "";
    const method = methods.get(nsid);
    const now = ctx.clock.now();
    const request = c.req.raw;
    // the caller's protocol session is read in the site settings' statement; what either refuses is
    // still answered in the spec's order below
    const lookup = method ? await sessionLookup(ctx, request, method.auth) : undefined;
    const { site, session } = await networkSiteAnd(ctx, lookup);
    if (!site) throw methodNotImplemented("The site's network is off.");
    if (!method) throw methodNotImplemented();
    const expected = httpMethodOf(nsid);
    const asked = c.req.method === "HEAD" ? "GET" : c.req.method;
    if (expected && asked !== expected) {
      throw invalidRequest(`Incorrect HTTP method (${c.req.method}) expected ${expected}`);
    }
    if (method.apps && !appsAllowed(site)) throw forbidden(APPS_OFF_MESSAGE);
    const url = new URL(request.url);
    const badParameter = unstorableParameter(url);
    if (badParameter !== undefined) throw invalidRequest(`${badParameter} holds characters that cannot be kept.`);
    const params = queryParams(url);
    checkParams(nsid, params);
    // read no further than 1 MB (RequestTooLarge, answered 413 PayloadTooLarge); uploadBlob has its own bounds
    const input = expected === "POST" && !method.rawBody ? await readJsonObject(request, invalidRequest) : undefined;
    const problem = input ? jsonProblem(input) : undefined;
    if (problem) throw invalidRequest(`${jsonPathText(problem.path) || "The body"} ${problem.why}.`);
    if (input) checkInput(nsid, input);
    const credentials = await readCredentials(ctx, request, method.auth, now, lookup && { lookup, session });
    const viewer = viewerOf(credentials, site);
    const call: Call = {
      nsid,
      params,
      input,
      viewer,
      asReader: (fn) => asReader(ctx, viewer, fn),
      ctx,
      site,
      now,
      request,
      clientAddress: clientAddress(c),
    };
    // about somebody elsewhere: the app view answers, asked as the member (federation/appview.ts)
    const remote = await remoteRead(call);
    if (remote) return remote;
    const output = await mergedFirstPage(call, await method.handle(call));
    if (output instanceof Response) return output;
    if (output === undefined) return c.body(null, 200);
    return c.json(output as Record<string, unknown>, 200);
  };
}

/** GET for a lexicon query, POST for a procedure. */
function httpMethodOf(nsid: string): "GET" | "POST" | undefined {
  const def = lexicons.getDef(nsid) as { type?: string } | undefined;
  return def?.type === "query" ? "GET" : def?.type === "procedure" ? "POST" : undefined;
}

function queryParams(url: URL): Record<string, string | string[]> {
  const params: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    params[key] = values.length > 1 ? values : values[0];
  }
  return params;
}

/**
 * Reads run as the reader so the RLS policies decide: `set local role authenticated` with the viewer's
 * claims (or anon for nobody), inside one transaction that ends with the call.
 */
export async function asReader<T>(ctx: FunctionContext, viewer: Viewer | undefined, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return await ctx.sql.begin(async (tx) => {
    await tx.unsafe(viewer ? "set local role authenticated" : "set local role anon");
    const claims = viewer ? { sub: viewer.id, role: "authenticated" } : { role: "anon" };
    await tx`select set_config('request.jwt.claims', ${JSON.stringify(claims)}, true)`;
    return await fn(tx);
  }) as T;
}

