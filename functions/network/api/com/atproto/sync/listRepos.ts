// com.atproto.sync.listRepos: every joined member's repository, paged by DID.
import { standingOf } from "../../../../federation/sync.ts";
import { openFederation } from "../../../../federation/settings.ts";
import { listRepos } from "../../../../store/repo.ts";
import { method } from "../../../../xrpc/method.ts";
import { int } from "../../../../xrpc/params.ts";
import { optDidParam } from "../../../../xrpc/formats.ts";

export default method("com.atproto.sync.listRepos", { auth: "none", apps: false }, async (call) => {
  openFederation(call.ctx.config, call.site);
  const limit = int(call.params, "limit", { min: 1, max: 1000, def: 500 });
  const rows = await listRepos(call.ctx.sql, optDidParam(call.params, "cursor"), limit);
  return {
    repos: rows.map((row) => ({
      did: row.did,
      head: row.commit_cid,
      rev: row.rev,
      ...standingOf(row),
    })),
    ...(rows.length === limit ? { cursor: rows[rows.length - 1].did } : {}),
  };
});
