// Event types' SQL: the published session records the catalogue is built from.
import type { Db } from "../../../shared/db.ts";
import type { SessionEntry } from "../domain/event-types.ts";

export async function loadSessionEntries(db: Db): Promise<SessionEntry[]> {
  return await db<SessionEntry[]>`
    select id, fields from public.content_entries
     where stage = 'published' and model_id = 'session'
     order by id`;
}
