// com.atproto.repo.deleteRecord: deleting a record that is not there is no error (as the vendor).
import { checkCollection } from "../../../../records.ts";
import { applyWrites, checkOwnRepo } from "../../../../writes.ts";
import { method } from "../../../../xrpc/method.ts";
import { optStr, str } from "../../../../xrpc/params.ts";

export default method("com.atproto.repo.deleteRecord", { auth: "reader", apps: true }, async (call) => {
  await checkOwnRepo(call.ctx, call.site, call.viewer!, str(call.input, "repo"));
  const { commit } = await applyWrites(call.ctx, call.site, call.viewer!, [{
    action: "delete",
    collection: checkCollection(str(call.input, "collection")),
    rkey: str(call.input, "rkey"),
    swapRecord: optStr(call.input, "swapRecord"),
  }], { swapCommit: optStr(call.input, "swapCommit"), now: call.now });
  return { commit };
});
