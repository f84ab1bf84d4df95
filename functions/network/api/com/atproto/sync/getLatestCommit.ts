// com.atproto.sync.getLatestCommit: the head commit of a joined member's repository.
import { activeRepoOf } from "../../../../federation/sync.ts";
import { openFederation } from "../../../../federation/settings.ts";
import { method } from "../../../../xrpc/method.ts";
import { didParam } from "../../../../xrpc/formats.ts";

export default method("com.atproto.sync.getLatestCommit", { auth: "none", apps: false }, async (call) => {
  openFederation(call.ctx.config, call.site);
  const { head } = await activeRepoOf(call.ctx.sql, didParam(call.params, "did"));
  return { cid: head.commit_cid, rev: head.rev };
});
