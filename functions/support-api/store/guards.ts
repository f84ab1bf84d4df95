// The desk's hourly guards (new guests per address, new threads per contact), counted with the site's
// shared rate-limit counters (shared/gate.ts: one round trip, every instance alike).
import type { Db } from "../../../shared/db.ts";
import { countHits } from "../../../shared/gate.ts";

/** Counts one hit of `bucket` in its window; answers whether it is over `limit` and when the window ends. */
export async function countGuard(
  db: Db,
  bucket: string,
  window: { seconds: number; limit: number },
  now: Date,
): Promise<{ exceeded: boolean; retryAfter: number }> {
  const [count] = await countHits(db, bucket, [window.seconds], now);
  return { exceeded: count.hits > window.limit, retryAfter: count.resetIn };
}
