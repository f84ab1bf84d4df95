// The service key: what scheduled jobs (sweeps) and the database's own calls present as a bearer token.
// SUPABASE_SERVICE_ROLE_KEY where the site runs on Supabase (what its scheduler sends), else the
// `service_key` secret the site keeps in site_secrets (made once, at random).
import type { FunctionContext } from "./context.ts";
import { presentedToken } from "./gate.ts";
import { timingSafeEqual } from "./ids.ts";

export async function serviceKey(ctx: Pick<FunctionContext, "config" | "secrets">): Promise<string> {
  return ctx.config.supabaseServiceRoleKey || await ctx.secrets.get("service_key");
}

/** Whether the request carries the service key (as `Authorization: Bearer` or `?access_token=`). */
export async function presentsServiceKey(
  ctx: Pick<FunctionContext, "config" | "secrets">,
  request: Request,
): Promise<boolean> {
  const token = presentedToken(request);
  return Boolean(token) && timingSafeEqual(token!, await serviceKey(ctx));
}
