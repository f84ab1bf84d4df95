// POST /repository/push: the repository push for a deployment whose content function runs beside the
// site's content directory (a host of its own, not a Supabase edge function, which has no lasting file
// system): a scheduler calls it, as pg_cron calls /webhooks/deliver, and it runs what is due with the
// same code as the dev host's worker (shared/site/push.ts). Service key only.
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { presentsServiceKey } from "../../../shared/service-key.ts";
import { pushDue } from "../../../shared/site/push.ts";
import { ContentError } from "../envelope.ts";

/** Pushes one call may run, one after another: a backlog beyond waits for the next call. */
export const PUSHES_PER_CALL = 50;

export function repositoryPushHandler(ctx: FunctionContext) {
  return async (c: Context) => {
    if (!(await presentsServiceKey(ctx, c.req.raw))) {
      throw new ContentError("AccessTokenInvalid", "The repository push needs the service key.");
    }
    return c.json(await pushDue(ctx, PUSHES_PER_CALL), 200);
  };
}
