// Money in integer minor units (cents): prices from records are decimals, providers take minor units,
// and sums of floats drift, so every amount is converted once at the edge and added as integers.

const exponents = new Map<string, number>();

/** Digits after the decimal point for a currency (EUR 2, JPY 0, BHD 3), from the platform's ICU data. */
export function currencyExponent(currency: string): number {
  const code = currency.toUpperCase();
  let digits = exponents.get(code);
  if (digits === undefined) {
    try {
      digits = new Intl.NumberFormat("en", { style: "currency", currency: code }).resolvedOptions()
        .maximumFractionDigits ?? 2;
    } catch {
      digits = 2;
    }
    exponents.set(code, digits);
  }
  return digits;
}

/**
 * A decimal amount (a number, or a numeric string as YAML may give) in minor units, rounded half away
 * from zero; undefined for anything that is not a finite, non-negative amount.
 */
export function toMinorUnits(amount: unknown, currency: string): number | undefined {
  let text: string;
  if (typeof amount === "number") {
    if (!Number.isFinite(amount)) return undefined;
    text = String(amount);
  } else if (typeof amount === "string" && /^\s*\d+(\.\d+)?\s*$/.test(amount)) text = amount.trim();
  else return undefined;
  if (text.includes("e") || text.startsWith("-")) return undefined;
  const digits = currencyExponent(currency);
  const [whole, fraction = ""] = text.split(".");
  // exact decimal arithmetic on the digits: 19.99 must be 1999, not 1998.9999
  const padded = (fraction + "0".repeat(digits + 1)).slice(0, digits + 1);
  let minor = Number(whole) * 10 ** digits + Number(padded.slice(0, digits) || "0");
  if (Number(padded[digits] ?? "0") >= 5) minor += 1;
  return Number.isSafeInteger(minor) ? minor : undefined;
}

/** Minor units as a plain decimal with all the currency's digits ("19.50", "1500"). */
export function formatMinorUnits(minor: number, currency: string): string {
  const digits = currencyExponent(currency);
  if (digits === 0) return String(minor);
  const sign = minor < 0 ? "-" : "";
  const abs = Math.abs(minor);
  const scale = 10 ** digits;
  return `${sign}${Math.floor(abs / scale)}.${String(abs % scale).padStart(digits, "0")}`;
}
