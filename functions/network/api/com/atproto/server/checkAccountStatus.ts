// com.atproto.server.checkAccountStatus: active. Every field the lexicon requires is given; the commit is
// the repository head the writes keep (network_repos).
import { repoStatus } from "../../../../writes.ts";
import { method } from "../../../../xrpc/method.ts";

export default method("com.atproto.server.checkAccountStatus", { auth: "reader", apps: true }, async (call) => {
  const head = await repoStatus(call.ctx, call.viewer!);
  return {
    activated: true,
    validDid: true,
    repoCommit: head.cid,
    repoRev: head.rev,
    repoBlocks: head.records,
    indexedRecords: head.records,
    privateStateValues: 0,
    expectedBlobs: head.blobs,
    importedBlobs: head.blobs,
  };
});
