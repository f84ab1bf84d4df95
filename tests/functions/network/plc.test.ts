// The did:plc library is loaded on first use (federation/plc.ts): the first document built in a process
// that never touched it before is whole, and later calls give the same.
import assert from "node:assert/strict";
import { plcDidDocument } from "../../../functions/network/federation/plc.ts";

Deno.test("a member's did:plc document is built on the first call, the library loading on demand", async () => {
  const member = {
    did: "did:plc:ewvi7nxzyoun6zhxrhs64oiz",
    handle: "mira.demo.sitewire.dev",
    didKey: "did:key:zQ3shXjHeiBuRCKmM36cuYnm7YEMzhGnCmCyW92sRJ9pribSF",
    pds: "https://demo.sitewire.dev",
  };
  const [first, second] = [await plcDidDocument(member), await plcDidDocument(member)];
  assert.equal(first.id, member.did);
  assert.deepEqual(first.alsoKnownAs, [`at://${member.handle}`]);
  assert.equal(first.verificationMethod?.[0]?.id, "#atproto");
  assert.equal(first.verificationMethod?.[0]?.controller, member.did);
  assert.deepEqual(first.service?.[0], {
    id: "#atproto_pds",
    type: "AtprotoPersonalDataServer",
    serviceEndpoint: member.pds,
  });
  assert.deepEqual(second, first);
});
