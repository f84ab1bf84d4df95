// com.atproto.repo.getRecord: one of a member's records, exactly as written, when the reader may see it.
import { atUri, didOf } from "../../../../identity.ts";
import { PROFILE } from "../../../../records.ts";
import { isTableCollection, recordOf } from "../../../../store/reader/records.ts";
import { read } from "../../../../views/hydrate.ts";
import { visibleActor } from "../../../../views/lookup.ts";
import { profileRecordOf } from "../../../../views/records.ts";
import { notFound } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { optStr, str } from "../../../../xrpc/params.ts";

export default method("com.atproto.repo.getRecord", { auth: "optional", apps: true }, (call) =>
  read(call, async (h) => {
    const repo = str(call.params, "repo");
    const collection = str(call.params, "collection");
    const rkey = str(call.params, "rkey");
    const cid = optStr(call.params, "cid");
    const person = await visibleActor(h, repo);
    if (!person) throw notFound("RepoNotFound", `Could not find repo: ${repo}`);
    const found = collection === PROFILE
      ? rkey === "self" ? await profileRecordOf(h, person) : undefined
      : isTableCollection(collection)
      ? await recordOf(h.tx, collection, person, rkey)
      : undefined;
    if (!found || (cid && found.cid !== cid)) {
      throw notFound("RecordNotFound", `Could not locate record: at://${repo}/${collection}/${rkey}`);
    }
    const did = didOf(h.actors.get(person)!, h.domain);
    return { uri: atUri(did, collection, rkey), cid: found.cid, value: found.record };
  }));
