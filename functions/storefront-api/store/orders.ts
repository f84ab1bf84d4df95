// Orders' SQL: the bag's checkout.
import type { Db } from "../../../shared/db.ts";

export interface OrderRow {
  id: string;
  status: "pending" | "paid" | "expired";
  person_id: string | null;
  email: string | null;
  currency: string;
  amount_total: number;
  lines: unknown[];
  country: string | null;
  provider: string;
  session_id: string | null;
  cart_id: string | null;
  created_at: Date;
  paid_at: Date | null;
}

export async function insertOrder(
  db: Db,
  order: Pick<
    OrderRow,
    "person_id" | "email" | "currency" | "amount_total" | "lines" | "country" | "provider" | "cart_id"
  >,
  now: Date,
): Promise<OrderRow> {
  const [row] = await db<OrderRow[]>`
    insert into public.storefront_orders (person_id, email, currency, amount_total, lines, country, provider, cart_id, created_at)
    values (${order.person_id}, ${order.email}, ${order.currency}, ${order.amount_total}, ${
    db.json(order.lines as never)
  },
            ${order.country}, ${order.provider}, ${order.cart_id}, ${now})
    returning *`;
  return row;
}

export async function setOrderSession(db: Db, id: string, sessionId: string): Promise<void> {
  await db`update public.storefront_orders set session_id = ${sessionId} where id = ${id}`;
}

/** Marks an order paid once (a replayed event changes nothing); answers whether this call did it. */
export async function markOrderPaid(
  db: Db,
  id: string,
  paid: { sessionId: string; amountTotal: number | null; email: string | null; country: string | null },
  now: Date,
): Promise<boolean> {
  const rows = await db`
    update public.storefront_orders set status = 'paid', paid_at = ${now},
      email = coalesce(${paid.email}, email), country = coalesce(${paid.country}, country)
    where id::text = ${id} and status = 'pending' and session_id = ${paid.sessionId}
      and (${paid.amountTotal}::bigint is null or amount_total = ${paid.amountTotal}::bigint)
    returning 1`;
  return rows.length > 0;
}

export async function markOrderExpired(db: Db, id: string, sessionId: string): Promise<void> {
  await db`update public.storefront_orders set status = 'expired'
           where id::text = ${id} and status = 'pending' and session_id = ${sessionId}`;
}

export async function readOrder(db: Db, id: string): Promise<OrderRow | undefined> {
  const [row] = await db<OrderRow[]>`select * from public.storefront_orders where id::text = ${id}`;
  return row;
}

export async function deleteCart(db: Db, token: string): Promise<void> {
  await db`delete from public.storefront_carts where id = ${token}`;
}
