// Search as the reader: actors among the people they may see (network_find's policy decides), by the words
// of their handle name and display name, each word a prefix, ordered by handle name; and posts by the
// words of their text (also prefixes) and the filters searchPosts names.
import type { Db } from "../../../../shared/db.ts";
import { unblocked } from "./feeds.ts";

/** The query's words as a tsquery of prefixes, or undefined when nothing searchable is left. */
export function prefixQuery(q: string): string | undefined {
  const words = q.toLowerCase().replace(/@/g, "").split(/[^\p{L}\p{N}]+/u).filter(Boolean).slice(0, 8);
  return words.length ? words.map((w) => `${w}:*`).join(" & ") : undefined;
}

export async function searchPeople(
  db: Db,
  q: string,
  options: { limit: number; after?: { name: string; id: string } },
): Promise<{ person_id: string; sort_name: string }[]> {
  const query = prefixQuery(q);
  if (!query) return [];
  return await db<{ person_id: string; sort_name: string }[]>`
    select f.person_id, f.sort_name from public.network_find f
    where f.names @@ to_tsquery('simple', ${query})
      and (f.sort_name, f.person_id) > (${options.after?.name ?? ""}, ${
    options.after?.id ?? "00000000-0000-0000-0000-000000000000"
  }::uuid)
    order by f.sort_name, f.person_id limit ${options.limit + 1}`;
}

/** What a post search asks for, resolved (a member named by handle is their id and DID by now). */
export interface PostSearch {
  /** the query's words as a tsquery of prefixes; undefined matches every post (the filters still apply) */
  words?: string;
  sort: "top" | "latest";
  authorId?: string;
  /** the DID a mention facet must name */
  mentionDid?: string;
  since?: Date;
  until?: Date;
  lang?: string;
  domain?: string;
  url?: string;
  /** every one of them, as a tag facet or in the record's tags */
  tags: string[];
}

export interface PostSearchCursor {
  rank: number;
  atUs: number;
  id: number;
}

export interface PostHit {
  id: number;
  at_us: number;
  rank: number;
}

export function encodePostSearchCursor(hit: PostHit): string {
  return `${hit.rank}~${hit.at_us}~${hit.id}`;
}

export function decodePostSearchCursor(cursor: string): PostSearchCursor | undefined {
  const match = cursor.match(/^(\d+(?:\.\d+)?(?:e-?\d+)?)~(\d{1,17})~(\d{1,18})$/);
  return match ? { rank: Number(match[1]), atUs: Number(match[2]), id: Number(match[3]) } : undefined;
}

const MENTION = "app.bsky.richtext.facet#mention";
const TAG = "app.bsky.richtext.facet#tag";
const LINKS = 'strict $[*].features[*] ? (@."$type" == "app.bsky.richtext.facet#link").uri';

/**
 * Posts the reader may see (the policies decide) matching a search, none across a block with the reader:
 * newest first, or (top) by how well their words match, then newest. Paged by a keyset on (rank, time, id);
 * the words come off the GIN index on the text's words.
 */
export async function searchPostsPage(
  db: Db,
  search: PostSearch,
  viewer: string | undefined,
  options: { limit: number; cursor?: PostSearchCursor },
): Promise<PostHit[]> {
  const c = options.cursor ?? { rank: 1e300, atUs: 8e15, id: 0 };
  const words = search.words
    ? db`to_tsvector('simple', p.text) @@ to_tsquery('simple', ${search.words})`
    : db`true`;
  const rank = search.words && search.sort === "top"
    ? db`ts_rank_cd(to_tsvector('simple', p.text), to_tsquery('simple', ${search.words}))::float8`
    : db`0::float8`;
  const links = db`(
    select jsonb_path_query(coalesce(p.facets, '[]'), ${LINKS}::jsonpath) #>> '{}' as uri
    union all select p.embed #>> '{external,uri}' union all select p.embed #>> '{media,external,uri}')`;
  const filters = [
    search.authorId ? db`p.author_id = ${search.authorId}::uuid` : undefined,
    search.since ? db`p.indexed_at >= ${search.since}` : undefined,
    search.until ? db`p.indexed_at < ${search.until}` : undefined,
    search.lang ? db`coalesce(p.record -> 'langs', '[]') ? ${search.lang}` : undefined,
    search.mentionDid
      ? db`p.facets @> ${db.json([{ features: [{ $type: MENTION, did: search.mentionDid }] }])}`
      : undefined,
    ...search.tags.map((tag) =>
      db`(coalesce(p.facets, '[]') @> ${db.json([{ features: [{ $type: TAG, tag }] }])}
        or coalesce(p.record -> 'tags', '[]') ? ${tag})`
    ),
    search.url ? db`exists (select 1 from ${links} l where l.uri = ${search.url})` : undefined,
    search.domain
      ? db`exists (select 1 from ${links} l, lateral (select lower(substring(l.uri from '^[a-zA-Z][a-zA-Z0-9+.-]*://([^/:?#@]+)')) as host) h
          where h.host = ${search.domain.toLowerCase()} or h.host like ${`%.${search.domain.toLowerCase()}`})`
      : undefined,
  ].filter((f) => f !== undefined);
  const where = filters.reduce((all, f) => db`${all} and ${f}`, db`true`);
  return await db<PostHit[]>`
    select id, at_us, rank from (
      select p.id, p.indexed_at, (extract(epoch from p.indexed_at) * 1000000)::bigint as at_us, ${rank} as rank
      from public.community_posts p
      where ${words} and ${where} and ${unblocked(db, viewer ?? null, db`p.author_id`)}
    ) hits
    where (rank, indexed_at, id)
      < (${c.rank}::float8, timestamptz 'epoch' + interval '1 microsecond' * ${c.atUs}::bigint, ${c.id}::bigint)
    order by rank desc, indexed_at desc, id desc limit ${options.limit + 1}`;
}
