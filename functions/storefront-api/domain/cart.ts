// Cart rules (spec: Store API, cart rules 1-7), pure: the stored cart and a mutation's input in, the new
// stored cart and the userErrors/warnings out. Prices are never stored; cost() recomputes them from the
// catalog on every read. A mutation with any userError changes nothing (the payload answers the cart as
// it was, with the errors).
import { randomBase62 } from "../../../shared/ids.ts";
import { BAG_CAP, type Variant } from "./catalog.ts";
import { gid, idOf } from "./ids.ts";
import { isEmail } from "./input.ts";

/** Limits that keep one cart from growing without bound (Shopify's own are similar). */
export const CART_LIMITS = {
  lines: 250,
  attributes: 250,
  keyLength: 255,
  valueLength: 5000,
  noteLength: 5000,
};

export type CartErrorCode = "INVALID" | "INVALID_MERCHANDISE_LINE" | "QUANTITY_MUST_BE_POSITIVE";

export interface CartUserError {
  code: CartErrorCode;
  field: string[];
  message: string;
}

export interface CartWarning {
  code: "MERCHANDISE_NOT_ENOUGH_STOCK";
  message: string;
  target: string;
}

export interface Attribute {
  key: string;
  value: string;
}

export interface StoredLine {
  /** the line's own id (the tail of gid://shopify/CartLine/...) */
  id: string;
  sku: string;
  /** the variant tail after the sku, if any */
  variant: string | null;
  quantity: number;
  attributes: Attribute[];
}

export interface Buyer {
  email?: string | null;
  phone?: string | null;
  countryCode?: string | null;
}

export interface CartState {
  lines: StoredLine[];
  buyer: Buyer;
  attributes: Attribute[];
  note: string | null;
}

export interface Outcome {
  state: CartState;
  userErrors: CartUserError[];
  warnings: CartWarning[];
}

export const emptyCart = (): CartState => ({ lines: [], buyer: {}, attributes: [], note: null });

/** The variant key a line stands for (`<sku>` or `<sku>/<tail>`), as in ProductVariant gids. */
export const lineKey = (
  line: Pick<StoredLine, "sku" | "variant">,
) => (line.variant ? `${line.sku}/${line.variant}` : line.sku);

/** Resolves a merchandiseId to a sellable variant (loaded by the caller before the rules run). */
export type Merchandise = (merchandiseId: string) => Variant | undefined;

export interface LineInput {
  merchandiseId: string;
  quantity?: number | null;
  attributes?: Attribute[] | null;
}

export interface LineUpdateInput {
  id: string;
  quantity?: number | null;
  merchandiseId?: string | null;
  attributes?: Attribute[] | null;
}

const sameAttributes = (a: Attribute[], b: Attribute[]) =>
  a.length === b.length && a.every((x, i) => x.key === b[i].key && x.value === b[i].value);

function checkAttributes(attributes: Attribute[], field: string[], errors: CartUserError[]) {
  if (attributes.length > CART_LIMITS.attributes) {
    errors.push({ code: "INVALID", field, message: `At most ${CART_LIMITS.attributes} attributes.` });
  }
  attributes.forEach((a, i) => {
    if (
      a.key.trim() === "" || a.key.length > CART_LIMITS.keyLength || a.value.length > CART_LIMITS.valueLength
    ) {
      errors.push({
        code: "INVALID",
        field: [...field, String(i)],
        message:
          `An attribute key must be 1 to ${CART_LIMITS.keyLength} characters and a value at most ${CART_LIMITS.valueLength}.`,
      });
    }
  });
}

/** The quantity a line may hold: up to the bag cap when stackable, else exactly one (rule 2). */
function allowed(variant: Variant, wanted: number, warnings: CartWarning[], target: string): number {
  const cap = variant.stackable ? BAG_CAP : 1;
  if (wanted <= cap) return wanted;
  warnings.push({
    code: "MERCHANDISE_NOT_ENOUGH_STOCK",
    message: variant.stackable
      ? `The quantity of ${variant.sku} was capped at ${BAG_CAP}.`
      : `${variant.sku} is bought once; the quantity stays at 1.`,
    target,
  });
  return cap;
}

function currencyConflict(
  state: CartState,
  variant: Variant,
  resolve: (line: StoredLine) => Variant | undefined,
) {
  return state.lines.some((line) => {
    const other = resolve(line);
    return other !== undefined && other.currency !== variant.currency;
  });
}

export function addLines(
  current: CartState,
  inputs: LineInput[],
  merchandise: Merchandise,
  resolveLine: (line: StoredLine) => Variant | undefined,
): Outcome {
  const errors: CartUserError[] = [];
  const warnings: CartWarning[] = [];
  const state: CartState = { ...current, lines: current.lines.map((l) => ({ ...l })) };
  // lines added by this call count for the currency rule too
  const added = new Map<string, Variant>();
  const resolve = (line: StoredLine) => resolveLine(line) ?? added.get(lineKey(line));
  inputs.forEach((input, i) => {
    const quantity = input.quantity ?? 1;
    const variant = merchandise(input.merchandiseId);
    const attributes = input.attributes ?? [];
    if (!variant) {
      errors.push({
        code: "INVALID_MERCHANDISE_LINE",
        field: ["lines", String(i), "merchandiseId"],
        message: `The merchandise with id ${input.merchandiseId} does not exist.`,
      });
      return;
    }
    if (!variant.available) {
      errors.push({
        code: "INVALID_MERCHANDISE_LINE",
        field: ["lines", String(i), "merchandiseId"],
        message: `The merchandise with id ${input.merchandiseId} is not available for sale.`,
      });
      return;
    }
    if (!Number.isInteger(quantity) || quantity <= 0) {
      errors.push({
        code: "QUANTITY_MUST_BE_POSITIVE",
        field: ["lines", String(i), "quantity"],
        message: "The quantity must be a positive integer.",
      });
      return;
    }
    checkAttributes(attributes, ["lines", String(i), "attributes"], errors);
    if (currencyConflict(state, variant, resolve)) {
      errors.push({
        code: "INVALID_MERCHANDISE_LINE",
        field: ["lines", String(i), "merchandiseId"],
        message: `The merchandise is priced in ${variant.currency}, the cart's lines in another currency.`,
      });
      return;
    }
    added.set(variant.key, variant);
    // the same merchandise with the same attributes joins its line, so the cap applies to the total
    const existing = state.lines.find((l) =>
      lineKey(l) === variant.key && sameAttributes(l.attributes, attributes)
    );
    if (existing) {
      existing.quantity = allowed(
        variant,
        existing.quantity + quantity,
        warnings,
        gid("CartLine", existing.id),
      );
    } else {
      const id = randomBase62(20);
      state.lines.push({
        id,
        sku: variant.sku,
        variant: variant.tail,
        quantity: allowed(variant, quantity, warnings, gid("CartLine", id)),
        attributes,
      });
    }
  });
  if (state.lines.length > CART_LIMITS.lines) {
    errors.push({
      code: "INVALID",
      field: ["lines"],
      message: `A cart holds at most ${CART_LIMITS.lines} lines.`,
    });
  }
  return errors.length
    ? { state: current, userErrors: errors, warnings: [] }
    : { state, userErrors: [], warnings };
}

export function updateLines(
  current: CartState,
  inputs: LineUpdateInput[],
  merchandise: Merchandise,
  resolveLine: (line: StoredLine) => Variant | undefined,
): Outcome {
  const errors: CartUserError[] = [];
  const warnings: CartWarning[] = [];
  let lines = current.lines.map((l) => ({ ...l }));
  const removed = new Set<string>();
  // merchandise lines are changed to by this call, known to the merge below
  const swapped = new Map<string, Variant>();
  const resolve = (line: StoredLine) => resolveLine(line) ?? swapped.get(lineKey(line));
  inputs.forEach((input, i) => {
    const lineId = idOf(input.id, "CartLine");
    const line = lines.find((l) => l.id === lineId);
    if (!line || removed.has(line.id)) {
      errors.push({
        code: "INVALID_MERCHANDISE_LINE",
        field: ["lines", String(i), "id"],
        message: `The cart line with id ${input.id} does not exist.`,
      });
      return;
    }
    let variant = resolve(line);
    if (input.merchandiseId !== undefined && input.merchandiseId !== null) {
      variant = merchandise(input.merchandiseId);
      if (!variant || !variant.available) {
        errors.push({
          code: "INVALID_MERCHANDISE_LINE",
          field: ["lines", String(i), "merchandiseId"],
          message: `The merchandise with id ${input.merchandiseId} does not exist or is not for sale.`,
        });
        return;
      }
      line.sku = variant.sku;
      line.variant = variant.tail;
      swapped.set(variant.key, variant);
    }
    if (input.attributes) {
      checkAttributes(input.attributes, ["lines", String(i), "attributes"], errors);
      line.attributes = input.attributes;
    }
    if (input.quantity !== undefined && input.quantity !== null) {
      if (!Number.isInteger(input.quantity) || input.quantity < 0) {
        errors.push({
          code: "QUANTITY_MUST_BE_POSITIVE",
          field: ["lines", String(i), "quantity"],
          message: "The quantity must be zero (to remove the line) or a positive integer.",
        });
        return;
      }
      // rule 3: quantity 0 removes the line
      if (input.quantity === 0) {
        removed.add(line.id);
        return;
      }
      line.quantity = input.quantity;
    }
    if (variant) line.quantity = allowed(variant, line.quantity, warnings, gid("CartLine", line.id));
  });
  lines = lines.filter((l) => !removed.has(l.id));
  if (errors.length) return { state: current, userErrors: errors, warnings: [] };
  return { state: { ...current, lines: mergeSameLines(lines, resolve, warnings) }, userErrors: [], warnings };
}

/**
 * A line changed to the merchandise and attributes of another joins that other (the earlier one keeps its
 * id), as cartLinesAdd joins them: so the bag cap, and one read-online or download line, hold per
 * merchandise whichever mutation made the lines alike (rule 2).
 */
function mergeSameLines(
  lines: StoredLine[],
  resolveLine: (line: StoredLine) => Variant | undefined,
  warnings: CartWarning[],
): StoredLine[] {
  const kept: StoredLine[] = [];
  for (const line of lines) {
    const same = kept.find((k) =>
      lineKey(k) === lineKey(line) && sameAttributes(k.attributes, line.attributes)
    );
    if (!same) {
      kept.push(line);
      continue;
    }
    const variant = resolveLine(same);
    same.quantity = variant
      ? allowed(variant, same.quantity + line.quantity, warnings, gid("CartLine", same.id))
      : same.quantity + line.quantity;
  }
  return kept;
}

export function removeLines(current: CartState, lineIds: string[]): Outcome {
  const errors: CartUserError[] = [];
  const ids = new Set<string>();
  lineIds.forEach((value, i) => {
    const id = idOf(value, "CartLine");
    if (!id || !current.lines.some((l) => l.id === id)) {
      errors.push({
        code: "INVALID_MERCHANDISE_LINE",
        field: ["lineIds", String(i)],
        message: `The cart line with id ${value} does not exist.`,
      });
    } else ids.add(id);
  });
  if (errors.length) return { state: current, userErrors: errors, warnings: [] };
  return {
    state: { ...current, lines: current.lines.filter((l) => !ids.has(l.id)) },
    userErrors: [],
    warnings: [],
  };
}

const PHONE = /^\+[1-9][0-9]{6,14}$/;

/** Rule 4: the buyer identity keeps email, phone and countryCode; a given field replaces, null clears. */
export function updateBuyer(current: CartState, input: Buyer, field: string[] = ["buyerIdentity"]): Outcome {
  const errors: CartUserError[] = [];
  const buyer: Buyer = { ...current.buyer };
  if (input.email !== undefined) {
    if (input.email !== null && !isEmail(input.email.trim())) {
      errors.push({ code: "INVALID", field: [...field, "email"], message: "Email is invalid." });
    }
    buyer.email = input.email ? input.email.trim() : null;
  }
  if (input.phone !== undefined) {
    const phone = input.phone?.replace(/[\s().-]/g, "") ?? null;
    if (phone !== null && !PHONE.test(phone)) {
      errors.push({
        code: "INVALID",
        field: [...field, "phone"],
        message: "Phone must be in E.164 format, like +4915112345678.",
      });
    }
    buyer.phone = phone;
  }
  if (input.countryCode !== undefined) buyer.countryCode = input.countryCode;
  if (errors.length) return { state: current, userErrors: errors, warnings: [] };
  return { state: { ...current, buyer }, userErrors: [], warnings: [] };
}

/** cartAttributesUpdate: the given attributes replace the cart's. */
export function updateAttributes(
  current: CartState,
  attributes: Attribute[],
  field = ["attributes"],
): Outcome {
  const errors: CartUserError[] = [];
  checkAttributes(attributes, field, errors);
  if (errors.length) return { state: current, userErrors: errors, warnings: [] };
  return { state: { ...current, attributes }, userErrors: [], warnings: [] };
}

export function updateNote(current: CartState, note: string | null | undefined, field = ["note"]): Outcome {
  if (note && note.length > CART_LIMITS.noteLength) {
    return {
      state: current,
      userErrors: [{
        code: "INVALID",
        field,
        message: `A note is at most ${CART_LIMITS.noteLength} characters.`,
      }],
      warnings: [],
    };
  }
  return { state: { ...current, note: note ?? null }, userErrors: [], warnings: [] };
}

export interface PricedLine {
  line: StoredLine;
  variant: Variant;
  /** minor units */
  subtotal: number;
}

export interface CartCost {
  currency: string;
  subtotal: number;
  total: number;
  quantity: number;
  lines: PricedLine[];
}

/**
 * Rule 6: cost from the catalog as it is now. Lines whose merchandise left the catalog are not part of
 * the cart's answer (they can no longer be bought) but stay stored should it come back.
 */
export function cost(
  state: CartState,
  resolveLine: (line: StoredLine) => Variant | undefined,
  shopCurrency: string,
): CartCost {
  const lines: PricedLine[] = [];
  for (const line of state.lines) {
    const variant = resolveLine(line);
    if (variant) lines.push({ line, variant, subtotal: variant.price * line.quantity });
  }
  const subtotal = lines.reduce((sum, l) => sum + l.subtotal, 0);
  return {
    currency: lines[0]?.variant.currency ?? shopCurrency,
    subtotal,
    total: subtotal,
    quantity: lines.reduce((sum, l) => sum + l.line.quantity, 0),
    lines,
  };
}
