// com.atproto.sync.subscribeRepos: the event stream over a WebSocket (federation/firehose.ts), from the
// relay's cursor and then live. Not an HTTP method like the others: app.ts routes it before /xrpc/:nsid.
import type { Context } from "hono";
import type { FunctionContext } from "../../../../../../shared/context.ts";
import { type CallerEnv, clientAddress } from "../../../../../../shared/http.ts";
import { firehoseOf } from "../../../../federation/hub.ts";
import { openFederation } from "../../../../federation/settings.ts";
import { invalidRequest, methodNotImplemented } from "../../../../xrpc/errors.ts";
import { networkSite } from "../../../../xrpc/dispatch.ts";

export const NSID = "com.atproto.sync.subscribeRepos";

export function subscribeRepos(ctx: FunctionContext) {
  return async (c: Context) => {
    const site = await networkSite(ctx);
    if (!site) throw methodNotImplemented("The site's network is off.");
    openFederation(ctx.config, site);
    const raw = c.req.query("cursor");
    if (raw !== undefined && !/^\d{1,15}$/.test(raw)) throw invalidRequest("cursor must be a non-negative integer");
    const upgrade = (c.env as CallerEnv | undefined)?.upgradeWebSocket;
    if (c.req.header("upgrade")?.toLowerCase() !== "websocket" || !upgrade) {
      throw invalidRequest("subscribeRepos is a WebSocket stream: connect with a WebSocket client.");
    }
    const { socket, response } = upgrade();
    firehoseOf(ctx).serve(socket, raw === undefined ? undefined : Number(raw), clientAddress(c));
    return response;
  };
}
