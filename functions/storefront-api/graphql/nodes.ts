// The objects the Storefront API's object types resolve from. Every field that needs neither arguments
// nor a read is a getter here, not a resolver: the compiled query (shared/graphql-compiled.ts) reads a
// field without a resolver as a property, where a resolver costs a call, a promise check and its error
// handling. A page of 250 products with their variants and collections answers some 15,000 such fields.
// Getters keep them lazy: a field no query asks for is never made. The fields that take arguments or read
// through the request's loaders stay resolvers (resolvers.ts), and read these objects' sources:
// `product` and `variant` (domain/catalog.ts), `row` (a collection's record), `asset`.
//
// A getter that makes an object keeps it: the compiled query reads a nested field by its whole path
// (`node.priceRange.minVariantPrice.amount`), so an object field is read once per field below it and
// once more for each null check.
import { fieldValue, priceRange, type Product, type Variant } from "../domain/catalog.ts";
import { richTextHtml } from "../domain/html.ts";
import { gid } from "../domain/ids.ts";
import { imageUrl } from "../domain/images.ts";
import { money, type MoneyV2 } from "../domain/money.ts";
import type { AssetRow, CollectionRow } from "../store/catalog.ts";
import type { RichTextDocument } from "../../../shared/richtext.ts";
import { escapeHtml } from "../../../shared/html.ts";

/** What the nodes need of the request: the answer's locale chain and where images are served. */
export interface NodeContext {
  locales: string[];
  publicUrl: string;
  space: string;
}

const iso = (d: Date) => new Date(d).toISOString();

function rangeOf(product: Product, pick: (v: Variant) => number | null) {
  const { min, max } = priceRange(product, pick);
  return { minVariantPrice: money(min, product.currency), maxVariantPrice: money(max, product.currency) };
}

export class ProductNode {
  #priceRange?: ReturnType<typeof rangeOf>;
  #compareAtPriceRange?: ReturnType<typeof rangeOf>;
  #seo?: { title: string; description: string | null };
  constructor(readonly product: Product) {}
  get __typename(): "Product" {
    return "Product";
  }
  get id(): string {
    return gid("Product", this.product.handle);
  }
  get handle(): string {
    return this.product.handle;
  }
  get title(): string {
    return this.product.title;
  }
  get descriptionHtml(): string {
    const p = this.product;
    return p.body ? richTextHtml(p.body) : p.summary ? `<p>${escapeHtml(p.summary)}</p>` : "";
  }
  get productType(): string {
    return this.product.kind;
  }
  get vendor(): string {
    return this.product.vendor;
  }
  get tags(): string[] {
    return this.product.tags;
  }
  get availableForSale(): boolean {
    return this.product.available && this.product.variants.some((v) => v.available);
  }
  get isGiftCard(): boolean {
    return false;
  }
  get createdAt(): string {
    return iso(this.product.createdAt);
  }
  get updatedAt(): string {
    return iso(this.product.updatedAt);
  }
  get publishedAt(): string {
    return iso(this.product.createdAt);
  }
  get onlineStoreUrl(): null {
    return null;
  }
  get trackingParameters(): null {
    return null;
  }
  get variantsCount() {
    return { count: this.product.variants.length, precision: "EXACT" };
  }
  get priceRange() {
    return this.#priceRange ??= rangeOf(this.product, (v) => v.price);
  }
  get compareAtPriceRange() {
    return this.#compareAtPriceRange ??= rangeOf(this.product, (v) => v.compareAtPrice);
  }
  get seo() {
    return this.#seo ??= { title: this.product.title, description: this.product.summary || null };
  }
  get totalInventory(): null {
    return null;
  }
  get requiresSellingPlan(): boolean {
    return false;
  }
  get encodedVariantExistence(): null {
    return null;
  }
  get encodedVariantAvailability(): null {
    return null;
  }
}

export class VariantNode {
  #price?: MoneyV2;
  #compareAtPrice?: MoneyV2 | null;
  #product?: ProductNode;
  /** `owner` and `variant`: ProductVariant has a field `product` (the product's node) */
  constructor(readonly owner: Product, readonly variant: Variant) {}
  get __typename(): "ProductVariant" {
    return "ProductVariant";
  }
  get id(): string {
    return gid("ProductVariant", this.variant.key);
  }
  get title(): string {
    return this.variant.title;
  }
  get sku(): string {
    return this.variant.sku;
  }
  get barcode(): null {
    return null;
  }
  get price(): MoneyV2 {
    return this.#price ??= money(this.variant.price, this.variant.currency);
  }
  get priceV2(): MoneyV2 {
    return this.price;
  }
  get compareAtPrice(): MoneyV2 | null {
    const v = this.variant;
    if (this.#compareAtPrice === undefined) {
      this.#compareAtPrice = v.compareAtPrice === null ? null : money(v.compareAtPrice, v.currency);
    }
    return this.#compareAtPrice;
  }
  get compareAtPriceV2(): MoneyV2 | null {
    return this.compareAtPrice;
  }
  get unitPrice(): null {
    return null;
  }
  get unitPriceMeasurement(): null {
    return null;
  }
  get availableForSale(): boolean {
    return this.variant.available;
  }
  get currentlyNotInStock(): boolean {
    return false;
  }
  get quantityAvailable(): null {
    return null;
  }
  get requiresShipping(): boolean {
    return this.variant.requiresShipping;
  }
  get requiresComponents(): boolean {
    return false;
  }
  get selectedOptions() {
    return this.variant.selectedOptions;
  }
  get product(): ProductNode {
    return this.#product ??= new ProductNode(this.owner);
  }
  get weight(): number | null {
    return this.variant.weight;
  }
  get weightUnit(): string {
    return "KILOGRAMS";
  }
  get taxable(): boolean {
    return true;
  }
}

export class OptionNode {
  #optionValues?: {
    id: string;
    name: string;
    swatch: null;
    firstSelectableVariant: VariantNode | null;
  }[];
  constructor(readonly owner: Product, readonly option: { name: string; values: string[] }) {}
  get id(): string {
    return gid("ProductOption", `${this.owner.handle}/${this.option.name}`);
  }
  get name(): string {
    return this.option.name;
  }
  get values(): string[] {
    return this.option.values;
  }
  get optionValues() {
    const { owner, option } = this;
    return this.#optionValues ??= option.values.map((value) => {
      const first = owner.variants.find((v) =>
        v.selectedOptions.some((s) => s.name === option.name && s.value === value)
      );
      return {
        id: gid("ProductOptionValue", `${owner.handle}/${option.name}/${value}`),
        name: value,
        swatch: null,
        firstSelectableVariant: first ? new VariantNode(owner, first) : null,
      };
    });
  }
}

export class CollectionNode {
  #seo?: { title: string; description: string | null };
  constructor(readonly row: CollectionRow, readonly ctx: NodeContext) {}
  get __typename(): "Collection" {
    return "Collection";
  }
  /** a text field of the record in the answer's locale chain ("" when it has none) */
  text(field: string): string {
    const value = fieldValue(this.row, field, this.ctx.locales);
    return typeof value === "string" ? value : "";
  }
  /** the record's rich text body, when it has one */
  body(): RichTextDocument | undefined {
    const body = fieldValue(this.row, "body", this.ctx.locales) as RichTextDocument | undefined;
    return body?.nodeType === "document" ? body : undefined;
  }
  get id(): string {
    return gid("Collection", this.row.handle);
  }
  get handle(): string {
    return this.row.handle;
  }
  get title(): string {
    return this.text("title") || this.row.handle;
  }
  get descriptionHtml(): string {
    const body = this.body();
    if (body) return richTextHtml(body);
    const summary = this.text("summary");
    return summary ? `<p>${escapeHtml(summary)}</p>` : "";
  }
  get updatedAt(): string {
    return iso(this.row.updated_at);
  }
  get onlineStoreUrl(): null {
    return null;
  }
  get trackingParameters(): null {
    return null;
  }
  get seo() {
    return this.#seo ??= {
      title: this.text("title") || this.row.handle,
      description: this.text("summary") || null,
    };
  }
}

export class ImageNode {
  constructor(
    readonly asset: AssetRow,
    readonly alt: string | null,
    readonly ctx: NodeContext,
    /** a collection's image (its id says CollectionImage) */
    readonly collection = false,
  ) {}
  get __typename(): "Image" {
    return "Image";
  }
  get id(): string {
    return gid(this.collection ? "CollectionImage" : "ProductImage", this.asset.id);
  }
  get altText(): string | null {
    const described = this.ctx.locales.map((l) => this.asset.description?.[l]).find((d) => d);
    return described || this.alt;
  }
  get width(): number | null {
    return this.asset.width;
  }
  get height(): number | null {
    return this.asset.height;
  }
  get thumbhash(): null {
    return null;
  }
  get src(): string {
    return imageUrl(this.asset, this.ctx.publicUrl, this.ctx.space);
  }
  get originalSrc(): string {
    return this.src;
  }
}
