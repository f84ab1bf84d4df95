// What a read method is asked about, resolved for the reader: an actor by handle or DID, a post by its
// at-uri, a page's cursor and limit. Whom the reader may not see is the same as nobody.
import { AtUri } from "@atproto/syntax";
import { nameFromDid, nameFromHandle } from "../identity.ts";
import { visiblePersonOf } from "../store/reader/actors.ts";
import { messageIdOfKey, POST } from "../records.ts";
import { postIdOf, postIdsOf } from "../store/reader/posts.ts";
import { decodeFeedCursor, type FeedCursor } from "../store/reader/feeds.ts";
import { invalidRequest } from "../xrpc/errors.ts";
import type { Call } from "../xrpc/method.ts";
import { int, optStr } from "../xrpc/params.ts";
import type { Hydrator } from "./hydrate.ts";

/** The member an actor parameter names, when the reader may see them (their row is then loaded). */
export async function visibleActor(h: Hydrator, actor: string, options: { counts?: boolean } = {}): Promise<string | undefined> {
  const value = actor.trim();
  const id = await visiblePersonOf(
    h.tx,
    value.startsWith("did:plc:")
      ? { plcDid: value }
      : { name: value.startsWith("did:") ? nameFromDid(value, h.domain) : nameFromHandle(value, h.domain) },
  );
  if (!id) return undefined;
  await h.loadActors([id], options);
  return h.actors.has(id) ? id : undefined;
}

export type PostRef =
  | { kind: "post"; author: string; id: number | undefined; uri: string }
  | { kind: "message"; author: string; messageId: number; uri: string };

/** A post's at-uri: one of the site's posts (id undefined when the reader may not see it) or a space's message. */
export async function postRef(h: Hydrator, uri: string): Promise<PostRef | undefined> {
  let parsed: AtUri;
  try {
    parsed = new AtUri(uri);
  } catch {
    throw invalidRequest(`Invalid at-uri: ${uri}`);
  }
  if (parsed.collection !== POST || !parsed.rkey) return undefined;
  const author = await visibleActor(h, parsed.host);
  if (!author) return undefined;
  const messageId = messageIdOfKey(parsed.rkey);
  if (messageId !== undefined) return { kind: "message", author, messageId, uri };
  return { kind: "post", author, id: await postIdOf(h.tx, author, parsed.rkey), uri };
}

/** Many at-uris at once (getPosts): each author resolved once, then every post in one statement. */
export async function postRefs(h: Hydrator, uris: string[]): Promise<(PostRef | undefined)[]> {
  const authors = new Map<string, string | undefined>();
  const parsed = uris.map((uri) => {
    let at: AtUri;
    try {
      at = new AtUri(uri);
    } catch {
      throw invalidRequest(`Invalid at-uri: ${uri}`);
    }
    return { uri, at };
  });
  for (const { at } of parsed) {
    if (at.collection === POST && at.rkey && !authors.has(at.host)) authors.set(at.host, await visibleActor(h, at.host));
  }
  const wanted = parsed.flatMap(({ at }) => {
    const author = authors.get(at.host);
    return author && at.collection === POST && messageIdOfKey(at.rkey) === undefined ? [{ author, rkey: at.rkey }] : [];
  });
  const ids = await postIdsOf(h.tx, wanted);
  return parsed.map(({ uri, at }): PostRef | undefined => {
    const author = authors.get(at.host);
    if (!author || at.collection !== POST || !at.rkey) return undefined;
    const messageId = messageIdOfKey(at.rkey);
    if (messageId !== undefined) return { kind: "message", author, messageId, uri };
    return { kind: "post", author, id: ids.get(`${author}/${at.rkey}`), uri };
  });
}

export function pageLimit(call: Call, def = 50, max = 100): number {
  return int(call.params, "limit", { min: 1, max, def });
}

/** The cursor of a page of ours; a cursor we did not hand out is InvalidRequest. */
export function feedCursor(call: Call): FeedCursor | undefined {
  const raw = optStr(call.params, "cursor");
  if (raw === undefined || raw === "") return undefined;
  const cursor = decodeFeedCursor(raw);
  if (!cursor) throw invalidRequest("Malformed cursor");
  return cursor;
}

/** The rows of a page (one more was asked for) and the cursor of the next one, if there is one. */
export function paged<T>(rows: T[], limit: number, cursorOf: (last: T) => string): { rows: T[]; cursor?: string } {
  if (rows.length <= limit) return { rows };
  const page = rows.slice(0, limit);
  return { rows: page, cursor: cursorOf(page[page.length - 1]) };
}
