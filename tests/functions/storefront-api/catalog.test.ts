// The catalog from records (spec: Store product mapping), and the SQL side agreeing with it: for every
// published record the database's handle, names, lowest price and product-or-not match the mapping's.
import assert from "node:assert/strict";
import { test } from "../../helpers/test.ts";
import { testSql } from "../../helpers/db.ts";
import type { Tx } from "../../../shared/db.ts";
import {
  type CatalogContext,
  MAX_VARIANTS,
  offerFormats,
  type Product,
  productFromRecord,
  type RecordRow,
} from "../../../functions/storefront-api/domain/catalog.ts";

const ctx: CatalogContext = { locales: ["en-US"], currency: "EUR", siteName: "Sitewire Demo" };
const at = new Date("2025-01-01T00:00:00Z");
const record = (
  model: string,
  path: string,
  fields: Record<string, unknown>,
  locale = "en-US",
): RecordRow => ({
  id: `${model}.${path}`,
  model_id: model,
  path: `records/${model === "book" ? "books" : "products"}/${path}.md`,
  fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, { [locale]: v }])),
  created_at: at,
  updated_at: at,
});
const map = (row: RecordRow) => productFromRecord(row, ctx);

test("a good with sizes: option Size, a variant per size with id tail <sku>/<size>, compare becomes compareAtPrice", () => {
  const p = map(
    record("product", "tee", {
      title: "Tee",
      sku: "TEE-01",
      price: 25,
      compare: 30,
      sizes: ["S", "XL"],
      currency: "EUR",
      weight: 0.2,
    }),
  )!;
  assert.equal(p.handle, "tee");
  assert.equal(p.kind, "good");
  assert.deepEqual(p.options, [{ name: "Size", values: ["S", "XL"] }]);
  assert.deepEqual(
    p.variants.map((v) => [v.key, v.title, v.price, v.compareAtPrice, v.requiresShipping, v.stackable]),
    [
      ["TEE-01/s", "S", 2500, 3000, true, true],
      ["TEE-01/xl", "XL", 2500, 3000, true, true],
    ],
  );
  assert.deepEqual(p.variants[0].selectedOptions, [{ name: "Size", value: "S" }]);
  assert.deepEqual(p.names, ["tee", "TEE-01"]);
  assert.equal(p.vendor, "Sitewire Demo");
});

test("a good without sizes has one Default Title variant with no tail", () => {
  const p = map(record("product", "mug", { title: "Mug", sku: "MUG-01", price: "14.50" }))!;
  assert.deepEqual(p.options, [{ name: "Title", values: ["Default Title"] }]);
  assert.equal(p.variants.length, 1);
  assert.deepEqual([
    p.variants[0].key,
    p.variants[0].title,
    p.variants[0].price,
    p.variants[0].compareAtPrice,
  ], ["MUG-01", "Default Title", 1450, null]);
});

test("a good without a valid price or sku is not a product; an unavailable one is, not for sale", () => {
  assert.equal(map(record("product", "x", { title: "X", sku: "X-1" })), undefined);
  assert.equal(map(record("product", "x", { title: "X", sku: "X-1", price: -1 })), undefined);
  assert.equal(map(record("product", "x", { title: "X", sku: "X-1", price: "cheap" })), undefined);
  assert.equal(map(record("product", "x", { title: "X", price: 3 })), undefined);
  const off = map(record("product", "x", { title: "X", sku: "X-1", price: 3, available: false }))!;
  assert.equal(off.available, false);
  assert.equal(off.variants[0].available, false);
});

test("a book with unlock, print and download offers: Format values in order, skus per format, no tails", () => {
  const p = map(record("book", "field-guide", {
    title: "A Field Guide",
    author: "Ada Example",
    offers: {
      unlock: { sku: "FG-READ", price: 9 },
      print: { sku: "FG-PRINT", price: 29, formats: ["softcover", "hardcover"] },
      download: { sku: "FG-PDF", price: 12, formats: ["pdf", "epub"] },
    },
  }))!;
  assert.equal(p.handle, "field-guide");
  assert.equal(p.kind, "book");
  assert.equal(p.vendor, "Ada Example");
  assert.deepEqual(p.options, [{
    name: "Format",
    values: ["Read online", "Softcover", "Hardcover", "PDF", "EPUB"],
  }]);
  assert.deepEqual(p.variants.map((v) => [v.key, v.kind, v.price, v.requiresShipping, v.stackable]), [
    ["FG-READ", "unlock", 900, false, false],
    ["FG-PRINT", "print", 2900, true, true],
    ["FG-PRINT-HARDCOVER", "print", 2900, true, true],
    ["FG-PDF", "download", 1200, false, false],
    ["FG-PDF-EPUB", "download", 1200, false, false],
  ]);
  assert.deepEqual(
    new Set(p.names),
    new Set(["field-guide", "FG-READ", "FG-PRINT", "FG-PRINT-HARDCOVER", "FG-PDF", "FG-PDF-EPUB"]),
  );
});

test("Contents when the print offers more than one, Cloth and Foil for the premium hardcover's linen, only allowed combinations", () => {
  const p = map(record("book", "letterpress", {
    title: "Letterpress",
    offers: {
      print: {
        sku: "LP",
        price: 24,
        formats: ["softcover", { format: "premium", sku: "LP-LINEN", price: 58 }],
        contents: ["Standard", "Annotated"],
        linen: { cloth: ["Navy", "Forest"], foil: ["Gold", "Silver"] },
      },
    },
  }))!;
  // no unlock: the handle is <name>-print
  assert.equal(p.handle, "letterpress-print");
  assert.deepEqual(p.options.map((o) => o.name), ["Format", "Contents", "Cloth", "Foil"]);
  const keys = p.variants.map((v) => v.key);
  assert.deepEqual(keys.slice(0, 2), ["LP/standard", "LP/annotated"]);
  // the softcover takes no linen; the premium takes every contents x cloth x foil
  assert.equal(keys.filter((k) => k.startsWith("LP/")).length, 2);
  assert.equal(keys.filter((k) => k.startsWith("LP-LINEN/")).length, 2 * 2 * 2);
  assert.ok(keys.includes("LP-LINEN/annotated.forest.silver"));
  const premium = p.variants.find((v) => v.key === "LP-LINEN/standard.navy.gold")!;
  assert.equal(premium.price, 5800);
  assert.equal(premium.title, "Premium hardcover / Standard / Navy / Gold");
  assert.deepEqual(premium.selectedOptions.map((o) => o.name), ["Format", "Contents", "Cloth", "Foil"]);
  // a single contents value is no choice: no Contents option, no tail
  const single = map(
    record("book", "one", { title: "One", offers: { print: { sku: "ONE", price: 10, contents: ["Only"] } } }),
  )!;
  assert.deepEqual(single.variants.map((v) => v.key), ["ONE"]);
  assert.deepEqual(single.options, [{ name: "Format", values: ["Softcover"] }]);
});

test("unknown or repeated formats are skipped; an offer without sku or price gives nothing; no offers is no product", () => {
  assert.deepEqual(
    offerFormats(
      {
        sku: "P",
        price: 5,
        formats: ["vinyl", "hardcover", "hardcover", { format: "softcover", price: "7.5" }],
      },
      ["softcover", "hardcover", "premium"],
      "softcover",
      "EUR",
    ),
    // in the spec's Format order, whatever the record's; skus still follow the record's listing
    [{ format: "softcover", sku: "P-SOFTCOVER", price: 750 }, {
      format: "hardcover",
      sku: "P-HARDCOVER",
      price: 500,
    }],
  );
  assert.deepEqual(offerFormats({ price: 5 }, ["pdf"], "pdf", "EUR"), []);
  assert.deepEqual(offerFormats({ sku: "D", price: "free" }, ["pdf"], "pdf", "EUR"), []);
  assert.equal(map(record("book", "none", { title: "None" })), undefined);
  assert.equal(map(record("book", "none", { title: "None", offers: { unlock: { sku: "X" } } })), undefined);
});

test("Format values follow the spec's order (Read online, Softcover, Hardcover, Premium hardcover, PDF, EPUB) whatever the record lists", () => {
  const p = map(record("book", "shuffled", {
    title: "Shuffled",
    offers: {
      download: { sku: "SH-EPUB", price: 5, formats: ["epub", "pdf"] },
      print: { sku: "SH-PREMIUM", price: 40, formats: ["premium", "hardcover", "softcover"] },
      unlock: { sku: "SH-READ", price: 3 },
    },
  }))!;
  assert.deepEqual(p.options[0].values, [
    "Read online",
    "Softcover",
    "Hardcover",
    "Premium hardcover",
    "PDF",
    "EPUB",
  ]);
  assert.deepEqual(p.variants.map((v) => v.key), [
    "SH-READ",
    "SH-PREMIUM-SOFTCOVER",
    "SH-PREMIUM-HARDCOVER",
    "SH-PREMIUM",
    "SH-EPUB-PDF",
    "SH-EPUB",
  ]);
});

test("a print-only book's handle is <slug>-print from the record's slug field, else from its file name; with an unlock it is the file name", () => {
  const printOnly = { print: { sku: "PO", price: 10 } };
  assert.equal(
    map(record("book", "file-name", { title: "P", slug: "the-slug", offers: printOnly }))!.handle,
    "the-slug-print",
  );
  assert.equal(
    map(record("book", "file-name", { title: "P", offers: printOnly }))!.handle,
    "file-name-print",
  );
  assert.equal(
    map(record("book", "file-name", { title: "P", slug: "  ", offers: printOnly }))!.handle,
    "file-name-print",
  );
  const unlocked = map(record("book", "file-name", {
    title: "U",
    slug: "the-slug",
    offers: { unlock: { sku: "U-R", price: 3 }, ...printOnly },
  }))!;
  assert.equal(unlocked.handle, "file-name");
  assert.ok(
    map(record("book", "file-name", { title: "P", slug: "the-slug", offers: printOnly }))!.names.includes(
      "the-slug-print",
    ),
  );
});

test("choices that make the same id tail are one choice (the first listed): no two variants share an id", () => {
  const good = map(
    record("product", "shirt", { title: "S", sku: "SH", price: 5, sizes: ["M", "m", "A 3", "a-3", "L"] }),
  )!;
  assert.deepEqual(good.variants.map((v) => v.key), ["SH/m", "SH/a-3", "SH/l"]);
  assert.deepEqual(good.options, [{ name: "Size", values: ["M", "A 3", "L"] }]);
  const book = map(record("book", "b", {
    title: "B",
    offers: {
      print: {
        sku: "B",
        price: 5,
        formats: ["premium"],
        contents: ["Standard", "standard", "Annotated"],
        linen: { cloth: ["Navy", "NAVY", "Forest"], foil: ["Gold"] },
      },
    },
  }))!;
  const keys = book.variants.map((v) => v.key);
  assert.equal(new Set(keys).size, keys.length);
  assert.deepEqual(keys, [
    "B/standard.navy.gold",
    "B/standard.forest.gold",
    "B/annotated.navy.gold",
    "B/annotated.forest.gold",
  ]);
});

test("a product never shows more variants than the cost limits count on", () => {
  const sizes = Array.from({ length: MAX_VARIANTS + 20 }, (_, i) => `S${i}`);
  const p = map(record("product", "many", { title: "Many", sku: "M", price: 1, sizes }))!;
  assert.equal(p.variants.length, MAX_VARIANTS);
});

test("localized fields follow the locale chain; non-localized ones are read from the import's locale", () => {
  const row = record("product", "tee", { title: "Tee", sku: "T", price: 1 });
  row.fields.title["de-DE"] = "T-Shirt";
  const de = productFromRecord(row, { ...ctx, locales: ["de-DE", "en-US"] })!;
  assert.equal(de.title, "T-Shirt");
  assert.equal(de.variants[0].sku, "T");
});

// ---- the SQL side agrees ----------------------------------------------------------------------

const ROLLBACK = Symbol("rollback");
async function rolledBack(fn: (tx: Tx) => Promise<void>) {
  try {
    await testSql().begin(async (tx) => {
      await fn(tx);
      throw ROLLBACK;
    });
  } catch (e) {
    if (e !== ROLLBACK) throw e;
  }
}

function minPrice(p: Product): number {
  return Math.min(...p.variants.map((v) => v.price));
}

async function compareAll(tx: Tx) {
  const rows = await tx<(RecordRow & { stage: string })[]>`
    select id, model_id, path, fields, created_at, updated_at from public.content_entries
    where stage = 'published' and model_id in ('product', 'book')`;
  const view = await tx<{ entry_id: string; handle: string; names: string[]; min_price: string }[]>`
    select entry_id, handle, names, min_price from public.storefront_catalog`;
  const byId = new Map(view.map((v) => [v.entry_id, v]));
  for (const row of rows) {
    const product = map(row);
    const sqlRow = byId.get(row.id);
    assert.equal(Boolean(sqlRow), Boolean(product), `${row.id}: product in SQL and in the mapping alike`);
    if (!product || !sqlRow) continue;
    assert.equal(sqlRow.handle, product.handle, row.id);
    assert.deepEqual(new Set(sqlRow.names), new Set(product.names), row.id);
    assert.equal(Math.round(Number(sqlRow.min_price) * 100), minPrice(product), row.id);
  }
  return rows.length;
}

test("the database's catalog agrees with the mapping on every demo record", async () => {
  await rolledBack(async (tx) => {
    assert.ok(await compareAll(tx) >= 6);
  });
});

test("the database's catalog agrees with the mapping on awkward records too", async () => {
  await rolledBack(async (tx) => {
    const awkward: [string, string, Record<string, unknown>][] = [
      ["product", "no-price", { title: "No price", sku: "NP" }],
      ["product", "string-price", { title: "String", sku: "SP", price: " 12.30 " }],
      ["product", "neg", { title: "Neg", sku: "NEG", price: -3 }],
      ["product", "huge", { title: "Huge", sku: "HUGE", price: 1e13 }],
      ["product", "blank-sku", { title: "Blank", sku: "  ", price: 3 }],
      ["product", "exp", { title: "Exp", sku: "EXP", price: "1e3" }],
      ["book", "only-download", {
        title: "D",
        offers: { download: { sku: "OD", price: 5, formats: ["epub", "pdf"] } },
      }],
      ["book", "bad-formats", { title: "B", offers: { print: { sku: "BF", price: 5, formats: ["vinyl"] } } }],
      ["book", "mixed", {
        title: "M",
        offers: {
          unlock: { sku: "MX-R", price: "4" },
          print: {
            sku: "MX-P",
            price: 20,
            formats: ["hardcover", { format: "premium", price: 3 }, "hardcover"],
          },
        },
      }],
      ["book", "bad-unlock", {
        title: "U",
        offers: { unlock: { sku: "", price: 4 }, download: { sku: "BU", price: 2 } },
      }],
      ["book", "not-object", { title: "N", offers: "soon" }],
      ["book", "slugged", {
        title: "S",
        slug: "awkward-own-slug",
        offers: { print: { sku: "SL-P", price: 8 } },
      }],
      ["book", "slugged-unlock", {
        title: "S",
        slug: "elsewhere",
        offers: { unlock: { sku: "SL-U", price: 2 }, print: { sku: "SL-UP", price: 8 } },
      }],
      ["book", "own-skus", {
        title: "O",
        offers: {
          print: {
            sku: "OS",
            price: 9,
            formats: [{ format: "softcover", sku: "OS-SOFT" }, {
              format: "hardcover",
              sku: "OS-HARD",
              price: "11",
            }],
          },
        },
      }],
    ];
    for (const [model, path, fields] of awkward) {
      const row = record(model, `awkward-${path}`, fields);
      await tx`insert into public.content_entries (stage, id, model_id, path, fields)
               values ('published', ${row.id}, ${model}, ${row.path}, ${tx.json(row.fields as never)})`;
    }
    const [{ n }] = await tx<
      { n: number }[]
    >`select count(*)::int as n from public.storefront_catalog where handle like 'awkward-%'`;
    assert.equal(
      n,
      7,
      "string-price, only-download, mixed, bad-unlock, own-skus and both slugged are products",
    );
    const [slugged] = await tx<{ handle: string }[]>`
      select handle from public.storefront_catalog where entry_id = 'book.awkward-slugged'`;
    assert.equal(slugged.handle, "awkward-own-slug-print", "the print-only handle comes from the slug field");
    await compareAll(tx);
  });
});

test("unpublished records are absent from the catalog (the preview stage is never read)", async () => {
  const handles = (await testSql()<{ handle: string }[]>`select handle from public.storefront_catalog`).map((
    r,
  ) => r.handle);
  assert.ok(!handles.includes("retired-cap"));
  assert.ok(!handles.includes("unreleased"));
  assert.ok(handles.includes("tee") && handles.includes("field-guide"));
});

test("lookups by handle and by name use the catalog's indexes", async () => {
  await rolledBack(async (tx) => {
    await tx`set local enable_seqscan = off`;
    const byHandle = (await tx.unsafe(`explain select * from public.storefront_catalog where handle = 'tee'`))
      .map((r: any) => r["QUERY PLAN"]).join("\n");
    assert.match(byHandle, /storefront_products_handle/);
    const byName =
      (await tx.unsafe(`explain select * from public.storefront_catalog where names && array['TEE-01']`)).map(
        (r: any) => r["QUERY PLAN"],
      ).join("\n");
    assert.match(byName, /storefront_products_names/);
  });
});
