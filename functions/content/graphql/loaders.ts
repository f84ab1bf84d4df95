// The batched reads of one GraphQL request. Every link resolved at one level of the answer asks a loader;
// a loader gathers the ids asked for in the same tick and reads them in one query (entries and assets by
// id here, the filtered reads through DataLoader), so a page of 100 entries with links costs one read per
// level and kind, never one per entry.
import process from "node:process";
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

/** When a batch of ids asked for is read: as DataLoader schedules it (after the promise jobs queued now). */
function afterPromiseJobs(dispatch: () => void) {
  Promise.resolve().then(() => process.nextTick(dispatch));
}

/**
 * Entries at one stage, or assets, by id, for one request: the rows it has read or been given (null where
 * none is), and the ids asked for since the last read, read together in one query when the promise jobs
 * queued now have run (as DataLoader batches). Where every id asked for is known the rows come at once,
 * without a promise; else the caller waits for the one read that holds the missing ones. DataLoader's
 * loadMany made a promise (and a rejection handler) per id and one more for the list: a page with two
 * levels of links asks some 600 times.
 */
class RowsById<R extends EntryRow | AssetRow> {
  private seen = new Map<string, R | null>();
  /** ids being read (or about to be), and the read that holds each */
  private reading = new Map<string, Promise<void>>();
  private next: { ids: string[]; done: Promise<void> } | undefined;

  constructor(private read: (ids: string[]) => Promise<R[]>) {}

  /** Rows read otherwise (a collection's page): a link to one of them needs no read. */
  prime(rows: R[]) {
    for (const row of rows) this.seen.set(row.id, row);
  }

  /** The rows of `ids` (undefined where none is): at once when all are known, else after the reads. */
  rows(ids: readonly string[]): Rows<R> | Promise<Rows<R>> {
    let wait: Promise<void> | undefined;
    let more: Set<Promise<void>> | undefined;
    for (const id of ids) {
      if (this.seen.has(id)) continue;
      const read = this.reading.get(id) ?? this.ask(id);
      if (wait === undefined) wait = read;
      else if (read !== wait) (more ??= new Set([wait])).add(read);
    }
    if (wait === undefined) return this.known(ids);
    return (more ? Promise.all(more) : wait).then(
      () => this.known(ids),
      (error: Error) => ids.map((id) => this.seen.has(id) ? this.seen.get(id) ?? undefined : error),
    );
  }

  /** One id's row: at once when known (undefined where none is), else after the read that holds it. */
  row(id: string): R | undefined | Error | Promise<R | undefined | Error> {
    if (this.seen.has(id)) return this.seen.get(id) ?? undefined;
    return (this.rows([id]) as Promise<Rows<R>>).then((rows) => rows[0]); // not known: a promise
  }

  async load(id: string): Promise<R | undefined> {
    const [row] = await this.rows([id]);
    if (row instanceof Error) throw row;
    return row;
  }

  private known(ids: readonly string[]): Rows<R> {
    return ids.map((id) => this.seen.get(id) ?? undefined);
  }

  /** Puts `id` in the next read, scheduling that read when it is the first. */
  private ask(id: string): Promise<void> {
    if (!this.next) {
      const ids: string[] = [];
      let start!: () => void;
      const done = new Promise<void>((resolve) => start = resolve).then(async () => {
        this.next = undefined;
        try {
          const rows = new Map((await this.read(ids)).map((r) => [r.id, r]));
          for (const wanted of ids) this.seen.set(wanted, rows.get(wanted) ?? null);
        } finally {
          for (const wanted of ids) this.reading.delete(wanted); // a failed read is tried again when asked
        }
      });
      this.next = { ids, done };
      afterPromiseJobs(start);
    }
    this.next.ids.push(id);
    this.reading.set(id, this.next.done);
    return this.next.done;
  }
}

export class Loaders {
  // deno-lint-ignore no-explicit-any
  private loaders = new Map<string, DataLoader<string, any>>();
  private entriesAt = new Map<Stage, RowsById<EntryRow>>();
  private assetRows?: RowsById<AssetRow>;

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
  entries(stage: Stage): RowsById<EntryRow> {
    let rows = this.entriesAt.get(stage);
    if (!rows) this.entriesAt.set(stage, rows = new RowsById((ids) => entriesByIds(this.db, stage, ids)));
    return rows;
  }

  /** Published assets by id (assets have no draft stage). */
  assets(): RowsById<AssetRow> {
    return this.assetRows ??= new RowsById((ids) => assetsByIds(this.db, ids));
  }

  primeEntries(stage: Stage, rows: EntryRow[]): void {
    this.entries(stage).prime(rows);
  }

  primeAssets(rows: AssetRow[]): void {
    this.assets().prime(rows);
  }

  /**
   * Entries by id: at once when this request has read them all (no promise, no wait for the level's
   * read), else when the read holding the others is done. A link resolved at once costs the compiled
   * query no promise either.
   */
  entriesNow(stage: Stage, ids: readonly string[]): Rows<EntryRow> | Promise<Rows<EntryRow>> {
    return this.entries(stage).rows(ids);
  }

  assetsNow(ids: readonly string[]): Rows<AssetRow> | Promise<Rows<AssetRow>> {
    return this.assets().rows(ids);
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
