// com.atproto.repo.putRecord: writes (or replaces) the record at a key; the profile (self) lands on the
// site's own profile. swapRecord null: there must be no record there yet.
import { checkCollection } from "../../../../records.ts";
import { applyWrites, checkOwnRepo } from "../../../../writes.ts";
import { method } from "../../../../xrpc/method.ts";
import { optStr, str } from "../../../../xrpc/params.ts";

export default method("com.atproto.repo.putRecord", { auth: "reader", apps: true }, async (call) => {
  await checkOwnRepo(call.ctx, call.site, call.viewer!, str(call.input, "repo"));
  const swapRecord = call.input && "swapRecord" in call.input ? (call.input.swapRecord === null ? null : str(call.input, "swapRecord")) : undefined;
  const { results, commit } = await applyWrites(call.ctx, call.site, call.viewer!, [{
    action: "update",
    collection: checkCollection(str(call.input, "collection")),
    rkey: str(call.input, "rkey"),
    record: call.input?.record,
    swapRecord,
  }], { swapCommit: optStr(call.input, "swapCommit"), now: call.now });
  const made = results[0] as { uri: string; cid: string };
  return { uri: made.uri, cid: made.cid, commit, validationStatus: "valid" };
});
