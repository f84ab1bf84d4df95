// com.atproto.repo.uploadBlob: the raw bytes, typed by their content-type.
import { uploadBlob } from "../../../../blobs.ts";
import { method } from "../../../../xrpc/method.ts";

export default method("com.atproto.repo.uploadBlob", { auth: "reader", apps: true, rawBody: true }, async (call) =>
  await uploadBlob(call.ctx, call.viewer!.id, call.request, call.now));
