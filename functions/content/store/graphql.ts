// GraphQL's SQL (graphql/): entries by id under a where tree, and the batched reads of one level of links.
// The where trees compile with delivery's condition compiler (entries.ts).
import type { Db } from "../../../shared/db.ts";
import type { Condition, Order, WithheldBodies } from "../domain/entry-query.ts";
import {
  ENTRY_COLUMNS,
  entryCondition,
  entryOrder,
  type EntryRow,
  holdsLink,
  linkColumn,
  listedFor,
  type Stage,
} from "./entries.ts";

export function entriesByIdsWhere(
  db: Db,
  stage: Stage,
  ids: string[],
  input: {
    where?: Condition;
    order: Order[];
    contentTypes?: string[];
    chain: string[];
    withheld?: WithheldBodies;
  },
): Promise<EntryRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  const { where, order, contentTypes, chain, withheld } = input;
  return db<EntryRow[]>`
    select ${db.unsafe(ENTRY_COLUMNS)} from public.content_entries e
    where e.stage = ${stage} and e.id = any(${ids}::text[])
      ${contentTypes ? db`and e.model_id = any(${contentTypes}::text[])` : db``}
      and ${where ? entryCondition(db, stage, where, chain, withheld) : db`true`}
    order by ${entryOrder(db, order, chain, withheld)}`;
}

export interface LinkingQuery {
  stage: Stage;
  /** the linked entries' or assets' ids */
  targets: string[];
  linkType: "Entry" | "Asset";
  /** only entries of this type link */
  contentType?: string;
  /** a link counts when it sits in one of these locales of the linking entry */
  locales: string[];
  order: Order[];
  chain: string[];
  skip: number;
  limit: number;
  /** a caller without gated access: links inside withheld bodies do not count, nor do body orders */
  withheld?: WithheldBodies;
}

/**
 * linkedFrom for a whole level at once: for every target, one page of the entries linking to it and their
 * total. The links / asset_links arrays (GIN-indexed) narrow the rows; a JSON path then keeps only links
 * stored in the allowed locales.
 */
export async function linkingEntries(
  db: Db,
  q: LinkingQuery,
): Promise<Map<string, { rows: EntryRow[]; total: number }>> {
  const found = new Map(q.targets.map((t) => [t, { rows: [] as EntryRow[], total: 0 }]));
  if (q.targets.length === 0) return found;
  const notInBody = q.withheld
    ? db`(e.access = 'guest' or f.key <> all(${listedFor(db, q.withheld.bodies)})) and`
    : db``;
  const linking = db`e.stage = ${q.stage} and ${linkColumn(db, q.linkType)} @> array[t.target]
    ${q.contentType ? db`and e.model_id = ${q.contentType}` : db``}
    and exists (
      select 1 from jsonb_each(e.fields) f, unnest(${q.locales}::text[]) l(code)
      where ${notInBody} ${holdsLink(db, db`f.value -> l.code`, q.linkType, db`t.target`)})`;
  if (q.limit > 0) {
    const rows = await db<(EntryRow & { target: string; total: number })[]>`
      select t.target, x.* from unnest(${q.targets}::text[]) t(target)
      cross join lateral (
        select ${db.unsafe(ENTRY_COLUMNS)}, count(*) over () as total from public.content_entries e
        where ${linking}
        order by ${entryOrder(db, q.order, q.chain, q.withheld)}
        limit ${q.limit} offset ${q.skip}) x`;
    for (const { target, total, ...row } of rows) {
      const page = found.get(target)!;
      page.rows.push(row);
      page.total = total;
    }
  }
  // a page past the end (or limit 0) says nothing of the total: count those targets apart
  const uncounted = q.targets.filter((t) => found.get(t)!.rows.length === 0);
  if (uncounted.length > 0 && (q.skip > 0 || q.limit === 0)) {
    const counts = await db<{ target: string; total: number }[]>`
      select t.target, (select count(*) from public.content_entries e where ${linking}) as total
      from unnest(${uncounted}::text[]) t(target)`;
    for (const { target, total } of counts) found.get(target)!.total = total;
  }
  return found;
}
