// The handoff shape of a cart (spec: Cart handoff): what the site's bag needs to add each line as the
// product page would, and whether a guest may go straight on to checkout (the checkout's own rule,
// `guestMayBuy`, so the handoff page never keeps a copy of it). Pure.
import type { CartView } from "../graphql/carts.ts";
import type { AssetRow } from "../store/catalog.ts";
import { guestMayBuy } from "./checkout.ts";
import { imageUrl } from "./images.ts";

export interface HandoffLine {
  sku: string;
  /** the variant tail after the sku, or null */
  variant: string | null;
  quantity: number;
  kind: "good" | "unlock" | "print" | "download";
  /** the product's title */
  name: string;
  /** the variant's title (`Default Title` for a good without options) */
  label: string;
  /** price of one, in the currency's minor units */
  unit_amount: number;
  currency: string;
  image: string | null;
  handle: string;
}

export interface Handoff {
  lines: HandoffLine[];
  buyerIdentity: { email: string | null; phone: string | null; countryCode: string | null };
  checkoutUrl: string;
  /** a guest may check out every line (prints and downloads only); else the sign-in (intent buy) first */
  guestMayBuy: boolean;
}

export function handoffOf(
  view: CartView,
  assets: (AssetRow | null)[],
  where: { publicUrl: string; space: string },
): Handoff {
  return {
    lines: view.cost.lines.map((priced, i) => {
      const product = view.products.get(priced.variant.key)!;
      const asset = assets[i];
      return {
        sku: priced.line.sku,
        variant: priced.line.variant,
        quantity: priced.line.quantity,
        kind: priced.variant.kind,
        name: product.title,
        label: priced.variant.title,
        unit_amount: priced.variant.price,
        currency: priced.variant.currency,
        image: asset ? imageUrl(asset, where.publicUrl, where.space) : null,
        handle: product.handle,
      };
    }),
    buyerIdentity: {
      email: view.row.buyer.email ?? null,
      phone: view.row.buyer.phone ?? null,
      countryCode: view.row.buyer.countryCode ?? null,
    },
    checkoutUrl: `${where.publicUrl}/cart/c/${view.token}`,
    guestMayBuy: guestMayBuy(view.cost.lines.map((priced) => priced.variant.kind)),
  };
}
