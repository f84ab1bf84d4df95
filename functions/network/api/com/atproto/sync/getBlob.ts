// com.atproto.sync.getBlob: a blob a joined member uploaded, as its own type.
import { BUCKET, blobKey } from "../../../../blobs.ts";
import { activeRepoOf } from "../../../../federation/sync.ts";
import { openFederation } from "../../../../federation/settings.ts";
import { blobOf } from "../../../../store/repo.ts";
import { notFound } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { cidParam, didParam } from "../../../../xrpc/formats.ts";

export default method("com.atproto.sync.getBlob", { auth: "none", apps: false }, async (call) => {
  openFederation(call.ctx.config, call.site);
  const { account } = await activeRepoOf(call.ctx.sql, didParam(call.params, "did"));
  const cid = cidParam(call.params, "cid");
  const blob = await blobOf(call.ctx.sql, account.person_id, cid);
  const stored = blob ? await call.ctx.storage.get(BUCKET, blobKey(account.person_id, cid)) : null;
  if (!blob || !stored) throw notFound("BlobNotFound", "Blob not found");
  return new Response(stored.bytes as BodyInit, {
    status: 200,
    headers: {
      "content-type": blob.mime,
      "content-length": String(stored.bytes.byteLength),
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'; sandbox",
    },
  });
});
