// com.atproto.sync.getRecord: one record with the proof of it (commit and MST path) as a CAR.
import { activeRepoOf, carResponse, recordProofCar } from "../../../../federation/sync.ts";
import { openFederation } from "../../../../federation/settings.ts";
import { method } from "../../../../xrpc/method.ts";
import { didParam, nsidParam, recordKeyParam } from "../../../../xrpc/formats.ts";

export default method("com.atproto.sync.getRecord", { auth: "none", apps: false }, async (call) => {
  openFederation(call.ctx.config, call.site);
  const { account, head } = await activeRepoOf(call.ctx.sql, didParam(call.params, "did"));
  const car = await recordProofCar(
    call.ctx.sql,
    account.person_id,
    head,
    nsidParam(call.params, "collection"),
    recordKeyParam(call.params, "rkey"),
  );
  return carResponse(car);
});
