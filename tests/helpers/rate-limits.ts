// Sets a rate-limit bucket's count in one of its windows, as if that many requests had been counted there
// (the row shape is migrations/20261126008000_rate_limit_buckets.sql; the counting, shared/gate.ts).
import type { Db } from "../../shared/db.ts";
import type { RateWindow } from "../../shared/gate.ts";

/**
 * `windows` are the API's own, in the order it admits with: the row's counts follow that order. Close to
 * the end of the window (under two seconds left) it first waits for the next one, so the request the test
 * makes next still falls in the window filled.
 */
export async function fillWindow(db: Db, bucket: string, windows: RateWindow[], seconds: number, hits: number) {
  const lengths = windows.map((w) => w.seconds);
  if (!lengths.includes(seconds)) throw new Error(`no window of ${seconds} s among ${lengths.join(", ")}`);
  const leftMs = seconds * 1000 - (Date.now() % (seconds * 1000));
  if (seconds > 2 && leftMs < 2000) await new Promise((resolve) => setTimeout(resolve, leftMs + 10));
  const now = Math.floor(Date.now() / 1000);
  const expires = Math.max(...lengths.map((w) => Math.floor(now / w) * w + w));
  const counts = lengths.map((w) => (w === seconds ? hits : 0));
  await db`insert into public.rate_limit_buckets (bucket, windows, hits, counted_at, expires_at)
    values (${bucket}, ${`{${lengths.join(",")}}`}, ${`{${counts.join(",")}}`}, ${now}, ${expires})
    on conflict (bucket) do update set windows = excluded.windows, hits = excluded.hits,
      counted_at = excluded.counted_at, expires_at = excluded.expires_at`;
}
