// com.atproto.repo.describeRepo: a member's handle, DID, DID document and the collections they write.
import { didOf, handleOf, memberDidDocument } from "../../../../identity.ts";
import { PROFILE } from "../../../../records.ts";
import { collectionsOf } from "../../../../store/reader/records.ts";
import { read } from "../../../../views/hydrate.ts";
import { visibleActor } from "../../../../views/lookup.ts";
import { notFound } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { str } from "../../../../xrpc/params.ts";

export default method("com.atproto.repo.describeRepo", { auth: "optional", apps: true }, (call) =>
  read(call, async (h) => {
    const repo = str(call.params, "repo");
    const person = await visibleActor(h, repo);
    if (!person) throw notFound("RepoNotFound", `Could not find repo: ${repo}`);
    const actor = h.actors.get(person)!;
    return {
      handle: handleOf(actor, h.domain),
      did: didOf(actor, h.domain),
      didDoc: memberDidDocument(actor, h.domain, call.site.origin),
      collections: [...(actor.network_profile ? [PROFILE] : []), ...await collectionsOf(h.tx, person)].sort(),
      handleIsCorrect: true,
    };
  }));
