// The catalog from records (spec: Store product mapping). Pure: a published product or book record in,
// a product with its options and variants out. The SQL side (migration 20261122000052) mirrors the parts
// it needs to page and look up in the database (which records are products, handle, names, lowest
// price); tests/functions/storefront-api/catalog.test.ts holds the two to the same answers.
//
//   a good   one product, handle = the record's file name; option Size with a variant per size (id tail
//            `<sku>/<size>`), else one `Default Title` variant (no tail); compare -> compareAtPrice
//   a book   one product, handle = the file name when the book offers unlock, else `<slug>-print` (the
//            record's slug field, else its file name); option Format from the offers, its values always
//            in the order Read online, Softcover, Hardcover, Premium hardcover, PDF, EPUB; Contents when
//            the print offer lists more than one; Cloth and Foil when the linen (the premium hardcover's
//            binding) offers a choice; one variant per allowed combination
//
// Choices (sizes, contents, cloth, foil) that make the same id tail (`M` and `m`, `A 3` and `a-3`) are
// one choice, the first listed: two variants must never share an id.
//
// Offers of a book record (front matter `offers`):
//   unlock:   { sku, price }                                  Read online; quantity one
//   print:    { sku, price, formats: [softcover | hardcover | premium | { format, sku?, price? }],
//               contents: [..], linen: { cloth: [..], foil: [..] } }     stackable, ships
//   download: { sku, price, formats: [pdf | epub | { format, sku?, price? }] }   quantity one
// A format takes the offer's sku when it is listed first, else `<offer sku>-<FORMAT>`, unless it names
// its own sku; its price is its own or the offer's.
import { type RichTextDocument, richTextPlainText } from "../../../shared/richtext.ts";
import { toMinorUnits } from "../../../shared/payments/money.ts";
import { flatText } from "../../../shared/flat-text.ts";

export type ProductKind = "good" | "book";
/** what a line is to the bag and the checkout: stackable goods and prints, single unlocks and downloads */
export type VariantKind = "good" | "unlock" | "print" | "download";

export const PRINT_FORMATS = ["softcover", "hardcover", "premium"] as const;
export const DOWNLOAD_FORMATS = ["pdf", "epub"] as const;
const FORMAT_LABELS: Record<string, string> = {
  unlock: "Read online",
  softcover: "Softcover",
  hardcover: "Hardcover",
  premium: "Premium hardcover",
  pdf: "PDF",
  epub: "EPUB",
};
/** amounts at or above this are refused (as in SQL): no shop sells a trillion of anything */
const MAX_AMOUNT = 1e12;
/** the bag cap for a stackable line (spec: Limits) */
export const BAG_CAP = 10;
/**
 * A product shows at most this many variants and images (the first ones): the query cost limits count
 * on these bounds (graphql/limits.ts), so a client asking for 250 of each is not refused.
 */
export const MAX_VARIANTS = 50;
export const MAX_IMAGES = 20;

/** The stored entry row the catalog reads (published stage). */
export interface RecordRow {
  id: string;
  model_id: string;
  path: string;
  fields: Record<string, Record<string, unknown>>;
  created_at: Date;
  updated_at: Date;
}

export interface SelectedOption {
  name: string;
  value: string;
}

export interface Variant {
  /** the part of the gid after ProductVariant/: `<sku>` or `<sku>/<tail>` */
  key: string;
  sku: string;
  tail: string | null;
  title: string;
  kind: VariantKind;
  /** minor units */
  price: number;
  compareAtPrice: number | null;
  currency: string;
  selectedOptions: SelectedOption[];
  requiresShipping: boolean;
  /** adds up to the bag cap; otherwise stands at quantity one */
  stackable: boolean;
  available: boolean;
  /** kilograms */
  weight: number | null;
  imageId: string | null;
}

export interface ProductOption {
  name: string;
  values: string[];
}

export interface Product {
  entryId: string;
  kind: ProductKind;
  handle: string;
  /** handle and every sku: what a collection record or a cart line may name the product by */
  names: string[];
  title: string;
  summary: string;
  body: RichTextDocument | null;
  tags: string[];
  vendor: string;
  author: string | null;
  currency: string;
  available: boolean;
  imageIds: string[];
  options: ProductOption[];
  variants: Variant[];
  createdAt: Date;
  updatedAt: Date;
}

export interface CatalogContext {
  /** locale chain to read localized fields in (the answer's locale, then its fallbacks) */
  locales: string[];
  /** the shop's currency: a good without its own currency and every book are priced in it */
  currency: string;
  /** the vendor of goods (the site's name) */
  siteName: string;
}

/** A field's value in the first locale of the chain that has one. */
export function fieldValue(row: RecordRow, id: string, locales: string[]): unknown {
  const byLocale = row.fields[id];
  if (!byLocale || typeof byLocale !== "object") return undefined;
  for (const code of locales) {
    const value = byLocale[code];
    if (value !== undefined && value !== null) return value;
  }
  // a non-localized field sits under the locale of the import; take it whatever the chain
  for (const value of Object.values(byLocale)) if (value !== undefined && value !== null) return value;
  return undefined;
}

const str = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v : null);
const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string" && x.trim() !== "") : [];
const assetId = (v: unknown): string | null => {
  const id = (v as { sys?: { id?: unknown } } | null)?.sys?.id;
  return typeof id === "string" ? id : null;
};

/** A price in minor units, or undefined when the value is not an amount (as storefront_amount in SQL). */
export function amount(value: unknown, currency: string): number | undefined {
  const n = typeof value === "number" ? value : typeof value === "string" ? Number(value.trim()) : NaN;
  if (!(n >= 0 && n < MAX_AMOUNT)) return undefined;
  return toMinorUnits(value, currency);
}

/** A record's file name: `records/products/tee.md` -> `tee`. */
export function fileName(path: string): string {
  // flat: a handle is in every answer that names the product (shared/flat-text.ts)
  return flatText(path.replace(/^.*\//, "").replace(/\.md$/, ""));
}

/** A value made safe for a variant id tail (lower case, no `/` or `.`). */
export function tailPart(value: string): string {
  return value.trim().toLowerCase().replace(/[^0-9a-z\u00c0-\uffff_-]+/g, "-").replace(/^-+|-+$/g, "") || "-";
}

interface Format {
  format: string;
  sku: string;
  /** minor units */
  price: number;
}

/**
 * The valid formats of an offer, each once, in the order of `allowed` (the spec's Format order) whatever
 * the record's order; the sku still follows the record's listing (storefront_formats in SQL).
 */
export function offerFormats(
  offer: unknown,
  allowed: readonly string[],
  fallback: string,
  currency: string,
): Format[] {
  if (!offer || typeof offer !== "object" || Array.isArray(offer)) return [];
  const o = offer as Record<string, unknown>;
  const sku = str(o.sku);
  const price = amount(o.price, currency);
  if (!sku || price === undefined) return [];
  const listed = Array.isArray(o.formats) && o.formats.length > 0 ? o.formats : [fallback];
  const out: Format[] = [];
  listed.forEach((entry, index) => {
    const isObject = entry && typeof entry === "object" && !Array.isArray(entry);
    const format = typeof entry === "string"
      ? entry
      : isObject
      ? (entry as Record<string, unknown>).format
      : undefined;
    if (typeof format !== "string" || !allowed.includes(format) || out.some((f) => f.format === format)) {
      return;
    }
    const own = isObject ? str((entry as Record<string, unknown>).sku) : null;
    out.push({
      format,
      sku: own ?? (index === 0 ? sku : flatText(sku, "-", format.toUpperCase())),
      price: (isObject ? amount((entry as Record<string, unknown>).price, currency) : undefined) ?? price,
    });
  });
  return out.sort((a, b) => allowed.indexOf(a.format) - allowed.indexOf(b.format));
}

/** The choices of a list, each once by the id tail it makes (the first listed wins). */
function distinctChoices(values: string[]): string[] {
  if (values.length < 2) return values;
  const tails = new Set<string>();
  return values.filter((value) => {
    const tail = tailPart(value);
    if (tails.has(tail)) return false;
    tails.add(tail);
    return true;
  });
}

/** A field that is never localized (a record's slug): its one stored value, as SQL's storefront_value reads it. */
function plainValue(row: RecordRow, id: string): unknown {
  const byLocale = row.fields[id];
  return byLocale && typeof byLocale === "object" ? Object.values(byLocale)[0] : undefined;
}

function unlockOffer(offer: unknown, currency: string): Format | undefined {
  if (!offer || typeof offer !== "object" || Array.isArray(offer)) return undefined;
  const sku = str((offer as Record<string, unknown>).sku);
  const price = amount((offer as Record<string, unknown>).price, currency);
  return sku && price !== undefined ? { format: "unlock", sku, price } : undefined;
}

/** The product a published record makes, or undefined when it is not one (no valid price or offer). */
export function productFromRecord(row: RecordRow, ctx: CatalogContext): Product | undefined {
  if (row.model_id === "product") return goodFromRecord(row, ctx);
  if (row.model_id === "book") return bookFromRecord(row, ctx);
  return undefined;
}

function common(row: RecordRow, ctx: CatalogContext) {
  const read = (id: string) => fieldValue(row, id, ctx.locales);
  const body = read("body") as RichTextDocument | undefined;
  return {
    entryId: row.id,
    title: str(read("title")) ?? fileName(row.path),
    summary: str(read("summary")) ?? "",
    body: body?.nodeType === "document" ? body : null,
    tags: strings(read("tags")),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function goodFromRecord(row: RecordRow, ctx: CatalogContext): Product | undefined {
  const read = (id: string) => fieldValue(row, id, ctx.locales);
  const sku = str(read("sku"));
  const currency = (str(read("currency")) ?? ctx.currency).toUpperCase();
  const price = amount(read("price"), currency);
  if (!sku || price === undefined) return undefined;
  const compare = amount(read("compare"), currency) ?? null;
  const available = read("available") !== false;
  const weightValue = read("weight");
  const weight = typeof weightValue === "number" ? weightValue : null;
  const images = read("images");
  const imageIds = (Array.isArray(images) ? images : []).map(assetId)
    .filter((id): id is string => id !== null).slice(0, MAX_IMAGES);
  const sizes = distinctChoices(strings(read("sizes"))).slice(0, MAX_VARIANTS);
  const base = {
    sku,
    kind: "good" as const,
    price,
    compareAtPrice: compare,
    currency,
    requiresShipping: true,
    stackable: true,
    available,
    weight,
    imageId: imageIds[0] ?? null,
  };
  const variants: Variant[] = sizes.length
    ? sizes.map((size) => {
      const tail = tailPart(size);
      return { ...base, key: `${sku}/${tail}`, tail, title: size, selectedOptions: [{ name: "Size", value: size }] };
    })
    : [{
      ...base,
      key: sku,
      tail: null,
      title: "Default Title",
      selectedOptions: [{ name: "Title", value: "Default Title" }],
    }];
  const handle = fileName(row.path);
  return {
    ...common(row, ctx),
    kind: "good",
    handle,
    names: [handle, sku],
    vendor: ctx.siteName,
    author: null,
    currency,
    available,
    imageIds,
    options: sizes.length
      ? [{ name: "Size", values: sizes }]
      : [{ name: "Title", values: ["Default Title"] }],
    variants,
  };
}

function bookFromRecord(row: RecordRow, ctx: CatalogContext): Product | undefined {
  const read = (id: string) => fieldValue(row, id, ctx.locales);
  const offers = (read("offers") ?? {}) as Record<string, unknown>;
  if (!offers || typeof offers !== "object" || Array.isArray(offers)) return undefined;
  const currency = ctx.currency.toUpperCase();
  const cover = assetId(read("cover"));
  const unlock = unlockOffer(offers.unlock, currency);
  const prints = offerFormats(offers.print, PRINT_FORMATS, "softcover", currency);
  const downloads = offerFormats(offers.download, DOWNLOAD_FORMATS, "pdf", currency);
  const print = (offers.print ?? {}) as Record<string, unknown>;
  const contents = distinctChoices(strings(print.contents));
  const linen = (print.linen && typeof print.linen === "object" ? print.linen : {}) as Record<
    string,
    unknown
  >;
  const cloths = distinctChoices(strings(linen.cloth));
  const foils = distinctChoices(strings(linen.foil));
  const contentsChoice = contents.length > 1;
  const linenChoice = cloths.length > 1 || foils.length > 1;

  const variants: Variant[] = [];
  // a variant without choices (most books: one per format) makes no arrays beyond its one option
  const make = (f: Format, kind: VariantKind, choices: SelectedOption[]): Variant => {
    const format = FORMAT_LABELS[f.format];
    const tail = choices.length ? choices.map((c) => tailPart(c.value)).join(".") : null;
    return {
      key: tail ? `${f.sku}/${tail}` : f.sku,
      sku: f.sku,
      tail,
      title: choices.length ? [format, ...choices.map((c) => c.value)].join(" / ") : format,
      kind,
      price: f.price,
      compareAtPrice: null,
      currency,
      selectedOptions: choices.length
        ? [{ name: "Format", value: format }, ...choices]
        : [{ name: "Format", value: format }],
      requiresShipping: kind === "print",
      stackable: kind === "print",
      available: true,
      weight: null,
      imageId: cover,
    };
  };
  const none: SelectedOption[] = [];
  if (unlock) variants.push(make(unlock, "unlock", none));
  for (const f of prints) {
    const linen = linenChoice && f.format === "premium";
    if (!contentsChoice && !linen) {
      variants.push(make(f, "print", none));
      continue;
    }
    const contentChoices = contentsChoice ? contents.map((v) => [{ name: "Contents", value: v }]) : [[]];
    // the linen (cloth and foil) is the premium hardcover's binding: only that format offers it
    const linenChoices = linen
      ? (cloths.length ? cloths : [""]).flatMap((cloth) =>
        (foils.length ? foils : [""]).map((foil) => [
          ...(cloth ? [{ name: "Cloth", value: cloth }] : []),
          ...(foil ? [{ name: "Foil", value: foil }] : []),
        ])
      )
      : [[]];
    for (const c of contentChoices) {
      for (const l of linenChoices) variants.push(make(f, "print", [...c, ...l]));
    }
  }
  for (const f of downloads) variants.push(make(f, "download", none));
  if (variants.length === 0) return undefined;
  variants.splice(MAX_VARIANTS);

  // each option's values in the variants' order, each once (one pass over the variants); with Format
  // alone, every variant is a format of its own
  let options: ProductOption[];
  if (variants.every((v) => v.selectedOptions.length === 1)) {
    options = [{ name: "Format", values: variants.map((v) => v.selectedOptions[0].value) }];
  } else {
    const optionValues = new Map<string, Set<string>>();
    for (const v of variants) {
      for (const o of v.selectedOptions) {
        const values = optionValues.get(o.name);
        if (values) values.add(o.value);
        else optionValues.set(o.name, new Set([o.value]));
      }
    }
    options = ["Format", "Contents", "Cloth", "Foil"]
      .filter((name) => optionValues.has(name))
      .map((name) => ({ name, values: [...optionValues.get(name)!] }));
  }
  const handle = unlock
    ? fileName(row.path)
    : flatText(str(plainValue(row, "slug")) ?? fileName(row.path), "-print");
  // each name once, in this order (a handful: a list is cheaper than a set)
  const names = [handle];
  const name = (n: string) => {
    if (!names.includes(n)) names.push(n);
  };
  for (const v of variants) name(v.sku);
  offerSku(prints, offers.print).forEach(name);
  offerSku(downloads, offers.download).forEach(name);
  const author = str(read("author"));
  return {
    ...common(row, ctx),
    kind: "book",
    handle,
    names,
    vendor: author ?? ctx.siteName,
    author,
    currency,
    available: true,
    imageIds: cover ? [cover] : [],
    options,
    variants,
  };
}

/** An offer's own sku names the product too (a collection may list `FG-PRINT`), once it is valid. */
function offerSku(formats: Format[], offer: unknown): string[] {
  const sku = formats.length ? str((offer as Record<string, unknown>).sku) : null;
  return sku ? [sku] : [];
}

/** The variant a gid tail names (`<sku>` or `<sku>/<tail>`), if the product has it. */
export function variantByKey(product: Product, key: string): Variant | undefined {
  return product.variants.find((v) => v.key === key);
}

/** Lowest and highest variant price (and compare-at price) of a product. */
export function priceRange(product: Product, pick: (v: Variant) => number | null) {
  let min = Infinity;
  let max = -Infinity;
  for (const variant of product.variants) {
    const price = pick(variant);
    if (price === null) continue;
    if (price < min) min = price;
    if (price > max) max = price;
  }
  return min === Infinity ? { min: 0, max: 0 } : { min, max };
}

/** The plain text of a product's description: its body, else its summary. */
export function descriptionText(product: Product): string {
  const text = product.body ? richTextPlainText(product.body).trim() : "";
  return text || product.summary;
}
