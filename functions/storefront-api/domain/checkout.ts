// The bag's checkout, pure: which lines the buyer may pay for, at what prices (from the catalog now, not
// from the bag), and the checkout session to open. Who may buy (spec: Cart handoff) is `guestMayBuy`,
// the one rule both the checkout and the handoff read (so the handoff page) use. Stackable lines go up
// to the bag cap; the others stand at one.
import type { CheckoutItem } from "../../../shared/payments/types.ts";
import { BAG_CAP, type Product, type Variant, type VariantKind } from "./catalog.ts";
import { isCartToken, isCountryCode, isEmail } from "./input.ts";

/** the kinds a guest may check out: printed book formats and downloads */
const GUEST_KINDS: ReadonlySet<VariantKind> = new Set(["print", "download"]);

/**
 * Whether a guest may check out lines of these kinds (spec: Cart handoff, "a guest whose lines are print
 * and download lines only, or a signed-in person"). A good or a book read online needs a signed-in
 * person: the sign-in with intent `buy` comes first.
 */
export function guestMayBuy(kinds: Iterable<VariantKind>): boolean {
  for (const kind of kinds) if (!GUEST_KINDS.has(kind)) return false;
  return true;
}

export interface BagLine {
  sku: string;
  variant: string | null;
  quantity: number;
}

export interface ResolvedLine {
  line: BagLine;
  product: Product;
  variant: Variant;
}

export type CheckoutProblem =
  | {
    code: "INVALID_MERCHANDISE_LINE" | "QUANTITY_INVALID" | "EMPTY" | "CURRENCY_MISMATCH";
    message: string;
    line?: number;
  }
  | { code: "SIGN_IN_REQUIRED"; message: string }
  | { code: "COUNTRY_NOT_SHIPPED"; message: string };

/** Reads the bag's lines from a request body; undefined when the body is not a bag. */
function bagLinesOf(body: unknown): BagLine[] | undefined {
  const lines = (body as { lines?: unknown } | null)?.lines;
  if (!Array.isArray(lines) || lines.length > 250) return undefined;
  const out: BagLine[] = [];
  for (const l of lines) {
    if (!l || typeof l !== "object") return undefined;
    const { sku, variant, quantity } = l as Record<string, unknown>;
    if (
      typeof sku !== "string" || (variant !== undefined && variant !== null && typeof variant !== "string")
    ) return undefined;
    if (typeof quantity !== "number") return undefined;
    out.push({ sku, variant: (variant as string | null | undefined) ?? null, quantity });
  }
  return out;
}

export interface CheckoutRequest {
  lines: BagLine[];
  /** the shipping country chosen in the bag (upper case), if any */
  country: string | null;
  /** a guest's address for the receipt, if given */
  email: string | null;
  /** the handed-off cart the bag came from: done once the order is paid */
  cart: string | null;
}

/** Reads the bag's checkout request; a problem (the store's 400) when a member is not what it must be. */
export function checkoutRequestOf(
  body: unknown,
): CheckoutRequest | {
  problem: { code: "BAD_REQUEST" | "INVALID_COUNTRY" | "INVALID_EMAIL"; message: string };
} {
  const lines = bagLinesOf(body);
  if (!lines) {
    return {
      problem: {
        code: "BAD_REQUEST",
        message: "The body must be { lines: [ { sku, variant, quantity } ], country?, email? }.",
      },
    };
  }
  const { country, email, cart } = body as Record<string, unknown>;
  const given = (v: unknown) => v !== undefined && v !== null && v !== "";
  const countryCode = typeof country === "string" ? country.trim().toUpperCase() : "";
  if (given(country) && !isCountryCode(countryCode)) {
    return {
      problem: { code: "INVALID_COUNTRY", message: "country must be a two-letter country code, like DE." },
    };
  }
  const address = typeof email === "string" ? email.trim() : "";
  if (given(email) && !isEmail(address)) {
    return { problem: { code: "INVALID_EMAIL", message: "email must be a valid email address." } };
  }
  return {
    lines,
    country: given(country) ? countryCode : null,
    email: given(email) ? address : null,
    cart: typeof cart === "string" && isCartToken(cart) ? cart : null,
  };
}

export function lineKey(line: BagLine): string {
  return line.variant ? `${line.sku}/${line.variant}` : line.sku;
}

/** Checks the resolved bag; the first problem found, or undefined. */
export function checkBag(
  lines: BagLine[],
  resolved: (ResolvedLine | undefined)[],
  buyer: { signedIn: boolean; country: string | null; shipsTo: string[] },
): CheckoutProblem | undefined {
  if (lines.length === 0) return { code: "EMPTY", message: "The bag is empty." };
  for (let i = 0; i < lines.length; i++) {
    const hit = resolved[i];
    if (!hit || !hit.variant.available) {
      return { code: "INVALID_MERCHANDISE_LINE", message: `${lineKey(lines[i])} is not for sale.`, line: i };
    }
    const cap = hit.variant.stackable ? BAG_CAP : 1;
    const q = lines[i].quantity;
    if (!Number.isInteger(q) || q < 1 || q > cap) {
      return {
        code: "QUANTITY_INVALID",
        message: `The quantity of ${lineKey(lines[i])} must be 1 to ${cap}.`,
        line: i,
      };
    }
  }
  const currencies = new Set(resolved.map((r) => r!.variant.currency));
  if (currencies.size > 1) return { code: "CURRENCY_MISMATCH", message: "The bag mixes currencies." };
  if (!buyer.signedIn && !guestMayBuy(resolved.map((r) => r!.variant.kind))) {
    return {
      code: "SIGN_IN_REQUIRED",
      message: "Sign in to buy: without an account only printed books and downloads can be bought.",
    };
  }
  const ships = resolved.some((r) => r!.variant.requiresShipping);
  if (ships && buyer.country && !buyer.shipsTo.includes(buyer.country)) {
    return { code: "COUNTRY_NOT_SHIPPED", message: `The store does not ship to ${buyer.country}.` };
  }
  return undefined;
}

/** The items of the payment session, priced from the catalog. */
export function checkoutItems(
  resolved: ResolvedLine[],
  imageOf: (r: ResolvedLine) => string | undefined,
): CheckoutItem[] {
  return resolved.map((r) => ({
    name: r.variant.title === "Default Title" ? r.product.title : `${r.product.title} (${r.variant.title})`,
    sku: r.variant.key,
    quantity: r.line.quantity,
    unitAmount: r.variant.price,
    image: imageOf(r),
  }));
}

/** What the order keeps of each line: enough to fulfil it without the catalog. */
export function orderLines(resolved: ResolvedLine[]) {
  return resolved.map((r) => ({
    sku: r.variant.sku,
    variant: r.variant.tail,
    quantity: r.line.quantity,
    kind: r.variant.kind,
    handle: r.product.handle,
    name: r.product.title,
    label: r.variant.title,
    unit_amount: r.variant.price,
  }));
}
