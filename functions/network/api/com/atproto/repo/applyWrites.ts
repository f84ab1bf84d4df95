// com.atproto.repo.applyWrites: creates, updates and deletes in one transaction (all or none).
import { checkCollection } from "../../../../records.ts";
import { applyWrites, checkOwnRepo, type WriteOp } from "../../../../writes.ts";
import { invalidRequest } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { optStr, str } from "../../../../xrpc/params.ts";

const MAX_WRITES = 200;
const RESULT_TYPES = {
  create: "com.atproto.repo.applyWrites#createResult",
  update: "com.atproto.repo.applyWrites#updateResult",
  delete: "com.atproto.repo.applyWrites#deleteResult",
};

export default method("com.atproto.repo.applyWrites", { auth: "reader", apps: true }, async (call) => {
  await checkOwnRepo(call.ctx, call.site, call.viewer!, str(call.input, "repo"));
  const writes = call.input?.writes;
  if (!Array.isArray(writes) || writes.length > MAX_WRITES) {
    throw invalidRequest(`writes must be a list of at most ${MAX_WRITES} operations`);
  }
  const ops = writes.map((w): WriteOp => {
    const write = (typeof w === "object" && w !== null ? w : {}) as Record<string, unknown>;
    const collection = checkCollection(str(write, "collection"));
    switch (write.$type) {
      case "com.atproto.repo.applyWrites#create":
        return { action: "create", collection, rkey: optStr(write, "rkey"), record: write.value };
      case "com.atproto.repo.applyWrites#update":
        return { action: "update", collection, rkey: str(write, "rkey"), record: write.value };
      case "com.atproto.repo.applyWrites#delete":
        return { action: "delete", collection, rkey: str(write, "rkey") };
      default:
        throw invalidRequest("Each write's $type is com.atproto.repo.applyWrites#create, #update or #delete");
    }
  });
  const { results, commit } = await applyWrites(call.ctx, call.site, call.viewer!, ops, {
    swapCommit: optStr(call.input, "swapCommit"),
    now: call.now,
  });
  return {
    commit,
    results: results.map((r) =>
      r.action === "delete"
        ? { $type: RESULT_TYPES.delete }
        : { $type: RESULT_TYPES[r.action], uri: r.uri, cid: r.cid, validationStatus: "valid" }
    ),
  };
});
