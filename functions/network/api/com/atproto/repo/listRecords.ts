// com.atproto.repo.listRecords: a member's records of one collection the reader may see, newest key
// first (oldest with reverse); the cursor is the last key.
import { atUri, didOf } from "../../../../identity.ts";
import { PROFILE } from "../../../../records.ts";
import { isTableCollection, recordPage } from "../../../../store/reader/records.ts";
import { read } from "../../../../views/hydrate.ts";
import { pageLimit, visibleActor } from "../../../../views/lookup.ts";
import { profileRecordOf } from "../../../../views/records.ts";
import { notFound } from "../../../../xrpc/errors.ts";
import { method } from "../../../../xrpc/method.ts";
import { bool, optStr, str } from "../../../../xrpc/params.ts";

export default method("com.atproto.repo.listRecords", { auth: "optional", apps: true }, (call) =>
  read(call, async (h) => {
    const repo = str(call.params, "repo");
    const collection = str(call.params, "collection");
    const limit = pageLimit(call);
    const cursor = optStr(call.params, "cursor") || undefined;
    const reverse = bool(call.params, "reverse", false);
    const person = await visibleActor(h, repo);
    if (!person) throw notFound("RepoNotFound", `Could not find repo: ${repo}`);
    const did = didOf(h.actors.get(person)!, h.domain);
    if (collection === PROFILE) {
      const profile = await profileRecordOf(h, person);
      const show = profile && (cursor === undefined || (reverse ? "self" > cursor : "self" < cursor));
      return { records: show ? [{ uri: atUri(did, PROFILE, "self"), cid: profile.cid, value: profile.record }] : [] };
    }
    if (!isTableCollection(collection)) return { records: [] };
    const rows = await recordPage(h.tx, collection, person, { limit, cursor, reverse });
    const page = rows.slice(0, limit);
    return {
      records: page.map((r) => ({ uri: atUri(did, collection, r.rkey), cid: r.cid, value: r.record })),
      ...(rows.length > limit ? { cursor: page[page.length - 1].rkey } : {}),
    };
  }));
