// The Sync API's SQL: the changes and deletions past a token, in commit order.
import type { Db } from "../../../shared/db.ts";
import type { Fragment, Stage } from "./entries.ts";

export type SyncKind = "Entry" | "Asset" | "DeletedEntry" | "DeletedAsset";

export interface SyncItemRow {
  kind: SyncKind;
  id: string;
  /** the transaction that made the change (migration 20261124000200) */
  change_xid: number;
  change_seq: number;
}

/**
 * The mark a sync may go up to now: every transaction below it has finished, so each change they made is
 * visible and none can still appear below it (a sequence number would not do: numbers are taken before
 * commit, so a lower one can become visible after a higher one). A long-running writing transaction holds
 * the mark back until it ends; its changes and everything after them then come in the next delta.
 */
export async function finishedTransactionsBelow(db: Db): Promise<number> {
  const [{ xmin }] = await db<{ xmin: number }[]>`
    select pg_snapshot_xmin(pg_current_snapshot())::text::bigint as xmin`;
  return xmin;
}

/**
 * The next page of sync items: changes made by transactions from `from` (inclusive) to `to` (exclusive),
 * after `cursor` when paging on, in change order. Only ids and positions: the caller loads the page's
 * entities in batched reads.
 */
export function syncPage(
  db: Db,
  input: {
    stage: Stage;
    kinds: SyncKind[];
    contentType?: string;
    from: number;
    to: number;
    cursor?: { xid: number; seq: number };
    limit: number;
  },
): Promise<SyncItemRow[]> {
  const { stage, kinds, contentType, from, to, cursor, limit } = input;
  const want = (k: SyncKind) => kinds.includes(k);
  const window = db`change_xid >= ${String(from)}::xid8 and change_xid < ${String(to)}::xid8
    ${
    cursor ? db`and (change_xid, change_seq) > (${String(cursor.xid)}::xid8, ${cursor.seq}::bigint)` : db``
  }`;
  // each part takes its own first page along its change index, so a page reads `limit` rows a part
  // however far into a large space the walk is, rather than sorting all that is left of the window
  const firstPage = db`order by change_xid, change_seq limit ${limit}`;
  const parts: Fragment[] = [];
  if (want("Entry")) {
    parts.push(db`(select 'Entry' as kind, id, change_xid, change_seq from public.content_entries
      where stage = ${stage} and ${window}
      ${contentType ? db`and model_id = ${contentType}` : db``} ${firstPage})`);
  }
  if (want("Asset") && !contentType) {
    parts.push(db`(select 'Asset' as kind, id, change_xid, change_seq from public.content_assets
      where published and ${window} ${firstPage})`);
  }
  if (want("DeletedEntry")) {
    parts.push(db`(select kind, id, change_xid, change_seq from public.content_tombstones
      where stage = ${stage} and kind = 'DeletedEntry' and ${window}
      ${contentType ? db`and model_id = ${contentType}` : db``} ${firstPage})`);
  }
  if (want("DeletedAsset") && !contentType) {
    parts.push(db`(select kind, id, change_xid, change_seq from public.content_tombstones
      where stage = 'published' and kind = 'DeletedAsset' and ${window} ${firstPage})`);
  }
  if (parts.length === 0) return Promise.resolve([]);
  const union = parts.reduce((acc, part) => db`${acc} union all ${part}`);
  return db<SyncItemRow[]>`
    select kind, id, change_xid::text::bigint as change_xid, change_seq from (${union}) items
    order by items.change_xid, change_seq limit ${limit}`;
}

export interface TombstoneRow {
  id: string;
  kind: "DeletedEntry" | "DeletedAsset";
  model_id: string | null;
  revision: number;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date;
}

export function tombstonesByIds(db: Db, stage: Stage, ids: string[]): Promise<TombstoneRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db<TombstoneRow[]>`
    select id, kind, model_id, revision, created_at, updated_at, deleted_at from public.content_tombstones
    where id = any(${ids}::text[]) and (stage = ${stage} or kind = 'DeletedAsset')`;
}
