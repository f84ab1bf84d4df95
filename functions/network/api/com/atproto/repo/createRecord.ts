// com.atproto.repo.createRecord: a record in the writer's own repository (TID key unless given).
import { checkCollection } from "../../../../records.ts";
import { applyWrites, checkOwnRepo } from "../../../../writes.ts";
import { method } from "../../../../xrpc/method.ts";
import { optStr, str } from "../../../../xrpc/params.ts";

export default method("com.atproto.repo.createRecord", { auth: "reader", apps: true }, async (call) => {
  await checkOwnRepo(call.ctx, call.site, call.viewer!, str(call.input, "repo"));
  const { results, commit } = await applyWrites(call.ctx, call.site, call.viewer!, [{
    action: "create",
    collection: checkCollection(str(call.input, "collection")),
    rkey: optStr(call.input, "rkey"),
    record: call.input?.record,
  }], { swapCommit: optStr(call.input, "swapCommit"), now: call.now });
  const made = results[0] as { uri: string; cid: string };
  return { uri: made.uri, cid: made.cid, commit, validationStatus: "valid" };
});
