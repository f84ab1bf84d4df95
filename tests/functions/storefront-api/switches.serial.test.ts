// Store API tests that change site-wide things (module switches, catalog records), so they run alone.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { withSettings } from "../../helpers/site-settings.ts";
import { testDatabaseUrl } from "../../helpers/db.ts";
import { serveTestHost } from "../../helpers/host.ts";
import { connect } from "../../../shared/db.ts";
import { createKey, revokeKey } from "../../../shared/keys.ts";
import { createCart, data, gql, host, variant } from "./support.ts";

const READ =
  `query($id: ID!) { cart(id: $id) { cost { totalAmount { amount } } lines(first: 5) { nodes { quantity } } } }`;

test("the store module off: the Storefront API and the handoff read answer 404; the api module off too", async () => {
  const cart = await createCart({ lines: [{ merchandiseId: variant("MUG-01") }] });
  const token = cart.id.split("/").pop();
  for (const module of ["store", "api"]) {
    await withSettings((_config, modules) => (modules[module] = false), async () => {
      const r = await gql("{ shop { name } }");
      assert.equal(r.status, 404, module);
      assert.equal(typeof r.body.errors[0].message, "string");
      const handoff = await fetch(`${host.baseUrl}/api/store/carts/${token}`);
      assert.equal(handoff.status, 404, module);
      await handoff.body?.cancel();
    });
  }
  assert.equal((await gql("{ shop { name } }")).status, 200);
});

test("rule 6: cost is recomputed from the catalog on every read; an unpublished product leaves the catalog and the cart's answer", async () => {
  const sql = host.ctx.sql;
  const cart = await createCart({
    lines: [{ merchandiseId: variant("TEE-01/l"), quantity: 2 }, { merchandiseId: variant("MUG-01") }],
  });
  assert.equal((await data(READ, { id: cart.id })).cart.cost.totalAmount.amount, "64.0");
  const [tee] = await sql<
    { fields: unknown }[]
  >`select fields from public.content_entries where stage = 'published' and id = 'product.tee'`;
  try {
    await sql`update public.content_entries set fields = jsonb_set(fields, '{price,en-US}', '27.5')
              where stage = 'published' and id = 'product.tee'`;
    assert.equal((await data(READ, { id: cart.id })).cart.cost.totalAmount.amount, "69.0");
    const price = await data(
      `{ productByHandle(handle: "tee") { priceRange { minVariantPrice { amount } } } }`,
    );
    assert.equal(price.productByHandle.priceRange.minVariantPrice.amount, "27.5");

    await sql`delete from public.content_entries where stage = 'published' and id = 'product.tee'`;
    assert.equal((await data(`{ productByHandle(handle: "tee") { id } }`)).productByHandle, null);
    const read = (await data(READ, { id: cart.id })).cart;
    assert.deepEqual(read.lines.nodes.map((l: any) => l.quantity), [1], "only the mug is still for sale");
    assert.equal(read.cost.totalAmount.amount, "14.0");
  } finally {
    await sql`insert into public.content_entries (stage, id, model_id, path, access, fields, links, asset_links, search_text, revision, created_at, updated_at)
              select 'published', id, model_id, path, access, ${
      sql.json(tee.fields as never)
    }, links, asset_links, search_text, revision, created_at, updated_at
              from public.content_entries where stage = 'preview' and id = 'product.tee'
              on conflict (stage, id) do update set fields = excluded.fields`;
  }
  assert.equal((await data(READ, { id: cart.id })).cart.cost.totalAmount.amount, "64.0");
});

test("Image.altText is the asset's own description in the answer's language, else the product's title", async () => {
  const sql = host.ctx.sql;
  const [asset] = await sql<{ id: string; description: Record<string, string> }[]>`
    select id, description from public.content_assets where published and path like '%products/poster.png'`;
  const ALT = `{ productByHandle(handle: "poster") { title featuredImage { altText } } }`;
  const before = await data(ALT);
  assert.equal(before.productByHandle.featuredImage.altText, before.productByHandle.title);
  try {
    await sql`update public.content_assets set description = ${
      sql.json({ "en-US": "A poster on a wall", "de-DE": "Ein Poster an der Wand" } as never)
    } where id = ${asset.id}`;
    assert.equal((await data(ALT)).productByHandle.featuredImage.altText, "A poster on a wall");
    const german = await data(`query @inContext(language: DE) ${ALT}`);
    assert.equal(german.productByHandle.featuredImage.altText, "Ein Poster an der Wand");
  } finally {
    await sql`update public.content_assets set description = ${sql.json(asset.description as never)}
              where id = ${asset.id}`;
  }
});

test("catalog answers are kept until the catalog changes: a change through one instance is read at once through another; carts are never kept", async () => {
  const sql = host.ctx.sql;
  // a second instance: its own pool and its own kept answers over the same database
  const pool = connect(testDatabaseUrl(), { max: 2 });
  const other = serveTestHost(pool, {
    host: "127.0.0.1",
    overrides: { ...host.ctx.config, publicUrl: host.baseUrl },
  });
  const endpoints = [undefined, `${other.baseUrl}/api/store/api/2024-10/graphql.json`];
  const TITLE = `{ productByHandle(handle: "tee") { title } }`;
  const titles = () =>
    Promise.all(endpoints.map(async (url) => {
      const r = await gql(TITLE, undefined, { url });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.data.productByHandle.title;
    }));
  const [{ title }] = await sql<{ title: string }[]>`
    select fields #>> '{title,en-US}' as title from public.content_entries where stage = 'published' and id = 'product.tee'`;
  try {
    assert.deepEqual(await titles(), [title, title]);
    assert.deepEqual(await titles(), [title, title], "now kept on both");
    for (const round of [1, 2, 3]) {
      const renamed = `Tee, round ${round}`;
      await sql`update public.content_entries set fields = jsonb_set(fields, '{title,en-US}', ${
        sql.json(renamed)
      })
                where stage = 'published' and id = 'product.tee'`;
      assert.deepEqual(await titles(), [renamed, renamed], `round ${round}: read at once on both instances`);
    }
    // a cart is read afresh every time, even in a query that also reads the catalog
    const cart = await createCart({ lines: [{ merchandiseId: variant("MUG-01") }] });
    const MIXED = `query($id: ID!) { shop { name } cart(id: $id) { totalQuantity } }`;
    assert.equal((await data(MIXED, { id: cart.id })).cart.totalQuantity, 1);
    await data(
      `mutation($id: ID!, $lines: [CartLineInput!]!) { cartLinesAdd(cartId: $id, lines: $lines) { cart { id } } }`,
      { id: cart.id, lines: [{ merchandiseId: variant("MUG-01"), quantity: 2 }] },
    );
    assert.equal((await data(MIXED, { id: cart.id })).cart.totalQuantity, 3);
  } finally {
    await sql`update public.content_entries set fields = jsonb_set(fields, '{title,en-US}', ${
      sql.json(title)
    })
              where stage = 'published' and id = 'product.tee'`;
    await other.close();
    await pool.end();
  }
});

test("a kept catalog answer is served while the catalog's version stands, and per language", async () => {
  const sql = host.ctx.sql;
  const QUERY = `{ productByHandle(handle: "mug") { title } }`;
  const first = (await data(QUERY)).productByHandle.title;
  // a change with triggers off (so no version bump, which nothing in the product does): the kept answer
  // must still be served, which shows it really is kept
  const [{ fields }] = await sql<{ fields: Record<string, unknown> }[]>`
    select fields from public.content_entries where stage = 'published' and id = 'product.mug'`;
  try {
    await sql.begin(async (tx) => {
      await tx`set local session_replication_role = replica`; // no triggers: no version bump
      await tx`update public.content_entries set fields = jsonb_set(fields, '{title,en-US}', '"Changed unseen"')
               where stage = 'published' and id = 'product.mug'`;
    });
    assert.equal(
      (await data(QUERY)).productByHandle.title,
      first,
      "the kept answer, built at the current version",
    );
    const fresh = await gql(QUERY, undefined, { headers: { "accept-language": "de" } });
    assert.equal(fresh.status, 200);
    // another language is another answer: built now, so it reads the row as it is
    assert.equal(fresh.body.data.productByHandle.title, "Changed unseen");
  } finally {
    await sql`update public.content_entries set fields = ${sql.json(fields as never)}
              where stage = 'published' and id = 'product.mug'`;
  }
  assert.equal((await data(QUERY)).productByHandle.title, first, "the version moved with the restore");
});

test("a kept catalog answer is still admitted first: a revoked key, a key of another kind and no key are refused", async () => {
  const QUERY = `{ shop { name } products(first: 2) { nodes { handle } } }`;
  const { key, id } = await createKey(host.ctx.sql, { name: "kept answers", kind: "storefront" });
  const kept = await gql(QUERY, undefined, { key });
  assert.equal(kept.status, 200);
  assert.equal((await gql(QUERY, undefined, { key })).status, 200, "now kept");
  await revokeKey(host.ctx.sql, id);
  const revoked = await gql(QUERY, undefined, { key });
  assert.equal(revoked.status, 401, JSON.stringify(revoked.body));
  assert.equal(revoked.body.data, undefined);
  assert.equal((await gql(QUERY, undefined, { key: await host.key("delivery") })).status, 403);
  assert.equal((await gql(QUERY, undefined, { key: null })).status, 401);
});
