// POST /v2/meetings/sweep: the scheduled job's door (service key only); answers how many meetings ended.
import type { Context } from "hono";
import type { FunctionContext } from "../../../shared/context.ts";
import { presentsServiceKey } from "../../../shared/service-key.ts";
import type { SchedulingEnv } from "../access.ts";
import { SchedulingError, success } from "../envelope.ts";
import { runMeetingSweep } from "../sweep.ts";

export function sweepHandler(ctx: FunctionContext) {
  return async (c: Context<SchedulingEnv>) => {
    if (!(await presentsServiceKey(ctx, c.req.raw))) {
      throw new SchedulingError("UNAUTHORIZED", "The sweep needs the service key.");
    }
    return success(c, await runMeetingSweep(ctx));
  };
}
