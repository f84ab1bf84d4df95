// The batched reads of one GraphQL request. Every link resolved at one level of the answer asks a loader;
// a loader gathers the ids asked for in the same tick and reads them in one query (DataLoader), so a
// page of 100 entries with links costs one read per level and kind, never one per entry.
import DataLoader from "dataloader";
import type { Db } from "../../../shared/db.ts";
import type { Condition, Order, WithheldBodies } from "../domain/entry-query.ts";
import { type AssetRow, assetsByIds, entriesByIds, type EntryRow, type Stage } from "../store/entries.ts";
import { entriesByIdsWhere, linkingEntries, type LinkingQuery } from "../store/graphql.ts";

/** An entry matched by a where, and its place in the read's order. */
export interface Ranked {
  row: EntryRow;
  rank: number;
}

export class Loaders {
  // deno-lint-ignore no-explicit-any
  private loaders = new Map<string, DataLoader<string, any>>();

  /** `withheld`: the caller may not read gated bodies, so filters, orders and links must not see them */
  constructor(private db: Db, private withheld?: WithheldBodies) {}

  private get<V>(
    key: string,
    batch: (ids: readonly string[]) => Promise<(V | undefined)[]>,
  ): DataLoader<string, V | undefined> {
    let loader = this.loaders.get(key);
    if (!loader) {
      loader = new DataLoader<string, V | undefined>(batch);
      this.loaders.set(key, loader);
    }
    return loader;
  }

  /** Entries by id at a stage. */
  entries(stage: Stage): DataLoader<string, EntryRow | undefined> {
    return this.get(`entries:${stage}`, async (ids) => {
      const rows = new Map((await entriesByIds(this.db, stage, [...ids])).map((r) => [r.id, r]));
      return ids.map((id) => rows.get(id));
    });
  }

  /** Published assets by id (assets have no draft stage). */
  assets(): DataLoader<string, AssetRow | undefined> {
    return this.get("assets", async (ids) => {
      const rows = new Map((await assetsByIds(this.db, [...ids])).map((r) => [r.id, r]));
      return ids.map((id) => rows.get(id));
    });
  }

  /** Entries by id that match a where, ranked in an order: link fields and collections that filter. */
  entriesWhere(
    stage: Stage,
    input: { where?: Condition; order: Order[]; contentTypes?: string[]; chain: string[] },
  ): DataLoader<string, Ranked | undefined> {
    return this.get(`where:${stage}:${JSON.stringify(input)}`, async (ids) => {
      const rows = await entriesByIdsWhere(this.db, stage, [...ids], { ...input, withheld: this.withheld });
      const found = new Map(rows.map((row, rank) => [row.id, { row, rank }]));
      return ids.map((id) => found.get(id));
    });
  }

  /** linkedFrom: a page of the entries linking to each target. */
  linking(
    query: Omit<LinkingQuery, "targets" | "withheld">,
  ): DataLoader<string, { rows: EntryRow[]; total: number } | undefined> {
    return this.get(`linking:${JSON.stringify(query)}`, async (targets) => {
      const found = await linkingEntries(this.db, {
        ...query,
        targets: [...targets],
        withheld: this.withheld,
      });
      return targets.map((t) => found.get(t));
    });
  }
}
