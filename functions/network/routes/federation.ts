// The federation's own routes (the spec's "Protocol server: federation routes"):
//   POST /network/join, POST /network/leave   the member's own act, with the site's session
//   POST /internal/project                    service key: drain the projection queue; {did} makes one repository
//                                             agree with the tables; {did, reset: true} rebuilds it anew (#sync)
//   POST /internal/rotate-key                 service key: {did} gives the member a new signing key (directory first)
//   POST /internal/crawl                      service key: the daily requestCrawl to the relay
//   GET  /internal/firehose                   service key (the operator): subscribers with cursor and lag, the last crawl
// The /internal routes answer only at the function's own address (/functions/v1/network/internal/...): the
// rewrite table maps no public path to them, and the database calls them there (migration
// network_federation_calls).
import { Hono } from "hono";
import { isValidDid } from "@atproto/syntax";
import type { FunctionContext } from "../../../shared/context.ts";
import { presentsServiceKey } from "../../../shared/service-key.ts";
import { join, leave, rotateKey } from "../federation/accounts.ts";
import { firehoseOf } from "../federation/hub.ts";
import { drainProjections, projectAll, resetOne } from "../federation/projector.ts";
import { requestCrawl } from "../federation/relay.ts";
import { openFederation } from "../federation/settings.ts";
import { authenticate } from "../auth.ts";
import { accountByDid, lastCrawl, subscribers } from "../store/repo.ts";
import { networkSite } from "../xrpc/dispatch.ts";
import { authRequired, invalidRequest, methodNotImplemented, notFound, XrpcError } from "../xrpc/errors.ts";

export function federationRoutes(ctx: FunctionContext): Hono {
  const app = new Hono();
  const site = async () => {
    const found = await networkSite(ctx);
    if (!found) throw methodNotImplemented("The site's network is off.");
    return found;
  };
  const siteMember = async (request: Request) => {
    const s = await site();
    const viewer = await authenticate(ctx, s, request, "reader", ctx.clock.now());
    if (viewer?.via !== "site") throw authRequired("Sign in on the site: joining takes the site's session.");
    return { site: s, viewer };
  };
  const joinedByDid = async (did: unknown) => {
    if (typeof did !== "string" || !isValidDid(did)) throw invalidRequest("did must be a valid did");
    const account = await accountByDid(ctx.sql, did);
    if (!account) throw notFound("RepoNotFound", `Could not find repo for DID: ${did}`);
    return account;
  };
  const service = async (request: Request) => {
    if (!(await presentsServiceKey(ctx, request))) throw new XrpcError(401, "AuthenticationRequired", "The service key is required.");
    return await site();
  };

  app.post("/network/join", async (c) => {
    const { site, viewer } = await siteMember(c.req.raw);
    return c.json(await join(ctx, site, viewer.id));
  });
  app.post("/network/leave", async (c) => {
    const { site, viewer } = await siteMember(c.req.raw);
    return c.json(await leave(ctx, site, viewer.id));
  });
  app.post("/internal/project", async (c) => {
    const s = await service(c.req.raw);
    openFederation(ctx.config, s);
    const body = await c.req.json().catch(() => ({})) as { did?: unknown; reset?: unknown };
    if (body?.did !== undefined) {
      if (body.reset !== undefined && typeof body.reset !== "boolean") throw invalidRequest("reset must be a boolean");
      const account = await joinedByDid(body.did);
      const head = body.reset ? await resetOne(ctx, account.person_id) : await projectAll(ctx, s, account.person_id);
      return c.json({ did: account.did, ...(head ?? {}) });
    }
    return c.json({ projected: await drainProjections(ctx, s) });
  });
  app.post("/internal/rotate-key", async (c) => {
    const s = await service(c.req.raw);
    openFederation(ctx.config, s);
    const body = await c.req.json().catch(() => ({})) as { did?: unknown };
    const account = await joinedByDid(body?.did);
    return c.json(await rotateKey(ctx, s, account.person_id));
  });
  app.post("/internal/crawl", async (c) => {
    const s = await service(c.req.raw);
    const federation = openFederation(ctx.config, s);
    if (!federation.relayUrl) throw invalidRequest("No relay is configured (NETWORK_RELAY_URL or network.relay).");
    return c.json({ relay: federation.relayUrl, ...(await requestCrawl(ctx, federation.relayUrl)) });
  });
  app.get("/internal/firehose", async (c) => {
    await service(c.req.raw);
    const current = await firehoseOf(ctx).current();
    const crawl = await lastCrawl(ctx.sql);
    return c.json({
      seq: current,
      subscribers: (await subscribers(ctx.sql)).map((s) => ({
        id: s.id,
        instance: s.instance,
        remote: s.remote,
        cursor: s.cursor === null ? null : Number(s.cursor),
        lastSeq: s.last_seq === null ? null : Number(s.last_seq),
        lag: s.last_seq === null ? null : current - Number(s.last_seq),
        connectedAt: s.connected_at.toISOString(),
        seenAt: s.seen_at.toISOString(),
      })),
      lastCrawl: crawl
        ? { relay: crawl.relay, at: crawl.asked_at.toISOString(), status: crawl.status, answer: crawl.answer }
        : null,
    });
  });
  return app;
}
