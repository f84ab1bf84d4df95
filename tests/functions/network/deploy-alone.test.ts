// The network function deploys alone: its app, built as functions/network/index.ts builds it (no host, no
// other function), answers the protocol server at its own address.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { atFunctionAddress, deployedContext } from "../../helpers/deployed.ts";
import { createNetworkApp } from "../../../functions/network/app.ts";

test("network alone: describeServer answers, and an unknown method is 501 MethodNotImplemented", async () => {
  const call = atFunctionAddress("network", createNetworkApp(deployedContext()));
  const res = await call("/xrpc/com.atproto.server.describeServer");
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal((await res.json()).inviteCodeRequired, true);
  const unknown = await call("/xrpc/chat.bsky.convo.listConvos");
  assert.equal(unknown.status, 501);
  assert.equal((await unknown.json()).error, "MethodNotImplemented");
});
