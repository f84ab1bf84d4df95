// The meeting sweep: ends started meetings whose room has closed (MEETING_ENDED). The dev host runs it
// every minute; a deployment calls POST /v2/meetings/sweep with the service key on a schedule (Supabase
// cron), the same code either way.
import type { FunctionContext } from "../../shared/context.ts";
import { readSiteSettings } from "../../shared/site.ts";
import { catalogFor } from "./domain/catalog.ts";
import { sweepMeetings } from "./domain/meetings.ts";
import { outboundOf } from "./routes/common.ts";

export const SWEEP_EVERY_MS = 60_000;

export async function runMeetingSweep(ctx: FunctionContext): Promise<{ ended: number }> {
  const site = await readSiteSettings(ctx.sql);
  if (!site) return { ended: 0 };
  const catalog = await catalogFor(ctx, site);
  return {
    ended: await sweepMeetings({
      sql: ctx.sql,
      clock: ctx.clock,
      catalog,
      publicUrl: ctx.config.publicUrl,
      outbound: outboundOf(ctx),
    }),
  };
}
