// POST /sign-in (public /api/store/sign-in): the sign-in with intent `buy` the bag opens when a line
// needs an account. It sends a one-time sign-in link to the address: through Supabase Auth's magic link
// where the site runs on Supabase; in the embedded default there is no mail, so the link is written to
// the host's log (the stand-in for the mailbox). The link returns to `next` with the session in its
// fragment (#access_token=...), as Supabase's links do, and the bag picks it up. Never answers the link.
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { ensurePerson, mintPersonJwt } from "../../../shared/people.ts";
import type { StoreEnv } from "../access.ts";
import { badRequest, json, jsonBody, StoreError } from "../envelope.ts";
import { isEmail } from "../domain/input.ts";

/** a link's session lasts an hour, like Supabase's default access token */
const LINK_LIFETIME_SECONDS = 3600;

export function signInHandler(
  ctx: FunctionContext,
  log: (line: string) => void = (line) => console.log(line),
) {
  return async (c: Context<StoreEnv>) => {
    const body = await jsonBody(c.req.raw);
    const email = typeof body?.email === "string" ? body.email.trim().toLowerCase() : "";
    if (!isEmail(email)) {
      throw badRequest("A valid email address is needed.", "INVALID_EMAIL");
    }
    // only a path on this site: the link must not send anyone elsewhere
    const next = typeof body?.next === "string" && /^\/(?!\/)/.test(body.next)
      ? body.next
      : "/cart?intent=buy";
    const returnTo = `${ctx.config.publicUrl}${next}`;

    if (ctx.config.supabaseUrl && ctx.config.supabaseServiceRoleKey) {
      const response = await fetch(
        `${ctx.config.supabaseUrl.replace(/\/$/, "")}/auth/v1/otp?redirect_to=${
          encodeURIComponent(returnTo)
        }`,
        {
          method: "POST",
          headers: {
            apikey: ctx.config.supabaseServiceRoleKey,
            authorization: `Bearer ${ctx.config.supabaseServiceRoleKey}`,
            "content-type": "application/json",
          },
          body: JSON.stringify({ email, create_user: true }),
          signal: AbortSignal.timeout(10_000),
        },
      ).catch(() => undefined);
      if (!response?.ok) {
        throw new StoreError(502, "The sign-in link could not be sent. Try again.", "SIGN_IN_UNAVAILABLE");
      }
      await response.body?.cancel();
    } else {
      const person = await ensurePerson(ctx.sql, email);
      const token = await mintPersonJwt(await ctx.secrets.get("jwt"), person, LINK_LIFETIME_SECONDS);
      log(`sign-in link for ${email}: ${returnTo}#access_token=${token}&token_type=bearer&type=magiclink`);
    }
    return json({ sent: true, intent: body?.intent === "buy" ? "buy" : undefined }, 202);
  };
}
