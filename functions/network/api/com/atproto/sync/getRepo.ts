// com.atproto.sync.getRepo: a joined member's whole repository as a CAR (or the blocks since a rev).
import { activeRepoOf, carResponse, repoCar } from "../../../../federation/sync.ts";
import { openFederation } from "../../../../federation/settings.ts";
import { method } from "../../../../xrpc/method.ts";
import { didParam, optTidParam } from "../../../../xrpc/formats.ts";

export default method("com.atproto.sync.getRepo", { auth: "none", apps: false }, async (call) => {
  openFederation(call.ctx.config, call.site);
  const { account, head } = await activeRepoOf(call.ctx.sql, didParam(call.params, "did"));
  return carResponse(await repoCar(call.ctx.sql, account.person_id, head, optTidParam(call.params, "since")));
});
