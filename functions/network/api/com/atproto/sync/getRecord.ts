// com.atproto.sync.getRecord: one record with the proof of it (commit and MST path) as a CAR.
import { activeRepoOf, carResponse, recordProofCar } from "../../../../federation/sync.ts";
import { openFederation } from "../../../../federation/settings.ts";
import { method } from "../../../../xrpc/method.ts";
import { str } from "../../../../xrpc/params.ts";

export default method("com.atproto.sync.getRecord", { auth: "none", apps: false }, async (call) => {
  openFederation(call.ctx.config, call.site);
  const { account, head } = await activeRepoOf(call.ctx.sql, str(call.params, "did"));
  const car = await recordProofCar(
    call.ctx.sql,
    account.person_id,
    head,
    str(call.params, "collection"),
    str(call.params, "rkey"),
  );
  return carResponse(car);
});
