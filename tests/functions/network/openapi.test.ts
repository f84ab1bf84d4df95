// The OpenAPI section of the protocol server names exactly the methods the network function serves, each
// under the HTTP method its lexicon gives it (queries GET, procedures POST), and the other routes it answers.
import assert from "node:assert/strict";
import { lexicons } from "@atproto/api";
import { test } from "../../helpers/test.ts";
import { METHODS } from "../../../functions/network/api/index.ts";
import { networkSection, XRPC_PROCEDURES, XRPC_QUERIES } from "../../../shared/openapi/sections/network.ts";

const typeOf = (nsid: string) => (lexicons.getDef(nsid) as { type?: string } | undefined)?.type;

test("the document's XRPC queries and procedures are the methods served, split as their lexicons say", () => {
  const served = METHODS.map((m) => m.nsid);
  assert.deepEqual([...XRPC_QUERIES, ...XRPC_PROCEDURES].sort(), [...served].sort());
  for (const nsid of XRPC_QUERIES) assert.equal(typeOf(nsid), "query", nsid);
  for (const nsid of XRPC_PROCEDURES) assert.equal(typeOf(nsid), "procedure", nsid);
});

test("the document lists the function's other public routes and the error statuses it answers", () => {
  const paths = networkSection.paths!({} as never);
  assert.deepEqual(Object.keys(paths).sort(), [
    "/.well-known/atproto-did",
    "/.well-known/did.json",
    "/account/network",
    "/xrpc/{nsid}",
  ]);
  const responses = Object.keys(paths["/xrpc/{nsid}"].post!.responses!).sort();
  assert.deepEqual(responses, ["200", "400", "401", "403", "413", "429", "501"]);
});
