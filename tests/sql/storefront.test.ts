// Row-level security of the store's tables: carts, orders, the catalog index and payment sessions.
import assert from "node:assert/strict";
import { test } from "../helpers/test.ts";
import type { Tx } from "../../shared/db.ts";
import { as, makePeople, refused, rolledBack } from "./support.ts";

async function insertCart(tx: Tx): Promise<string> {
  const id = crypto.randomUUID().replace(/-/g, "").slice(0, 32);
  await tx`insert into public.storefront_carts (id, lines) values (${id}, ${
    tx.json([{ id: "l1", sku: "MUG-01", variant: null, quantity: 1, attributes: [] }])
  })`;
  return id;
}

async function insertOrder(tx: Tx, person: string | null): Promise<string> {
  const [{ id }] = await tx<{ id: string }[]>`
    insert into public.storefront_orders (person_id, currency, amount_total, lines, provider)
    values (${person}, 'EUR', 1400, '[]', 'local') returning id`;
  return id;
}

test("anon and members never read or write carts; staff read them; nobody but the service role writes them", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const id = await insertCart(tx);
    await as(tx, "anon", async (q) => {
      await refused(q, (s) => s`select id from public.storefront_carts`);
      await refused(q, (s) => s`insert into public.storefront_carts (id) values ('a')`);
    });
    for (const who of [people.member, people.newcomer]) {
      const rows = await as(tx, who, (q) => q`select id from public.storefront_carts where id = ${id}`);
      assert.equal(rows.length, 0, "a signed-in person sees no cart");
    }
    for (const who of [people.support, people.admin]) {
      const rows = await as(tx, who, (q) => q`select id from public.storefront_carts where id = ${id}`);
      assert.equal(rows.length, 1, "staff see carts");
      await as(tx, who, async (q) => {
        await refused(q, (s) => s`update public.storefront_carts set note = 'x' where id = ${id}`);
        await refused(q, (s) => s`delete from public.storefront_carts where id = ${id}`);
        await refused(
          q,
          (s) => s`insert into public.storefront_carts (id) values ('Aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')`,
        );
      });
    }
    const rows = await as(
      tx,
      "service_role",
      (q) => q`update public.storefront_carts set note = 'ok' where id = ${id} returning id`,
    );
    assert.equal(rows.length, 1);
  }));

test("the retention sweep is the service role's: readers cannot call it", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    for (const who of ["anon", people.member, people.admin] as const) {
      await as(tx, who, (q) => refused(q, (s) => s`select public.sweep_storefront_carts(now())`));
    }
    await as(tx, "service_role", async (q) => {
      const [{ n }] = await q<{ n: number }[]>`select public.sweep_storefront_carts(now()) as n`;
      assert.equal(typeof n, "number");
    });
  }));

test("people read their own orders, staff every order; nobody writes orders but the service role", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const mine = await insertOrder(tx, people.member.sub);
    const guest = await insertOrder(tx, null);
    const seen = await as(
      tx,
      people.member,
      (q) => q<{ id: string }[]>`select id from public.storefront_orders where id in (${mine}, ${guest})`,
    );
    assert.deepEqual(seen.map((r) => r.id), [mine]);
    const other = await as(
      tx,
      people.newcomer,
      (q) => q`select id from public.storefront_orders where id in (${mine}, ${guest})`,
    );
    assert.equal(other.length, 0);
    const staff = await as(
      tx,
      people.support,
      (q) => q`select id from public.storefront_orders where id in (${mine}, ${guest})`,
    );
    assert.equal(staff.length, 2);
    await as(tx, "anon", (q) => refused(q, (s) => s`select id from public.storefront_orders`));
    await as(tx, people.member, async (q) => {
      await refused(q, (s) => s`update public.storefront_orders set status = 'paid' where id = ${mine}`);
      await refused(
        q,
        (s) =>
          s`insert into public.storefront_orders (currency, amount_total, lines, provider) values ('EUR', 0, '[]', 'x')`,
      );
    });
    await as(
      tx,
      people.admin,
      (q) => refused(q, (s) => s`update public.storefront_orders set status = 'paid' where id = ${mine}`),
    );
  }));

test("payment sessions: administrators may look, nobody else; only the service role writes", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    await tx`insert into public.payment_sessions (id, reference, currency, items, amount_total, success_url, cancel_url, notify_url, expires_at)
           values ('cs_local_rls', 'r', 'EUR', '[]', 0, 'http://a', 'http://b', 'http://c', now() + interval '1 hour')`;
    await as(tx, "anon", (q) => refused(q, (s) => s`select id from public.payment_sessions`));
    for (const who of [people.member, people.support]) {
      assert.equal(
        (await as(tx, who, (q) => q`select id from public.payment_sessions where id = 'cs_local_rls'`))
          .length,
        0,
      );
    }
    assert.equal(
      (await as(tx, people.admin, (q) => q`select id from public.payment_sessions where id = 'cs_local_rls'`))
        .length,
      1,
    );
    await as(
      tx,
      people.admin,
      (q) =>
        refused(
          q,
          (s) => s`update public.payment_sessions set status = 'complete' where id = 'cs_local_rls'`,
        ),
    );
  }));

test("the catalog index is public to read and written only by its trigger, whoever writes the entry", () =>
  rolledBack(async (tx) => {
    const people = await makePeople(tx);
    const anonRows = await as(
      tx,
      "anon",
      (q) => q<{ handle: string }[]>`select handle from public.storefront_catalog where handle = 'tee'`,
    );
    assert.equal(anonRows.length, 1);
    await as(
      tx,
      "anon",
      (q) =>
        refused(
          q,
          (s) =>
            s`insert into public.storefront_products (entry_id, model_id, kind, handle, names, min_price, position, search, created_at, updated_at) values ('x', 'product', 'good', 'x', '{}', 1, 'x', '', now(), now())`,
        ),
    );
    await as(
      tx,
      people.admin,
      (q) => refused(q, (s) => s`delete from public.storefront_products where handle = 'tee'`),
    );
    // an administrator writing a product entry as the reader: the trigger keeps the index all the same
    await as(tx, people.admin, async (q) => {
      await q`insert into public.content_entries (stage, id, model_id, path, fields)
            values ('published', 'product.rls-probe', 'product', 'records/products/rls-probe.md',
                    ${
        q.json({ title: { "en-US": "Probe" }, sku: { "en-US": "PROBE-1" }, price: { "en-US": 3 } })
      })`;
      const [row] = await q<
        { handle: string; names: string[] }[]
      >`select handle, names from public.storefront_catalog where handle = 'rls-probe'`;
      assert.equal(row.handle, "rls-probe");
      assert.deepEqual(new Set(row.names), new Set(["PROBE-1", "rls-probe"]));
    });
  }));
