// com.atproto.sync.getRepoStatus: whether a joined member's repository is active, and its rev.
import { repoOf, standingOf } from "../../../../federation/sync.ts";
import { openFederation } from "../../../../federation/settings.ts";
import { method } from "../../../../xrpc/method.ts";
import { didParam } from "../../../../xrpc/formats.ts";

export default method("com.atproto.sync.getRepoStatus", { auth: "none", apps: false }, async (call) => {
  openFederation(call.ctx.config, call.site);
  const { account, head } = await repoOf(call.ctx.sql, didParam(call.params, "did"));
  const standing = standingOf(account);
  return { did: account.did, ...standing, ...(standing.active ? { rev: head.rev } : {}) };
});
