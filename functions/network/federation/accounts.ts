// Joining and leaving the wider network. Joining gives the member a K-256 signing key (sealed under the
// deployment secret), a did:plc registered at the directory naming the site as their server and their
// handle, and a repository projected from the tables; it is announced (#identity, #account, #commit) and
// the relay is asked to crawl. Leaving deactivates the repository (#account); joining again reactivates it.
import type { FunctionContext } from "../../../shared/context.ts";
import { handleOf } from "../identity.ts";
import { memberById } from "../store/people.ts";
import { accountOf, appendEvent, insertAccount, setAccountStatus } from "../store/repo.ts";
import { XrpcError } from "../xrpc/errors.ts";
import type { NetworkSite } from "../xrpc/method.ts";
import { accountEventBody, identityEventBody } from "./events.ts";
import { firehoseOf } from "./hub.ts";
import { newSigningKey } from "./keys.ts";
import { registerDid } from "./plc.ts";
import { project } from "./project.ts";
import { requestCrawl } from "./relay.ts";
import { openFederation } from "./settings.ts";

export async function join(ctx: FunctionContext, site: NetworkSite, personId: string): Promise<{ did: string; handle: string }> {
  const federation = openFederation(ctx.config, site);
  const member = await memberById(ctx.sql, personId);
  if (!member) throw new XrpcError(400, "AccountNotFound", "No such member.");
  if (member.suspended_at) throw new XrpcError(400, "AccountTakedown", "A suspended member cannot join the network.");
  const handle = handleOf(member, site.handleDomain);
  const now = ctx.clock.now();
  const existing = await accountOf(ctx.sql, personId);
  if (existing) {
    if (existing.status === "deactivated") {
      await ctx.sql.begin(async (tx) => {
        await setAccountStatus(tx, personId, "active", now);
        await appendEvent(tx, { did: existing.did, kind: "account", body: accountEventBody(existing.did, "active", now) });
        await project(ctx.config, tx, site, personId, undefined, now);
      });
      firehoseOf(ctx).poke();
    }
    return { did: existing.did, handle };
  }
  const { keypair, sealed } = await newSigningKey(ctx.config.networkKeySecret);
  let did: string;
  try {
    did = await registerDid(federation.plcUrl, keypair, { handle, pds: site.origin });
  } catch (error) {
    throw new XrpcError(502, "UpstreamFailure", (error as Error).message);
  }
  await ctx.sql.begin(async (tx) => {
    await insertAccount(tx, { personId, did, sealedKey: sealed, didKey: keypair.did(), handle, now });
    await appendEvent(tx, { did, kind: "identity", body: identityEventBody(did, handle, now) });
    await appendEvent(tx, { did, kind: "account", body: accountEventBody(did, "active", now) });
    await project(ctx.config, tx, site, personId, undefined, now);
  });
  firehoseOf(ctx).poke();
  await requestCrawl(ctx, federation.relayUrl);
  return { did, handle };
}

export async function leave(ctx: FunctionContext, site: NetworkSite, personId: string): Promise<{ did?: string }> {
  openFederation(ctx.config, site);
  const account = await accountOf(ctx.sql, personId);
  if (!account || account.status === "deactivated") return { did: account?.did };
  const now = ctx.clock.now();
  await ctx.sql.begin(async (tx) => {
    await setAccountStatus(tx, personId, "deactivated", now);
    await appendEvent(tx, { did: account.did, kind: "account", body: accountEventBody(account.did, "deactivated", now) });
  });
  firehoseOf(ctx).poke();
  return { did: account.did };
}
