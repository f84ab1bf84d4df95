// Carts' SQL: create, read, change and sweep.
import type { Db, Sql, Tx } from "../../../shared/db.ts";
import type { Attribute, Buyer, CartState, StoredLine } from "../domain/cart.ts";

export interface CartRow {
  id: string;
  lines: StoredLine[];
  buyer: Buyer;
  attributes: Attribute[];
  note: string | null;
  created_at: Date;
  updated_at: Date;
}

export const stateOf = (row: CartRow): CartState => ({
  lines: row.lines,
  buyer: row.buyer,
  attributes: row.attributes,
  note: row.note,
});

/** The carts of these tokens (any order; unknown tokens are missing): every cart of a request in one query. */
export function readCarts(db: Db, tokens: string[]): Promise<CartRow[]> {
  if (tokens.length === 0) return Promise.resolve([]);
  return db<CartRow[]>`
    select id, lines, buyer, attributes, note, created_at, updated_at from public.storefront_carts
    where id = any(${tokens}::text[])`;
}

export async function insertCart(
  db: Db,
  token: string,
  state: CartState,
  keyId: string | null,
  now: Date,
): Promise<CartRow> {
  const [row] = await db<CartRow[]>`
    insert into public.storefront_carts (id, lines, buyer, attributes, note, key_id, created_at, updated_at)
    values (${token}, ${db.json(state.lines as never)}, ${db.json(state.buyer as never)},
            ${db.json(state.attributes as never)}, ${state.note}, ${keyId}, ${now}, ${now})
    returning id, lines, buyer, attributes, note, created_at, updated_at`;
  return row;
}

/**
 * Runs a cart mutation in one transaction holding the cart's row lock, so concurrent mutations of one
 * cart apply one after the other and none is lost. `change` answers the new state, or undefined to leave
 * the cart as it is. Answers undefined for an unknown cart.
 */
export async function changeCart<T extends { state?: CartState }>(
  sql: Sql,
  token: string,
  now: Date,
  change: (row: CartRow, tx: Tx) => Promise<T>,
): Promise<{ row: CartRow; result: T } | undefined> {
  return await sql.begin(async (tx) => {
    const [row] = await tx<CartRow[]>`
      select id, lines, buyer, attributes, note, created_at, updated_at from public.storefront_carts
      where id = ${token} for update`;
    if (!row) return undefined;
    const result = await change(row, tx);
    if (!result.state) return { row, result };
    const [updated] = await tx<CartRow[]>`
      update public.storefront_carts set lines = ${tx.json(result.state.lines as never)},
        buyer = ${tx.json(result.state.buyer as never)}, attributes = ${
      tx.json(result.state.attributes as never)
    },
        note = ${result.state.note}, updated_at = ${now}
      where id = ${token}
      returning id, lines, buyer, attributes, note, created_at, updated_at`;
    return { row: updated, result };
  }) as { row: CartRow; result: T } | undefined;
}

/** The retention sweep (also scheduled by pg_cron where the database has it). */
export async function sweepCarts(db: Db, now: Date, days = 30): Promise<number> {
  const [{ swept }] = await db<
    { swept: number }[]
  >`select public.sweep_storefront_carts(${now}, ${days}) as swept`;
  return swept;
}
