// GET /carts/<token> (public /api/store/carts/<token> and /api/carts/<token>): the cart handoff read.
// No key: the token is the secret. Lines carry what the site's bag needs to add them as a product page
// would; unit_amount is in the currency's minor units (cents), like the payment providers take it.
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import type { StoreEnv } from "../access.ts";
import { json, notFound } from "../envelope.ts";
import { publicStoreContext } from "../graphql/context.ts";
import { readCartView } from "../graphql/carts.ts";
import { handoffOf } from "../domain/handoff.ts";
import { gid } from "../domain/ids.ts";
import { isCartToken } from "../domain/input.ts";

export function handoffHandler(ctx: FunctionContext) {
  return async (c: Context<StoreEnv>) => {
    const token = c.req.param("token") ?? "";
    if (!isCartToken(token)) throw notFound("No cart has this address.");
    const site = c.get("site");
    const store = publicStoreContext(ctx, site);
    const view = await readCartView(store, gid("Cart", token));
    if (!view) throw notFound("No cart has this address.");
    const assets = await Promise.all(
      view.cost.lines.map((l) => (l.variant.imageId ? store.loaders.asset.load(l.variant.imageId) : null)),
    );
    return json(handoffOf(view, assets, { publicUrl: ctx.config.publicUrl, space: store.space }), 200, {
      // the answer is the cart as it is now; never cached anywhere
      "cache-control": "no-store",
    });
  };
}
