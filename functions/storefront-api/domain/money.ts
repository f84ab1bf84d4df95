// MoneyV2 on the wire. Shopify prints Decimal amounts with at least one decimal and no trailing zero
// after it ("25.0", "19.5", "12.55"); shopify-buy's checkout mapping breaks on "25.00", so we print the same.
import { currencyExponent } from "../../../shared/payments/money.ts";

export interface MoneyV2 {
  amount: string;
  currencyCode: string;
}

/**
 * Decimal texts made so far, per currency: a catalog has few distinct prices and a page of products
 * prints one per variant and two per product (a string, a padding and a regex replacement each).
 */
const texts = new Map<string, Map<number, string>>();
/** bounds on the currencies and on each one's texts (a map starts again when it is full) */
const KEPT_CURRENCIES = 64;
const KEPT_TEXTS = 4096;

/** Minor units as Shopify's Decimal text. */
export function decimalText(minor: number, currency: string): string {
  let made = texts.get(currency);
  if (!made) {
    if (texts.size >= KEPT_CURRENCIES) texts.clear();
    texts.set(currency, made = new Map());
  }
  let text = made.get(minor);
  if (text === undefined) {
    if (made.size >= KEPT_TEXTS) made.clear();
    made.set(minor, text = decimalTextOf(minor, currency));
  }
  return text;
}

function decimalTextOf(minor: number, currency: string): string {
  const digits = currencyExponent(currency);
  const scale = 10 ** digits;
  const sign = minor < 0 ? "-" : "";
  const abs = Math.abs(minor);
  const whole = Math.floor(abs / scale);
  const fraction = digits ? String(abs % scale).padStart(digits, "0").replace(/0+$/, "") : "";
  return `${sign}${whole}.${fraction || "0"}`;
}

export function money(minor: number, currency: string): MoneyV2 {
  return { amount: decimalText(minor, currency), currencyCode: currency };
}
