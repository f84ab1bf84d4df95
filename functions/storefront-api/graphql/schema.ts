// The storefront schema: the Storefront API's names and types for what the site sells, plus the
// platform's fields the site lacks (metafields, selling plans, discounts, delivery groups, gift cards),
// which answer null or empty so the real clients' fixed documents validate and run.
import { COUNTRY_CODES, CURRENCY_CODES, LANGUAGE_CODES } from "./enums.ts";

const connection = (name: string, node: string, extra = "") => `
type ${name}Edge { cursor: String! node: ${node}! }
type ${name}Connection { edges: [${name}Edge!]! nodes: [${node}!]! pageInfo: PageInfo! ${extra} }`;

const page = "first: Int, after: String, last: Int, before: String, reverse: Boolean = false";

const metafields = `
  metafield(namespace: String, key: String!): Metafield
  metafields(identifiers: [HasMetafieldsIdentifier!]!): [Metafield]!`;

// an interface's fields, which each implementation repeats (GraphQL asks for them written out)
const cartLineFields = `
  id: ID!
  quantity: Int!
  merchandise: Merchandise!
  attributes: [Attribute!]!
  attribute(key: String!): Attribute
  cost: CartLineCost!
  discountAllocations: [CartDiscountAllocation!]!
  sellingPlanAllocation: SellingPlanAllocation`;
const allocationFields =
  "discountedAmount: MoneyV2! discountApplication: CartDiscountApplication! targetType: DiscountApplicationTargetType!";

const payload = (name: string) =>
  `type ${name}Payload { cart: Cart userErrors: [CartUserError!]! warnings: [CartWarning!]! }`;

export const typeDefs = /* GraphQL */ `
schema { query: QueryRoot mutation: Mutation }

"Contextualizes a query: the language of localized fields, the buyer's country."
directive @inContext(country: CountryCode, language: LanguageCode, preferredLocationId: ID, buyer: BuyerInput) on QUERY | MUTATION

"An ISO-8601 date and time."
scalar DateTime
"A signed decimal number, serialized as a string (\\"29.0\\")."
scalar Decimal
"An HTML fragment."
scalar HTML
"An RFC 3986 address."
scalar URL
scalar JSON
scalar Color
scalar UnsignedInt64

input BuyerInput { customerAccessToken: String! companyLocationId: ID }

interface Node { id: ID! }
interface HasMetafields { ${metafields} }
interface OnlineStorePublishable { onlineStoreUrl: URL }
interface Trackable { trackingParameters: String }
input HasMetafieldsIdentifier { namespace: String key: String! }
type Metafield implements Node {
  id: ID! key: String! namespace: String! type: String! value: String! description: String
  createdAt: DateTime! updatedAt: DateTime!
}

type QueryRoot {
  shop: Shop!
  product(id: ID, handle: String): Product
  productByHandle(handle: String!): Product
  products(${page}, sortKey: ProductSortKeys = ID, query: String): ProductConnection!
  productRecommendations(productId: ID, productHandle: String, intent: ProductRecommendationIntent = RELATED): [Product!]
  productTags(first: Int!): StringConnection!
  productTypes(first: Int!): StringConnection!
  collection(id: ID, handle: String): Collection
  collectionByHandle(handle: String!): Collection
  collections(${page}, sortKey: CollectionSortKeys = ID, query: String): CollectionConnection!
  cart(id: ID!): Cart
  node(id: ID!): Node
  nodes(ids: [ID!]!): [Node]!
  localization: Localization!
  publicApiVersions: [ApiVersion!]!
}

type Mutation {
  cartCreate(input: CartInput): CartCreatePayload
  cartLinesAdd(cartId: ID!, lines: [CartLineInput!]!): CartLinesAddPayload
  cartLinesUpdate(cartId: ID!, lines: [CartLineUpdateInput!]!): CartLinesUpdatePayload
  cartLinesRemove(cartId: ID!, lineIds: [ID!]!): CartLinesRemovePayload
  cartBuyerIdentityUpdate(cartId: ID!, buyerIdentity: CartBuyerIdentityInput!): CartBuyerIdentityUpdatePayload
  cartAttributesUpdate(cartId: ID!, attributes: [AttributeInput!]!): CartAttributesUpdatePayload
  cartNoteUpdate(cartId: ID!, note: String): CartNoteUpdatePayload
  "The site has no discount codes: the cart comes back unchanged with each code not applicable."
  cartDiscountCodesUpdate(cartId: ID!, discountCodes: [String!]): CartDiscountCodesUpdatePayload
  "The site has no gift cards: the cart comes back unchanged."
  cartGiftCardCodesUpdate(cartId: ID!, giftCardCodes: [String!]!): CartGiftCardCodesUpdatePayload
  cartGiftCardCodesRemove(cartId: ID!, appliedGiftCardIds: [ID!]!): CartGiftCardCodesRemovePayload
}

type ApiVersion { displayName: String! handle: String! supported: Boolean! }
type PageInfo { hasNextPage: Boolean! hasPreviousPage: Boolean! startCursor: String endCursor: String }
type StringEdge { cursor: String! node: String! }
type StringConnection { edges: [StringEdge!]! pageInfo: PageInfo! }
type Count { count: Int! precision: CountPrecision! }
enum CountPrecision { EXACT AT_LEAST }

type Shop implements HasMetafields & Node {
  id: ID!
  name: String!
  description: String
  primaryDomain: Domain!
  paymentSettings: PaymentSettings!
  shipsToCountries: [CountryCode!]!
  moneyFormat: String!
  privacyPolicy: ShopPolicy
  refundPolicy: ShopPolicy
  shippingPolicy: ShopPolicy
  termsOfService: ShopPolicy
  ${metafields}
}
type Domain { host: String! sslEnabled: Boolean! url: URL! }
type PaymentSettings {
  acceptedCardBrands: [CardBrand!]! cardVaultUrl: URL! countryCode: CountryCode! currencyCode: CurrencyCode!
  enabledPresentmentCurrencies: [CurrencyCode!]! shopifyPaymentsAccountId: String supportedDigitalWallets: [DigitalWallet!]!
}
enum CardBrand { VISA MASTERCARD DISCOVER AMERICAN_EXPRESS DINERS_CLUB JCB }
enum DigitalWallet { APPLE_PAY ANDROID_PAY GOOGLE_PAY SHOPIFY_PAY }
type ShopPolicy implements Node { id: ID! body: String! handle: String! title: String! url: URL! }

type Product implements HasMetafields & Node & OnlineStorePublishable & Trackable {
  id: ID!
  handle: String!
  title: String!
  description(truncateAt: Int): String!
  descriptionHtml: HTML!
  "good or book"
  productType: String!
  vendor: String!
  tags: [String!]!
  availableForSale: Boolean!
  isGiftCard: Boolean!
  createdAt: DateTime!
  updatedAt: DateTime!
  publishedAt: DateTime!
  onlineStoreUrl: URL
  trackingParameters: String
  featuredImage: Image
  images(${page}, sortKey: ProductImageSortKeys = POSITION): ImageConnection!
  options(first: Int): [ProductOption!]!
  variants(${page}, sortKey: ProductVariantSortKeys = POSITION): ProductVariantConnection!
  variantsCount: Count
  variantBySelectedOptions(selectedOptions: [SelectedOptionInput!]!, ignoreUnknownOptions: Boolean = false, caseInsensitiveMatch: Boolean = false): ProductVariant
  selectedOrFirstAvailableVariant(selectedOptions: [SelectedOptionInput!], ignoreUnknownOptions: Boolean = false, caseInsensitiveMatch: Boolean = false): ProductVariant
  priceRange: ProductPriceRange!
  compareAtPriceRange: ProductPriceRange!
  collections(${page}): CollectionConnection!
  seo: SEO!
  totalInventory: Int
  requiresSellingPlan: Boolean!
  sellingPlanGroups(${page}): SellingPlanGroupConnection!
  encodedVariantExistence: String
  encodedVariantAvailability: String
  ${metafields}
}
type ProductOption implements Node { id: ID! name: String! values: [String!]! optionValues: [ProductOptionValue!]! }
type ProductOptionValue implements Node { id: ID! name: String! swatch: ProductOptionValueSwatch firstSelectableVariant: ProductVariant }
type ProductOptionValueSwatch { color: Color }
type ProductPriceRange { minVariantPrice: MoneyV2! maxVariantPrice: MoneyV2! }
type SEO { title: String description: String }
input SelectedOptionInput { name: String! value: String! }
type SelectedOption { name: String! value: String! }

type ProductVariant implements HasMetafields & Node {
  id: ID!
  title: String!
  sku: String
  barcode: String
  price: MoneyV2!
  priceV2: MoneyV2!
  compareAtPrice: MoneyV2
  compareAtPriceV2: MoneyV2
  unitPrice: MoneyV2
  unitPriceMeasurement: UnitPriceMeasurement
  availableForSale: Boolean!
  currentlyNotInStock: Boolean!
  quantityAvailable: Int
  requiresShipping: Boolean!
  requiresComponents: Boolean!
  selectedOptions: [SelectedOption!]!
  image: Image
  product: Product!
  weight: Float
  weightUnit: WeightUnit!
  taxable: Boolean!
  sellingPlanAllocations(${page}): SellingPlanAllocationConnection!
  ${metafields}
}
type UnitPriceMeasurement {
  measuredType: UnitPriceMeasurementMeasuredType quantityUnit: UnitPriceMeasurementMeasuredUnit quantityValue: Float!
  referenceUnit: UnitPriceMeasurementMeasuredUnit referenceValue: Int!
}
enum UnitPriceMeasurementMeasuredType { VOLUME WEIGHT LENGTH AREA COUNT UNKNOWN }
enum UnitPriceMeasurementMeasuredUnit { ML CL L M3 MG G KG MM CM M M2 ITEM UNKNOWN }
enum WeightUnit { KILOGRAMS GRAMS POUNDS OUNCES }
type SellingPlanGroup { appName: String name: String! }
type SellingPlanAllocation { checkoutChargeAmount: MoneyV2! remainingBalanceChargeAmount: MoneyV2! }

type Image {
  id: ID
  url(transform: ImageTransformInput): URL!
  altText: String
  width: Int
  height: Int
  thumbhash: String
  src: URL! @deprecated(reason: "Use url instead.")
  originalSrc: URL! @deprecated(reason: "Use url instead.")
  transformedSrc(maxWidth: Int, maxHeight: Int, crop: CropRegion, scale: Int = 1, preferredContentType: ImageContentType): URL! @deprecated(reason: "Use url(transform:) instead.")
}
input ImageTransformInput { crop: CropRegion maxWidth: Int maxHeight: Int scale: Int = 1 preferredContentType: ImageContentType }
enum CropRegion { CENTER TOP BOTTOM LEFT RIGHT REGION }
enum ImageContentType { PNG JPG WEBP }

type Collection implements HasMetafields & Node & OnlineStorePublishable & Trackable {
  id: ID!
  handle: String!
  title: String!
  description(truncateAt: Int): String!
  descriptionHtml: HTML!
  image: Image
  updatedAt: DateTime!
  onlineStoreUrl: URL
  trackingParameters: String
  products(${page}, sortKey: ProductCollectionSortKeys = COLLECTION_DEFAULT, filters: [ProductFilter!]): ProductConnection!
  seo: SEO!
  ${metafields}
}
input ProductFilter { available: Boolean price: PriceRangeFilter productType: String productVendor: String tag: String }
input PriceRangeFilter { min: Float max: Float }

${connection("Product", "Product")}
${connection("Collection", "Collection", "totalCount: UnsignedInt64!")}
${connection("Image", "Image")}
${connection("ProductVariant", "ProductVariant")}
${connection("BaseCartLine", "BaseCartLine")}
${connection("CartDeliveryGroup", "CartDeliveryGroup")}
${connection("SellingPlanGroup", "SellingPlanGroup")}
${connection("SellingPlanAllocation", "SellingPlanAllocation")}

enum ProductSortKeys { TITLE PRODUCT_TYPE VENDOR UPDATED_AT CREATED_AT BEST_SELLING PRICE ID RELEVANCE }
enum CollectionSortKeys { TITLE UPDATED_AT ID RELEVANCE }
enum ProductCollectionSortKeys { TITLE PRICE BEST_SELLING CREATED ID MANUAL COLLECTION_DEFAULT RELEVANCE }
enum ProductImageSortKeys { CREATED_AT POSITION ID RELEVANCE }
enum ProductVariantSortKeys { TITLE SKU POSITION ID RELEVANCE }
enum ProductRecommendationIntent { RELATED COMPLEMENTARY }

type MoneyV2 { amount: Decimal! currencyCode: CurrencyCode! }
type PricingPercentageValue { percentage: Float! }
union PricingValue = MoneyV2 | PricingPercentageValue

type Cart implements HasMetafields & Node {
  id: ID!
  checkoutUrl: URL!
  createdAt: DateTime!
  updatedAt: DateTime!
  totalQuantity: Int!
  lines(${page}): BaseCartLineConnection!
  cost: CartCost!
  buyerIdentity: CartBuyerIdentity!
  attributes: [Attribute!]!
  attribute(key: String!): Attribute
  note: String
  discountCodes: [CartDiscountCode!]!
  discountAllocations: [CartDiscountAllocation!]!
  deliveryGroups(${page}, withCarrierRates: Boolean = false): CartDeliveryGroupConnection!
  appliedGiftCards: [AppliedGiftCard!]!
  ${metafields}
}
type CartCost {
  checkoutChargeAmount: MoneyV2!
  subtotalAmount: MoneyV2!
  subtotalAmountEstimated: Boolean!
  totalAmount: MoneyV2!
  totalAmountEstimated: Boolean!
  totalDutyAmount: MoneyV2
  totalDutyAmountEstimated: Boolean!
  totalTaxAmount: MoneyV2
  totalTaxAmountEstimated: Boolean!
}
type CartBuyerIdentity {
  email: String
  phone: String
  countryCode: CountryCode
  customer: Customer
  deliveryAddressPreferences: [DeliveryAddress!]!
  preferences: CartPreferences
}
type Customer { id: ID! email: String phone: String firstName: String lastName: String displayName: String! }
union DeliveryAddress = MailingAddress
type MailingAddress implements Node {
  id: ID! address1: String address2: String city: String company: String country: String countryCodeV2: CountryCode
  firstName: String formatted(withName: Boolean = false, withCompany: Boolean = true): [String!]! formattedArea: String
  lastName: String latitude: Float longitude: Float name: String phone: String province: String provinceCode: String zip: String
}
type CartPreferences { delivery: CartDeliveryPreference wallet: [String!] }
type CartDeliveryPreference { coordinates: CartDeliveryCoordinatesPreference deliveryMethod: [PreferenceDeliveryMethodType!]! pickupHandle: [String!]! }
type CartDeliveryCoordinatesPreference { countryCode: CountryCode! latitude: Float! longitude: Float! }
enum PreferenceDeliveryMethodType { SHIPPING PICK_UP PICKUP_POINT }

interface BaseCartLine { ${cartLineFields} }
type CartLine implements BaseCartLine & Node { ${cartLineFields} }
union Merchandise = ProductVariant
type CartLineCost { amountPerQuantity: MoneyV2! compareAtAmountPerQuantity: MoneyV2 subtotalAmount: MoneyV2! totalAmount: MoneyV2! }
type Attribute { key: String! value: String }
interface CartDiscountAllocation { ${allocationFields} }
type CartCodeDiscountAllocation implements CartDiscountAllocation { code: String! ${allocationFields} }
type CartAutomaticDiscountAllocation implements CartDiscountAllocation { title: String! ${allocationFields} }
type CartCustomDiscountAllocation implements CartDiscountAllocation { title: String! ${allocationFields} }
type CartDiscountApplication {
  allocationMethod: DiscountApplicationAllocationMethod! targetSelection: DiscountApplicationTargetSelection!
  targetType: DiscountApplicationTargetType! value: PricingValue!
}
enum DiscountApplicationAllocationMethod { ACROSS EACH ONE }
enum DiscountApplicationTargetSelection { ALL ENTITLED EXPLICIT }
enum DiscountApplicationTargetType { LINE_ITEM SHIPPING_LINE }
type CartDiscountCode { applicable: Boolean! code: String! }
type AppliedGiftCard implements Node {
  id: ID! amountUsed: MoneyV2! amountUsedV2: MoneyV2! balance: MoneyV2! balanceV2: MoneyV2! lastCharacters: String!
  presentmentAmountUsed: MoneyV2!
}
type CartDeliveryGroup {
  id: ID! cartLines(${page}): BaseCartLineConnection! deliveryAddress: MailingAddress! deliveryOptions: [CartDeliveryOption!]!
  selectedDeliveryOption: CartDeliveryOption groupType: CartDeliveryGroupType!
}
type CartDeliveryOption { code: String deliveryMethodType: DeliveryMethodType! description: String estimatedCost: MoneyV2! handle: String! title: String }
enum DeliveryMethodType { SHIPPING PICK_UP RETAIL LOCAL PICKUP_POINT NONE }
enum CartDeliveryGroupType { SUBSCRIPTION ONE_TIME_PURCHASE }

type CartUserError { code: CartErrorCode field: [String!] message: String! }
enum CartErrorCode {
  INVALID INVALID_MERCHANDISE_LINE QUANTITY_MUST_BE_POSITIVE LESS_THAN GREATER_THAN MISSING_NOTE NOTE_TOO_LONG
  INVALID_DELIVERY_GROUP INVALID_DELIVERY_OPTION MISSING_DISCOUNT_CODE
}
type CartWarning { code: CartWarningCode! message: String! target: ID! }
enum CartWarningCode { MERCHANDISE_NOT_ENOUGH_STOCK MERCHANDISE_OUT_OF_STOCK PAYMENTS_GIFT_CARDS_UNAVAILABLE }
${
  [
    "CartCreate",
    "CartLinesAdd",
    "CartLinesUpdate",
    "CartLinesRemove",
    "CartBuyerIdentityUpdate",
    "CartAttributesUpdate",
    "CartNoteUpdate",
    "CartDiscountCodesUpdate",
    "CartGiftCardCodesUpdate",
    "CartGiftCardCodesRemove",
  ].map(payload).join("\n")
}

input CartInput {
  lines: [CartLineInput!] attributes: [AttributeInput!] note: String buyerIdentity: CartBuyerIdentityInput
  discountCodes: [String!] giftCardCodes: [String!] metafields: [CartInputMetafieldInput!]
}
input CartInputMetafieldInput { key: String! value: String! type: String! }
input CartLineInput { merchandiseId: ID! quantity: Int = 1 attributes: [AttributeInput!] sellingPlanId: ID }
input CartLineUpdateInput { id: ID! merchandiseId: ID quantity: Int attributes: [AttributeInput!] sellingPlanId: ID }
input AttributeInput { key: String! value: String! }
input CartBuyerIdentityInput {
  email: String phone: String countryCode: CountryCode customerAccessToken: String companyLocationId: ID
  deliveryAddressPreferences: [DeliveryAddressInput!] preferences: CartPreferencesInput
}
input DeliveryAddressInput {
  deliveryAddress: MailingAddressInput oneTimeUse: Boolean = false customerAddressId: ID
  deliveryAddressValidationStrategy: DeliveryAddressValidationStrategy = COUNTRY_CODE_ONLY
}
enum DeliveryAddressValidationStrategy { COUNTRY_CODE_ONLY STRICT }
input MailingAddressInput {
  address1: String address2: String city: String company: String country: String firstName: String lastName: String
  phone: String province: String zip: String
}
input CartPreferencesInput { delivery: CartDeliveryPreferenceInput wallet: [String!] }
input CartDeliveryPreferenceInput { deliveryMethod: [PreferenceDeliveryMethodType!] pickupHandle: [String!] coordinates: CartDeliveryCoordinatesPreferenceInput }
input CartDeliveryCoordinatesPreferenceInput { latitude: Float! longitude: Float! countryCode: CountryCode! }

type Localization {
  availableCountries: [Country!]! availableLanguages: [Language!]! country: Country! language: Language! market: Market!
}
type Country {
  availableLanguages: [Language!]! currency: Currency! isoCode: CountryCode! name: String! unitSystem: UnitSystem! market: Market
}
type Currency { isoCode: CurrencyCode! name: String! symbol: String! }
type Language { endonymName: String! isoCode: LanguageCode! name: String! }
type Market implements HasMetafields & Node { id: ID! handle: String! ${metafields} }
enum UnitSystem { IMPERIAL_SYSTEM METRIC_SYSTEM }

enum CurrencyCode { ${CURRENCY_CODES.join(" ")} }
enum CountryCode { ${COUNTRY_CODES.join(" ")} }
enum LanguageCode { ${LANGUAGE_CODES.join(" ")} }
`;
