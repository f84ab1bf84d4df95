// com.atproto.repo.describeRepo: a member's handle, DID, DID document and the collections they write. A
// member who joined the wider network is described by the document the directory holds for their did:plc
// (with the signing key commits verify against); any other by their did:web document.
import { didOf, handleOf, memberDidDocument } from "../../../../identity.ts";
import { plcDidDocument } from "../../../../federation/plc.ts";
import { PROFILE } from "../../../../records.ts";
import { accountByDid } from "../../../../store/repo.ts";
import { collectionsOf } from "../../../../store/reader/records.ts";
import { read } from "../../../../views/hydrate.ts";
import { visibleActor } from "../../../../views/lookup.ts";
import { notFound } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { str } from "../../../../xrpc/params.ts";

export default method("com.atproto.repo.describeRepo", { auth: "optional", apps: true }, async (call) => {
  const described = await read(call, async (h) => {
    const repo = str(call.params, "repo");
    const person = await visibleActor(h, repo);
    if (!person) throw notFound("RepoNotFound", `Could not find repo: ${repo}`);
    const actor = h.actors.get(person)!;
    return {
      handle: handleOf(actor, h.domain),
      did: didOf(actor, h.domain),
      didDoc: memberDidDocument(actor, h.domain, call.site.origin) as unknown,
      collections: [...(actor.network_profile ? [PROFILE] : []), ...await collectionsOf(h.tx, person)].sort(),
      handleIsCorrect: true,
    };
  });
  // the signing key is the server's to read, once the reader's transaction has ended
  const joined = described.did.startsWith("did:plc:") ? await accountByDid(call.ctx.sql, described.did) : undefined;
  if (joined) {
    described.didDoc = await plcDidDocument({ did: joined.did, handle: joined.handle, didKey: joined.signing_did_key, pds: call.site.origin });
  }
  return described;
});
