// The desk's hourly guards (new guests per address, new threads per contact), counted with the site's
// shared rate-limit counters (one round trip, every instance alike).
import type { Db } from "../../../shared/db.ts";

/** Counts one hit of `bucket` in its window; answers whether it is over `limit` and when the window ends. */
export async function countGuard(
  db: Db,
  bucket: string,
  window: { seconds: number; limit: number },
  now: Date,
): Promise<{ exceeded: boolean; retryAfter: number }> {
  const [row] = await db<{ hits: number; window_start: Date }[]>`
    select hits, window_start from public.rate_limit_hit(${bucket}, ${[window.seconds]}::int[], ${now})`;
  const ends = new Date(row.window_start).getTime() + window.seconds * 1000;
  return { exceeded: row.hits > window.limit, retryAfter: Math.max(1, Math.ceil((ends - now.getTime()) / 1000)) };
}
