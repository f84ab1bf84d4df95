// The batched reads of one GraphQL request. Every link resolved at one level of the answer asks a loader;
// a loader gathers the ids asked for in the same tick and reads them in one query (DataLoader), so a
// page of 100 entries with links costs one read per level and kind, never one per entry.
import DataLoader from "dataloader";
import type { Db } from "../../../shared/db.ts";
import type { Condition, Order, WithheldBodies } from "../domain/entry-query.ts";
import { type AssetRow, assetsByIds, entriesByIds, type EntryRow, type Stage } from "../store/entries.ts";
import { entriesByIdsWhere, linkingEntries, type LinkingQuery } from "../store/graphql.ts";

/** Rows in the order of the ids asked for: undefined where there is none, an Error where the read failed. */
export type Rows<V> = (V | undefined | Error)[];

/** An entry matched by a where, and its place in the read's order. */
export interface Ranked {
  row: EntryRow;
  rank: number;
}

export class Loaders {
  // deno-lint-ignore no-explicit-any
  private loaders = new Map<string, DataLoader<string, any>>();
  /** per loader of entries or assets: the rows this request has read or been given, null where none is */
  private seen = new Map<string, Map<string, EntryRow | AssetRow | null>>();

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

  private seenIn(key: string): Map<string, EntryRow | AssetRow | null> {
    let seen = this.seen.get(key);
    if (!seen) this.seen.set(key, seen = new Map());
    return seen;
  }

  /** The rows of `ids` if this request has read every one (undefined where none is), else undefined. */
  private known<V>(key: string, ids: readonly string[]): (V | undefined)[] | undefined {
    const seen = this.seen.get(key);
    if (!seen) return undefined;
    const rows: (V | undefined)[] = [];
    for (const id of ids) {
      const row = seen.get(id);
      if (row === undefined) return undefined;
      rows.push(row === null ? undefined : row as V);
    }
    return rows;
  }

  /** Rows by id through one loader, what each batch read (or found missing) remembered for `known`. */
  private rowsById<R extends EntryRow | AssetRow>(
    key: string,
    read: (ids: string[]) => Promise<R[]>,
  ): DataLoader<string, R | undefined> {
    return this.get(key, async (ids) => {
      const rows = new Map((await read([...ids])).map((r) => [r.id, r]));
      const seen = this.seenIn(key);
      for (const id of ids) seen.set(id, rows.get(id) ?? null);
      return ids.map((id) => rows.get(id));
    });
  }

  /** Rows read otherwise (a collection's page), given to a loader: a link to one of them needs no read. */
  private prime<R extends EntryRow | AssetRow>(
    key: string,
    loader: DataLoader<string, R | undefined>,
    rows: R[],
  ) {
    const seen = this.seenIn(key);
    for (const row of rows) {
      loader.prime(row.id, row);
      seen.set(row.id, row);
    }
  }

  /** Entries by id at a stage. */
  entries(stage: Stage): DataLoader<string, EntryRow | undefined> {
    return this.rowsById(`entries:${stage}`, (ids) => entriesByIds(this.db, stage, ids));
  }

  /** Published assets by id (assets have no draft stage). */
  assets(): DataLoader<string, AssetRow | undefined> {
    return this.rowsById("assets", (ids) => assetsByIds(this.db, ids));
  }

  primeEntries(stage: Stage, rows: EntryRow[]): void {
    this.prime(`entries:${stage}`, this.entries(stage), rows);
  }

  primeAssets(rows: AssetRow[]): void {
    this.prime("assets", this.assets(), rows);
  }

  /**
   * Entries by id: at once when this request has read them all (no promise, no wait for the level's
   * batch), else through the loader. A link resolved at once costs the compiled query no promise either.
   */
  entriesNow(stage: Stage, ids: readonly string[]): Rows<EntryRow> | Promise<Rows<EntryRow>> {
    return this.known<EntryRow>(`entries:${stage}`, ids) ?? this.entries(stage).loadMany(ids);
  }

  assetsNow(ids: readonly string[]): Rows<AssetRow> | Promise<Rows<AssetRow>> {
    return this.known<AssetRow>("assets", ids) ?? this.assets().loadMany(ids);
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
