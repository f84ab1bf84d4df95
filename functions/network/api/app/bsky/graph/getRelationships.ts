// app.bsky.graph.getRelationships: how one member (default the reader) stands with others: follows both
// ways and blocks both ways, as at-uris of the records; somebody not to be seen is notFoundActor.
import { actorsByIds } from "../../../../store/reader/actors.ts";
import { atUri, didOf } from "../../../../identity.ts";
import { BLOCK, FOLLOW } from "../../../../records.ts";
import { read } from "../../../../views/hydrate.ts";
import { visibleActor } from "../../../../views/lookup.ts";
import { invalidRequest, XrpcError } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { optStr, strs } from "../../../../xrpc/params.ts";

export default method("app.bsky.graph.getRelationships", { auth: "optional", apps: true }, (call) =>
  read(call, async (h) => {
    const actor = optStr(call.params, "actor") ?? call.viewer?.did;
    if (!actor) throw invalidRequest('Input must have the property "actor"');
    const others = strs(call.params, "others");
    if (others.length > 30) throw invalidRequest("others names at most 30 accounts");
    const subject = await visibleActor(h, actor);
    if (!subject) throw new XrpcError(400, "ActorNotFound", "Actor not found");
    const subjectDid = didOf(h.actors.get(subject)!, h.domain);
    const resolved = await Promise.all(others.map((o) => visibleActor(h, o)));
    // the others' standing as seen from the subject (not from the reader)
    const standing = await actorsByIds(h.tx, resolved.filter((r): r is string => !!r), subject);
    return {
      actor: subjectDid,
      relationships: others.map((other, i) => {
        const row = resolved[i] ? standing.get(resolved[i]!) : undefined;
        if (!row) return { $type: "app.bsky.graph.defs#notFoundActor", actor: other, notFound: true };
        const did = didOf(row, h.domain);
        return {
          $type: "app.bsky.graph.defs#relationship",
          did,
          ...(row.following ? { following: atUri(subjectDid, FOLLOW, row.following) } : {}),
          ...(row.followed_by ? { followedBy: atUri(did, FOLLOW, row.followed_by) } : {}),
          ...(row.blocking ? { blocking: atUri(subjectDid, BLOCK, row.blocking) } : {}),
        };
      }),
    };
  }));
