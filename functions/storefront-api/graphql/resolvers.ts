// Resolvers: thin maps from the domain (catalog, carts, shop) to the Storefront API's wire shapes.
// Parents carry a __typename so the Node, Merchandise and other abstract types resolve.
import { type CollectionRow } from "../store/catalog.ts";
import * as catalogStore from "../store/catalog.ts";
import { descriptionText, fieldValue, type Product, type Variant } from "../domain/catalog.ts";
import type { Attribute } from "../domain/cart.ts";
import { StoreInputError } from "../domain/errors.ts";
import { gid, parseGid } from "../domain/ids.ts";
import { type ImageTransform, imageUrl } from "../domain/images.ts";
import { money } from "../domain/money.ts";
import {
  type Connection,
  connectionFrom,
  connectionOfList,
  type PageArgs,
  type Window,
  windowOf,
} from "../domain/paging.ts";
import { keysetCursor, keysetReader, positionReader } from "../domain/cursor.ts";
import { languageCode, POLICY_FIELDS } from "../domain/shop.ts";
import * as carts from "./carts.ts";
import type { CartView } from "./carts.ts";
import { sortContextOf, type StoreContext, variantOf } from "./context.ts";
import { CollectionNode, ImageNode, OptionNode, ProductNode, VariantNode } from "./nodes.ts";
import { LANGUAGE_CODES } from "./enums.ts";
import type { CatalogRow, CollectionSort, ProductSort } from "../store/catalog.ts";
import { richTextPlainText } from "../../../shared/richtext.ts";

type Args = Record<string, any>;
type Ctx = StoreContext;

type ProductParent = ProductNode;
type VariantParent = VariantNode;
type CollectionParent = CollectionNode;
type ImageParent = ImageNode;

const productParent = (product: Product): ProductParent => new ProductNode(product);
const variantParent = (product: Product, variant: Variant): VariantParent => new VariantNode(product, variant);
const collectionParent = (ctx: Ctx) => (row: CollectionRow): CollectionParent => new CollectionNode(row, ctx);
const iso = (d: Date) => new Date(d).toISOString();
const emptyConnection = (): Connection<never> => ({
  edges: [],
  nodes: [],
  pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
});
const metafieldResolvers = {
  metafield: () => null,
  metafields: (_: unknown, args: { identifiers: unknown[] }) => args.identifiers.map(() => null),
};

function truncate(text: string, at?: number | null): string {
  if (!at || at <= 0 || text.length <= at) return text;
  return `${text.slice(0, Math.max(0, at - 1)).trimEnd()}…`;
}

// ---- sort keys ---------------------------------------------------------------------------------------

const PRODUCT_SORTS: Record<string, ProductSort> = {
  ID: "position",
  RELEVANCE: "position",
  BEST_SELLING: "position",
  TITLE: "title",
  PRICE: "price",
  CREATED_AT: "created",
  UPDATED_AT: "updated",
  PRODUCT_TYPE: "type",
  VENDOR: "vendor",
};
const COLLECTION_PRODUCT_SORTS: Record<string, ProductSort> = {
  COLLECTION_DEFAULT: "collection",
  MANUAL: "collection",
  RELEVANCE: "collection",
  BEST_SELLING: "collection",
  ID: "position",
  TITLE: "title",
  PRICE: "price",
  CREATED: "created",
};
const COLLECTION_SORTS: Record<string, CollectionSort> = {
  ID: "position",
  RELEVANCE: "position",
  TITLE: "title",
  UPDATED_AT: "updated",
};

/** The `query` argument: one word or phrase over title, description and tags; `title:` is dropped. */
function searchWord(query: unknown): string | undefined {
  if (typeof query !== "string") return undefined;
  const word = query.trim().replace(/^title:/i, "").replace(/^["']|["']$/g, "").replace(/\*$/, "").trim();
  return word || undefined;
}

async function productConnection(ctx: Ctx, rows: CatalogRow[], window: Window, sort: ProductSort) {
  const products = await ctx.products(rows);
  const byRow = new Map(rows.map((r, i) => [r, products[i]]));
  return connectionFrom(
    rows,
    window,
    (r) => keysetCursor(sort, r.sort_value, r.handle),
    (r) => productParent(byRow.get(r)!),
  );
}

// ---- lookups by id -------------------------------------------------------------------------------------

async function nodeById(ctx: Ctx, id: unknown) {
  const parsed = parseGid(id);
  if (!parsed) return null;
  if (parsed.type === "Product") {
    const product = await ctx.loaders.productByHandle.load(parsed.id);
    return product ? productParent(product) : null;
  }
  if (parsed.type === "ProductVariant") {
    const hit = await variantOf(ctx, parsed.id);
    return hit ? variantParent(hit.product, hit.variant) : null;
  }
  if (parsed.type === "Collection") {
    const row = await ctx.loaders.collectionByHandle.load(parsed.id);
    return row ? collectionParent(ctx)(row) : null;
  }
  return null;
}

async function productOf(ctx: Ctx, args: { id?: string | null; handle?: string | null }) {
  const handle = args.handle ?? (parseGid(args.id)?.type === "Product" ? parseGid(args.id)!.id : undefined);
  if (!handle) return null;
  const product = await ctx.loaders.productByHandle.load(handle);
  return product ? productParent(product) : null;
}

async function collectionOf(ctx: Ctx, args: { id?: string | null; handle?: string | null }) {
  const handle = args.handle ??
    (parseGid(args.id)?.type === "Collection" ? parseGid(args.id)!.id : undefined);
  if (!handle) return null;
  const row = await ctx.loaders.collectionByHandle.load(handle);
  return row ? collectionParent(ctx)(row) : null;
}

async function imageOf(ctx: Ctx, assetId: string | null, alt: string | null) {
  if (!assetId) return null;
  const asset = await ctx.loaders.asset.load(assetId);
  return asset ? new ImageNode(asset, alt, ctx) : null;
}

// ---- shop and localization ------------------------------------------------------------------------------

const IMPERIAL = new Set(["US", "LR", "MM"]);

function currencyOf(code: string, locale: string) {
  let symbol = code;
  try {
    symbol =
      new Intl.NumberFormat(locale, { style: "currency", currency: code, currencyDisplay: "narrowSymbol" })
        .formatToParts(0).find((p) => p.type === "currency")?.value ?? code;
  } catch { /* an unknown code keeps itself */ }
  let name = code;
  try {
    name = new Intl.DisplayNames([locale], { type: "currency" }).of(code) ?? code;
  } catch { /* as above */ }
  return { isoCode: code, name, symbol };
}

function languageOf(locale: string, displayIn: string) {
  const code = languageCode(locale, LANGUAGE_CODES);
  const tag = code.toLowerCase().replace("_", "-");
  const name = (l: string) => {
    try {
      return new Intl.DisplayNames([l], { type: "language" }).of(tag) ?? code;
    } catch {
      return code;
    }
  };
  return { isoCode: code, name: name(displayIn), endonymName: name(tag) };
}

async function localization(ctx: Ctx) {
  const shop = await ctx.shop();
  const locale = ctx.locales[0];
  const languages = ctx.site.locales.map((l) => languageOf(l.code, locale));
  const market = { id: gid("Market", ctx.site.slug), handle: ctx.site.slug };
  const countries = (shop.shipsTo.length ? shop.shipsTo : ["US"]).map((code) => {
    let name = code;
    try {
      name = new Intl.DisplayNames([locale], { type: "region" }).of(code) ?? code;
    } catch { /* keep the code */ }
    return {
      isoCode: code,
      name,
      currency: currencyOf(shop.currency, locale),
      unitSystem: IMPERIAL.has(code) ? "IMPERIAL_SYSTEM" : "METRIC_SYSTEM",
      availableLanguages: languages,
      market,
    };
  });
  const country = countries.find((c) => c.isoCode === ctx.country) ?? countries[0];
  return {
    availableCountries: countries,
    availableLanguages: languages,
    country,
    language: languageOf(locale, locale),
    market,
  };
}

// ---- the resolver map ------------------------------------------------------------------------------------

export const resolvers = {
  QueryRoot: {
    shop: () => ({}),
    product: (_: unknown, args: Args, ctx: Ctx) => productOf(ctx, args),
    productByHandle: (_: unknown, args: Args, ctx: Ctx) => productOf(ctx, { handle: args.handle }),
    async products(_: unknown, args: Args, ctx: Ctx) {
      const sort = PRODUCT_SORTS[args.sortKey] ?? "position";
      const window = windowOf(args, keysetReader(sort));
      // the shop's record (currency) is read beside the page, not after it
      const [rows] = await Promise.all([
        catalogStore.productsPage(ctx.sql, {
          sort,
          reverse: Boolean(args.reverse),
          window,
          search: searchWord(args.query),
          ctx: sortContextOf(ctx.site),
        }),
        ctx.catalog(),
      ]);
      return productConnection(ctx, rows, window, sort);
    },
    async productRecommendations(_: unknown, args: Args, ctx: Ctx) {
      const found = await productOf(ctx, { id: args.productId, handle: args.productHandle });
      if (!found) return null;
      const window = windowOf({ first: 10 }, keysetReader("position"));
      // other products of the same type, in the records' order
      const rows = await catalogStore.productsPage(ctx.sql, {
        sort: "position",
        reverse: false,
        window,
        kind: found.product.kind,
        exclude: found.product.handle,
        ctx: sortContextOf(ctx.site),
      });
      return (await ctx.products(rows.slice(0, 10))).map(productParent);
    },
    async productTags(_: unknown, args: Args, ctx: Ctx) {
      const window = windowOf({ first: args.first }, positionReader);
      const tags = await catalogStore.catalogTags(ctx.sql, window.size);
      return connectionOfList(tags, { first: args.first });
    },
    async productTypes(_: unknown, args: Args, ctx: Ctx) {
      windowOf({ first: args.first }, positionReader);
      return connectionOfList(await catalogStore.catalogKinds(ctx.sql), { first: args.first });
    },
    collection: (_: unknown, args: Args, ctx: Ctx) => collectionOf(ctx, args),
    collectionByHandle: (_: unknown, args: Args, ctx: Ctx) => collectionOf(ctx, { handle: args.handle }),
    async collections(_: unknown, args: Args, ctx: Ctx) {
      const sort = COLLECTION_SORTS[args.sortKey] ?? "position";
      const window = windowOf(args, keysetReader(sort));
      const search = searchWord(args.query);
      const rows = await catalogStore.collectionsPage(ctx.sql, {
        sort,
        reverse: Boolean(args.reverse),
        window,
        search,
        ctx: sortContextOf(ctx.site),
      });
      const connection = connectionFrom(
        rows,
        window,
        (r) => keysetCursor(sort, r.sort_value, r.handle),
        collectionParent(ctx),
      );
      // counted only when a query asks for it; UnsignedInt64 is a string of digits, as Shopify prints it
      return Object.assign(connection, {
        totalCount: () => catalogStore.collectionsCount(ctx.sql, search).then(String),
      });
    },
    cart: (_: unknown, args: Args, ctx: Ctx) => carts.readCartView(ctx, args.id),
    node: (_: unknown, args: Args, ctx: Ctx) => nodeById(ctx, args.id),
    nodes(_: unknown, args: Args, ctx: Ctx) {
      if (args.ids.length > 250) throw new StoreInputError("`ids` may name at most 250 nodes.");
      return Promise.all(args.ids.map((id: string) => nodeById(ctx, id)));
    },
    localization: (_: unknown, __: Args, ctx: Ctx) => localization(ctx),
    publicApiVersions: () =>
      ["2024-10", "2025-01", "2025-04", "2025-07", "2025-10", "unstable"].map((handle) => ({
        handle,
        displayName: handle,
        supported: true,
      })),
  },

  Mutation: {
    cartCreate: (_: unknown, args: Args, ctx: Ctx) => carts.createCart(ctx, args.input),
    cartLinesAdd: (_: unknown, args: Args, ctx: Ctx) => carts.linesAdd(ctx, args.cartId, args.lines),
    cartLinesUpdate: (_: unknown, args: Args, ctx: Ctx) => carts.linesUpdate(ctx, args.cartId, args.lines),
    cartLinesRemove: (_: unknown, args: Args, ctx: Ctx) => carts.linesRemove(ctx, args.cartId, args.lineIds),
    cartBuyerIdentityUpdate: (_: unknown, args: Args, ctx: Ctx) =>
      carts.buyerIdentityUpdate(ctx, args.cartId, args.buyerIdentity),
    cartAttributesUpdate: (_: unknown, args: Args, ctx: Ctx) =>
      carts.attributesUpdate(ctx, args.cartId, args.attributes),
    cartNoteUpdate: (_: unknown, args: Args, ctx: Ctx) => carts.noteUpdate(ctx, args.cartId, args.note),
    cartDiscountCodesUpdate: (_: unknown, args: Args, ctx: Ctx) =>
      carts.unchanged(ctx, args.cartId, { discountCodes: args.discountCodes ?? [] }),
    cartGiftCardCodesUpdate: (_: unknown, args: Args, ctx: Ctx) =>
      giftCardsUnavailable(ctx, args.cartId, args.giftCardCodes),
    cartGiftCardCodesRemove: (_: unknown, args: Args, ctx: Ctx) => carts.unchanged(ctx, args.cartId),
  },

  Shop: {
    id: (_: unknown, __: Args, ctx: Ctx) => gid("Shop", ctx.site.slug),
    name: async (_: unknown, __: Args, ctx: Ctx) => (await ctx.shop()).name,
    description: async (_: unknown, __: Args, ctx: Ctx) => (await ctx.shop()).description,
    primaryDomain: (_: unknown, __: Args, ctx: Ctx) => {
      const url = new URL(ctx.publicUrl);
      return { host: url.host, url: url.origin, sslEnabled: url.protocol === "https:" };
    },
    paymentSettings: async (_: unknown, __: Args, ctx: Ctx) => {
      const shop = await ctx.shop();
      return {
        acceptedCardBrands: ["VISA", "MASTERCARD", "AMERICAN_EXPRESS"],
        cardVaultUrl: `${ctx.publicUrl}/cart`,
        countryCode: shop.shipsTo[0] ?? "US",
        currencyCode: shop.currency,
        enabledPresentmentCurrencies: [shop.currency],
        shopifyPaymentsAccountId: null,
        supportedDigitalWallets: [],
      };
    },
    shipsToCountries: async (_: unknown, __: Args, ctx: Ctx) => (await ctx.shop()).shipsTo,
    moneyFormat: async (_: unknown, __: Args, ctx: Ctx) => {
      const shop = await ctx.shop();
      return `${currencyOf(shop.currency, ctx.locales[0]).symbol}{{amount}}`;
    },
    ...Object.fromEntries(
      Object.entries(POLICY_FIELDS).map(([field, policy]) => [
        field,
        async (_: unknown, __: Args, ctx: Ctx) => {
          const body = (await ctx.shop()).policies[policy.key];
          return body === undefined ? null : {
            id: gid("ShopPolicy", policy.handle),
            title: policy.title,
            handle: policy.handle,
            body,
            url: `${ctx.publicUrl}/policies/${policy.handle}`,
          };
        },
      ]),
    ),
    ...metafieldResolvers,
  },

  Node: { __resolveType: (parent: { __typename: string }) => parent.__typename },
  HasMetafields: { __resolveType: (parent: { __typename?: string }) => parent.__typename ?? "Shop" },
  OnlineStorePublishable: { __resolveType: (parent: { __typename: string }) => parent.__typename },
  Trackable: { __resolveType: (parent: { __typename: string }) => parent.__typename },
  Merchandise: { __resolveType: () => "ProductVariant" },
  BaseCartLine: { __resolveType: () => "CartLine" },
  DeliveryAddress: { __resolveType: () => "MailingAddress" },
  CartDiscountAllocation: { __resolveType: () => "CartCodeDiscountAllocation" },
  PricingValue: { __resolveType: (v: object) => ("amount" in v ? "MoneyV2" : "PricingPercentageValue") },

  CollectionConnection: {
    // the collections query leaves its count as a function, so the count's query runs only when asked;
    // graphql-jit (graphql/execute.ts) does not call a function-valued property as graphql-js does
    totalCount: (c: { totalCount: string | (() => Promise<string>) }) =>
      typeof c.totalCount === "function" ? c.totalCount() : c.totalCount,
  },

  // the fields without arguments or reads are the nodes' getters (nodes.ts)
  Product: {
    description: (p: ProductParent, args: Args) => truncate(descriptionText(p.product), args.truncateAt),
    featuredImage: (p: ProductParent, _: Args, ctx: Ctx) =>
      imageOf(ctx, p.product.imageIds[0] ?? null, p.product.title),
    async images(p: ProductParent, args: PageArgs, ctx: Ctx) {
      const images = (await Promise.all(p.product.imageIds.map((id) => imageOf(ctx, id, p.product.title))))
        .filter((i): i is ImageParent => i !== null);
      return connectionOfList(images, args);
    },
    options: (p: ProductParent, args: Args) =>
      p.product.options.slice(0, args.first ?? undefined).map((option) => new OptionNode(p.product, option)),
    variants: (p: ProductParent, args: PageArgs) =>
      connectionOfList(p.product.variants.map((v) => variantParent(p.product, v)), args),
    variantBySelectedOptions: (p: ProductParent, args: Args) => {
      const v = matchVariant(p.product, args.selectedOptions, args);
      return v ? variantParent(p.product, v) : null;
    },
    selectedOrFirstAvailableVariant: (p: ProductParent, args: Args) => {
      const v = (args.selectedOptions ? matchVariant(p.product, args.selectedOptions, args) : undefined) ??
        p.product.variants.find((x) => x.available) ?? p.product.variants[0];
      return v ? variantParent(p.product, v) : null;
    },
    async collections(p: ProductParent, args: PageArgs, ctx: Ctx) {
      const nodes = await ctx.loaders.collectionsOf.load(p.product);
      return connectionOfList(nodes, args, String(nodes.length));
    },
    sellingPlanGroups: emptyConnection,
    ...metafieldResolvers,
  },

  ProductVariant: {
    image: (v: VariantParent, _: Args, ctx: Ctx) => imageOf(ctx, v.variant.imageId, v.owner.title),
    sellingPlanAllocations: emptyConnection,
    ...metafieldResolvers,
  },

  Image: {
    url: (i: ImageParent, args: { transform?: ImageTransform }, ctx: Ctx) =>
      imageUrl(i.asset, ctx.publicUrl, ctx.space, args.transform),
    transformedSrc: (i: ImageParent, args: ImageTransform, ctx: Ctx) =>
      imageUrl(i.asset, ctx.publicUrl, ctx.space, args),
  },

  Collection: {
    description: (c: CollectionParent, args: Args) => {
      const body = c.body();
      const text = (body ? richTextPlainText(body).trim() : "") || c.text("summary");
      return truncate(text, args.truncateAt);
    },
    image: async (c: CollectionParent, _: Args, ctx: Ctx) => {
      const id =
        (fieldValue(c.row, "image", ctx.locales) as { sys?: { id?: string } } | undefined)?.sys?.id ?? null;
      if (!id) return null;
      const asset = await ctx.loaders.asset.load(id);
      return asset ? new ImageNode(asset, c.text("title"), ctx, true) : null;
    },
    async products(c: CollectionParent, args: Args, ctx: Ctx) {
      const sort = COLLECTION_PRODUCT_SORTS[args.sortKey] ?? "collection";
      const window = windowOf(args, keysetReader(sort));
      const rows = await ctx.loaders.collectionProducts.load({
        names: c.row.names,
        sort,
        reverse: Boolean(args.reverse),
        window,
        args,
      });
      return productConnection(ctx, rows, window, sort);
    },
    ...metafieldResolvers,
  },

  Cart: {
    id: (c: CartView) => gid("Cart", c.token),
    checkoutUrl: (c: CartView, _: Args, ctx: Ctx) => `${ctx.publicUrl}/cart/c/${c.token}`,
    createdAt: (c: CartView) => iso(c.row.created_at),
    updatedAt: (c: CartView) => iso(c.row.updated_at),
    totalQuantity: (c: CartView) => c.cost.quantity,
    lines: (c: CartView, args: PageArgs) =>
      connectionOfList(c.cost.lines.map((priced) => ({ cart: c, priced })), args),
    cost: (c: CartView) => {
      const m = (minor: number) => money(minor, c.cost.currency);
      return {
        subtotalAmount: m(c.cost.subtotal),
        totalAmount: m(c.cost.total),
        checkoutChargeAmount: m(c.cost.total),
        // tax and duties are not charged by the site; shipping is priced at checkout by country
        totalTaxAmount: null,
        totalDutyAmount: null,
        subtotalAmountEstimated: false,
        totalAmountEstimated: false,
        totalTaxAmountEstimated: false,
        totalDutyAmountEstimated: false,
      };
    },
    buyerIdentity: (c: CartView) => ({
      email: c.row.buyer.email ?? null,
      phone: c.row.buyer.phone ?? null,
      countryCode: c.row.buyer.countryCode ?? null,
      customer: null,
      deliveryAddressPreferences: [],
      preferences: null,
    }),
    attributes: (c: CartView) => c.row.attributes,
    attribute: (c: CartView, args: Args) =>
      c.row.attributes.find((a: Attribute) => a.key === args.key) ?? null,
    note: (c: CartView) => c.row.note,
    discountCodes: (c: CartView) => (c.discountCodes ?? []).map((code) => ({ code, applicable: false })),
    discountAllocations: () => [],
    deliveryGroups: emptyConnection,
    appliedGiftCards: () => [],
    ...metafieldResolvers,
  },

  CartLine: {
    id: (l: LineParent) => gid("CartLine", l.priced.line.id),
    quantity: (l: LineParent) => l.priced.line.quantity,
    merchandise: (l: LineParent) =>
      variantParent(l.cart.products.get(l.priced.variant.key)!, l.priced.variant),
    attributes: (l: LineParent) => l.priced.line.attributes,
    attribute: (l: LineParent, args: Args) =>
      l.priced.line.attributes.find((a) => a.key === args.key) ?? null,
    cost: (l: LineParent) => {
      const { variant } = l.priced;
      return {
        amountPerQuantity: money(variant.price, variant.currency),
        compareAtAmountPerQuantity: variant.compareAtPrice === null
          ? null
          : money(variant.compareAtPrice, variant.currency),
        subtotalAmount: money(l.priced.subtotal, variant.currency),
        totalAmount: money(l.priced.subtotal, variant.currency),
      };
    },
    discountAllocations: () => [],
    sellingPlanAllocation: () => null,
  },

  Market: { ...metafieldResolvers },
  MailingAddress: { formatted: () => [] },
};

interface LineParent {
  cart: CartView;
  priced: CartView["cost"]["lines"][number];
}

/** variantBySelectedOptions: the variant whose options are exactly the ones selected (known ones). */
function matchVariant(
  product: Product,
  selected: { name: string; value: string }[],
  flags: { ignoreUnknownOptions?: boolean; caseInsensitiveMatch?: boolean },
): Variant | undefined {
  const norm = (s: string) => (flags.caseInsensitiveMatch ? s.toLowerCase() : s);
  const optionNames = new Set(product.options.map((o) => norm(o.name)));
  const known = selected.filter((s) => optionNames.has(norm(s.name)));
  if (known.length < selected.length && !flags.ignoreUnknownOptions) return undefined;
  return product.variants.find((v) =>
    v.selectedOptions.length === known.length &&
    v.selectedOptions.every((o) =>
      known.some((s) => norm(s.name) === norm(o.name) && norm(s.value) === norm(o.value))
    )
  );
}

async function giftCardsUnavailable(ctx: Ctx, cartId: string, codes: string[]) {
  const payload = await carts.unchanged(ctx, cartId);
  if (!payload.cart || codes.length === 0) return payload;
  return {
    ...payload,
    warnings: [{
      code: "PAYMENTS_GIFT_CARDS_UNAVAILABLE",
      message: "This store does not take gift cards.",
      target: gid("Cart", payload.cart.token),
    }],
  };
}
