// Joining and leaving the wider network. Joining gives the member a K-256 signing key (sealed under the
// deployment secret), a did:plc registered at the directory naming the site as their server and their
// handle, and a repository projected from the tables; it is announced (#identity, #account, #commit) and
// the relay is asked to crawl. Leaving deactivates the repository (#account); joining again reactivates it
// (#account, the commits it missed, #sync). A new signing key goes to the directory first, then the
// account takes it and the head is signed again with it (#identity, #sync).
import type { FunctionContext } from "../../../shared/context.ts";
import { handleOf } from "../identity.ts";
import { memberById } from "../store/people.ts";
import {
  accountOf,
  appendEvent,
  dropRotation,
  finishRotation,
  insertAccount,
  pendingRotation,
  setAccountStatus,
  startRotation,
} from "../store/repo.ts";
import { notFound, XrpcError } from "../xrpc/errors.ts";
import type { NetworkSite } from "../xrpc/method.ts";
import { accountEventBody, identityEventBody } from "./events.ts";
import { firehoseOf } from "./hub.ts";
import { newSigningKey, openKey } from "./keys.ts";
import { directorySigningKey, registerDid, updateSigningKey } from "./plc.ts";
import { project, resignHead, syncHead } from "./project.ts";
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
        // what the relay held may predate the leaving: the head it should hold now (as the reference
        // server does on reactivating an account)
        await syncHead(tx, personId, existing.did, now);
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

/** How long a kept new key may wait for its directory operation before another rotation replaces it. */
const ROTATION_PATIENCE_MS = 60_000;

/**
 * Gives a joined member a new signing key: written to the directory (an operation signed by the current
 * key) before the account takes it, then announced (#identity) and the head signed again with it (#sync),
 * so that every commit from then on verifies against the key the directory names.
 */
export async function rotateKey(ctx: FunctionContext, site: NetworkSite, personId: string): Promise<{ did: string; signingKey: string }> {
  const federation = openFederation(ctx.config, site);
  const account = await accountOf(ctx.sql, personId);
  if (!account) throw notFound("RepoNotFound", "The member has not joined the wider network.");
  const secret = ctx.config.networkKeySecret;
  const upstream = (error: unknown) => new XrpcError(502, "UpstreamFailure", (error as Error).message);
  const pending = await pendingRotation(ctx.sql, personId);
  if (pending) {
    // an earlier rotation stopped somewhere: finish it if the directory took its key, else replace it
    const named = await directorySigningKey(federation.plcUrl, account.did).catch((error) => {
      throw upstream(error);
    });
    if (named === pending.signing_did_key) return await takeKey(ctx, account, pending.signing_key, named);
    if (ctx.clock.now().getTime() - pending.started_at.getTime() < ROTATION_PATIENCE_MS) {
      throw new XrpcError(409, "InvalidRequest", "A new key for this member is being written to the directory.");
    }
    await dropRotation(ctx.sql, personId, pending.signing_did_key);
  }
  const current = await openKey(secret, account.signing_key);
  const { keypair: next, sealed } = await newSigningKey(secret);
  const kept = await startRotation(ctx.sql, { personId, sealedKey: sealed, didKey: next.did(), now: ctx.clock.now() });
  if (!kept) throw new XrpcError(409, "InvalidRequest", "A new key for this member is being written to the directory.");
  try {
    await updateSigningKey(federation.plcUrl, account.did, current, next);
  } catch (error) {
    await dropRotation(ctx.sql, personId, next.did());
    throw upstream(error);
  }
  return await takeKey(ctx, account, sealed, next.did());
}

async function takeKey(
  ctx: FunctionContext,
  account: { person_id: string; did: string; handle: string },
  sealed: string,
  didKey: string,
): Promise<{ did: string; signingKey: string }> {
  const keypair = await openKey(ctx.config.networkKeySecret, sealed);
  const now = ctx.clock.now();
  await ctx.sql.begin(async (tx) => {
    if (!(await finishRotation(tx, account.person_id, didKey))) {
      throw new XrpcError(409, "InvalidRequest", "Another new key for this member was kept meanwhile.");
    }
    await appendEvent(tx, { did: account.did, kind: "identity", body: identityEventBody(account.did, account.handle, now) });
    await resignHead(tx, account.person_id, account.did, keypair, now);
  });
  firehoseOf(ctx).poke();
  return { did: account.did, signingKey: didKey };
}
