// Cart operations behind the GraphQL mutations and the handoff route: load a cart with its lines priced
// from the catalog as it is now, and run each mutation in one transaction holding the cart's row lock.
import { randomBase62 } from "../../../shared/ids.ts";
import type { Db } from "../../../shared/db.ts";
import { type Product, type Variant, variantByKey } from "../domain/catalog.ts";
import {
  addLines,
  type Attribute,
  type Buyer,
  type CartCost,
  type CartState,
  type CartUserError,
  type CartWarning,
  cost,
  emptyCart,
  type LineInput,
  lineKey,
  type LineUpdateInput,
  type Outcome,
  removeLines,
  type StoredLine,
  updateAttributes,
  updateBuyer,
  updateLines,
  updateNote,
} from "../domain/cart.ts";
import { idOf } from "../domain/ids.ts";
import * as cartStore from "../store/carts.ts";
import * as catalogStore from "../store/catalog.ts";
import { type StoreContext, variantOf } from "./context.ts";

export interface CartView {
  token: string;
  row: cartStore.CartRow;
  cost: CartCost;
  /** variant key -> its product, for CartLine.merchandise.product */
  products: Map<string, Product>;
  /** discount codes just tried (the site has none: each answers applicable false) */
  discountCodes?: string[];
}

export interface CartPayload {
  cart: CartView | null;
  userErrors: CartUserError[];
  warnings: CartWarning[];
}

/** The variants of a cart's lines, loaded in one batch. */
async function resolveLines(ctx: StoreContext, lines: StoredLine[]) {
  const found = new Map<string, { product: Product; variant: Variant }>();
  await Promise.all(lines.map(async (line) => {
    const hit = await variantOf(ctx, lineKey(line));
    if (hit) found.set(lineKey(line), hit);
  }));
  return found;
}

async function merchandiseOf(ctx: StoreContext, ids: string[]) {
  const found = new Map<string, Variant>();
  await Promise.all(ids.map(async (id) => {
    const key = idOf(id, "ProductVariant");
    const hit = key ? await variantOf(ctx, key) : undefined;
    if (hit) found.set(id, hit.variant);
  }));
  return found;
}

export async function viewOf(ctx: StoreContext, row: cartStore.CartRow): Promise<CartView> {
  const resolved = await resolveLines(ctx, row.lines);
  const shop = await ctx.shop();
  const products = new Map([...resolved].map(([key, hit]) => [key, hit.product]));
  return {
    token: row.id,
    row,
    products,
    cost: cost(cartStore.stateOf(row), (line) => resolved.get(lineKey(line))?.variant, shop.currency),
  };
}

/** each cart row of a request is priced once, however many aliases read it */
const views = new WeakMap<cartStore.CartRow, Promise<CartView>>();

/** A cart as it is now (rule 7: null for an unknown token); the reads of one request share one query. */
export async function readCartView(ctx: StoreContext, cartId: string): Promise<CartView | null> {
  const token = idOf(cartId, "Cart");
  const row = token ? await ctx.loaders.cart.load(token) : null;
  if (!row) return null;
  let view = views.get(row);
  if (!view) views.set(row, view = viewOf(ctx, row));
  return await view;
}

const unknownCart = (): CartPayload => ({
  cart: null,
  userErrors: [{ code: "INVALID", field: ["cartId"], message: "The specified cart does not exist." }],
  warnings: [],
});

/**
 * Runs one cart mutation under the cart's row lock (spec rule 7 for an unknown cart). Everything the
 * rules need from the catalog is read on the transaction's own connection or before it begins: a
 * mutation waiting for a second pool connection while holding the first could starve the pool.
 */
async function mutate(
  ctx: StoreContext,
  cartId: string,
  merchandiseIds: string[],
  rule: (
    state: CartState,
    merchandise: Map<string, Variant>,
    lines: (line: StoredLine) => Variant | undefined,
  ) => Outcome,
): Promise<CartPayload> {
  const token = idOf(cartId, "Cart");
  if (!token) return unknownCart();
  // the catalog is read outside the lock: carts never change it
  const merchandise = await merchandiseOf(ctx, merchandiseIds);
  await ctx.catalog();
  let outcome: Outcome | undefined;
  // a later read in the same request must see this change
  ctx.loaders.cart.clear(token);
  const changed = await cartStore.changeCart(ctx.sql, token, ctx.clock.now(), async (row, tx) => {
    const resolved = await variantsOnConnection(ctx, tx, row.lines);
    outcome = rule(cartStore.stateOf(row), merchandise, (line) => resolved.get(lineKey(line)));
    return { state: outcome.userErrors.length ? undefined : outcome.state };
  });
  if (!changed || !outcome) return unknownCart();
  return { cart: await viewOf(ctx, changed.row), userErrors: outcome.userErrors, warnings: outcome.warnings };
}

/** The variants of stored lines, read with the given connection (one query). */
async function variantsOnConnection(ctx: StoreContext, db: Db, lines: StoredLine[]) {
  const found = new Map<string, Variant>();
  const rows = await catalogStore.productsByNames(db, [...new Set(lines.map((l) => l.sku))]);
  for (const line of lines) {
    const row = rows.find((r) => r.names.includes(line.sku));
    const variant = row ? variantByKey(await ctx.product(row), lineKey(line)) : undefined;
    if (variant) found.set(lineKey(line), variant);
  }
  return found;
}

export interface CartInput {
  lines?: LineInput[] | null;
  attributes?: Attribute[] | null;
  note?: string | null;
  buyerIdentity?: Buyer | null;
  discountCodes?: string[] | null;
}

const within = (prefix: string[], outcome: Outcome): CartUserError[] =>
  outcome.userErrors.map((e) => ({ ...e, field: [...prefix, ...e.field] }));

export async function createCart(
  ctx: StoreContext,
  input: CartInput | null | undefined,
): Promise<CartPayload> {
  const lines = input?.lines ?? [];
  const merchandise = await merchandiseOf(ctx, lines.map((l) => l.merchandiseId));
  let state = emptyCart();
  const errors: CartUserError[] = [];
  const warnings: CartWarning[] = [];
  const steps: [string[], (s: CartState) => Outcome][] = [
    [["input"], (s) => addLines(s, lines, (id) => merchandise.get(id), () => undefined)],
    [["input"], (s) => updateAttributes(s, input?.attributes ?? [])],
    [["input"], (s) => updateNote(s, input?.note)],
    [["input"], (s) => updateBuyer(s, pickBuyer(input?.buyerIdentity))],
  ];
  for (const [prefix, step] of steps) {
    const outcome = step(state);
    errors.push(...within(prefix, outcome));
    warnings.push(...outcome.warnings);
    state = outcome.state;
  }
  if (errors.length) return { cart: null, userErrors: errors, warnings: [] };
  const row = await cartStore.insertCart(ctx.sql, randomBase62(32), state, ctx.keyId, ctx.clock.now());
  const view = await viewOf(ctx, row);
  if (input?.discountCodes?.length) view.discountCodes = input.discountCodes;
  return { cart: view, userErrors: [], warnings };
}

/** Rule 4: only email, phone and countryCode are kept (delivery preferences are accepted and dropped). */
function pickBuyer(input: Buyer | null | undefined): Buyer {
  if (!input) return {};
  const buyer: Buyer = {};
  if (input.email !== undefined) buyer.email = input.email;
  if (input.phone !== undefined) buyer.phone = input.phone;
  if (input.countryCode !== undefined) buyer.countryCode = input.countryCode;
  return buyer;
}

export const linesAdd = (ctx: StoreContext, cartId: string, lines: LineInput[]) =>
  mutate(
    ctx,
    cartId,
    lines.map((l) => l.merchandiseId),
    (state, m, resolve) => addLines(state, lines, (id) => m.get(id), resolve),
  );

export const linesUpdate = (ctx: StoreContext, cartId: string, lines: LineUpdateInput[]) =>
  mutate(
    ctx,
    cartId,
    lines.flatMap((l) => (l.merchandiseId ? [l.merchandiseId] : [])),
    (state, m, resolve) => updateLines(state, lines, (id) => m.get(id), resolve),
  );

export const linesRemove = (ctx: StoreContext, cartId: string, lineIds: string[]) =>
  mutate(ctx, cartId, [], (state) => removeLines(state, lineIds));

export const buyerIdentityUpdate = (ctx: StoreContext, cartId: string, buyer: Buyer) =>
  mutate(ctx, cartId, [], (state) => updateBuyer(state, pickBuyer(buyer)));

export const attributesUpdate = (ctx: StoreContext, cartId: string, attributes: Attribute[]) =>
  mutate(ctx, cartId, [], (state) => updateAttributes(state, attributes));

export const noteUpdate = (ctx: StoreContext, cartId: string, note: string | null | undefined) =>
  mutate(ctx, cartId, [], (state) => updateNote(state, note));

/** Discount codes and gift cards: the site has neither; the cart answers unchanged. */
export async function unchanged(
  ctx: StoreContext,
  cartId: string,
  extra: Partial<CartPayload> & { discountCodes?: string[] } = {},
) {
  const view = await readCartView(ctx, cartId);
  if (!view) return unknownCart();
  // a copy: the view itself is shared by every read of this cart in the request
  const cart = extra.discountCodes ? { ...view, discountCodes: extra.discountCodes } : view;
  return { cart, userErrors: [], warnings: extra.warnings ?? [] };
}
