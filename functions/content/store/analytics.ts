// The analytics area's SQL: events are written in one statement per request, whatever the batch size
// (one JSON parameter, so no bound on the number of rows); an event whose uuid is already stored (a
// client's retry) is skipped.
import type { Db } from "../../../shared/db.ts";
import type { CapturedEvent } from "../analytics/events.ts";

/** Stores the events; answers how many were new. */
export async function storeEvents(db: Db, events: CapturedEvent[], ip: string | null): Promise<number> {
  if (!events.length) return 0;
  const rows = events.map((e) => ({ ...e, ip }));
  const result = await db`
    insert into public.analytics_events (uuid, event, distinct_id, properties, "timestamp", sent_at, ip)
    select r.uuid, r.event, r.distinct_id, r.properties, r."timestamp", r.sent_at, r.ip
    from jsonb_to_recordset(${db.json(rows as never)}::jsonb) as r(
      uuid uuid, event text, distinct_id text, properties jsonb, "timestamp" timestamptz, sent_at timestamptz, ip text)
    on conflict (uuid) do nothing`;
  return result.count;
}
